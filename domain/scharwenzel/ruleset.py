"""The rule options: their defaults and their validation."""
from __future__ import annotations

from typing import Any, Mapping

from ..errors import InvalidSetup
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
