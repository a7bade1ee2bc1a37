"""Seats, tricks and following: the parts every trick-taking game shares."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence


def next_seat(seat: int, players: int, step: int = 1) -> int:
    """The seat ``step`` places to the left (clockwise playing order)."""
    return (seat + step) % players


def seats_from(first: int, players: int) -> list[int]:
    """All seats in playing order, starting with ``first``."""
    return [(first + i) % players for i in range(players)]


@dataclass(frozen=True)
class Trick:
    """A trick in progress or complete: who led and the (seat, card) plays in order."""

    leader: int
    plays: tuple[tuple[int, str], ...] = ()

    @property
    def cards(self) -> tuple[str, ...]:
        return tuple(card for _, card in self.plays)

    @property
    def led(self) -> str | None:
        return self.plays[0][1] if self.plays else None

    def with_play(self, seat: int, card: str) -> "Trick":
        return Trick(self.leader, self.plays + ((seat, card),))

    def is_complete(self, players: int) -> bool:
        return len(self.plays) == players

    def next_to_play(self, players: int) -> int:
        return next_seat(self.leader, players, len(self.plays))

    def to_json(self) -> dict:
        return {"leader": self.leader, "plays": [{"seat": s, "card": c} for s, c in self.plays]}


def cards_following(hand: Iterable[str], led_suit: str | None, suit_of: Callable[[str], str]) -> list[str]:
    """The cards of ``hand`` that may be played to a trick whose led suit is ``led_suit``.

    Must follow: if the hand holds the led suit, only those cards; otherwise any.
    ``suit_of`` maps a card to its suit for following (e.g. 'trump' for trumps).
    """
    hand = list(hand)
    if led_suit is None:
        return hand
    same = [c for c in hand if suit_of(c) == led_suit]
    return same if same else hand


def best_play(plays: Sequence[tuple[int, str]], strength: Callable[[str], tuple]) -> tuple[int, str]:
    """The (seat, card) with the highest strength; earlier play wins ties."""
    best = plays[0]
    for play in plays[1:]:
        if strength(play[1]) > strength(best[1]):
            best = play
    return best


def remove_card(hand: tuple[str, ...], card: str) -> tuple[str, ...]:
    out = list(hand)
    out.remove(card)
    return tuple(out)
