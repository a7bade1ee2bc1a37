"""The search's budget, whole-deal decisions and inference: deterministic with a seeded rng,
exactly its playouts, legal predictions searched, weights finite and positive, and no way to
another seat's hidden cards or prediction."""
from __future__ import annotations

import math
import random

import pytest

from domain.bots import match
from domain.bots.decision import decision_for
from domain.scharfe_schoten.bots import BOTS, heuristic, search
from domain.scharfe_schoten.bots.determinize import Determinizer
from domain.scharfe_schoten.bots.inference import Inference, PlayInference
from domain.scharfe_schoten.cards import colour_of
from tests.domain.harness import new_table

from .support import GAME, fill_deal, preset

TABLE = new_table(GAME, 3, {"rounds": 1})[0]


def decisions(players: int, number: int) -> list:
    """Every decision with a choice of a one-round heuristic game."""
    seen = []

    def keep(decision):
        if len(decision.legal) > 1:
            seen.append(decision)
        return heuristic.policy(decision)

    match.play(TABLE, GAME.name, players, {"rounds": 1}, [keep] * players, f"{number:064x}")
    return seen


def with_budget(decision, playouts, rng_seed=0):
    return decision.__class__(**{**decision.__dict__, "playouts": playouts, "rng": random.Random(rng_seed)})


def counted(monkeypatch) -> list:
    runs = []
    real = search.playout

    def playout(*args):
        runs.append(1)
        return real(*args)

    monkeypatch.setattr(search, "playout", playout)
    return runs


def test_a_seeded_decision_is_deterministic():
    picked = decisions(4, 11)[::10]
    for decision in picked:
        first = [BOTS[kind](with_budget(decision, 8, 5)) for kind in ("search-infer", "search-deal")]
        again = [BOTS[kind](with_budget(decision, 8, 5)) for kind in ("search-infer", "search-deal")]
        assert first == again
        assert all(command in decision.legal for command in first)


def test_the_budget_is_the_playouts_asked_for_or_the_default(monkeypatch):
    runs = counted(monkeypatch)
    checked_default = False
    for decision in decisions(3, 12)[::8]:
        candidates = heuristic.ranked(search.from_decision(decision), decision.view["game_state"]["phase"],
                                      decision.legal)[:search.WIDTH]
        if len(candidates) < 2:
            continue
        for playouts in (5, 9):
            runs.clear()
            BOTS["search"](with_budget(decision, playouts))
            assert len(runs) == playouts
        if not checked_default:
            runs.clear()
            BOTS["search"](with_budget(decision, None))
            assert len(runs) == search.DEFAULT_PLAYOUTS
            checked_default = True
    assert checked_default


def test_predictions_are_searched_except_by_search_cards(monkeypatch):
    runs = counted(monkeypatch)
    predicting = [d for d in decisions(4, 13) if d.view["game_state"]["phase"] == "predicting"]
    assert len(predicting) == 4
    for decision in predicting:
        for kind, searched in (("search-infer", True), ("search", True), ("search-cards", False)):
            runs.clear()
            command = BOTS[kind](with_budget(decision, 8))
            assert command in decision.legal and command["type"] == "predict"
            assert len(runs) == (8 if searched else 0), kind
        assert BOTS["search-cards"](decision) == heuristic.policy(decision)


def test_inference_weights_are_finite_positive_and_informative():
    spread = []
    for decision in decisions(4, 14)[::4]:
        sampler = Determinizer(decision)
        weigh = Inference(sampler.deal, decision.players)
        revealed = decision.view["game_state"]["predictions_revealed"]
        assert weigh.informed == revealed
        weights = [weigh.weight(sampler.draw(random.Random(i))[0]) for i in range(12)]
        assert all(math.isfinite(w) and 0 < w <= 1 for w in weights)
        if not revealed:
            assert set(weights) == {1.0}
        else:
            spread.append(max(weights) / min(weights))
    # The revealed predictions do tell hands apart.
    assert spread and max(spread) > 2


