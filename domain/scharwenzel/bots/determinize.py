"""Sampling the hidden hands a seat cannot see, and the concrete state they make.

A sample is consistent with all the seat knows (``knowledge.Knowledge``): its own hand, every
card played, the hand sizes, and the voids a seat revealed by not following suit. The bids'
claims on the starting hands (a bidder held a suit of exactly its bid) are honoured where a
few tries allow it: they narrow the deal a little but can be expensive to force.

The state is built as the game itself builds it: the seat's redacted history with the hidden
hands filled in, folded through ``Table.fold``, so the sample's state obeys the game's own
rules and the seat's view of it equals the seat's real view.
"""
from __future__ import annotations

import random

from ...event import Event
from ...table import Table, TableState
from ..cards import SUITS, suit_counts
from ..game import Scharwenzel
from .knowledge import Knowledge

TABLE = Table({Scharwenzel.name: Scharwenzel()})
CLAIM_TRIES = 20  # samples tried for one that also honours the bids before taking one that does not


def sample_hands(known: Knowledge, rng: random.Random) -> list[tuple[str, ...]]:
    """The hands every seat holds now: the seat's own, and a random consistent guess for the others."""
    best = None
    for _ in range(CLAIM_TRIES):
        hands = _deal_unseen(known, rng)
        if _honours_claims(known, hands):
            return hands
        best = best or hands
    return best


def _deal_unseen(known: Knowledge, rng: random.Random) -> list[tuple[str, ...]]:
    ranking = known.ranking
    others = [s for s in range(known.players) if s != known.seat]
    room = {s: known.hand_sizes[s] for s in others}
    cards = sorted(known.unseen())
    rng.shuffle(cards)

    def allowed(seat: int, card: str) -> bool:
        return ranking is None or ranking.follow_suit(card) not in known.voids.get(seat, ())

    # The most constrained cards first; backtracking keeps every void honoured.
    cards.sort(key=lambda c: sum(1 for s in others if allowed(s, c)))
    held: dict[int, list[str]] = {s: [] for s in others}

    def place(i: int) -> bool:
        if i == len(cards):
            return True
        card = cards[i]
        seats = [s for s in others if room[s] > 0 and allowed(s, card)]
        rng.shuffle(seats)
        seats.sort(key=lambda s: -room[s])  # fuller seats first keeps the draw close to uniform
        for seat in seats:
            room[seat] -= 1
            held[seat].append(card)
            if place(i + 1):
                return True
            room[seat] += 1
            held[seat].pop()
        return False

    if not place(0):
        raise ValueError("no deal of the unseen cards honours the known voids")
    hands = [()] * known.players
    hands[known.seat] = tuple(known.hand)
    for seat in others:
        hands[seat] = tuple(held[seat])
    return hands


def _honours_claims(known: Knowledge, hands) -> bool:
    for seat, suit, count in known.suit_claims:
        counts = suit_counts(hands[seat] + known.played.get(seat, ()))
        if suit is not None and counts[suit] != count:
            return False
        if suit is None and count not in (counts[s] for s in SUITS):
            return False
    return True


def starting_hands(known: Knowledge, hands) -> list[list[str]]:
    """The hands as dealt: what each seat holds now plus what it has played in this deal."""
    return [list(known.played.get(s, ())) + list(hands[s]) for s in range(known.players)]


def _past_hands(history, start: int, players: int) -> dict[int, list[list[str]]]:
    """Every finished deal was played out to the last card, so its hands are public now."""
    out: dict[int, list[list[str]]] = {}
    current = None
    for event in history[:start]:
        if event["type"] == "HandsDealt":
            current = [[] for _ in range(players)]
            out[event["seq"]] = current
        elif event["type"] == "CardPlayed" and current is not None:
            current[event["data"]["seat"]].append(event["data"]["card"])
    return out


def _public(event, data=None) -> Event:
    return Event(event["type"], dict(event["data"] if data is None else data), v=event["v"])


def prefix_state(decision, known: Knowledge) -> TableState:
    """The table before this deal's cards were dealt, shared by every sample of one decision."""
    history = decision.history
    past = _past_hands(history, known.deal_start, known.players)
    events = []
    for event in history[:known.deal_start]:
        if event["type"] == "HandsDealt":
            events.append(_public(event, {**event["data"], "hands": past[event["seq"]]}))
        else:
            events.append(_public(event))
    return TABLE.fold(TableState(), events)


def sampled_state(decision, known: Knowledge, prefix: TableState, hands) -> TableState:
    """The state of the deal in play had the hidden hands been ``hands`` (seats' hands now)."""
    history = decision.history
    dealt = history[known.deal_start]
    events = [_public(dealt, {**dealt["data"], "hands": starting_hands(known, hands)})]
    events += [_public(e) for e in history[known.deal_start + 1:]]
    return TABLE.fold(prefix, events)
