"""Stored events: the envelope around a domain event, and its JSON form.

The envelope is the domain event's ``type``, ``v`` and ``data`` with ``at``,
``actor``, ``visibility`` and ``hash`` (its link in the game's hash chain, see
``domain.chain``). ``seq`` is the stream entry id, so the payload omits it.
Events stored before the chain existed have no ``hash`` (None here).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from domain import chain
from domain.event import Event, Visibility, redact_data
from domain.upcast import upcast


@dataclass(frozen=True)
class StoredEvent:
    seq: int
    type: str
    v: int
    data: dict[str, Any]
    at: str
    actor: int | str
    visibility: Visibility
    hash: str | None = None

    def to_domain(self) -> Event:
        """The event in today's shape: an older version of its type is upcast (the stored
        event, which its hash covers, stays as it was written)."""
        version, data = upcast(self.type, self.v, self.data)
        return Event(self.type, data, self.visibility, version, self.at, self.actor)

    def for_viewer(self, viewer: int | None, reveal_all: bool) -> dict[str, Any]:
        """The event as ``viewer`` (seat or None) may see it; everything once the game ended."""
        data, redacted = (self.data, False) if reveal_all else redact_data(self.data, self.visibility, viewer)
        return {
            "seq": self.seq, "type": self.type, "v": self.v, "at": self.at,
            "actor": self.actor, "visibility": self.visibility.to_json(),
            "data": data, "redacted": redacted, "hash": self.hash,
        }


def encode(event: Event, at: str, actor: int | str, seq: int, previous: str, seed_hex: str) -> tuple[str, str]:
    """The stream entry's payload and the event's hash, chained from ``previous`` (the
    hash of event ``seq - 1``). The payload is the event's canonical JSON (which the hash
    covers) with ``hash`` added, so one encoding serves both; readers take ``seq`` from
    the entry id. Tuples in the data encode as JSON arrays, as readers get them back."""
    body = chain.canonical({"type": event.type, "v": event.v, "data": event.data, "at": at, "actor": actor,
                            "visibility": event.visibility.to_json(), "seq": seq})
    digest = chain.link_canonical(previous, seq, body, seed_hex)
    return f'{body[:-1].decode("ascii")},"hash":"{digest}"}}', digest


def decode(seq: int, payload: bytes | str) -> StoredEvent:
    raw = orjson.loads(payload)  # every event of every read passes here: orjson parses it 4-5 times faster
    return StoredEvent(seq=seq, type=raw["type"], v=raw["v"], data=raw["data"], at=raw["at"],
                       actor=raw["actor"], visibility=Visibility.from_json(raw["visibility"]),
                       hash=raw.get("hash"))


def encode_for_viewer(event: StoredEvent, viewer: int | None, reveal_all: bool) -> str:
    """The event as ``viewer`` may see it, as compact JSON (the form feeds and streams send)."""
    return orjson.dumps(event.for_viewer(viewer, reveal_all)).decode()