def test_card_play_weights_are_finite_positive_and_informative():
    spread, unplayed = [], 0
    for decision in decisions(4, 15)[::3]:
        sampler = Determinizer(decision)
        weigh = PlayInference(sampler)
        if not weigh.informed:
            unplayed += 1
            assert all(weigh.of(sampler.draw(random.Random(i))) == 1.0 for i in range(4))
            continue
        weights = [weigh.of(sampler.draw(random.Random(i))) for i in range(12)]
        assert all(math.isfinite(w) and 0 < w <= 1 for w in weights)
        spread.append(max(weights) / min(weights))
    # Before the first card nothing is weighed; after it, the cards played tell hands apart.
    assert unplayed and len(spread) > 5 and max(spread) > 10


def swapped(hands: list[list[str]], cupboard: list[str]) -> tuple[list[list[str]], list[str]]:
    """The same deal for seats 0 and 3 and in public (every colour count), with one card of a
    colour swapped between seats 1 and 2 and the cupboard in another order."""
    for card in hands[1]:
        other = next((c for c in hands[2] if colour_of(c) == colour_of(card)), None)
        if other is not None:
            break
    hands = [list(hand) for hand in hands]
    hands[1][hands[1].index(card)], hands[2][hands[2].index(other)] = other, card
    return hands, cupboard[::-1]


def started(hands, cupboard, predictions):
    table, state, events = new_table(GAME, 4, {"rounds": 1}, [preset(hands, cupboard, starter=0)])
    for seat, (most, fewest) in predictions:
        new = table.decide(state, seat, {"type": "predict", "most": most, "fewest": fewest})
        events += new
        state = table.fold(state, new)
    return table, state, events


@pytest.mark.parametrize("kind", ["search-infer", "search-deal"])
def test_the_search_cannot_reach_another_seats_cards_or_hidden_prediction(kind):
    hands, cupboard = fill_deal(4)
    hands = [list(h) for h in hands]
    # Shuffle the deal so seats 1 and 2 hold cards of the same colour to swap.
    pool = [c for h in hands for c in h] + cupboard
    random.Random(3).shuffle(pool)
    hands, cupboard = [sorted(pool[10 * s:10 * s + 10]) for s in range(4)], pool[40:]
    other_hands, other_cupboard = swapped(hands, cupboard)
    # Seat 3 predicts last, with seats 0-2's predictions hidden (and different in the two games).
    mine = started(hands, cupboard, [(0, ("R", "G")), (1, ("G", "Y")), (2, ("Y", "B"))])
    theirs = started(other_hands, other_cupboard, [(0, ("B", "R")), (1, ("R", "Y")), (2, ("G", "R"))])
    seen = [decision_for(*game, 3, random.Random(9), playouts=8) for game in (mine, theirs)]
    assert seen[0].view == seen[1].view and seen[0].history == seen[1].history
    assert BOTS[kind](seen[0]) == BOTS[kind](seen[1])
    # Seat 0 leads the first trick: every prediction is public now, the hands of 1 and 2 not.
    same = [(0, ("R", "G")), (1, ("G", "Y")), (2, ("Y", "B")), (3, ("B", "R"))]
    games = [started(hands, cupboard, same), started(other_hands, other_cupboard, same)]
    assert games[0][1].inner.hands != games[1][1].inner.hands
    seen = [decision_for(*game, 0, random.Random(9), playouts=8) for game in games]
    assert seen[0].view == seen[1].view and seen[0].history == seen[1].history
    assert BOTS[kind](seen[0]) == BOTS[kind](seen[1])
    # Seats 0, 1 and 2 play a card each (one both of their hands hold): seat 3 weighs those cards
    # (search-infer), and still sees the same.
    for seat in range(3):
        legal = [table.legal_commands(state, seat) for table, state, _ in games]
        card = next(c for c in legal[0] if c in legal[1])
        for index, (table, state, events) in enumerate(games):
            new = table.decide(state, seat, card)
            games[index] = (table, table.fold(state, new), events + new)
    seen = [decision_for(*game, 3, random.Random(9), playouts=8) for game in games]
    assert PlayInference(Determinizer(seen[0])).informed
    assert seen[0].view == seen[1].view and seen[0].history == seen[1].history
    assert BOTS[kind](seen[0]) == BOTS[kind](seen[1])
