"""Snapshots are JSON that builds only the rules' dataclasses: round trips, and what a load refuses."""
from __future__ import annotations

import json
import pickle

import pytest

from domain.frozen import replace
from domain.registry import all_games
from domain.table import TableState
from eventstore import snapshot

from ..domain.harness import random_playout

GAMES = [("schafkopf", 4, {"deals": 3, "auction": True, "hochzeit": True, "doppeln": "all"}),
         ("scharwenzel", 6, {"threads": 1}), ("scharfe-schoten", 4, {"rounds": 1})]


@pytest.mark.parametrize("name,players,rules", GAMES)
def test_every_state_of_a_game_round_trips(name, players, rules):
    table, _, events = random_playout(all_games()[name], players, seed=5, rules=rules)
    state = TableState()
    for event in events:
        state = table.evolve(state, event)
        seq, restored, head = snapshot.load(snapshot.dump(state.events, state, "ab" * 32))
        assert (seq, head) == (state.events, "ab" * 32)
        assert restored.game.name == state.game.name
        assert replace(restored, game=state.game) == state


def test_a_restored_state_goes_on_like_the_original():
    table, _, events = random_playout(all_games()["schafkopf"], 4, seed=2, rules={"deals": 2})
    state = TableState()
    for event in events[:40]:
        state = table.evolve(state, event)
    _, restored, _ = snapshot.load(snapshot.dump(40, state, None))
    for event in events[40:]:
        state, restored = table.evolve(state, event), table.evolve(restored, event)
    assert replace(restored, game=state.game) == state and table.view(restored, 0) == table.view(state, 0)


def test_the_document_names_its_format_and_code():
    document = json.loads(snapshot.dump(7, TableState(), None))
    assert (document["format"], document["version"], document["code"], document["seq"]) == (
        "stich-snapshot", 1, snapshot.CODE_VERSION, 7)


@pytest.mark.parametrize("blob", [
    b"", b"not json", b"[]", b"{}",
    pickle.dumps((snapshot.CODE_VERSION, 7, TableState(), None)),  # the format before this one: replayed instead
])
def test_what_is_not_a_snapshot_of_this_code_is_ignored(blob):
    assert snapshot.load(blob) is None


def test_another_codes_snapshot_is_ignored():
    document = json.loads(snapshot.dump(7, TableState(), None))
    document["code"] = "0" * 16
    assert snapshot.load(json.dumps(document).encode()) is None


@pytest.mark.parametrize("name", [
    "os:system",  # not a rules module
    "subprocess:Popen",
    "domain.table:Table",  # a rules module, but not a dataclass
    "domain.nonexistent:Thing",  # nothing is imported because a snapshot names it
])
def test_a_snapshot_builds_nothing_but_rules_dataclasses(name):
    document = json.loads(snapshot.dump(7, TableState(), None))
    document["state"] = {"c": name, "v": {}}
    assert snapshot.load(json.dumps(document).encode()) is None


def test_a_state_holding_anything_else_cannot_be_written():
    with pytest.raises(TypeError):
        snapshot.dump(1, replace(TableState(), inner=object()), None)


def test_a_fresh_process_loads_a_long_game_from_its_snapshot(redis_url):
    from workers.context import build_runtime

    writer = build_runtime(redis_url, bots="inline")
    bots = [{"kind": "bot"}] * 3
    game_id = writer.handler.create("scharfe-schoten", 3, {"rounds": 3}, bots, None).game_id
    played = writer.handler.load(game_id)
    assert played.state.status == "finished" and played.seq > 100
    assert json.loads(writer.store.load_snapshot(game_id))["format"] == "stich-snapshot"

    reader = build_runtime(redis_url, bots="inline")  # a new process: nothing cached
    reads = []
    original = reader.store.read
    reader.store.read = lambda game, after=0, **kw: reads.append(after) or original(game, after=after, **kw)
    loaded = reader.handler.load(game_id)
    assert reads and min(reads) >= 100  # the events after the snapshot only
    assert (loaded.seq, loaded.head) == (played.seq, played.head)
    assert replace(loaded.state, game=played.state.game) == played.state
