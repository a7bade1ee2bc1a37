"""Every game ends: rules that could never finish are refused, and every game has ceilings
(deals, thrown-in ones included, and events) after which the table cuts it short."""
from __future__ import annotations

import hashlib

import pytest

from domain import errors
from domain.event import Event
from domain.registry import all_games
from domain.limits import DEFAULT_IDLE_S
from domain.table import MAX_DEALS, MAX_EVENTS, Table, TableState

from .harness import event_types, new_table, random_playout, run_system

GAMES = all_games()
SCHAFKOPF = GAMES["schafkopf"]


def always_pass(rng, seat, legal):
    """Everyone passes whenever they may: no deal is ever played."""
    passing = [c for c in legal if c.get("intent") == "pass"]
    return passing[0] if passing else rng.choice(legal)


def create(game_name, players, rules=None, limits=None):
    table = Table(GAMES)
    return table.create(game_name, players, rules or {}, None, None, hashlib.sha256(bytes(32)).hexdigest(),
                        limits=limits)


def test_the_issues_endless_game_is_refused_naming_the_fields():
    # Given four bots, only a Sie allowed, thrown-in deals not counting (the reported endless game)
    with pytest.raises(errors.InvalidSetup) as refused:
        create("schafkopf", 4, {"allowed_games": ["sie"], "thrown_in_counts": False, "deals": 1})
    # Then the 422 names every field of the combination
    assert {"rules.allowed_games", "rules.thrown_in_counts", "rules.all_pass"} <= set(refused.value.errors)


@pytest.mark.parametrize("rules", [
    {"allowed_games": ["sie"], "thrown_in_counts": True, "deals": 1},  # thrown-in deals count
    {"allowed_games": ["sie"], "thrown_in_counts": False, "all_pass": "ramsch"},  # every all-pass is played
    {"allowed_games": ["sie", "wenz"], "thrown_in_counts": False},  # any hand may name a Wenz
])
def test_combinations_that_can_finish_are_accepted(rules):
    assert event_types(create("schafkopf", 4, rules))[0] == "GameCreated"


def test_a_game_whose_deals_never_count_ends_at_its_deal_ceiling():
    # Given rules that may finish, but players who always pass and thrown-in deals that do not count
    rules = {"deals": 1, "thrown_in_counts": False, "allowed_games": ["rufspiel"]}
    table, state, events = random_playout(SCHAFKOPF, 4, seed=3, rules=rules, choose=always_pass)
    # Then the table dealt 4 x 1 + 16 deals and cut the game short, and the seed came last
    assert state.limits.max_deals == 20
    assert event_types(events).count("HandsDealt") == 20
    assert event_types(events)[-2:] == ["GameCutShort", "SeedRevealed"]
    assert events[-2].data == {"reason": "max_deals", "limit": 20, "events": len(events) - 2}
    assert state.status == "finished" and state.cut_short == "max_deals"
    assert table.summary(state)["cut_short"] == "max_deals"


def test_a_game_reaching_its_event_ceiling_is_cut_short_within_a_command():
    # Given a Schafkopf game of 8 deals limited to 100 events
    table = Table(GAMES)
    seed_hex = "11" * 32
    events = table.create("schafkopf", 4, {}, None, None, hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest(),
                          limits={"max_events": 100})
    state = table.fold(TableState(), events)
    for seat in range(4):
        new = table.decide(state, None, {"type": "take_seat", "seat": seat})
        events += new
        state = table.fold(state, new)
    events, state = run_system(table, state, events, seed_hex)
    # When the seats play until the game ends
    while state.status == "active":
        seat = min(table.to_act(state))
        new = table.decide(state, seat, table.legal_commands(state, seat)[-1])
        events += new
        state = table.fold(state, new)
        events, state = run_system(table, state, events, seed_hex)
    # Then it ended at its 100th event, not after 8 deals
    cut = next(e for e in events if e.type == "GameCutShort")
    assert cut.data["reason"] == "max_events" and cut.data["limit"] == 100 and 100 <= cut.data["events"] < 110
    assert event_types(events)[-1] == "SeedRevealed" and state.events == len(events)
    assert event_types(events).count("DealSettled") < 8


def test_after_the_cut_no_seat_may_move_and_only_the_seed_follows():
    table, state, events = new_table(SCHAFKOPF, 4, {"deals": 2})
    # Given a game cut short (its seed not yet revealed)
    cut = table.fold(state, [Event("GameCutShort", {"reason": "max_deals", "limit": 2, "events": state.events})])
    # Then nobody is to act, a seat's command is refused, and the seed reveal is due
    assert table.to_act(cut) == frozenset() and table.legal_commands(cut, 0) == []
    with pytest.raises(errors.GameFinished):
        table.decide(cut, 0, {"type": "announce", "intent": "pass"})
    assert table.system_command(cut, "00" * 32) == {"type": "reveal_seed", "seed": "00" * 32}


def test_only_the_system_cuts_a_game_short_and_only_at_a_ceiling():
    table, state, _ = new_table(SCHAFKOPF, 4, {"deals": 2})
    with pytest.raises(errors.UnknownCommand):
        table.decide(state, 0, {"type": "end_game", "reason": "max_deals"})
    with pytest.raises(errors.WrongPhase):
        table.decide(state, None, {"type": "end_game", "reason": "max_deals"})


@pytest.mark.parametrize("name,players,rules,deals", [
    ("schafkopf", 4, {"deals": 8}, 48), ("scharfe-schoten", 3, {}, 6),
    ("scharwenzel", 4, {"deals": 10}, 56), ("scharwenzel", 4, {"threads": 3}, 136),
])
def test_every_game_records_its_ceilings(name, players, rules, deals):
    [created] = [e for e in create(name, players, rules) if e.type == "GameCreated"]
    assert created.data["limits"] == {"max_deals": deals, "max_events": min(150 * deals + 100, MAX_EVENTS),
                                      "max_idle_s": DEFAULT_IDLE_S}
    assert "limits" in created.visibility.public_keys


@pytest.mark.parametrize("limits,field", [
    ({"max_deals": 0}, "limits.max_deals"), ({"max_deals": MAX_DEALS + 1}, "limits.max_deals"),
    ({"max_events": True}, "limits.max_events"), ({"max_events": "9"}, "limits.max_events"),
    ({"max_turns": 3}, "limits"), ([], "limits"),
])
def test_bad_ceilings_are_named(limits, field):
    with pytest.raises(errors.InvalidSetup) as refused:
        create("scharfe-schoten", 3, limits=limits)
    assert field in refused.value.errors


def test_a_game_recorded_before_ceilings_takes_the_defaults():
    created = create("scharfe-schoten", 3)
    created[0].data.pop("limits")
    state = Table(GAMES).fold(TableState(), created)
    assert state.limits.max_deals == 6
