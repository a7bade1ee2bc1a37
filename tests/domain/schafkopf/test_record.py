"""A finished Schafkopf session for the history and the ratings (``domain/schafkopf/record.py``).

Given a session played at a table (preset deals, a scripted choice of who plays what, cards as the
rules allow), When the history reads the served events, Then each deal that ended is a record —
its game, each seat's role, payment and outcome — and each played deal a rating match of its
parties; the records add up to the table's totals.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from domain import audit
from domain.record import DECLARER, DEFENDER, EVEN, LOST, PARTNER, PLAYER, WON, Match
from domain.schafkopf.game_types import PRECEDENCE, SIE_HAND
from domain.table import Table, TableState
from tests.domain.harness import new_table, random_playout, run_system
from tests.domain.record_checks import check_match, check_ranks_follow_outcomes, check_records, read

from .helpers import GAME, complete
from .test_playout import OPTION_PLAYOUTS, RULES, check, chooser

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "exports"
OFFER = {"type": "announce", "intent": "hochzeit"}
ALL = {"allowed_games": list(PRECEDENCE), "stoss": 0}
SEED = "5c" * 32


def scripted(plan=None, offers=None, doublers=(), stoss=(), schieber=None, cards=None):
    """A choice for every seat: ``plan[deal][seat]`` names that game (everybody else passes),
    ``offers[deal]`` offers a Hochzeit, ``doublers`` double, ``stoss`` give every Stoß they may,
    ``schieber[seat]`` plays a Schieberrunde; ``cards`` (played in order, while they last) or the
    first legal card."""
    cards = list(cards or ())

    def choose(state, seat, legal):
        named = (plan or {}).get(state.deal, {})
        kinds = {c["type"] for c in legal}
        if "doppeln" in kinds:
            return {"type": "doppeln", "double": seat in doublers}
        if "schieber" in kinds:
            return {"type": "schieber", "play": (schieber or {}).get(seat, False)}
        if "announce" in kinds:
            if (offers or {}).get(state.deal) == seat and OFFER in legal:
                return OFFER
            return {"type": "announce", "intent": "play" if seat in named else "pass"}
        if kinds & {"name_game", "withdraw"}:
            if named.get(seat) in legal:
                return named[seat]
            return {"type": "withdraw"} if {"type": "withdraw"} in legal else legal[0]
        if kinds & {"give_card", "push", "bid", "pass"}:
            return legal[0]
        if seat in stoss and {"type": "stoss"} in legal:
            return {"type": "stoss"}
        if cards and {"type": "play", "card": cards[0]} in legal:
            return {"type": "play", "card": cards.pop(0)}
        return next(c for c in legal if c["type"] == "play")
    return choose


def play(rules, presets=None, choose=None, until=None):
    """Given a table with these rules and preset deals, every seat choosing by ``choose``: the events
    and the state once it has finished — or, with ``until(state)``, once that holds."""
    table, state, events = new_table(GAME, 4, rules, preset_deals=presets, seed_hex=SEED)
    choose = choose or scripted()
    while state.status == "active" and not (until and until(state)):
        seat = min(table.to_act(state))
        new = table.decide(state, seat, choose(state.inner, seat, table.legal_commands(state, seat)))
        events += new
        state = table.fold(state, new)
        events, state = run_system(table, state, events, SEED)
    return table, state, events


def name(game, suit=None) -> dict:
    return {"type": "name_game", "game": game, **({"suit": suit} if suit else {})}


def settlements(events) -> list[dict]:
    return [e.data for e in events if e.type in ("DealSettled", "DealThrownIn", "SchieberrundePaid")]


def check_session(table, state, events):
    """The records add up to the totals, deal by deal as the table settled them, and every played
    deal's match is its parties, ranked as they fared."""
    records, matches = read(GAME, events)
    check_records(records, 4)
    ended = settlements(events)
    assert [r.deal for r in records] == [d["deal"] for d in ended]
    assert [list(r.results) for r in records] == [d["payments"] for d in ended]
    assert [sum(r.results[seat] for r in records) for seat in range(4)] == table.summary(state)["scores"]["totals"]
    played = {r.deal: r for r in records if r.game_type not in ("thrown_in", "schieberrunde_paid")}
    assert [m.deal for m in matches] == sorted(played)
    for match in matches:
        check_match(match, 4)
        check_ranks_follow_outcomes(match, played[match.deal])
    return records, matches


