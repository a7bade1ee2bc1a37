"""What one seat knows about the deal in play, read from its Decision alone.

Everything here comes from the seat's own view and its redacted history: its hand, every card
played in this deal (and by whom), the voids a seat revealed by not following suit, the hand
sizes, and what the bids say about the starting hands (a bidder held a printed suit of exactly
its bid; the seat that named trumps held exactly its bid of that suit, SW-3).
"""
from __future__ import annotations

from dataclasses import dataclass, field

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


def read(decision) -> Knowledge:
    game = decision.view["game_state"]
    players, seat = decision.players, decision.seat
    history = decision.history
    start = max((i for i, e in enumerate(history) if e["type"] == "HandsDealt"), default=0)
    trumps = game["trumps"]["suit"] if game.get("trumps") else None
    ranking = Ranking(trumps, players) if trumps else None
    played: dict[int, list[str]] = {s: [] for s in range(players)}
    voids: dict[int, set[str]] = {s: set() for s in range(players)}
    claims: list[tuple[int, str | None, int]] = []
    trick: list[tuple[int, str]] = []
    for event in history[start + 1:]:
        kind, data = event["type"], event["data"]
        if kind == "BidMade":
            claims.append((data["seat"], "C" if data.get("besser") else None, data["value"]))
        elif kind == "TrumpsNamed" and data.get("seat") is not None and data.get("bid"):
            claims.append((data["seat"], data["suit"], data["bid"]["value"]))
        elif kind == "CardPlayed":
            who, card = data["seat"], data["card"]
            played[who].append(card)
            if trick and ranking is not None:
                led = ranking.follow_suit(trick[0][1])
                if ranking.follow_suit(card) != led:
                    voids[who].add(led)
            trick.append((who, card))
        elif kind == "TrickTaken":
            trick = []
    return Knowledge(seat=seat, players=players, hand=tuple(game.get("hand") or ()), trumps=trumps,
                     hand_sizes=tuple(game["hand_sizes"]), played={s: tuple(c) for s, c in played.items()},
                     voids={s: frozenset(v) for s, v in voids.items()}, trick=tuple(trick), deal_start=start,
                     suit_claims=tuple(claims))
