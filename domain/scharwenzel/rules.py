"""Validating the ruleset and the preset deals."""
from __future__ import annotations

from typing import Any, Mapping

from ..errors import InvalidSetup
from ..preset import check_hands, is_seat
from .cards import deck, hand_size
from .scoring import BOCK_VALUES

DEFAULT_THREADS = 3
RULE_KEYS = ("deals", "threads", "announced_tout", "bock_value")


def _count(value: Any, name: str, top: int, problems: dict) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top:
        problems[f"rules.{name}"] = [f"must be a whole number 1..{top} or null"]


def validate_rules(rules: Mapping[str, Any]) -> dict:
    if not isinstance(rules, Mapping):
        raise InvalidSetup({"rules": ["must be an object"]})
    problems: dict[str, list[str]] = {}
    unknown = sorted(set(rules) - set(RULE_KEYS))
    for key in unknown:
        problems[f"rules.{key}"] = [f"unknown rule option; known: {', '.join(RULE_KEYS)}"]
    deals, threads = rules.get("deals"), rules.get("threads")
    _count(deals, "deals", 1000, problems)
    _count(threads, "threads", 100, problems)
    if deals is not None and threads is not None:
        problems["rules"] = ["set either deals or threads (the game's length), not both"]
    if deals is None and threads is None:
        threads = DEFAULT_THREADS
    announced = rules.get("announced_tout", True)
    if not isinstance(announced, bool):
        problems["rules.announced_tout"] = ["must be true or false"]
    bock_value = rules.get("bock_value", "game")
    if bock_value not in BOCK_VALUES:
        problems["rules.bock_value"] = [f"must be one of {', '.join(BOCK_VALUES)}"]
    if problems:
        raise InvalidSetup(problems)
    return {"deals": deals, "threads": threads, "announced_tout": announced, "bock_value": bock_value}


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
