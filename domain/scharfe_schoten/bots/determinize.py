"""Sampling what a seat cannot see, and the concrete state the sample makes.

In Scharfe Schoten the colour of every card is public (SS-5): each hand's and the cupboard's
colour counts are shown, and every cupboard take names its colour. Only values are hidden. So
a sample keeps every colour count exactly and deals, colour by colour, the unseen cards of that
colour (not in the seat's hand, not played) at random among the places that hold that colour:
the other hands, the cupboard cards already taken, and the cupboard. A seat that did not follow
a colour holds none of it, and its public count says so, so every void is kept as well.
Predictions not yet revealed are guessed with the heuristic on the sampled hand.

The state is built as the game builds it: the seat's redacted history with the hidden fields
filled in, folded through ``Table.fold``, so the sample's state obeys the game's own rules and
the seat's view of it equals the seat's real view. Earlier deals are filled once (their cards
no longer matter, only their public scores); the current deal is filled per sample.

A sample comes in two steps, ``draw`` (the hidden cards: cheap) and ``state_of`` (the fold), so
the search can weigh several drawn deals by what the other seats did (``inference``) and fold
only the one it keeps.
"""
from __future__ import annotations

import random
from typing import Mapping, Sequence

from ...event import PUBLIC, Event
from ...table import Table, TableState
from ..cards import COLOURS, SPICE_DECK, colour_of, sort_cards
from ..game import ScharfeSchoten
from .heuristic import choose_prediction
from .situation import from_state

TABLE = Table({ScharfeSchoten.name: ScharfeSchoten()})
Drawn = tuple[list[tuple[str, ...]], list[str], list[str]]  # (dealt hands, cupboard in take order, taken cards)


class Deal:
    """The public facts of one deal's events, as a seat saw them."""

    def __init__(self, events: Sequence[Mapping], seat: int, players: int):
        self.events = events
        self.seat = seat
        dealt = events[0]["data"]
        self.own = tuple(dealt["hands"][seat])
        self.dealt_counts = dealt["hand_colours"]
        self.cupboard_counts = dealt["cupboard_colours"]
        self.played: list[list[str]] = [[] for _ in range(players)]
        self.takes: list[str] = []
        self.predictions = None
        for event in events:
            data = event["data"]
            if event["type"] == "CardPlayed":
                self.played[data["seat"]].append(data["card"])
            elif event["type"] == "CupboardCardTaken":
                self.takes.append(data["colour"])
            elif event["type"] in ("PredictionsRevealed", "RoundScored"):
                self.predictions = data["predictions"]
        seen = set(self.own) | {card for other, cards in enumerate(self.played) if other != seat for card in cards}
        self.unseen = {colour: [c for c in SPICE_DECK if colour_of(c) == colour and c not in seen] for colour in COLOURS}

    def sample(self, rng: random.Random) -> Drawn:
        """(dealt hands, cupboard in take order, the card of each take) consistent with the counts."""
        players = len(self.played)
        held: list[list[str]] = [list(cards) for cards in self.played]
        held[self.seat] = list(self.own)
        taken: list[str | None] = [None] * len(self.takes)
        rest: list[str] = []
        for colour in COLOURS:
            pool = list(self.unseen[colour])
            rng.shuffle(pool)
            for other in range(players):
                if other != self.seat:
                    count = self.dealt_counts[other][colour] - sum(1 for c in self.played[other] if colour_of(c) == colour)
                    held[other] += [pool.pop() for _ in range(count)]
            for index, take in enumerate(self.takes):
                if take == colour:
                    taken[index] = pool.pop()
            rest += pool
        rng.shuffle(rest)
        hands = [tuple(self.own) if seat == self.seat else sort_cards(cards) for seat, cards in enumerate(held)]
        return hands, list(taken) + rest, list(taken)


class Determinizer:
    """Samples concrete states for one decision (see the module's doc)."""

    def __init__(self, decision):
        self.seat = decision.seat
        history = decision.history
        starts = [i for i, event in enumerate(history) if event["type"] == "HandsDealt"]
        start = starts[-1]
        # Earlier deals: one fill serves every sample (only their public scores matter now).
        fixed = random.Random(0)
        self.base = TABLE.fold(TableState(), [_event(e) for e in history[:starts[0]]])
        for first, end in zip(starts, starts[1:]):
            deal = Deal(history[first:end], self.seat, decision.players)
            self.base = TABLE.fold(self.base, self.fill(deal, deal.sample(fixed), self.base))
        self.current = history[start:]
        self.deal = Deal(self.current, self.seat, decision.players)
        self.players = decision.players

    def fill(self, deal: Deal, drawn: Drawn, state: TableState) -> list[Event]:
        """The deal's events with every hidden field filled from ``drawn``; ``state`` is the one
        before them (a guessed prediction is made on the sampled hand)."""
        hands, cupboard, taken = drawn
        out: list[Event] = []
        takes = iter(taken)
        for event in deal.events:
            data, kind = dict(event["data"]), event["type"]
            if kind == "HandsDealt":
                data["hands"] = [list(hand) for hand in hands]
            elif kind == "CupboardStocked":
                data["cards"] = list(cupboard)
            elif kind == "CupboardCardTaken":
                data["card"] = next(takes)
            elif kind == "PredictionMade" and "most" not in data:
                known = deal.predictions[data["seat"]] if deal.predictions else None
                if known is None:
                    # Not revealed yet: the heuristic's guess on the sampled hand.
                    now = TABLE.fold(state, out)
                    most, fewest = choose_prediction(from_state(now.inner, data["seat"]))
                    known = {"most": most, "fewest": fewest}
                data.update(most=known["most"], fewest=known["fewest"])
            out.append(Event(kind, data, PUBLIC, event["v"]))
        return out

    def draw(self, rng: random.Random) -> Drawn:
        """The current deal's hidden cards, drawn with ``rng`` consistently with all the seat knows."""
        return self.deal.sample(rng)

    def state_of(self, drawn: Drawn) -> TableState:
        """The concrete state of a drawn deal."""
        return TABLE.fold(self.base, self.fill(self.deal, drawn, self.base))

    def sample(self, rng: random.Random) -> TableState:
        """A concrete state consistent with everything the seat knows, drawn with ``rng``."""
        return self.state_of(self.draw(rng))


def _event(event: Mapping) -> Event:
    return Event(event["type"], dict(event["data"]), PUBLIC, event["v"])
