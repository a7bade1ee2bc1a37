"""The search's budget, its whole-deal decisions and its inference: deterministic with a seeded
rng, never more playouts than asked, legal bids, trumps and touts, finite positive weights, a
card-play model exact for heuristic players, and no way to another seat's cards (before and
during the card play). Small budgets (a few dozen playouts): seconds, not minutes.
"""
from __future__ import annotations

import dataclasses
import math
import random

from domain.bots import match
from domain.bots.decision import decision_for
from domain.event import Event
from domain.scharwenzel.bidding import Bid
from domain.scharwenzel.cards import Ranking
from domain.scharwenzel.bots import BOTS, contract, heuristic, inference, search
from domain.scharwenzel.bots.determinize import TABLE, sample_hands, starting_hands
from domain.scharwenzel.bots.knowledge import read
from domain.table import TableState

SMALL = 24


def seeds(count: int, tag: str) -> list[str]:
    rng = random.Random(tag)
    return [rng.randbytes(32).hex() for _ in range(count)]


TRUTH: dict = {}  # id(decision) -> the starting hands of its deal (for checks only: no bot sees them)


def decisions(seed_hex: str, keep) -> list:
    """The decisions ``keep`` accepts from one heuristic deal, as their seats saw them."""
    out = []

    def watch(decision):
        if len(decision.legal) > 1 and keep(decision):
            out.append(decision)
        return heuristic.policy(decision)

    _, events = match.play(TABLE, "scharwenzel", 4, {"deals": 1}, [watch] * 4, seed_hex)
    dealt = next(e for e in events if e.type == "HandsDealt").data["hands"]
    for decision in out:
        TRUTH[id(decision)] = [list(hand) for hand in dealt]
    return out


def talk(decision) -> bool:
    return decision.legal[0]["type"] != "play"


def card(decision) -> bool:
    return decision.legal[0]["type"] == "play" and len(decision.legal) > 2


def first(keep, tag: str, need=lambda d: True):
    return next(d for seed_hex in seeds(30, tag) for d in decisions(seed_hex, keep) if need(d))


def with_rng(decision, seed, **changes):
    return dataclasses.replace(decision, rng=random.Random(seed), **changes)


def counting(monkeypatch, module, name):
    calls = []
    real = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a: calls.append(1) or real(*a))
    return calls


def test_a_decision_is_deterministic_with_a_seeded_rng():
    bid = first(talk, "determinism-bid", lambda d: d.legal[0]["type"] in ("pass", "bid"))
    play = first(card, "determinism-card", lambda d: inference.choices(d.history, read(d)))
    for decision in (bid, play):
        runs = {str(search.make_search(playouts=SMALL)(with_rng(decision, 3))) for _ in range(3)}
        assert len(runs) == 1


def test_the_playouts_are_honoured_and_the_decision_s_budget_comes_first(monkeypatch):
    rollouts = counting(monkeypatch, search, "play_out")
    play = first(card, "playouts-card")
    search.make_search(playouts=SMALL)(with_rng(play, 1))
    assert 0 < len(rollouts) <= SMALL
    rollouts.clear()
    search.make_search(playouts=SMALL)(with_rng(play, 1, playouts=10))  # the seat's budget wins
    assert 0 < len(rollouts) <= 10
    finished = counting(monkeypatch, contract, "finish")
    bid = first(talk, "playouts-bid", lambda d: d.legal[0]["type"] in ("pass", "bid"))
    search.policy(with_rng(bid, 1, playouts=SMALL))
    assert len(finished) == SMALL // len(bid.legal) * len(bid.legal)


def test_a_hopeless_tout_is_declined_after_the_first_sampled_deal(monkeypatch):
    finished = counting(monkeypatch, contract, "finish")
    asked = first(talk, "tout", lambda d: d.legal[0]["type"] == "announce_tout")
    assert search.policy(with_rng(asked, 1, playouts=200)) == {"type": "no_tout"}
    assert len(finished) < 200


def test_whole_deal_decisions_are_searched_and_legal(monkeypatch):
    searched = counting(monkeypatch, contract, "choose")
    kinds = set()
    for seed_hex in seeds(3, "whole-deal"):
        seen = []

        def check(decision, bot=search.make_search(playouts=12)):
            command = bot(decision)
            assert command in decision.legal
            seen.append(command["type"])
            return command

        state, _ = match.play(TABLE, "scharwenzel", 4, {"deals": 1}, [check] * 4, seed_hex)
        assert state.status == "finished"
        kinds.update(seen)
    assert searched and {"no_tout", "play"} <= kinds
    searched.clear()
    cards_only = BOTS["search-cards"]
    bid = first(talk, "cards-only", lambda d: d.legal[0]["type"] in ("pass", "bid"))
    assert cards_only(bid) == heuristic.policy(bid) and searched == []


def test_a_pass_makes_a_strong_hand_less_likely_than_a_weak_one():
    # Given seat 1 passed first, When a sampled deal gives it a strong or a weak hand, Then the
    # strong one weighs less, and neither weighs 0.
    passed = inference.Choice(1, "pass", None, {"type": "pass"})
    strong = ("QC", "7H", "QS", "JC", "AH", "KH", "9H", "AS")
    weak = ("8C", "9S", "10S", "8D", "9D", "KD", "10C", "8S")
    assert 0 < inference.likelihood(passed, strong, 4) < inference.likelihood(passed, weak, 4) <= 1
    bid = inference.Choice(1, "bid", Bid(0, 3, False), {"type": "bid", "value": 4})
    assert inference.likelihood(bid, strong, 4) > inference.likelihood(bid, weak, 4) == inference.FLOOR


