"""What one seat knows about the deal in play, read from its Decision alone.

Everything here comes from the seat's own view and its redacted history: its hand, every card
played in this deal (and by whom), the voids a seat revealed by not following suit, the hand
sizes, and what the bids say about the starting hands (a bidder held a printed suit of exactly
its bid; the seat that named trumps held exactly its bid of that suit, SW-3).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..cards import Ranking, deck


@dataclass(frozen=True)
class Knowledge:
    seat: int
    players: int
    hand: tuple[str, ...]
    trumps: str | None
    hand_sizes: tuple[int, ...]
    played: dict = field(default_factory=dict)  # seat -> cards it played in this deal, in order
    voids: dict = field(default_factory=dict)  # seat -> follow suits it showed it lacks ("T" for trumps)
    trick: tuple[tuple[int, str], ...] = ()  # the trick in play: (seat, card)
    deal_start: int = 0  # index in the history of this deal's HandsDealt
    suit_claims: tuple[tuple[int, str | None, int], ...] = ()  # (seat, suit or None for any, exact count)

    @property
    def ranking(self) -> Ranking | None:
        return None if self.trumps is None else Ranking(self.trumps, self.players)

    def unseen(self) -> set[str]:
        """The cards some other seat still holds."""
        gone = set(self.hand)
        for cards in self.played.values():
            gone.update(cards)
        return set(deck(self.players)) - gone


class Cards:
    """A deal's cards as every seat saw them, card by card: who played what, the voids a seat
    showed by not following the led suit (``T`` for trumps), and the trick in play."""

    def __init__(self, players: int, ranking: Ranking | None):
        self.ranking = ranking
        self.played: dict[int, list[str]] = {s: [] for s in range(players)}
        self.voids: dict[int, set[str]] = {s: set() for s in range(players)}
        self.trick: list[tuple[int, str]] = []

    def play(self, who: int, card: str) -> None:
        if self.trick and self.ranking is not None:
            led = self.ranking.follow_suit(self.trick[0][1])
            if self.ranking.follow_suit(card) != led:
                self.voids[who].add(led)
        self.played[who].append(card)
        self.trick.append((who, card))


def replay_cards(history, start: int, players: int, ranking: Ranking | None,
                 before: Callable[[int, str, Cards], None] | None = None) -> Cards:
    """The cards of the deal whose ``HandsDealt`` is ``history[start]``; ``before(seat, card, cards)``
    is called before each card is played, with what was seen up to it."""
    cards = Cards(players, ranking)
    for event in history[start + 1:]:
        if event["type"] == "CardPlayed":
            if before is not None:
                before(event["data"]["seat"], event["data"]["card"], cards)
            cards.play(event["data"]["seat"], event["data"]["card"])
        elif event["type"] == "TrickTaken":
            cards.trick = []
    return cards


def read(decision) -> Knowledge:
    game = decision.view["game_state"]
    players, seat = decision.players, decision.seat
    history = decision.history
    start = max((i for i, e in enumerate(history) if e["type"] == "HandsDealt"), default=0)
    trumps = game["trumps"]["suit"] if game.get("trumps") else None
    ranking = Ranking(trumps, players) if trumps else None
    claims: list[tuple[int, str | None, int]] = []
    for event in history[start + 1:]:
        kind, data = event["type"], event["data"]
        if kind == "BidMade":
            claims.append((data["seat"], "C" if data.get("besser") else None, data["value"]))
        elif kind == "TrumpsNamed" and data.get("seat") is not None and data.get("bid"):
            claims.append((data["seat"], data["suit"], data["bid"]["value"]))
    cards = replay_cards(history, start, players, ranking)
    return Knowledge(seat=seat, players=players, hand=tuple(game.get("hand") or ()), trumps=trumps,
                     hand_sizes=tuple(game["hand_sizes"]), played={s: tuple(c) for s, c in cards.played.items()},
                     voids={s: frozenset(v) for s, v in cards.voids.items()}, trick=tuple(cards.trick),
                     deal_start=start, suit_claims=tuple(claims))
