"""The rule options, their defaults and their validation.

Options: ``rounds`` (the game's length; default one round per player, SS-9)
and ``first_starter`` (the seat that starts round 1; default None = drawn by
the shuffle). The complete ruleset is returned so the table records it.
"""
from __future__ import annotations

from typing import Any, Mapping

OPTIONS = ("rounds", "first_starter")
MAX_ROUNDS = 12


def _is_int(value: Any) -> bool:
    # JSON true/false arrive as bool, which Python counts as int; they are not numbers here.
    return isinstance(value, int) and not isinstance(value, bool)


def validate_rules(players: int, rules: Any, problems: dict[str, list[str]]) -> dict[str, Any]:
    """Return the complete ruleset; add every problem to ``problems`` by field path."""
    if rules is None:
        rules = {}
    if not isinstance(rules, Mapping):
        problems["rules"] = ["must be an object"]
        return {"rounds": players, "first_starter": None}
    for key in sorted(set(rules) - set(OPTIONS), key=str):
        problems[f"rules.{key}"] = [f"unknown rule option {key!r}; options are {', '.join(OPTIONS)}"]

    rounds = rules.get("rounds", players)
    if not _is_int(rounds) or not 1 <= rounds <= MAX_ROUNDS:
        problems["rules.rounds"] = [f"must be a whole number 1..{MAX_ROUNDS}"]
        rounds = players

    first_starter = rules.get("first_starter")
    if first_starter is not None and (not _is_int(first_starter) or not 0 <= first_starter < players):
        problems["rules.first_starter"] = [f"must be null or a seat 0..{players - 1}"]
        first_starter = None

    return {"rounds": rounds, "first_starter": first_starter}