# -- the parties of each game type ---------------------------------------------------------------

PLAIN_RUFSPIEL = [  # seat 0 calls the Schellen Ace, held by seat 2 (tests/domain/schafkopf/test_settlement.py)
    ["GO", "S9", "E8", "G8", "HK", "EK", "EU", "HO"],
    ["H7", "S7", "E9", "G9", "H10", "SU", "G10", "GU"],
    ["H8", "SA", "EA", "GA", "HA", "GK", "HU", "SO"],
    ["H9", "S8", "E7", "G7", "EO", "E10", "SK", "S10"],
]
PLAIN_TRICKS = ["GO", "H7", "H8", "H9", "S9", "S7", "SA", "S8", "EA", "E7", "E8", "E9", "GA", "G7", "G8", "G9",
                "HA", "EO", "HK", "H10", "E10", "EK", "SU", "GK", "G10", "HU", "SK", "EU", "HO", "GU", "SO", "S10"]


def test_a_rufspiel_is_its_caller_and_the_called_aces_holder_against_the_other_two():
    table, state, events = play({"deals": 1}, [{"hands": PLAIN_RUFSPIEL, "dealer": 3}],
                                scripted({0: {0: name("rufspiel", "S")}}, cards=PLAIN_TRICKS))
    [record], [match] = check_session(table, state, events)
    assert record.game_type == "rufspiel"
    assert record.roles == (DECLARER, DEFENDER, PARTNER, DEFENDER)
    assert record.results == (10, -10, 10, -10) and record.outcomes == (WON, LOST, WON, LOST)
    assert record.details["suit"] == "S" and record.details["called_ace"] == "SA"
    assert record.details["card_points"] == {"declarers": 72, "defenders": 48}
    assert (record.details["schneider"], record.details["laufende"], record.details["multiplier"]) == (False, 0, 1)
    assert match == Match(teams=((0, 2), (1, 3)), ranks=(1, 2), deal=0)


LONE = [("solo", "H"), ("wenz", None), ("geier", None), ("farbwenz", "E"), ("farbgeier", "G"), ("bettel", None),
        ("solo_tout", "G"), ("wenz_tout", None), ("farbwenz_tout", "S"), ("geier_tout", None),
        ("farbgeier_tout", "H"), ("sie", None)]


@pytest.mark.parametrize("game,suit", LONE, ids=[g for g, _ in LONE])
def test_a_lone_game_is_its_declarer_against_three_defenders(game, suit):
    # Seat 2 holds every Ober and Unter, so he may name any game (the Sie too).
    hands = complete({2: sorted(SIE_HAND)})
    table, state, events = play(dict(ALL, deals=1), [{"hands": hands, "dealer": 3}],
                                scripted({0: {2: name(game, suit)}}))
    [record], [match] = check_session(table, state, events)
    [settled] = settlements(events)
    assert record.game_type == game and record.details["suit"] == suit
    assert record.roles == (DEFENDER, DEFENDER, DECLARER, DEFENDER)
    won = settled["won"]
    assert record.outcomes == ((LOST, LOST, WON, LOST) if won else (WON, WON, LOST, WON))
    assert record.results[2] == (3 if won else -3) * settled["value"]
    assert match == Match(teams=((2,), (0, 1, 3)), ranks=(1, 2) if won else (2, 1), deal=0)
    if game == "bettel":
        assert not won  # every Ober and Unter takes tricks
    if game in ("sie", "solo_tout"):
        assert won


HOCHZEIT = complete({1: ["H7", "EA", "E10", "EK", "GA", "G10", "SA", "S10"],   # one trump: he offers
                     0: ["EO", "GO", "HO", "SO", "EU", "E9", "G9", "S9"]})     # he marries


def test_a_hochzeit_is_the_marrying_player_who_named_it_with_the_offerer_as_his_partner():
    table, state, events = play({"deals": 1, "hochzeit": True, "stoss": 0}, [{"hands": HOCHZEIT, "dealer": 3}],
                                scripted({0: {0: name("hochzeit")}}, offers={0: 1}))
    [record], [match] = check_session(table, state, events)
    [settled] = settlements(events)
    assert settled["declarer"] == 0 and settled["declarers"] == [0, 1]
    assert record.game_type == "hochzeit" and record.roles == (DECLARER, PARTNER, DEFENDER, DEFENDER)
    assert match.teams == ((0, 1), (2, 3)) and match.ranks == ((1, 2) if settled["won"] else (2, 1))


