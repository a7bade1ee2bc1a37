"""A finished Scharwenzel game for the history and the ratings (``domain/scharwenzel/record.py``).

Given a game played (the rulebook's scoring example, the eight-player deals of the scoring tests,
seeded random games), When the history reads the served events, Then each scored deal is a record —
the score table's line it was played under, who declared, each seat's side's points and outcome —
and the game one match of its two sides, ranked by threads as the table ranks them.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from domain import audit
from domain.record import DECLARER, DEFENDER, EVEN, LOST, PARTNER, PLAYER, WON, Match
from domain.scharwenzel.scoring import side_of
from domain.table import Table, TableState
from tests.domain.harness import new_table, random_playout, run_system, served
from tests.domain.record_checks import check_game_match, check_match, check_records, read, table_ranking

from .helpers import GAME, MAJORITY_8, SCORING_EXAMPLE, TIE_8, TOUT_8, Driver, rotate
from .test_playout import choose as playout_choice

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "exports"
SEED = "3a" * 32


def records_of(driver: Driver):
    shown = served(driver.events)
    return GAME.deal_records(shown), GAME.rating_matches(shown)


def test_the_rulebook_scoring_example_is_won_by_the_side_that_did_not_bid():
    # Dan (seat 3) bids "3 besser": clubs. Anna and Carla (side 0) take the first five tricks: 4 for
    # the game, 2 for the first, 4 matadors: 10. No thread yet, so the game of one deal is a tie.
    d = Driver(4, rules={"deals": 1}, presets=[{"hands": SCORING_EXAMPLE, "dealer": 3}])
    d.deal()
    d.bids(None, None, None, {"type": "bid", "value": 3, "besser": True})
    d.no_touts()
    d.play_script(SCORING_EXAMPLE)
    [record], [match] = records_of(d)
    check_records([record], 4)
    assert record.game_type == "clubs"
    assert record.roles == (DEFENDER, PARTNER, DEFENDER, DECLARER)
    assert record.results == (10, 0, 10, 0) and record.outcomes == (WON, LOST, WON, LOST)
    assert record.details["named_by"] == 3 and record.details["bid"] == {"seat": 3, "value": 3, "besser": True}
    assert (record.details["game"], record.details["first"], record.details["matadors"]) == (4, 2, 4)
    assert record.details["matador_cards"] == ["QC", "7C", "QS", "JC"] and record.details["hooks"] == [0, 0]
    assert record.details["tout_announced_by"] is None and not record.details["bock"]
    assert match == Match(teams=((0, 2), (1, 3)), ranks=(1, 1))


def eight(presets, rules=None) -> Driver:
    return Driver(8, rules=rules or {"deals": len(presets)}, presets=presets)


def play_passed_deal(d: Driver, hands, tout_by=None):
    """Everybody passes (no suit of three in these hands); ``tout_by`` announces tout; each seat plays
    its cards in order."""
    d.deal()
    d.bids(*[None] * 8)
    while d.state.phase == "tout":
        seat = d.seat()
        d.do(seat, {"type": "announce_tout" if seat == tout_by else "no_tout"})
    return d.play_script(hands)


def test_a_bock_is_even_for_all_and_its_value_goes_to_the_next_deals_winner():
    presets = [{"hands": TIE_8, "dealer": 7}, {"hands": rotate(MAJORITY_8, 1)}]
    d = eight(presets)
    play_passed_deal(d, TIE_8)
    play_passed_deal(d, rotate(MAJORITY_8, 1))
    (bock, won), [match] = records_of(d)
    check_records([bock, won], 8)
    assert bock.game_type == "all_passed" and bock.roles == (PLAYER,) * 8  # nobody bid, nobody declared
    assert bock.results == (0,) * 8 and bock.outcomes == (EVEN,) * 8
    assert bock.details["bock"] and bock.details["tricks"] == [2, 2] and bock.details["bock_out"] == 2
    # Rotated one seat, side 1 holds what side 0 held: it takes 3 of 4, 2 + 2 for the first + the Bock.
    assert won.details["bock_in"] == 2 and won.details["winner"] == 1
    assert won.results == tuple(6 if seat % 2 else 0 for seat in range(8))
    assert won.outcomes == tuple(WON if seat % 2 else LOST for seat in range(8))
    assert match.teams == ((0, 2, 4, 6), (1, 3, 5, 7)) and match.ranks == (1, 1)  # no thread, no hook


def test_an_unannounced_tout_is_a_hook_in_the_details_and_decides_the_game():
    d = eight([{"hands": TOUT_8, "dealer": 7}])
    play_passed_deal(d, TOUT_8)
    [record], [match] = records_of(d)
    assert record.game_type == "all_passed" and record.details["tout"] and record.details["hooks"] == [1, 0]
    assert record.results == tuple(0 if seat % 2 else 2 for seat in range(8))
    assert match.ranks == (1, 2)


@pytest.mark.parametrize("hands,announcer,made", [(TOUT_8, 0, True), (TOUT_8, 1, False), (MAJORITY_8, 2, False)])
def test_an_announced_tout_is_its_announcers_contract_made_or_failed(hands, announcer, made):
    d = eight([{"hands": hands, "dealer": 7}])
    play_passed_deal(d, hands, tout_by=announcer)
    [record], [match] = records_of(d)
    check_records([record], 8)
    assert record.game_type == "announced_tout" and record.details["tout_made"] is made
    assert record.details["tout_announced_by"] == announcer and record.details["announced_tout"] == announcer % 2
    assert record.roles[announcer] == DECLARER
    assert all(record.roles[s] == (PARTNER if side_of(s) == side_of(announcer) else DEFENDER)
               for s in range(8) if s != announcer)
    scorer = side_of(announcer) if made else 1 - side_of(announcer)
    assert record.outcomes == tuple(WON if side_of(s) == scorer else LOST for s in range(8))
    assert record.details["hooks"][scorer] == (2 if made else 4)
    assert match.ranks == ((1, 2) if scorer == 0 else (2, 1))


def test_trumps_named_after_a_bid_of_another_suit_are_the_other_suit_line():
    # Seat 0 (forehand) holds exactly four hearts: he bids 4 and names hearts.
    hands = [["AH", "KH", "QH", "10H", "QC", "7C", "QS", "JC"],
             ["JS", "AC", "JD", "9H", "7H", "AS", "AD", "KS"],
             ["JH", "9C", "8H", "8C", "KC", "8S", "8D", "10S"],
             ["10C", "9S", "7S", "7D", "9D", "KD", "QD", "10D"]]
    d = Driver(4, rules={"deals": 1}, presets=[{"hands": hands, "dealer": 3}])
    d.deal()
    d.bids({"type": "bid", "value": 4}, None, None, None)
    d.do(0, {"type": "name_trumps", "suit": "H"})
    d.no_touts()
    while d.state.phase == "playing":
        seat = d.seat()
        d.do(seat, GAME.legal_commands(d.state, seat)[0])
    [record], _ = records_of(d)
    assert record.game_type == "other_suit" and record.details["trumps"] == "H"
    assert record.roles == (DECLARER, DEFENDER, PARTNER, DEFENDER)
    assert record.details["game"] in (0, 2)  # 2 for the majority side, whichever it was


# -- the whole game ------------------------------------------------------------------------------

def stored(name: str) -> list[dict]:
    return audit.parse_lines((FIXTURES / f"{name}.ndjson").read_text())[1:]


def test_a_petersdorfer_counts_two_threads_in_the_games_match():
    events = stored("scharwenzel-thread")
    records, matches = GAME.deal_records(events), GAME.rating_matches(events)
    assert [r.game_type for r in records] == ["clubs", "clubs"]
    assert [e["data"] for e in events if e["type"] == "GameEnded"] == [{"deals": 2, "threads": [2, 0], "winner": 0}]
    assert matches == [Match(teams=((0, 2), (1, 3)), ranks=(1, 2))]


def test_the_stored_game_reads_an_announced_tout_failed_and_one_made_after_all_passed():
    failed, made = GAME.deal_records(stored("scharwenzel"))
    # Seat 0 bid "3 besser"; seat 3 (the other side) announced tout and failed: four hooks to side 0.
    assert failed.game_type == "announced_tout" and failed.details["named_by"] == 0
    assert failed.roles == (DEFENDER, PARTNER, DEFENDER, DECLARER) and failed.outcomes == (WON, LOST, WON, LOST)
    assert failed.results == (0, 0, 0, 0) and failed.details["hooks"] == [4, 0]
    # All passed; seat 2 announced tout and made it.
    assert made.game_type == "announced_tout" and made.details["after_all_passed"]
    assert made.roles == (PARTNER, DEFENDER, DECLARER, DEFENDER) and made.results == (2, 0, 2, 0)


def cut(table: Table, state: TableState, events: list):
    new = table.decide(state, None, {"type": "end_game", "reason": "aborted"})
    state = table.fold(state, new)
    return run_system(table, state, events + new, SEED)


def playing(players, rules, until):
    """A table of random players (seeded), played until ``until(inner state)``."""
    rng = random.Random(5)
    table, state, events = new_table(GAME, players, rules, seed_hex=SEED)
    while state.status == "active" and not until(state.inner):
        seat = min(table.to_act(state))
        new = table.decide(state, seat, playout_choice(rng, seat, table.legal_commands(state, seat)))
        state = table.fold(state, new)
        events, state = run_system(table, state, events + new, SEED)
    return table, state, events


def test_a_game_cut_short_is_ranked_by_the_threads_drawn_so_far():
    # Threads to 5; cut as soon as a side has a thread or a hook, in the next deal's play.
    table, state, events = playing(4, {"threads": 5}, lambda s: sum(s.sheet.totals) >= 1 and s.phase == "playing")
    events, state = cut(table, state, events)
    assert state.cut_short == "aborted" and not any(e.type == "GameEnded" for e in events)
    records, matches = read(GAME, events)
    assert len(records) == sum(1 for e in events if e.type == "DealScored") >= 1
    check_game_match(matches, table_ranking(table, state))
    assert sorted(matches[0].ranks) == [1, 2]


def test_a_game_cut_short_before_a_deal_was_scored_has_no_match():
    table, state, events = playing(6, {"deals": 3}, lambda s: s.phase == "playing")
    events, state = cut(table, state, events)
    assert read(GAME, events) == ([], [])


def test_a_game_that_never_started_has_no_records():
    table = Table({GAME.name: GAME})
    events = table.create(GAME.name, 4, {}, None, None, "00" * 32)
    events += table.decide(table.fold(TableState(), events), None, {"type": "end_game", "reason": "aborted"})
    assert read(GAME, events) == ([], [])


@pytest.mark.parametrize("players", [4, 6, 8])
def test_random_games_read_into_records_that_agree_with_the_sheet(players):
    for seed in range(8):
        rules = {"threads": 2} if seed % 2 else {"deals": 6}
        table, state, events = random_playout(GAME, players, seed, rules=rules, choose=playout_choice)
        records, matches = read(GAME, events)
        check_records(records, players)
        scored = [e.data for e in events if e.type == "DealScored"]
        assert [r.deal for r in records] == [d["deal"] for d in scored] == list(range(len(scored)))
        for record, data in zip(records, scored):
            assert record.results == tuple(data["points"][seat % 2] for seat in range(players))
            assert (EVEN in record.outcomes) == (data["winner"] is None)
            assert record.details["bock"] == (record.outcomes == (EVEN,) * players)
            bidder = data["named_by"]
            if record.details["tout_announced_by"] is None and bidder is not None:
                assert record.roles[bidder] == DECLARER
        sheet = GAME.scores(state.inner)["sides"]
        assert [sum(r.details["hooks"][side] for r in records) for side in (0, 1)] == sheet["hooks"]
        [match] = matches
        check_match(match, players)
        check_game_match(matches, table_ranking(table, state))
