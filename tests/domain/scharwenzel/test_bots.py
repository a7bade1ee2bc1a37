"""The heuristic and search bots: always legal, a sound determinization, a search that stops
when told, and stronger play on duplicate deals (each policy plays every seat of the same deal).

All deterministic: no clock (``match.no_clock``), seeds fixed before the results were known.
"""
from __future__ import annotations

import dataclasses
import random
import statistics

import pytest

from domain.bots import match, random_bot
from domain.scharwenzel.bots import BOTS, heuristic, search
from domain.scharwenzel.bots.determinize import TABLE, prefix_state, sample_hands, sampled_state
from domain.scharwenzel.bots.knowledge import read
from domain.scharwenzel.bots.outcome import side_value
from domain.scharwenzel.cards import Ranking, deck

ONE_DEAL = {"deals": 1}
CHEAP = search.make_search(playouts=8)


def seeds(count: int, tag: str) -> list[str]:
    rng = random.Random(tag)
    return [rng.randbytes(32).hex() for _ in range(count)]


def checked(policy, seen: list):
    """``policy``, asserting every answer is one of the decision's legal commands."""
    def check(decision):
        command = policy(decision)
        assert command in decision.legal, (command, decision.legal)
        seen.append(command["type"])
        return command
    return check


def play(policies, seed_hex, players=4, rules=ONE_DEAL, rng_seed=0):
    return match.play(TABLE, "scharwenzel", players, rules, policies, seed_hex, rng_seed=rng_seed)


def test_both_bots_are_registered():
    assert set(BOTS) == {"heuristic", "search", "search-cards", "search-deal", "search-rollout",
                         "search-solving"}
    assert BOTS["heuristic"] is heuristic.policy and BOTS["search"] is search.policy
    assert (search.policy.deal, search.policy.infer) == (True, True)
    assert (BOTS["search-deal"].deal, BOTS["search-deal"].infer) == (True, False)
    assert (BOTS["search-cards"].deal, BOTS["search-cards"].infer) == (False, False)
    assert (BOTS["search-solving"].solving, BOTS["search-solving"].infer) == (True, False)
    assert search.policy.playouts is None  # the default: search.DEFAULT_PLAYOUTS


@pytest.mark.parametrize("lineup, players, rules, count", [
    (("heuristic",) * 4, 4, ONE_DEAL, 6),
    (("cheap",) * 4, 4, ONE_DEAL, 2),
    (("cheap", "heuristic", "random", "heuristic"), 4, ONE_DEAL, 2),
    (("heuristic", "cheap", "heuristic", "random"), 4, {"deals": 3}, 1),
    (("cheap", "heuristic", "random") * 2, 6, ONE_DEAL, 1),
    (("heuristic",) * 8, 8, ONE_DEAL, 1),
])
def test_every_decision_of_whole_games_is_legal(lineup, players, rules, count):
    named = {"heuristic": heuristic.policy, "cheap": CHEAP, "random": random_bot.policy}
    for seed_hex in seeds(count, f"legal-{players}-{lineup}"):
        seen: list[str] = []
        state, events = play([checked(named[name], seen) for name in lineup], seed_hex, players, rules)
        assert state.status == "finished"
        assert seen.count("play") == len(deck(players)) * (rules["deals"])
        assert {"play"} < set(seen)  # bidding or tout decisions were made too
        assert any(e.type == "DealScored" for e in events)


def test_the_heuristic_names_the_trumps_it_is_strongest_in_and_declines_a_weak_tout():
    hand = ["QC", "7H", "AH", "KH", "10H", "8D", "9D", "10D"]
    legal = [{"type": "name_trumps", "suit": "H"}, {"type": "name_trumps", "suit": "D"}]
    assert heuristic.choose_trumps(hand, legal, 4) == {"type": "name_trumps", "suit": "H"}
    assert not heuristic.wants_tout(hand, "H", 4)
    assert heuristic.wants_tout(["QC", "7H", "QS", "JC", "AH", "KH", "AS", "AD"], "H", 4)


def test_the_heuristic_plays_low_when_the_partner_wins_for_sure_and_wins_cheaply_otherwise():
    ranking = Ranking("H", 4)
    # Seat 3 plays last; its partner, seat 1, leads the best trump: nothing to gain, throw low.
    trick = [(1, "QC"), (2, "8H"), (0, "9H")]
    assert heuristic.choose_card(3, 4, ranking, ["JS", "AH", "10H"], trick, set(), {}) == "10H"
    # An opponent wins with the Ace of spades: the cheapest trump that beats it.
    trick = [(0, "AS"), (1, "7S"), (2, "8S")]
    assert heuristic.choose_card(3, 4, ranking, ["JS", "AH", "9H", "AD"], trick, set(), {}) == "9H"


def collect_decisions(seed_hex, rules, wanted_seat=None):
    """Every play decision of a heuristic game (the decisions, as the seats saw them)."""
    out = []

    def keep(decision):
        if decision.legal[0]["type"] == "play" and wanted_seat in (None, decision.seat):
            out.append(decision)
        return heuristic.policy(decision)

    play([keep] * 4, seed_hex, 4, rules)
    return out