def test_a_ramsch_is_every_seat_for_itself_the_loser_named_in_the_details():
    table, state, events = play({"deals": 1, "all_pass": "ramsch"}, [{"hands": PLAIN_RUFSPIEL, "dealer": 3}])
    [record], [match] = check_session(table, state, events)
    [settled] = settlements(events)
    loser = settled["declarers"][0]  # a Ramsch's declarers name its loser
    assert settled["declarer"] is None and not settled["durchmarsch"]
    assert record.game_type == "ramsch" and record.roles == (PLAYER,) * 4
    assert record.results[loser] == -60 and all(record.results[s] == 20 for s in range(4) if s != loser)
    assert record.outcomes == tuple(LOST if s == loser else WON for s in range(4))
    assert record.details["loser"] == loser and record.details["durchmarsch_by"] is None
    assert record.details["seat_points"] == settled["seat_points"] and "card_points" not in record.details
    assert match.teams == ((0,), (1,), (2,), (3,))
    assert match.ranks == tuple(4 if s == loser else 1 for s in range(4))


def test_a_durchmarsch_wins_alone_against_every_other_seat():
    # Seat 0 leads his eight top trumps: nobody can take a trick from him.
    hands = complete({0: sorted(SIE_HAND)})
    table, state, events = play({"deals": 1, "all_pass": "ramsch"}, [{"hands": hands, "dealer": 3}])
    [record], [match] = check_session(table, state, events)
    assert record.results == (60, -20, -20, -20) and record.outcomes == (WON, LOST, LOST, LOST)
    assert record.details["durchmarsch"] and record.details["durchmarsch_by"] == 0
    assert record.details["loser"] is None and record.details["jungfrauen"] == []
    assert match.ranks == (1, 2, 2, 2)


# -- deals nobody played -------------------------------------------------------------------------

def test_a_thrown_in_deal_is_a_record_of_nobody_playing_and_no_match():
    table, state, events = play({"deals": 2}, [{"hands": PLAIN_RUFSPIEL, "dealer": 3}] * 2,
                                scripted({1: {1: name("rufspiel", "G")}}))
    records, matches = check_session(table, state, events)
    assert [r.game_type for r in records] == ["thrown_in", "rufspiel"]
    thrown = records[0]
    assert thrown.roles == (PLAYER,) * 4 and thrown.results == (0,) * 4 and thrown.outcomes == (EVEN,) * 4
    assert thrown.details == {"dealer": 3, "doppeln": [], "stoss": [], "stock": 0, "doubles_next": False}
    assert [m.deal for m in matches] == [1]


STRONG = complete({0: ["EO", "GO", "HO", "SO", "EU", "GU", "E7", "HA"],
                   2: ["EA", "E10", "EK", "HU", "SU", "H10", "HK", "H9"]})


def test_the_stock_paid_in_and_taken_is_in_the_results_so_they_add_up_to_the_totals():
    # Deal 0: all pass, each pays 10 into the pot. Deal 1: seat 0 calls the Eichel Ace (seat 2) and
    # wins: they share the pot of 40.
    rules = {"deals": 2, "all_pass": "stock", "stoss": 0}
    table, state, events = play(rules, [{"hands": STRONG, "dealer": 3}] * 2,
                                scripted({1: {0: name("rufspiel", "E")}}))
    thrown, game = check_session(table, state, events)[0]
    assert thrown.game_type == "thrown_in" and thrown.results == (-10,) * 4 and thrown.outcomes == (EVEN,) * 4
    assert thrown.details["stock"] == 40
    assert game.game_type == "rufspiel" and game.details["stock"] == -40 and game.outcomes[0] == WON
    value = game.details["value"]
    assert game.results == (value + 20, -value, value + 20, -value)


