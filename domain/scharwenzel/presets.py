"""Preset deals: hands chosen by the creator instead of the shuffle (tests, tournaments' duplicate deals)."""
from __future__ import annotations

from typing import Any, Mapping

from ..errors import InvalidSetup
from ..preset import check_hands, is_seat
from .cards import deck, hand_size


def validate_presets(players: int, presets: Any) -> tuple[dict, ...]:
    """Each preset: {"hands": [[codes] per seat, seat 0 first], "dealer": seat (deal 0 only)}."""
    if presets is None:
        return ()
    if not isinstance(presets, list):
        raise InvalidSetup({"preset_deals": ["must be a list of deals"]})
    problems: dict[str, list[str]] = {}
    cards = deck(players)
    size = hand_size(players)
    out = []
    for k, preset in enumerate(presets):
        path = f"preset_deals[{k}]"
        if not isinstance(preset, Mapping):
            problems[path] = ["must be an object with hands (and dealer for deal 0)"]
            continue
        for key in sorted(set(preset) - {"hands", "dealer"}):
            problems[f"{path}.{key}"] = ["unknown field; a preset has hands and, for deal 0, dealer"]
        dealer = preset.get("dealer")
        if dealer is not None:
            if k != 0:
                problems[f"{path}.dealer"] = ["only deal 0 sets the dealer; afterwards the deal passes left"]
            elif not is_seat(dealer, players):
                problems[f"{path}.dealer"] = [f"must be a seat 0..{players - 1}"]
        # Right sizes, known cards, none twice: with players × size = the deck, a partition.
        hands = preset.get("hands")
        check_hands(hands, players, size, f"{path}.hands", cards, problems)
        if not problems:
            out.append({"hands": [list(h) for h in hands], **({"dealer": dealer} if dealer is not None else {})})
    if problems:
        raise InvalidSetup(problems)
    return tuple(out)
