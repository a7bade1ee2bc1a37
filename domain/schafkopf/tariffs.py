"""Tariffs (SK-8, SK-9): the prices of every game, merged field by field into the defaults.

Each priced game type has its own complete tariff so a table can express,
e.g., a Geier at 200 with a Schneider step of 50. ``stock`` is what every
player pays into the pot when all pass (the rulebook: "the base price of a
Rufspiel"); left out, it follows the table's Rufspiel base.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PRICED = ("rufspiel", "solo", "wenz", "farbwenz", "geier", "farbgeier", "hochzeit")
FLAT = ("bettel", "ramsch")  # a single price: {"base": n}
FACTORS = ("tout_factor", "sie_factor")
MAX_PRICE = 100_000


def _full(base: int) -> dict[str, int]:
    return {"base": base, "schneider": 10, "schwarz": 10, "laufende": 10, "laufende_min": 3}


DEFAULT_TARIFFS: dict[str, Any] = {
    "rufspiel": _full(10),
    "solo": _full(50),
    "wenz": dict(_full(50), laufende_min=2),
    "farbwenz": _full(50),
    "geier": dict(_full(50), laufende_min=2),
    "farbgeier": _full(50),
    "hochzeit": _full(20),
    "bettel": {"base": 30},
    "ramsch": {"base": 20},
    "tout_factor": 2,
    "sie_factor": 4,
    "stock": None,  # None: the Rufspiel base
}

# The tournament scale (Bavarian tournament rules): points instead of money.
# Rufspiel/Hochzeit 1 per player, +1 Schneider, +1 Schwarz (1/2/3); lone
# games 5 per opponent (+15/-5), 6 Schneider (+18/-6), 7 Schwarz (+21/-7);
# no Laufende; Tout x2, Sie x4; Bettel 5; Ramsch 1; Stock 1.
TOURNAMENT_TARIFFS: dict[str, Any] = {
    **{name: {"base": 5, "schneider": 1, "schwarz": 1, "laufende": 0, "laufende_min": 3}
       for name in ("solo", "wenz", "farbwenz", "geier", "farbgeier")},
    "rufspiel": {"base": 1, "schneider": 1, "schwarz": 1, "laufende": 0, "laufende_min": 3},
    "hochzeit": {"base": 1, "schneider": 1, "schwarz": 1, "laufende": 0, "laufende_min": 3},
    "bettel": {"base": 5},
    "ramsch": {"base": 1},
    "tout_factor": 2,
    "sie_factor": 4,
    "stock": 1,
}


@dataclass(frozen=True)
class Tariff:
    base: int
    schneider: int = 0
    schwarz: int = 0
    laufende: int = 0
    laufende_min: int = 0


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _price(value: Any, path: str, problems: dict[str, list[str]], low: int = 0) -> None:
    if not _is_int(value) or not low <= value <= MAX_PRICE:
        problems[path] = [f"must be an integer {low}..{MAX_PRICE}"]


def copy_tariffs(tariffs: dict[str, Any]) -> dict[str, Any]:
    return {name: dict(value) if isinstance(value, dict) else value for name, value in tariffs.items()}


def merge_tariffs(base: dict[str, Any], raw: Any, problems: dict[str, list[str]]) -> dict[str, Any]:
    """Merge ``raw`` into ``base`` field by field; record problems by field path."""
    out = copy_tariffs(base)
    if not isinstance(raw, dict):
        problems["rules.tariffs"] = ["must be an object"]
        return out
    unknown = sorted(set(raw) - set(DEFAULT_TARIFFS))
    if unknown:
        problems["rules.tariffs"] = [f"unknown tariff {name!r}" for name in unknown]
    for name, value in raw.items():
        if name not in DEFAULT_TARIFFS:
            continue
        path = f"rules.tariffs.{name}"
        if name in FACTORS or name == "stock":
            _price(value, path, problems, low=1 if name in FACTORS else 0)
            out[name] = value
            continue
        if not isinstance(value, dict):
            problems[path] = ["must be an object"]
            continue
        fields = set(DEFAULT_TARIFFS[name])
        bad = sorted(set(value) - fields)
        if bad:
            problems[path] = [f"unknown field {key!r}; fields are {sorted(fields)}" for key in bad]
        for key, price in value.items():
            if key in fields:
                _price(price, f"{path}.{key}", problems, low=1 if key == "laufende_min" else 0)
                out[name][key] = price
    return out


def complete(tariffs: dict[str, Any]) -> dict[str, Any]:
    """Fill the derived default: the Stock price follows the Rufspiel base."""
    if tariffs.get("stock") is None:
        base = tariffs["rufspiel"].get("base")
        tariffs["stock"] = base if _is_int(base) else 0
    return tariffs
