"""The tournament decider: Given events / When command / Then events, seating, duplicate deals, standings."""
from __future__ import annotations

from collections import Counter

import pytest

from domain import errors
from domain.event import Event
from domain.registry import all_games
from domain.shuffle import seed_commitment
from domain.tournament import Tournaments
from domain.tournament.decider import table_game_id
from domain.tournament.duplicate import rotated
from domain.tournament.seating import meetings
from domain.tournament.standings import held_hand, round_points
from domain.tournament.state import Result, RoundState, TableSlot

SEED = "ab" * 32
T = Tournaments(all_games())


def config(**overrides) -> dict:
    raw = {"game": "schafkopf", "participants": [{"kind": "bot"}] * 8, "rounds": 2, "deals_per_table": 2}
    raw.update(overrides)
    return raw


def given(*events: Event):
    return T.fold(T.empty(), events)


def created(**overrides) -> list[Event]:
    return T.create(config(**overrides), seed_commitment(bytes.fromhex(SEED)))


def run_system(state, seed=SEED):
    """What the handler does after a command: the system's commands until none is due."""
    out = []
    while T.needs_system(state):
        events = T.decide(state, None, T.system_command(state, seed))
        state, out = T.fold(state, events), out + events
    return state, out


def play_round(state, result=lambda p, seat: p):
    """Open and finish every table of the current round, each participant scoring ``result``."""
    number = state.current.number
    for slot in state.current.tables:
        state = T.fold(state, T.decide(state, None, {"type": "open_table", "round": number, "table": slot.table,
                                                      "game_id": table_game_id("t1", number, slot.table)}))
    for slot in state.current.tables:
        totals = [result(p, seat) for seat, p in enumerate(slot.participants)]
        places = [1 + sum(o > t for o in totals) for t in totals]
        events = T.decide(state, None, {"type": "finish_table", "round": number, "table": slot.table,
                                        "totals": totals, "places": places})
        state = T.fold(state, events)
        state, _ = run_system(state)
    return state


# -- creation ----------------------------------------------------------------------------------------

def test_creation_records_the_complete_configuration_and_the_seed_commitment():
    [event] = created(seating="swiss")
    assert event.type == "TournamentCreated"
    assert event.data["rules"]["deals"] == 2 and event.data["players"] == 4
    assert event.data["seed_sha256"] == seed_commitment(bytes.fromhex(SEED))
    assert given(event).status == "waiting"


@pytest.mark.parametrize("overrides,field", [
    ({"participants": [{"kind": "bot"}] * 6}, "participants"),
    ({"participants": [{"kind": "bot"}] * 260}, "participants"),
    ({"participants": [{"kind": "robot"}] * 4}, "participants[0]"),
    ({"participants": [{"kind": "bot", "bot": "oracle"}] * 4}, "participants[0].bot"),
    ({"rounds": 0}, "rounds"),
    ({"deals_per_table": 33}, "deals_per_table"),
    ({"seating": "alphabetical"}, "seating"),
    ({"duplicate": "yes"}, "duplicate"),
    ({"duplicate": True, "participants": [{"kind": "bot"}] * 4}, "duplicate"),
    ({"rules": {"deals": 3}}, "rules.deals"),
    ({"game": "scharfe-schoten", "players": 3, "participants": [{"kind": "bot"}] * 3, "deals_per_table": 13},
     "deals_per_table"),
    ({"game": "scharwenzel", "rules": {"threads": 3}}, "rules.threads"),
    ({"players": 3}, "players"),
    ({"colour": "blue"}, "colour"),
])
def test_a_bad_configuration_names_each_bad_field(overrides, field):
    with pytest.raises(errors.InvalidSetup) as raised:
        created(**overrides)
    assert field in raised.value.errors


def test_duplicate_refuses_rules_that_fix_the_first_starter():
    with pytest.raises(errors.InvalidSetup) as raised:
        created(game="scharfe-schoten", players=3, participants=[{"kind": "bot"}] * 6, duplicate=True,
                rules={"first_starter": 0})
    assert "duplicate" in raised.value.errors


# -- joining and starting ------------------------------------------------------------------------------

def test_start_waits_for_every_human_participant():
    state = given(*created(participants=[{"kind": "human"}] + [{"kind": "bot"}] * 7))
    with pytest.raises(errors.WrongPhase):
        T.decide(state, None, {"type": "start"})
    state = T.fold(state, T.decide(state, None, {"type": "join", "participant": 0}))
    with pytest.raises(errors.SeatTaken):
        T.decide(state, None, {"type": "join", "participant": 0})
    with pytest.raises(errors.SeatTaken):
        T.decide(state, None, {"type": "join", "participant": 1})  # a bot
    assert [e.type for e in T.decide(state, None, {"type": "start"})] == ["TournamentStarted"]


def test_a_seat_never_sends_a_tournament_command():
    state = given(*created())
    with pytest.raises(errors.UnknownCommand):
        T.decide(state, 0, {"type": "start"})


def test_starting_draws_round_one_seating_everyone_once():
    state = given(*created())
    state, system = run_system(T.fold(state, T.decide(state, None, {"type": "start"})))
    assert [e.type for e in system] == ["RoundDrawn"]
    tables = system[0].data["tables"]
    assert sorted(p for t in tables for p in t["participants"]) == list(range(8))
    assert all(len(t["participants"]) == 4 for t in tables)


# -- tables, rounds and the end ------------------------------------------------------------------------

def started(**overrides):
    state = given(*created(**overrides))
    state, _ = run_system(T.fold(state, T.decide(state, None, {"type": "start"})))
    return state


