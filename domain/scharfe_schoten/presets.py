"""Validating preset deals and turning them into ``PresetDeal``.

A preset entry is ``{"hands": [[codes] per seat], "cupboard": [codes in take
order], "numbers": {"R": n, "G": n, "Y": n, "B": n}, "starter": seat}``;
``starter`` is optional. Every problem is reported under its field path
(``preset_deals[0].hands[1]``) so a client can show it next to its input.
"""
from __future__ import annotations

from typing import Any, Mapping

from ..preset import check_cards, check_hands
from .cards import COLOURS, SPICE_DECK, numbers_tuple
from .deal import cupboard_size, hand_size
from .state import PresetDeal

FIELDS = ("hands", "cupboard", "numbers", "starter")
SPICE_SET = frozenset(SPICE_DECK)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_numbers(numbers: Any, path: str, problems: dict[str, list[str]]) -> None:
    if not isinstance(numbers, Mapping) or set(numbers) != set(COLOURS):
        problems[path] = ["must map each colour R, G, Y, B to a number 1..12"]
        return
    values = [numbers[colour] for colour in COLOURS]
    if not all(_is_int(v) and 1 <= v <= 12 for v in values):
        problems[path] = ["numbers must be whole numbers 1..12"]
    elif len(set(values)) != 4:
        problems[path] = ["the four numbers must differ (there is one number card of each value)"]


def validate_presets(players: int, rules: Mapping[str, Any], raw: Any,
                     problems: dict[str, list[str]]) -> tuple[dict, ...]:
    """Return the presets as JSON-shaped dicts (recorded in GameCreated); collect problems."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        problems["preset_deals"] = ["must be a list, one entry per deal"]
        return ()
    if len(raw) > rules["rounds"]:
        problems["preset_deals"] = [f"at most {rules['rounds']} deals (one per round)"]
    size = hand_size(players)
    out = []
    first_starter = rules.get("first_starter")
    for index, entry in enumerate(raw):
        base = f"preset_deals[{index}]"
        if not isinstance(entry, Mapping):
            problems[base] = ["must be an object with hands, cupboard and numbers"]
            continue
        before = len(problems)
        for key in sorted(set(entry) - set(FIELDS), key=str):
            problems[f"{base}.{key}"] = [f"unknown field; fields are {', '.join(FIELDS)}"]
        for key in ("hands", "cupboard", "numbers"):
            if key not in entry:
                problems[f"{base}.{key}"] = ["is required"]
        seen: dict[str, str] = {}
        hands = entry.get("hands")
        if "hands" in entry:
            seen = check_hands(hands, players, size, f"{base}.hands", SPICE_SET, problems)
        if "cupboard" in entry:
            check_cards(entry["cupboard"], cupboard_size(players), f"{base}.cupboard", SPICE_SET, seen, problems)
        missing = [card for card in SPICE_DECK if card not in seen]
        if len(problems) > before and missing and "hands" in entry and "cupboard" in entry:
            problems.setdefault(base, []).append(f"missing cards: {' '.join(missing)}")
        if "numbers" in entry:
            _check_numbers(entry["numbers"], f"{base}.numbers", problems)
        starter = entry.get("starter")
        if starter is not None:
            _check_starter(index, starter, first_starter, raw, players, f"{base}.starter", problems)
        if len(problems) == before:
            normal = {
                "hands": [list(hand) for hand in hands],
                "cupboard": list(entry["cupboard"]),
                "numbers": {colour: entry["numbers"][colour] for colour in COLOURS},
            }
            if starter is not None:
                normal["starter"] = starter
            out.append(normal)
    return tuple(out)


def _check_starter(index: int, starter: Any, first_starter: int | None, raw: list, players: int,
                   path: str, problems: dict[str, list[str]]) -> None:
    if not _is_int(starter) or not 0 <= starter < players:
        problems[path] = [f"must be a seat 0..{players - 1}"]
        return
    if index == 0:
        if first_starter is not None and starter != first_starter:
            problems[path] = [f"conflicts with rules.first_starter = {first_starter}"]
        return
    # Later rounds start left of the previous starter (SS-9); a preset may only repeat that.
    first = raw[0].get("starter") if isinstance(raw[0], Mapping) else None
    if first is None:
        first = first_starter if first_starter is not None else 0
    if _is_int(first) and starter != (first + index) % players:
        problems[path] = [f"round {index + 1} starts with seat {(first + index) % players}, "
                          "left of the previous starter"]


def preset_deal(raw: Mapping[str, Any]) -> PresetDeal:
    """A recorded (already valid, possibly JSON round-tripped) preset as state."""
    return PresetDeal(
        hands=tuple(tuple(hand) for hand in raw["hands"]),
        cupboard=tuple(raw["cupboard"]),
        numbers=numbers_tuple(raw["numbers"]),
        starter=raw.get("starter"),
    )
