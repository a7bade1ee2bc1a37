"""Sampling the hidden hands a seat cannot see, and the concrete state they make.

A sample is consistent with all the seat knows (``knowledge.Knowledge``): its own hand, every
card played, the hand sizes, and the voids a seat revealed by not following suit. The bids'
claims on the starting hands (a bidder held a printed suit of exactly its bid) are dealt
first: the claimed number of cards of the suit (a random suit of the bid's length when the bid
named none), and no more of it; after ``CLAIM_TRIES`` draws that cannot meet them, the claims
are dropped rather than the voids.

The state is built as the game itself builds it: the seat's redacted history with the hidden
hands filled in, folded through ``Table.fold``, so the sample's state obeys the game's own
rules and the seat's view of it equals the seat's real view.
"""
from __future__ import annotations

import random

from ...bots.deal_count import count_deals
from ...event import Event
from ...table import Table, TableState
from ..cards import PERMANENT, SUITS, suit_counts
from ..game import Scharwenzel
from .heuristic import card_tables
from .knowledge import Knowledge

TABLE = Table({Scharwenzel.name: Scharwenzel()})
CLAIM_TRIES = 20  # draws tried for one that also honours the bids before taking one that does not


def sample_hands(known: Knowledge, rng: random.Random) -> list[tuple[str, ...]]:
    """The hands every seat holds now: the seat's own, and a random consistent guess for the others."""
    for _ in range(CLAIM_TRIES):
        quotas = _quotas(known, rng)
        hands = None if quotas is None else _deal_unseen(known, rng, quotas)
        if hands is not None and _honours_claims(known, hands):
            return hands
    hands = _deal_unseen(known, rng, ())
    if hands is None:
        raise ValueError("no deal of the unseen cards honours the known voids")
    return hands


def _quotas(known: Knowledge, rng: random.Random) -> list[tuple[int, str, int]] | None:
    """(seat, printed suit, how many more of it the seat holds now) that make the bids' claims
    true; a bid of n with its suit untold gets one of the suits it may have meant. None when
    the claims cannot all hold."""
    exact: dict[int, dict[str, int]] = {}
    for seat, suit, count in known.suit_claims:
        if seat != known.seat and suit is not None:
            if exact.setdefault(seat, {}).setdefault(suit, count) != count:
                return None
    for seat, suit, count in known.suit_claims:
        if seat == known.seat or suit is not None or count in exact.get(seat, {}).values():
            continue
        shown = suit_counts(known.played.get(seat, ()))
        options = [s for s in SUITS if s not in exact.get(seat, {}) and shown[s] <= count]
        if not options:
            return None
        exact.setdefault(seat, {})[rng.choice(options)] = count
    out = []
    for seat, suits in exact.items():
        shown = suit_counts(known.played.get(seat, ()))
        for suit, count in suits.items():
            if count < shown[suit]:
                return None
            out.append((seat, suit, count - shown[suit]))
    return out


def _deal_unseen(known: Knowledge, rng: random.Random, quotas) -> list[tuple[str, ...]] | None:
    """The unseen cards dealt to the other seats, every void honoured and each quota (seat,
    printed suit, count) met exactly; None when this draw cannot meet them."""
    ranking = known.ranking
    others = [s for s in range(known.players) if s != known.seat]
    room = {s: known.hand_sizes[s] for s in others}
    cards = sorted(known.unseen())
    rng.shuffle(cards)
    follow = None if ranking is None else card_tables(ranking.trumps, ranking.players)[0]
    lacks = {s: known.voids.get(s, ()) for s in others}
    closed: dict[int, set[str]] = {s: set() for s in others}  # printed suits a seat has its exact count of
    held: dict[int, list[str]] = {s: [] for s in others}

    def allowed(seat: int, card: str) -> bool:
        if follow is not None and follow[card] in lacks[seat]:
            return False
        return card in PERMANENT or card[-1] not in closed[seat]

    taken = set()
    for seat, suit, need in quotas:
        pool = [c for c in cards if c not in taken and c not in PERMANENT and c[-1] == suit and allowed(seat, c)]
        if len(pool) < need or room[seat] < need:
            return None
        held[seat] += pool[:need]  # the cards are shuffled: the first ``need`` are a random choice
        taken.update(pool[:need])
        room[seat] -= need
        closed[seat].add(suit)
    cards = [c for c in cards if c not in taken]
    choices = {c: [s for s in others if allowed(s, c)] for c in cards}
    # The most constrained cards first; backtracking keeps every void honoured.
    cards.sort(key=lambda c: len(choices[c]))

    def place(i: int) -> bool:
        if i == len(cards):
            return True
        card = cards[i]
        seats = [s for s in choices[card] if room[s] > 0]
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
        return None
    hands = [()] * known.players
    hands[known.seat] = tuple(known.hand)
    for seat in others:
        hands[seat] = tuple(held[seat])
    return hands


def fixed(known: Knowledge) -> bool:
    """Does what the seat knows fix every hidden card's holder now: exactly one way to deal the
    unseen cards within the hand sizes and the voids? The bids' claims are left out: they can only
    narrow the ways, so one way without them is one way with them (and a deal they alone fix is
    counted as not fixed, which costs exactness, never correctness)."""
    ranking = known.ranking
    follow = None if ranking is None else card_tables(ranking.trumps, ranking.players)[0]
    others = [s for s in range(known.players) if s != known.seat]
    allowed = {card: [s for s in others if follow is None or follow[card] not in known.voids.get(s, ())]
               for card in known.unseen()}
    return count_deals(list(allowed), allowed, {s: known.hand_sizes[s] for s in others}) == 1


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
