"""Policy-based inference: how likely a drawn deal makes what the other seats did in public.

In Scharfe Schoten the colour counts of every hand are public (SS-5), and ``determinize`` keeps
them, and every void, exactly. What is left to infer is the values, and the public choice that
depends on them is the prediction: once revealed, a seat that predicted "most red" likely holds
red cards that win tricks. So a drawn deal is weighed by the chance that the heuristic (the
bots' own policy, ``heuristic.prediction_values``), holding that seat's drawn hand at the deal's
start, would have made the seat's revealed prediction: a softmax of the heuristic's estimated
score of each of the 12 predictions (``TEMPERATURE`` points), mixed with a uniform ``FLOOR`` so
that no deal is ruled out (the seat may be a person or another bot). The weight of a deal is
the product over the other seats.

Cupboard takes tell nothing here: the heuristic's take depends only on public counts and the
revealed predictions, not on the hand.

The cards played tell about the values (``PlayInference``, the arena's ``search-infer``): which
card of a colour a seat played, and whether it went for the trick. A drawn deal is replayed
through the simulator from the first card, and at each card another seat played with a choice,
the heuristic holding that seat's drawn hand there values its legal cards
(``heuristic.card_values``); the card's chance is a softmax of those values (``CARD_TEMPERATURE``
points), mixed with a uniform ``CARD_FLOOR``. It costs about one heuristic move per card played,
per drawn deal.

Before the predictions are revealed no other seat's prediction is known, and every deal weighs 1.
Only the seat's ``Decision`` is read (the history's public predictions and the deal's public
counts, numbers and starter).
"""
from __future__ import annotations

import math
from dataclasses import replace
from itertools import permutations

from ..cards import COLOURS, SPICE_DECK, numbers_tuple
from ..simulator import COLOUR, INDEX, TAKE, from_state as simulator_of
from .determinize import TABLE, Deal, Determinizer, Drawn
from .heuristic import card_values, prediction_values
from .situation import Situation, from_simulator

TEMPERATURE = 1.0  # points of the heuristic's estimate per factor e of likelihood
FLOOR = 0.2  # share of the uniform choice in a seat's modelled prediction
TIE_BREAK = 0.1  # the heuristic breaks equal scores by the estimated lead of "most" over "fewest"
PAIRS = tuple(permutations(COLOURS, 2))
# Points of the heuristic's card value per factor e of likelihood. Card values are a fraction of a
# point apart (a win chance times the colours gained), so 1 point made every card nearly alike; at
# 0.1 the weights move the drawn deals towards the true hands against heuristic and search players
# both (bench/inference.py).
CARD_TEMPERATURE = 0.1
CARD_FLOOR = 0.2  # share of the uniform choice among the legal cards


class Inference:
    """The weight of a drawn deal for one decision (see the module's doc)."""

    def __init__(self, deal: Deal, players: int):
        dealt = deal.events[0]["data"]
        predictions = deal.predictions
        self.observed = {} if predictions is None else {
            other: (predictions[other]["most"], predictions[other]["fewest"])
            for other in range(players) if other != deal.seat}
        # What each seat knew when it predicted: the deal's public start, its own hand.
        self.start = Situation(
            seat=deal.seat, players=players, numbers=numbers_tuple(dealt["numbers"]), hand=(),
            leader=dealt["starter"], plays=(), hand_counts=tuple(dealt["hand_colours"]),
            cupboard_counts=dealt["cupboard_colours"],
            collections=tuple({colour: 0 for colour in COLOURS} for _ in range(players)),
            most=None, fewest=None, unseen=frozenset())
        # Late in a deal most of a dealt hand has been played, so drawn deals repeat hands.
        self._known: dict[tuple[int, tuple[str, ...]], float] = {}

    @property
    def informed(self) -> bool:
        """Whether any public choice is there to weigh deals by."""
        return bool(self.observed)

    def likelihood(self, other: int, hand: tuple[str, ...]) -> float:
        """The modelled chance that ``other``, dealt ``hand``, made its revealed prediction."""
        key = (other, tuple(hand))
        if key not in self._known:
            self._known[key] = self._likelihood(other, key[1])
        return self._known[key]

    def _likelihood(self, other: int, hand: tuple[str, ...]) -> float:
        sit = replace(self.start, seat=other, hand=hand, unseen=frozenset(SPICE_DECK) - set(hand))
        values = prediction_values(sit)
        scores = {pair: value[0] + TIE_BREAK * value[1] for pair, value in values.items()}
        top = max(scores.values())
        odds = {pair: math.exp((score - top) / TEMPERATURE) for pair, score in scores.items()}
        chance = odds[self.observed[other]] / sum(odds.values())
        return (1 - FLOOR) * chance + FLOOR / len(PAIRS)

    def of(self, drawn: Drawn) -> float:
        """A drawn deal's (``Determinizer.draw``'s) weight."""
        return self.weight(drawn[0])

    def weight(self, hands) -> float:
        """The drawn deal's weight: the product of each other seat's likelihood (1 if none is known)."""
        weight = 1.0
        for other in self.observed:
            weight *= self.likelihood(other, hands[other])
        return weight


class PlayInference:
    """The weight of a drawn deal by the cards the other seats played this deal (see the module's
    doc): the product over those cards of each one's modelled chance."""

    def __init__(self, sampler: Determinizer):
        events = sampler.deal.events
        first = next((i for i, event in enumerate(events) if event["type"] == "CardPlayed"), len(events))
        self.sampler, self.seat = sampler, sampler.seat
        self.opening = Deal(events[:first], sampler.seat, sampler.players)  # the deal up to its first card
        self.moves: list[tuple[int, int]] = []  # (seat, simulator action) from the first card on
        for event in events[first:]:
            data = event["data"]
            if event["type"] == "CardPlayed":
                self.moves.append((data["seat"], INDEX[data["card"]]))
            elif event["type"] == "CupboardCardTaken":
                self.moves.append((data["seat"], TAKE + COLOUR[data["colour"]]))

    @property
    def informed(self) -> bool:
        """Whether another seat has played a card yet."""
        return any(seat != self.seat and action < TAKE for seat, action in self.moves)

    def of(self, drawn: Drawn) -> float:
        """A drawn deal's (``Determinizer.draw``'s) weight: 0 if it could not have made those plays."""
        sampler = self.sampler
        start = TABLE.fold(sampler.base, sampler.fill(self.opening, drawn, sampler.base))
        sim = simulator_of(start.inner)
        weight = 1.0
        for seat, action in self.moves:
            if seat != self.seat and action < TAKE:
                legal = sim.legal()
                if not legal >> action & 1:
                    return 0.0  # the drawn hand could not have played it (kept out by the draw's voids)
                if legal & (legal - 1):
                    weight *= self._chance(sim, seat, legal, action)
            sim.apply(action)
        return weight

    @staticmethod
    def _chance(sim, seat: int, legal: int, action: int) -> float:
        cards = [SPICE_DECK[card] for card in range(TAKE) if legal >> card & 1]
        values = card_values(from_simulator(sim, seat), cards)
        top = max(values.values())
        odds = {card: math.exp((value - top) / CARD_TEMPERATURE) for card, value in values.items()}
        chance = odds[SPICE_DECK[action]] / sum(odds.values())
        return (1 - CARD_FLOOR) * chance + CARD_FLOOR / len(cards)