def test_the_determinization_agrees_with_everything_the_seat_sees():
    voids_checked = 0
    for seed_hex in seeds(3, "determinize"):
        for decision in collect_decisions(seed_hex, {"deals": 2})[::3]:
            known = read(decision)
            ranking = known.ranking
            prefix = prefix_state(decision, known)
            rng = random.Random(decision.seat)
            for _ in range(3):
                hands = sample_hands(known, rng)
                state = sampled_state(decision, known, prefix, hands)
                assert TABLE.view(state, decision.seat)["game_state"] == decision.view["game_state"]
                key = lambda command: command["card"]  # the order of a hand is not part of what a seat sees
                assert sorted(TABLE.legal_commands(state, decision.seat), key=key) == sorted(decision.legal, key=key)
                assert list(hands[decision.seat]) == list(decision.view["game_state"]["hand"])
                assert [len(h) for h in hands] == list(decision.view["game_state"]["hand_sizes"])
                everything = [c for h in hands for c in h] + [c for cs in known.played.values() for c in cs]
                assert sorted(everything) == sorted(deck(4))
                for seat, lacks in known.voids.items():
                    if seat != decision.seat:
                        assert not [c for c in hands[seat] if ranking.follow_suit(c) in lacks]
                        voids_checked += len(lacks)
    assert voids_checked > 0  # the games did reveal voids, so the check above checked something


def test_the_voids_are_read_from_the_history():
    for decision in collect_decisions(seeds(1, "voids")[0], ONE_DEAL):
        known = read(decision)
        ranking = known.ranking
        trick = []
        for event in decision.history[known.deal_start:]:
            if event["type"] == "CardPlayed":
                seat, card = event["data"]["seat"], event["data"]["card"]
                if trick and ranking.follow_suit(card) != ranking.follow_suit(trick[0]):
                    assert ranking.follow_suit(trick[0]) in known.voids[seat]
                trick.append(card)
            elif event["type"] == "TrickTaken":
                trick = []


def first_real_choice(seed_hex):
    """A play decision with more than one legal card."""
    return next(d for d in collect_decisions(seed_hex, ONE_DEAL) if len(d.legal) > 2)


def test_the_search_stops_at_once_when_out_of_time(monkeypatch):
    rollouts = []
    real = search.play_out
    monkeypatch.setattr(search, "play_out", lambda *a: rollouts.append(1) or real(*a))
    decision = first_real_choice(seeds(1, "out-of-time")[0])
    late = dataclasses.replace(decision, out_of_time=lambda: True)
    assert search.policy(late) == heuristic.policy(late)
    assert rollouts == []
    # Time running out in the middle: the rollouts stop with it, and the answer is still legal.
    calls = iter(range(10_000))
    soon = dataclasses.replace(decision, out_of_time=lambda: next(calls) >= 5)
    assert search.policy(soon) in decision.legal
    assert 0 < len(rollouts) <= 5
    assert len(rollouts) < search.DEFAULT_PLAYOUTS


def test_the_search_stops_at_its_cap_without_a_clock(monkeypatch):
    rollouts = []
    real = search.play_out
    monkeypatch.setattr(search, "play_out", lambda *a: rollouts.append(1) or real(*a))
    decision = first_real_choice(seeds(1, "cap")[0])
    assert search.make_search(playouts=20)(decision) in decision.legal
    assert 0 < len(rollouts) <= 20
    rollouts.clear()
    assert search.make_search(playouts=1)(decision) == heuristic.policy(decision)  # not one full round
    assert rollouts == []


def duplicate(a, b, count, tag):
    """Per seed, A's side value averaged over A at the even seats and A at the odd seats."""
    out = []
    for k, seed_hex in enumerate(seeds(count, tag)):
        total = 0
        for a_side in (0, 1):
            lineup = [a if seat % 2 == a_side else b for seat in range(4)]
            _, events = play(lineup, seed_hex, rng_seed=k)
            total += sum(side_value(e.data, a_side) for e in events if e.type == "DealScored")
        out.append(total / 2)
    return out


def test_the_heuristic_beats_random_on_duplicate_deals():
    results = duplicate(heuristic.policy, random_bot.policy, 40, "duplicate-heuristic-random")
    assert statistics.mean(results) > 0


# A guard, not a proof of strength: on these 40 fixed deals (picked before any result) the whole-deal
# search with inference at 16 playouts averages +0.49 points a deal, 95% CI [-0.18, +1.16], and the
# search is deterministic here (no clock), so a change that makes it lose on them fails this test.
# (Searching cards only, it averaged -0.04 on the same deals.) The strength claim is the arena's,
# over 500 duplicate deals at the default playouts (docs/bots-and-arena.md).
def test_the_search_keeps_ahead_of_the_heuristic_on_its_fixed_deals():
    results = duplicate(search.make_search(playouts=16), heuristic.policy, 40, "duplicate-search-heuristic")
    assert statistics.mean(results) > 0
