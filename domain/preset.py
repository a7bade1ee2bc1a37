"""Checking preset deals: every game's hands must be a partition of its deck.

Each problem is reported under its field path (``preset_deals[0].hands[1]``)
so a client can show it next to its input.
"""
from __future__ import annotations

from typing import Any, Collection

Problems = dict[str, list[str]]


def check_cards(cards: Any, size: int, path: str, deck: Collection[str], seen: dict[str, str],
                problems: Problems) -> None:
    """``cards`` is a list of ``size`` codes of ``deck``, none already placed (``seen``: card -> path)."""
    if not isinstance(cards, list | tuple):
        problems[path] = [f"must be a list of {size} card codes"]
        return
    messages: list[str] = []
    if len(cards) != size:
        messages.append(f"must hold {size} cards, got {len(cards)}")
    for card in cards:
        if not isinstance(card, str) or card not in deck:
            messages.append(f"unknown card {card!r}")
        elif card in seen:
            where = "" if seen[card] == path else f" (also in {seen[card]})"
            messages.append(f"{card} appears twice{where}")
        else:
            seen[card] = path
    if messages:
        problems.setdefault(path, []).extend(messages)


def check_hands(hands: Any, players: int, size: int, path: str, deck: Collection[str],
                problems: Problems) -> dict[str, str]:
    """One hand of ``size`` cards per seat, no card twice; returns the cards placed."""
    seen: dict[str, str] = {}
    if not isinstance(hands, list | tuple) or len(hands) != players:
        problems[path] = [f"must be a list of {players} hands, seat 0 first"]
        return seen
    for seat, hand in enumerate(hands):
        check_cards(hand, size, f"{path}[{seat}]", deck, seen, problems)
    return seen


def is_seat(value: Any, players: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < players