def test_inference_weights_stay_finite_and_positive():
    checked = 0
    for seed_hex in seeds(4, "weights"):
        for decision in decisions(seed_hex, lambda d: True)[::4]:
            known = read(decision)
            seen = inference.choices(decision.history, known)
            assert all(c.seat != decision.seat for c in seen)
            for _ in range(5):
                w = inference.weight(seen, starting_hands(known, sample_hands(known, decision.rng)), 4)
                assert math.isfinite(w) and 0 < w <= 1
                checked += bool(seen)
    assert checked > 0


def forehand_decision(hands) -> object:
    """Seat 0's first bid when the cards are ``hands`` (seat 0 first, dealer seat 3)."""
    events = TABLE.create("scharwenzel", 4, {"deals": 1}, None, [{"hands": hands, "dealer": 3}], "00" * 32)
    state = TABLE.fold(TableState(), events)
    for seat in range(4):
        new = TABLE.decide(state, None, {"type": "take_seat", "seat": seat})
        events += new
        state = TABLE.fold(state, new)
    while (command := TABLE.system_command(state, "11" * 32)) is not None:
        new = TABLE.decide(state, None, command)
        events += new
        state = TABLE.fold(state, new)
    assert TABLE.to_act(state) == {0}
    return decision_for(TABLE, state, events, 0, random.Random(9))


def test_the_search_cannot_reach_another_seat_s_cards():
    mine = ["QC", "7H", "AH", "KH", "10H", "AS", "8C", "9C"]
    others = [["QS", "JC", "JS", "JH", "JD", "AC", "KC", "10C"], ["9H", "8H", "KS", "10S", "9S", "8S", "7S", "QH"],
              ["AD", "KD", "QD", "10D", "9D", "8D", "7D", "7C"]]
    one = forehand_decision([mine] + others)
    other = forehand_decision([mine] + [others[2], others[0], others[1]])
    assert one.view == other.view and one.history == other.history
    assert len(one.legal) > 1
    for bot in (search.policy, BOTS["search-deal"]):
        assert bot(with_rng(one, 5, playouts=60)) == bot(with_rng(other, 5, playouts=60))


def late_card_decisions(tag: str, count: int = 4) -> list:
    """Card decisions with at least four other seats' cards played, from heuristic deals."""
    return [d for seed_hex in seeds(count, tag) for d in decisions(seed_hex, card)
            if len(inference.plays(d.history, read(d))) >= 4]


def test_card_play_weighs_the_true_hands_of_heuristic_players_one_and_most_samples_less():
    # Given heuristic players, the model of their card play is exact: the true starting hands
    # explain every card, and a sampled deal that explains fewer cards weighs less
    lower = measured = 0
    for decision in late_card_decisions("plays"):
        known = read(decision)
        played = inference.plays(decision.history, known)
        assert all(p.seat != decision.seat for p in played)
        truth = TRUTH[id(decision)]
        assert inference.play_weight(played, truth, known) == 1.0
        for _ in range(5):
            w = inference.play_weight(played, starting_hands(known, sample_hands(known, decision.rng)), known)
            assert math.isfinite(w) and 0 < w <= 1
            lower += w < 1
            measured += 1
    assert measured > 20 and lower > measured / 2



def test_mid_play_the_search_cannot_reach_another_seat_s_cards():
    # Given a card decision after other seats' cards, and the same deal with two unplayed cards of
    # one suit swapped between two other seats (every earlier card stays legal, every public
    # record the same), When the search decides in both, Then it plays the same card
    checked = 0
    for seed_hex in seeds(6, "no-peek-play"):
        state, events = match.play(TABLE, "scharwenzel", 4, {"deals": 1}, [heuristic.policy] * 4, seed_hex)
        played_cards = [e for e in events if e.type == "CardPlayed"]
        if len(played_cards) < 10:
            continue
        cut = events.index(played_cards[9]) + 1  # after ten cards
        prefix = events[:cut]
        seat = TABLE.fold(TableState(), prefix).inner.trick.next_to_play(4)
        dealt_at = next(i for i, e in enumerate(prefix) if e.type == "HandsDealt")
        hands = [list(h) for h in prefix[dealt_at].data["hands"]]
        gone = {e.data["card"] for e in played_cards[:10]}
        ranking = Ranking(next(e for e in prefix if e.type == "TrumpsNamed").data["suit"], 4)
        others = [s for s in range(4) if s != seat]
        swap = next(((a, b, x, y) for a in others for b in others if a < b
                     for x in hands[a] if x not in gone for y in hands[b] if y not in gone
                     if ranking.follow_suit(x) == ranking.follow_suit(y) and x != y), None)
        if swap is None:
            continue
        a, b, x, y = swap
        hands[a][hands[a].index(x)], hands[b][hands[b].index(y)] = y, x
        dealt = prefix[dealt_at]
        twin = list(prefix)
        twin[dealt_at] = Event(dealt.type, {**dealt.data, "hands": hands}, dealt.visibility, dealt.v)
        one = decision_for(TABLE, TABLE.fold(TableState(), prefix), prefix, seat, random.Random(5))
        other = decision_for(TABLE, TABLE.fold(TableState(), twin), twin, seat, random.Random(5))
        assert one.view == other.view and one.history == other.history
        if len(one.legal) < 2:
            continue
        for bot in (search.policy, BOTS["search-deal"]):
            assert bot(with_rng(one, 5, playouts=SMALL)) == bot(with_rng(other, 5, playouts=SMALL))
        checked += 1
    assert checked >= 2
