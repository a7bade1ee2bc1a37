"""A secret duplicate round (duplicate, with a human) keeps each table's results until it has
finished: Given events / When command / Then events, and the summary read from them."""
from __future__ import annotations

from domain.event import redact_data
from domain.registry import all_games
from domain.shuffle import seed_commitment
from domain.tournament import Tournaments
from domain.tournament.decider import table_game_id

SEED = "cd" * 32
T = Tournaments(all_games())
HUMAN_AND_BOTS = [{"kind": "human"}] + [{"kind": "bot"}] * 7


def started(participants, duplicate=True):
    raw = {"game": "schafkopf", "participants": participants, "rounds": 1, "deals_per_table": 1,
           "duplicate": duplicate}
    state = T.fold(T.empty(), T.create(raw, seed_commitment(bytes.fromhex(SEED))))
    for p, entry in enumerate(participants):
        if entry["kind"] == "human":
            state = T.fold(state, T.decide(state, None, {"type": "join", "participant": p}))
    state = T.fold(state, T.decide(state, None, {"type": "start"}))
    state = T.fold(state, T.decide(state, None, T.system_command(state, SEED)))
    for slot in state.current.tables:
        state = T.fold(state, T.decide(state, None, {"type": "open_table", "round": 1, "table": slot.table,
                                                      "game_id": table_game_id("t1", 1, slot.table)}))
    return state


FINISH = {"type": "finish_table", "round": 1, "table": 0, "totals": [1, 2, 3, -6], "places": [3, 2, 1, 4]}


def test_a_secret_rounds_table_results_are_nobodys_until_the_round_ends():
    state = started(HUMAN_AND_BOTS)
    assert state.keeps_deals_secret
    [finished] = T.decide(state, None, FINISH)
    shown, hidden = redact_data(finished.data, finished.visibility, None)
    assert hidden and "results" not in shown and shown == {"round": 1, "table": 0, "game_id": finished.data["game_id"]}
    assert T.shown(finished.type, finished.data, set()) is False
    assert T.shown(finished.type, finished.data, {1}) is True
    # The summary does not show them either, while the round runs
    state = T.fold(state, [finished])
    table = T.summary(state)["schedule"][0]["tables"][0]
    assert table["finished"] and table["results"] is None
    # When the last table finishes, the round is over and the summary shows every result
    events = T.decide(state, None, {**FINISH, "table": 1})
    assert [e.type for e in events] == ["TableFinished", "RoundFinished"]
    state = T.fold(state, events)
    assert all(t["results"] for t in T.summary(state)["schedule"][0]["tables"])


def test_without_a_human_or_without_duplicate_results_are_public_at_once():
    for state in (started([{"kind": "bot"}] * 8), started(HUMAN_AND_BOTS, duplicate=False)):
        assert not state.keeps_deals_secret
        [finished] = T.decide(state, None, FINISH)
        assert finished.visibility.scope == "public"
        assert T.summary(T.fold(state, [finished]))["schedule"][0]["tables"][0]["results"]
