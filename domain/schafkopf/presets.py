"""Preset deals: hands chosen by the creator instead of the shuffle (tests, tournaments' duplicate deals)."""
from __future__ import annotations

from typing import Any, Mapping

from ..errors import InvalidSetup
from ..preset import check_hands, is_seat
from .cards import DECKS, PLAYERS


def validate_presets(presets: Any, rules: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], ...]:
    """Each preset: ``{"hands": [[cards] per seat], "dealer": seat (optional)}``."""
    deck = DECKS[(rules or {}).get("deck", "long")]
    size = len(deck) // PLAYERS
    deck_set = frozenset(deck)
    if presets is None:
        return ()
    if not isinstance(presets, list):
        raise InvalidSetup({"preset_deals": ["must be a list of deals"]})
    problems: dict[str, list[str]] = {}
    out = []
    for k, preset in enumerate(presets):
        path = f"preset_deals[{k}]"
        if not isinstance(preset, dict):
            problems[path] = ["must be an object with hands (and optionally dealer)"]
            continue
        bad = sorted(set(preset) - {"hands", "dealer"})
        if bad:
            problems[path] = [f"unknown field {key!r}" for key in bad]
        dealer = preset.get("dealer")
        if dealer is not None and not is_seat(dealer, PLAYERS):
            problems[f"{path}.dealer"] = [f"must be a seat 0..{PLAYERS - 1}"]
        hands = preset.get("hands")
        before = len(problems)
        check_hands(hands, PLAYERS, size, f"{path}.hands", deck_set, problems)
        if len(problems) > before:
            continue
        entry = {"hands": [list(hand) for hand in hands]}
        if dealer is not None:
            entry["dealer"] = dealer
        out.append(entry)
    if problems:
        raise InvalidSetup(problems)
    return tuple(out)