def test_doppeln_stoss_and_carried_doublings_make_up_the_multiplier_in_the_details():
    # Deal 0: seats 1 and 2 double, all pass: thrown in, the next game doubled. Deal 1: seats 1 and 2
    # double again, seat 0 plays a Solo; seats 1 and 0 give every Stoß they may.
    rules = {"deals": 2, "doppeln": "all", "all_pass": "redeal_double", "stoss": 4}
    table, state, events = play(rules, [{"hands": STRONG, "dealer": 3}] * 2,
                                scripted({1: {0: name("solo", "H")}}, doublers=(1, 2), stoss=(0, 1)))
    thrown, game = check_session(table, state, events)[0]
    assert thrown.details["doppeln"] == [1, 2] and thrown.details["doubles_next"]
    given = [e.data["seat"] for e in events if e.type == "StossGiven"]
    assert given[:2] == [1, 0]  # Kontra by the defender, Re by the declarer
    assert game.details["doppeln"] == [1, 2] and game.details["stoss"] == given
    assert game.details["carried_doublings"] == 1
    assert game.details["multiplier"] == 2 ** (2 + len(given) + 1)


def test_a_schieberrunde_nobody_plays_is_a_record_of_the_payment_and_no_match():
    # Deal 0: seat 0 wins a Herz-Solo with every Ober and Unter, so deal 1 (dealer 0) is a
    # Schieberrunde: Vorhand (seat 1) and the dealer decline and pay the Solo price to the other two.
    hands = complete({0: sorted(SIE_HAND)})
    rules = {"deals": 2, "schieberrunde": True, "stoss": 0}
    table, state, events = play(rules, [{"hands": hands, "dealer": 3}], scripted({0: {0: name("solo", "H")}}))
    (won, paid), [match] = check_session(table, state, events)
    assert won.game_type == "solo" and won.details["schieberrunde_next"] and match.deal == 0
    assert paid.game_type == "schieberrunde_paid" and paid.roles == (PLAYER,) * 4
    assert paid.results == (-100, -100, 100, 100) and paid.outcomes == (LOST, LOST, WON, WON)
    assert paid.details == {"dealer": 0, "doppeln": [], "stoss": [], "schieberrunde": True, "payers": [1, 0],
                            "price": 50}


def test_a_schieberrunde_played_is_a_solo_of_whoever_played_it_dealt_as_a_schieberrunde():
    hands = complete({0: sorted(SIE_HAND)})
    rules = {"deals": 2, "schieberrunde": True, "stoss": 0}
    table, state, events = play(rules, [{"hands": hands, "dealer": 3}],
                                scripted({0: {0: name("solo", "H")}, 1: {1: name("solo", "E")}}, schieber={1: True}))
    records, matches = check_session(table, state, events)
    played = records[1]
    assert played.game_type == "solo" and played.details["suit"] == "E" and played.details["schieberrunde"]
    assert played.roles == (DEFENDER, DECLARER, DEFENDER, DEFENDER) and matches[1].teams == ((1,), (0, 2, 3))
    assert "schieberrunde" not in records[0].details


def test_a_muss_spiel_is_the_eichel_obers_rufspiel():
    table, state, events = play({"deals": 1, "all_pass": "muss"}, [{"hands": PLAIN_RUFSPIEL, "dealer": 3}])
    [record], [match] = check_session(table, state, events)
    # Seat 3 holds the Eichel Ober and must call.
    assert record.game_type == "rufspiel" and record.details["muss"] and record.roles[3] == DECLARER
    assert record.roles.count(PARTNER) == 1


# -- games cut short, games never started --------------------------------------------------------

def test_a_session_cut_short_has_the_deals_settled_before_it():
    # Cut in deal 1's play: deal 0's record and match only.
    table, state, events = play({"deals": 3}, None, scripted({0: {0: name("solo", "H")}, 1: {1: name("wenz")}}),
                                until=lambda s: s.inner.deal == 1 and s.inner.phase == "play")
    new = table.decide(state, None, {"type": "end_game", "reason": "aborted", "detail": "the hall closed"})
    state = table.fold(state, new)
    events, state = run_system(table, state, events + new, SEED)
    assert state.status == "finished" and state.cut_short == "aborted"
    records, matches = check_session(table, state, events)
    assert [r.deal for r in records] == [0] and [m.deal for m in matches] == [0]


def test_a_game_that_never_started_has_no_records():
    table = Table({GAME.name: GAME})
    events = table.create(GAME.name, 4, {}, None, None, "00" * 32)
    state = table.fold(TableState(), events)
    new = table.decide(state, None, {"type": "end_game", "reason": "aborted"})
    events += new
    assert read(GAME, events) == ([], [])


# -- the stored exports, as an earlier stich wrote them ------------------------------------------

def stored(name: str) -> list[dict]:
    return audit.parse_lines((FIXTURES / f"{name}.ndjson").read_text())[1:]


