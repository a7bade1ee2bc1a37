"""The export's integrity, before any rule is replayed: every event's envelope and place, the
revealed seed against its commitment, and the hash chain (``domain.chain``). Public: a tournament's
bundle checks its own events with them (``domain/tournament/bundle.py``)."""
from __future__ import annotations

import json
import re
from typing import Any, Mapping

from . import chain
from .audit_report import Failed
from .export_reader import Pause, idle
from .shuffle import seed_commitment
from .table import FINAL_EVENT
from .upcast import UnknownVersion, upcast

ENVELOPE = ("seq", "type", "v", "at", "actor", "visibility", "data", "hash")
HEX64 = re.compile(r"[0-9a-f]{64}")


def check_envelopes(events: list[Mapping[str, Any]], pause: Pause = idle) -> list[dict]:
    out = []
    for index, raw in enumerate(events):
        pause()
        place, line = index + 1, index + 2
        missing = [key for key in ENVELOPE if key not in raw]
        if missing:
            raise Failed(raw.get("seq", place), f"line {line} lacks {missing}")
        if raw["seq"] != place:
            if isinstance(raw["seq"], int) and raw["seq"] > place:
                raise Failed(place, f"is missing or out of order: line {line} holds event {raw['seq']} where "
                                    f"event {place} belongs")
            raise Failed(place, f"is out of order: line {line} holds seq {raw['seq']!r} where event {place} belongs")
        shapes = (("type", str, "a string"), ("at", str, "a string"), ("data", dict, "an object"),
                  ("visibility", dict, "an object"))
        for key, kind, what in shapes:
            if not isinstance(raw[key], kind):
                raise Failed(place, f"line {line}: {key} is {json.dumps(raw[key])}, not {what}")
        if raw["actor"] != "system" and (isinstance(raw["actor"], bool) or not isinstance(raw["actor"], int)):
            raise Failed(place, f"line {line}: actor is {json.dumps(raw['actor'])}, not a seat number or \"system\"")
        if raw.get("redacted"):
            raise Failed(place, "is redacted: the export was made while the game ran, for one seat; "
                                "only a finished game's export holds every card")
        try:
            version, data = upcast(raw["type"], raw["v"], raw["data"])
        except UnknownVersion as exc:
            raise Failed(place, str(exc)) from None
        out.append({**raw, "upcast_v": version, "upcast_data": data})
    if not out:
        raise Failed(None, "the export holds no events")
    return out


def check_seed(events: list[dict]) -> str:
    last = events[-1]
    if last["type"] != FINAL_EVENT:
        raise Failed(last["seq"], f"the game has not finished: its last event is {last['type']}, not {FINAL_EVENT}")
    seed_hex = last["data"].get("seed")
    if not isinstance(seed_hex, str) or not HEX64.fullmatch(seed_hex):
        raise Failed(last["seq"], "SeedRevealed holds no 32-byte hex seed")
    first = events[0]
    if first["type"] != "GameCreated":
        raise Failed(1, f"is {first['type']}, not GameCreated")
    if seed_commitment(bytes.fromhex(seed_hex)) != first["data"].get("seed_sha256"):
        raise Failed(last["seq"], "SeedRevealed: the seed does not match seed_sha256, the commitment in event 1")
    return seed_hex


def check_chain(events: list[dict], seed_hex: str, head: str | None, pause: Pause = idle) -> None:
    previous = chain.GENESIS
    for event in events:
        pause()
        if event["hash"] is None:
            raise Failed(event["seq"], "has no hash: it was stored before the hash chain existed")
        try:
            expected = chain.link(previous, event, seed_hex)
        except chain.NotCanonical as exc:
            raise Failed(event["seq"], f"cannot be hashed: {exc}") from None
        if event["hash"] != expected:
            raise Failed(event["seq"], f"({event['type']}) does not match its hash: the event was changed, "
                                       "or an event before it was removed or moved")
        previous = expected
    if head is not None and head not in {event["hash"] for event in events}:
        raise Failed(events[-1]["seq"], f"the chain never reaches the head you gave ({head}): this is not the "
                                        "history the server showed you")
