"""Inference: how likely a sampled deal makes what the seat saw the other seats say in the bidding.

Policy-based inference: each public choice another seat made in this deal (a pass or a bid,
the trump suit it named, the tout announced or declined) gets the probability that the
``heuristic``, holding that seat's sampled starting hand, would have made it; a sampled deal's
weight is their product, and the search averages its rollouts with these weights.

The heuristic bids when its hand's strength with the bid's suit reaches a threshold
(``heuristic.weigh_bids``). Softened, it bids with probability
``sigmoid((strength - threshold) / SOFTNESS)``: a pass says the hand was probably weak, a bid
that it was probably strong, and a hand just under the line is nearly as likely as one just
over it (people and other bots draw the line elsewhere). A legal choice other than the one the
heuristic would pick (another bid value, another suit of the same length) counts
``OTHER_CHOICE``. Every factor is at least ``FLOOR``, so no sampled deal gets weight 0: a seat
may be a person who bids nothing like the heuristic.

The cards played (``plays``, ``play_weight``) are weighed the same way: each card another seat
played where it had a choice gets 1 when the heuristic, holding that seat's sampled hand at that
moment and seeing what that seat saw (the trick, the cards gone, the public voids), would have
played it, and ``OTHER_CARD`` when not. The search leaves the heuristic's card only for a clear
gain (``search.MARGIN``), so the search's own players mostly play the heuristic's card: this
model fits them better than it fits their bids.

What it reads: the seat's own redacted history (the public bids, the trumps, the tout answers,
the cards played) and the sampled hands, never another seat's real cards. The seat's own
choices are left out: they weigh every sample alike.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ...trick import cards_following
from ..bidding import Bid, bid_options, trump_options
from ..cards import Ranking, deck
from . import heuristic
from .knowledge import Cards, Knowledge, replay_cards

SOFTNESS = 1.0  # strength points: how soft the heuristic's bidding threshold is taken
OTHER_CHOICE = 0.3
OTHER_CARD = 0.1  # a card the heuristic would not have played, against 1 for the one it would (bench.inference: 0.1 placed more right than 0.3 or 0.5)
FLOOR = 0.02


@dataclass(frozen=True)
class Choice:
    """One public choice of a seat: ``kind`` "pass", "bid", "name" or "tout"; ``standing`` the
    highest bid when it spoke; ``command`` what it chose (for "tout": announced or not)."""
    seat: int
    kind: str
    standing: Bid | None
    command: dict


def choices(history, known: Knowledge) -> tuple[Choice, ...]:
    """The other seats' public choices in this deal, from the seat's redacted history."""
    out = []
    standing = None
    trumps = None
    for event in history[known.deal_start + 1:]:
        kind, data = event["type"], event["data"]
        seat = data.get("seat")
        if kind == "Passed":
            out.append(Choice(seat, "pass", standing, {"type": "pass"}))
        elif kind == "BidMade":
            command = {"type": "bid", "value": data["value"]}
            if data.get("besser"):
                command["besser"] = True
            out.append(Choice(seat, "bid", standing, command))
            standing = Bid(seat, data["value"], bool(data.get("besser")))
        elif kind == "TrumpsNamed":
            trumps = data["suit"]
            if seat is not None and standing is not None and not standing.besser:
                out.append(Choice(seat, "name", standing, {"type": "name_trumps", "suit": trumps}))
        elif kind in ("ToutAnnounced", "ToutDeclined"):
            out.append(Choice(seat, "tout", None, {"type": "announce_tout" if kind == "ToutAnnounced" else "no_tout",
                                                   "trumps": trumps}))
        elif kind == "CardPlayed":
            break
    return tuple(c for c in out if c.seat != known.seat)


def likelihood(choice: Choice, hand, players: int) -> float:
    """The probability, at least ``FLOOR``, that the heuristic with ``hand`` made ``choice``."""
    command = choice.command
    if choice.kind in ("pass", "bid"):
        legal = [{"type": "bid", "value": v, **({"besser": True} if b else {})}
                 for v, b in bid_options(hand, choice.standing)]
        if choice.kind == "bid" and command not in legal:
            return FLOOR
        standing = None if choice.standing is None else {"seat": choice.standing.seat}
        best, score, needed = heuristic.weigh_bids(hand, legal, standing, choice.seat, players)
        bids = 0.0 if best is None else 1.0 / (1.0 + math.exp((needed - score) / SOFTNESS))
        if choice.kind == "pass":
            return max(FLOOR, 1.0 - bids)
        return max(FLOOR, bids * (1.0 if command == best else OTHER_CHOICE))
    if choice.kind == "name":
        options = trump_options(hand, choice.standing)
        if command["suit"] not in options:
            return FLOOR
        legal = [{"type": "name_trumps", "suit": s} for s in options]
        return 1.0 if heuristic.choose_trumps(hand, legal, players) == command else OTHER_CHOICE
    wanted = heuristic.wants_tout(hand, command["trumps"], players)
    return 1.0 if wanted == (command["type"] == "announce_tout") else FLOOR


def weight(seen: tuple[Choice, ...], starting, players: int) -> float:
    """The sampled deal's weight: the product of every choice's likelihood with the sampled
    starting hands ``starting`` (one per seat)."""
    out = 1.0
    for choice in seen:
        out *= likelihood(choice, starting[choice.seat], players)
    return out


@dataclass(frozen=True)
class Play:
    """A card another seat played where it may have had a choice, and what that seat saw then:
    ``before`` the cards it had played earlier in the deal, ``trick`` the plays before it,
    ``gone`` every card played in the deal before it, ``voids`` the public voids then."""
    seat: int
    card: str
    before: tuple[str, ...]
    trick: tuple[tuple[int, str], ...]
    gone: frozenset
    voids: dict


def plays(history, known: Knowledge) -> tuple[Play, ...]:
    """The other seats' cards of this deal, from the seat's redacted history (none before trumps)."""
    if known.trumps is None:
        return ()
    out = []

    def seen(who: int, card: str, cards: Cards) -> None:
        if who != known.seat:
            out.append(Play(who, card, tuple(cards.played[who]), tuple(cards.trick),
                            frozenset(c for hand in cards.played.values() for c in hand),
                            {s: frozenset(v) for s, v in cards.voids.items()}))

    replay_cards(history, known.deal_start, known.players, Ranking(known.trumps, known.players), seen)
    return tuple(out)


def play_weight(seen: tuple[Play, ...], starting, known: Knowledge) -> float:
    """The product over ``seen`` of 1 where the heuristic with the seat's sampled hand then would
    have played the card, ``OTHER_CARD`` where not (a card that was its only choice counts 1)."""
    ranking = Ranking(known.trumps, known.players)
    cards = set(deck(known.players))
    out = 1.0
    for play in seen:
        hand = list(starting[play.seat])
        for card in play.before:
            hand.remove(card)
        led = ranking.follow_suit(play.trick[0][1]) if play.trick else None
        legal = cards_following(hand, led, ranking.follow_suit)
        if len(legal) < 2:
            continue
        unseen = cards - set(hand) - play.gone
        choice = heuristic.choose_card(play.seat, known.players, ranking, legal, play.trick, unseen, play.voids)
        if choice != play.card:
            out *= OTHER_CARD
    return out
