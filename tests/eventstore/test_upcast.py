"""Upcasting, run for real: an event stored at an older version is read in today's shape.

Every event type is at v1 today, so ``domain.upcast.UPCASTERS`` is empty and no other test runs
an upcast step. These tests pretend that a type has moved on (monkeypatching the version table and
the upcasters, as the first real change of a type's data will add them) and read events stored at
the older version through the codec, the store and the command handler's fold.
"""
from __future__ import annotations

import json
import secrets
from pathlib import Path

import pytest

from domain import chain
from domain import upcast as versions
from domain.event import Event, Visibility
from domain.registry import all_games
from domain.table import Table
from domain.upcast import UnknownVersion, latest, upcast
from eventstore.codec import decode, encode
from eventstore.handler import CommandHandler
from eventstore.store import EventStore

SEED = "ab" * 32
AT = "2026-12-01T12:00:00.000Z"
EXPORTS = Path(__file__).resolve().parents[1] / "fixtures" / "exports"


def pretend(monkeypatch, event_type: str, newest: int, steps: dict) -> None:
    """``event_type`` is at version ``newest`` today; ``steps[v]`` turns data of v into v + 1."""
    monkeypatch.setitem(versions.LATEST_BY_TYPE, event_type, newest)
    for old, step in steps.items():
        monkeypatch.setitem(versions.UPCASTERS, (event_type, old), step)


def stored(event_type: str, data: dict, v: int, seq: int = 1, previous: str = chain.GENESIS):
    """The event as an older stich stored it, read back through the codec; and its hash."""
    payload, digest = encode(Event(event_type, data, v=v), AT, "system", seq, previous, SEED)
    return decode(seq, payload), digest


def test_an_event_stored_at_an_older_version_is_read_at_todays(monkeypatch):
    # Given: today SeatTaken is v2, whose data gained `label`; v1 (as stored) lacked it
    pretend(monkeypatch, "SeatTaken", 2, {1: lambda data: {**data, "label": f"seat {data['seat']}"}})
    old, digest = stored("SeatTaken", {"seat": 3, "kind": "human", "entropy": "x"}, v=1)
    assert old.v == 1 and "label" not in old.data
    # When it is read
    event = old.to_domain()
    # Then it is in today's shape and version
    assert event.type == "SeatTaken" and event.v == 2 == latest("SeatTaken")
    assert event.data == {"seat": 3, "kind": "human", "entropy": "x", "label": "seat 3"}
    assert (event.at, event.actor) == (AT, "system")
    # And the stored event is untouched: still v1, what its hash covers, what feeds and exports serve
    assert old.v == 1 and old.data == {"seat": 3, "kind": "human", "entropy": "x"}
    record = {"type": old.type, "v": old.v, "data": old.data, "at": old.at, "actor": old.actor,
              "visibility": old.visibility.to_json(), "seq": old.seq}
    assert chain.link(chain.GENESIS, record, SEED) == digest == old.hash
    assert old.for_viewer(None, True)["v"] == 1
    # An event written today, at v2, is read as it is
    today, _ = stored("SeatTaken", event.data, v=2)
    assert today.to_domain() == event


def test_chained_upcasts_apply_in_order_from_the_stored_version(monkeypatch):
    calls = []

    def v1_to_v2(data):  # v2 added `label`
        calls.append(1)
        return {**data, "label": f"seat {data['seat']}"}

    def v2_to_v3(data):  # v3 renamed it to `name`, upper-cased: needs v2's `label`
        calls.append(2)
        rest = {k: v for k, v in data.items() if k != "label"}
        return {**rest, "name": data["label"].upper()}

    pretend(monkeypatch, "SeatTaken", 3, {1: v1_to_v2, 2: v2_to_v3})
    expected = {"seat": 1, "kind": "bot", "entropy": "", "name": "SEAT 1"}
    v1, _ = stored("SeatTaken", {"seat": 1, "kind": "bot", "entropy": ""}, v=1)
    event = v1.to_domain()
    assert (event.v, event.data, calls) == (3, expected, [1, 2])
    calls.clear()
    v2, _ = stored("SeatTaken", {"seat": 1, "kind": "bot", "entropy": "", "label": "seat 1"}, v=2)
    event = v2.to_domain()
    assert (event.v, event.data, calls) == (3, expected, [2])  # only the steps after its own version
    calls.clear()
    v3, _ = stored("SeatTaken", expected, v=3)
    assert (v3.to_domain().data, calls) == (expected, [])
    # The stored data was not changed in place by any step
    assert v1.data == {"seat": 1, "kind": "bot", "entropy": ""}
    # Other types are not affected
    assert upcast("SeatTaken", 1, {"seat": 0, "kind": "human", "entropy": ""})[0] == 3
    assert upcast("CardPlayed", 1, {"seat": 0, "card": "EO"}) == (1, {"seat": 0, "card": "EO"})


def test_a_version_without_its_step_or_beyond_todays_is_refused_by_name(monkeypatch):
    pretend(monkeypatch, "SeatTaken", 3, {1: lambda data: {**data, "label": ""}})  # no step from v2
    with pytest.raises(UnknownVersion, match="SeatTaken v2 has no upcaster to v3"):
        stored("SeatTaken", {"seat": 0, "kind": "human", "entropy": ""}, v=1)[0].to_domain()
    for version in (0, 4, "1", True):
        with pytest.raises(UnknownVersion, match="reads v1..v3"):
            upcast("SeatTaken", version, {})


def test_a_game_stored_with_an_older_version_replays_through_the_store_and_the_fold(monkeypatch, redis_client):
    """End to end: a finished game whose every CardPlayed was stored at v1, in a shape today's
    fold cannot read (``player``/``code``), loads from Redis to the scores it was exported with."""
    lines = (EXPORTS / "scharfe-schoten.ndjson").read_text().splitlines()
    header, records = json.loads(lines[0]), [json.loads(line) for line in lines[1:]]
    seed = records[-1]["data"]["seed"]

    def v1_to_v2(data):  # v2 renamed player → seat, code → card
        return {"seat": data["player"], "card": data["code"]}

    pretend(monkeypatch, "CardPlayed", 2, {1: v1_to_v2})
    payloads, previous = [], chain.GENESIS
    for record in records:
        data = record["data"]
        if record["type"] == "CardPlayed":
            data = {"player": data["seat"], "code": data["card"]}
        event = Event(record["type"], data, Visibility.from_json(record["visibility"]), record["v"])
        payload, previous = encode(event, record["at"], record["actor"], record["seq"], previous, seed)
        payloads.append(payload)
    store = EventStore(redis_client)
    game_id = "u" + secrets.token_hex(8)
    assert store.append(game_id, payloads, expected_seq=0).ok
    table = Table(all_games())

    loaded = CommandHandler(store, table).load(game_id)

    assert loaded.seq == len(records) and table.is_finished(loaded.state)
    assert table.summary(loaded.state)["scores"] == header["scores"]
    # The stream still holds what was written: v1, the old shape
    played = [e for e in store.read(game_id) if e.type == "CardPlayed"]
    assert played and all(e.v == 1 and set(e.data) == {"player", "code"} for e in played)
    # Without its upcaster the old version is refused by name, not misread
    monkeypatch.delitem(versions.UPCASTERS, ("CardPlayed", 1))
    with pytest.raises(UnknownVersion, match="CardPlayed v1 has no upcaster to v2"):
        CommandHandler(store, table).load(game_id)