def totals(events: list[dict]) -> list[int]:
    out = [0, 0, 0, 0]
    for event in events:
        if event["type"] in ("DealSettled", "DealThrownIn", "SchieberrundePaid"):
            out = [t + p for t, p in zip(out, event["data"]["payments"])]
    return out


@pytest.mark.parametrize("name", sorted(p.stem for p in FIXTURES.glob("schafkopf*.ndjson")))
def test_a_stored_session_reads_into_records_that_add_up_to_its_totals(name):
    events = stored(name)
    records, matches = GAME.deal_records(events), GAME.rating_matches(events)
    check_records(records, 4)
    ended = [e["data"]["totals"] for e in events if e["type"] == "GameEnded"]
    assert [sum(r.results[s] for r in records) for s in range(4)] == (ended[0] if ended else totals(events))
    for match in matches:
        check_match(match, 4)
        check_ranks_follow_outcomes(match, next(r for r in records if r.deal == match.deal))


def test_the_stored_schieberrunde_session_reads_deal_by_deal():
    records = GAME.deal_records(stored("schafkopf-schieberrunde-ramsch"))
    assert [(r.deal, r.game_type, r.details.get("schieberrunde", False)) for r in records] == [
        (0, "solo_tout", False), (1, "solo", True), (2, "solo", True), (3, "schieberrunde_paid", True),
        (4, "ramsch", False)]
    assert records[3].results == (100, 100, -100, -100) and records[3].details["payers"] == [3, 2]  # Vorhand, the dealer
    assert records[4].details["loser"] == 2 and records[4].details["jungfrauen"] == [0, 3]


def test_the_stored_house_rules_session_reads_its_hochzeit_doppeln_auction_and_stock():
    events = stored("schafkopf-house-rules")
    hochzeit, solo, thrown = GAME.deal_records(events)
    first_deal = events[:next(i for i, e in enumerate(events) if e["type"] == "DealSettled")]
    [offer] = [e["data"]["seat"] for e in first_deal if e["type"] == "HochzeitOffered"]
    assert hochzeit.game_type == "hochzeit" and hochzeit.roles[offer] == PARTNER and hochzeit.roles[3] == DECLARER
    assert hochzeit.details["doppeln"] == [0, 1, 2] and hochzeit.details["multiplier"] == 8
    assert solo.details["target"] == 101 and solo.outcomes[1] == LOST
    assert thrown.game_type == "thrown_in" and thrown.results == (-160,) * 4  # the Stock, doubled by 4 Doppeln


# -- every rule, many games ----------------------------------------------------------------------

SESSIONS = [("every game type", dict(RULES, deals=6, thrown_in_counts=False), 0.45, 0.0)] + [
    (name, rules if "allowed_games" in rules else dict(RULES, **rules), rate, 0.0)
    for name, (rules, rate, _) in OPTION_PLAYOUTS.items()] + [
    ("schieberrunde", {"schieberrunde": True, "auction": True, "allowed_games": list(PRECEDENCE)}, 0.6, 0.7)]


@pytest.mark.parametrize("label,rules,rate,herz", SESSIONS, ids=[s[0] for s in SESSIONS])
def test_random_sessions_read_into_consistent_records_and_matches(label, rules, rate, herz):
    for seed in range(6):
        table, state, events = random_playout(GAME, 4, seed, rules=dict(rules, deals=6),
                                              choose=chooser(rate, herz), check=check)
        records, matches = check_session(table, state, events)
        declared = {}
        for event in events:
            if event.type == "GameDeclared":
                declared = event.data
            if event.type == "HandsDealt":
                dealt = [list(hand) for hand in event.data["hands"]]
            if event.type == "SecondHalfDealt":  # with Doppeln the hands come in two halves
                dealt = [hand + list(half) for hand, half in zip(dealt, event.data["hands"])]
            if event.type == "DealSettled" and event.data["game"] != "ramsch":
                record = next(r for r in records if r.deal == event.data["deal"])
                assert record.roles.index(DECLARER) == event.data["declarer"] == declared["declarer"]
                partners = [s for s, role in enumerate(record.roles) if role == PARTNER]
                if declared["game"] == "hochzeit":
                    assert partners == [declared["partner"]]
                elif declared["game"] == "rufspiel":
                    assert [s for s in range(4) if declared["called_ace"] in dealt[s]] == partners
                else:
                    assert partners == []