def test_a_table_opens_once_and_finishes_once():
    state = started()
    command = {"type": "open_table", "round": 1, "table": 0, "game_id": table_game_id("t1", 1, 0)}
    state = T.fold(state, T.decide(state, None, command))
    with pytest.raises(errors.SeatTaken):
        T.decide(state, None, command)
    finish = {"type": "finish_table", "round": 1, "table": 0, "totals": [1, 2, 3, -6], "places": [3, 2, 1, 4]}
    [finished] = T.decide(state, None, finish)
    assert finished.type == "TableFinished" and [r["result"] for r in finished.data["results"]] == [1, 2, 3, -6]
    state = T.fold(state, [finished])
    with pytest.raises(errors.AlreadyDone):
        T.decide(state, None, finish)
    with pytest.raises(errors.WrongPhase):
        T.decide(state, None, {**finish, "round": 2})


def test_the_last_table_finishes_the_round_and_draws_the_next():
    state = started()
    state = play_round(state)
    assert len(state.rounds) == 2 and state.rounds[0].finished and not state.current.finished


def test_after_the_last_round_the_standings_are_final_and_the_seed_revealed():
    state = play_round(play_round(started()))
    assert state.status == "finished" and state.seed == SEED
    standings = state.standings
    # Every participant scored its own number each round: points = 2 × number.
    assert [row["participant"] for row in standings] == list(range(7, -1, -1))
    assert all(row["points"] == 2 * row["participant"] for row in standings)
    with pytest.raises(errors.GameFinished):
        T.decide(state, None, {"type": "start"})


def test_the_seating_is_the_seeds_and_nothing_else():
    a, b = started(seating="random"), started(seating="random")
    assert a.current.tables == b.current.tables
    other = given(*created())
    other, _ = run_system(T.fold(other, T.decide(other, None, {"type": "start"})), seed="cd" * 32)
    assert other.current.tables != a.current.tables


# -- seating methods ------------------------------------------------------------------------------------

def test_by_standings_seats_the_strongest_together():
    state = play_round(started(seating="by_standings", participants=[{"kind": "bot"}] * 12))
    tables = [set(t.participants) for t in state.current.tables]
    assert tables == [{11, 10, 9, 8}, {7, 6, 5, 4}, {3, 2, 1, 0}]


def test_swiss_avoids_meeting_again_while_it_can():
    state = started(seating="swiss", participants=[{"kind": "bot"}] * 16, rounds=3)
    state = play_round(state)
    met = meetings(t.participants for t in state.rounds[0].tables)
    again = sum(met[pair] for t in state.current.tables for pair in meetings([t.participants]))
    assert again == 0  # 16 players in tables of 4: round 2 can and does avoid every repeat


# -- duplicate -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("game,players", [("schafkopf", 4), ("scharwenzel", 4), ("scharfe-schoten", 3)])
def test_duplicate_tables_hold_every_hand_from_every_seat(game, players):
    state = started(game=game, players=players, participants=[{"kind": "bot"}] * players * players,
                    duplicate=True)
    deals = state.current.deals
    assert deals
    setups = [T.table_setup(state, 1, t)["preset_deals"] for t in range(players)]
    for k, deal in enumerate(deals):
        for hand in deal["hands"]:
            seats = {setups[t][k]["hands"].index(hand) for t in range(players)}
            assert seats == set(range(players))
        all_games()[game].setup(players, state.config["rules"], setups[1])  # the game takes them


def test_rotation_turns_the_dealer_with_the_hands():
    deal = {"hands": [["a"], ["b"], ["c"], ["d"]], "dealer": 3}
    [turned] = rotated([deal], 1, 4)
    assert turned == {"hands": [["d"], ["a"], ["b"], ["c"]], "dealer": 0}


def test_the_deals_are_secret_until_the_end():
    state = given(*created(duplicate=True))
    _, system = run_system(T.fold(state, T.decide(state, None, {"type": "start"})))
    drawn = system[0]
    assert "deals" in drawn.data and drawn.visibility.scope == "nobody"
    assert "deals" not in drawn.visibility.public_keys


def test_duplicate_points_compare_each_result_with_the_others_who_held_those_cards():
    # Two tables of two seats: hand 0 is held by seat 0 at table 0 and by seat 1 at table 1.
    results = lambda table, pairs: TableSlot(table, tuple(p for p, _ in pairs), "g", tuple(
        Result(p, seat, r, 1) for seat, (p, r) in enumerate(pairs)))
    round_ = RoundState(1, (results(0, [(0, 10), (1, -10)]), results(1, [(2, 4), (3, -4)])), finished=True)
    points = round_points(round_, 2, duplicate=True)
    assert held_hand(0, 0, 2) == held_hand(1, 1, 2) == 0
    # hand 0: participant 0 (10) and participant 3 (-4); hand 1: participant 1 (-10) and 2 (4):
    # each scores its margin over the other holder
    assert points == {0: 14, 3: -14, 1: -14, 2: 14}


def test_ties_share_a_place_after_every_tie_break():
    state = play_round(started(rounds=1), result=lambda p, seat: 0)
    assert {row["place"] for row in state.standings} == {1}
    assert all(row["wins"] == 1 for row in state.standings)


def test_wins_break_a_tie_on_points():
    state = play_round(started(rounds=1), result=lambda p, seat: [5, 5, -10, 0][seat] if p % 2 else
                       [3, 0, 0, -3][seat])
    rows = {row["participant"]: row for row in state.standings}
    assert Counter(row["place"] for row in state.standings)[1] >= 1
    assert all(rows[a]["place"] < rows[b]["place"] for a in rows for b in rows
               if (rows[a]["points"], rows[a]["wins"]) > (rows[b]["points"], rows[b]["wins"]))
