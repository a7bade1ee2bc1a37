"""The ruleset: validation, defaults, and the parsed form the state carries.

``setup`` returns the complete ruleset (every default filled in) so the table
records it in ``GameCreated`` and a replay never depends on today's defaults.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ..errors import InvalidSetup
from .cards import DECK_SET, HAND_SIZE, PLAYERS
from .game_types import DEFAULT_ALLOWED, GAME_TYPES, PRECEDENCE

PRICED = ("rufspiel", "solo", "wenz", "farbwenz", "geier", "farbgeier")

# SK-8 and SK-9 defaults. Each priced game type has its own complete tariff so
# a table can express, e.g., a Geier at 200 with a Schneider step of 50.
DEFAULT_TARIFFS: dict[str, Any] = {
    "rufspiel": {"base": 10, "schneider": 10, "schwarz": 10, "laufende": 10, "laufende_min": 3},
    "solo": {"base": 50, "schneider": 10, "schwarz": 10, "laufende": 10, "laufende_min": 3},
    "wenz": {"base": 50, "schneider": 10, "schwarz": 10, "laufende": 10, "laufende_min": 2},
    "farbwenz": {"base": 50, "schneider": 10, "schwarz": 10, "laufende": 10, "laufende_min": 3},
    "geier": {"base": 50, "schneider": 10, "schwarz": 10, "laufende": 10, "laufende_min": 2},
    "farbgeier": {"base": 50, "schneider": 10, "schwarz": 10, "laufende": 10, "laufende_min": 3},
    "bettel": {"base": 30},
    "tout_factor": 2,
    "sie_factor": 4,
}
DEFAULT_RULES: dict[str, Any] = {
    "deals": 8,
    "allowed_games": list(DEFAULT_ALLOWED),
    "tariffs": DEFAULT_TARIFFS,
    "all_pass": "redeal",
    "thrown_in_counts": True,
}
ALL_PASS_OPTIONS = ("redeal",)
MAX_DEALS = 400
MAX_PRICE = 100_000


@dataclass(frozen=True)
class Tariff:
    base: int
    schneider: int = 0
    schwarz: int = 0
    laufende: int = 0
    laufende_min: int = 0


@dataclass(frozen=True)
class Config:
    """The ruleset in the shape the rules code reads it (immutable, comparable)."""

    deals: int
    allowed_games: tuple[str, ...]
    tariffs: tuple[tuple[str, Tariff], ...]
    tout_factor: int
    sie_factor: int
    all_pass: str
    thrown_in_counts: bool

    def tariff(self, tariff_name: str) -> Tariff:
        return dict(self.tariffs)[tariff_name]


def config_from_rules(rules: Mapping[str, Any]) -> Config:
    tariffs = rules["tariffs"]
    return Config(
        deals=rules["deals"],
        allowed_games=tuple(rules["allowed_games"]),
        tariffs=tuple((name, Tariff(**tariffs[name])) for name in PRICED + ("bettel",)),
        tout_factor=tariffs["tout_factor"],
        sie_factor=tariffs["sie_factor"],
        all_pass=rules["all_pass"],
        thrown_in_counts=rules["thrown_in_counts"],
    )


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _price(value: Any, path: str, problems: dict[str, list[str]], low: int = 0) -> None:
    if not _is_int(value) or not low <= value <= MAX_PRICE:
        problems[path] = [f"must be an integer {low}..{MAX_PRICE}"]


def _validate_tariffs(raw: Any, problems: dict[str, list[str]]) -> dict[str, Any]:
    """Merge the given tariffs into the defaults, field by field."""
    out = {name: dict(value) if isinstance(value, dict) else value
           for name, value in DEFAULT_TARIFFS.items()}
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
        if name in ("tout_factor", "sie_factor"):
            _price(value, path, problems, low=1)
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


def validate_rules(rules: Any) -> dict[str, Any]:
    if not isinstance(rules, dict):
        raise InvalidSetup({"rules": ["must be an object"]})
    problems: dict[str, list[str]] = {}
    unknown = sorted(set(rules) - set(DEFAULT_RULES))
    if unknown:
        problems["rules"] = [f"unknown rule option {key!r}" for key in unknown]
    out = {key: value for key, value in DEFAULT_RULES.items()}
    deals = rules.get("deals", DEFAULT_RULES["deals"])
    if not _is_int(deals) or not 1 <= deals <= MAX_DEALS:
        problems["rules.deals"] = [f"must be an integer 1..{MAX_DEALS}"]
    out["deals"] = deals
    allowed = rules.get("allowed_games", DEFAULT_RULES["allowed_games"])
    if not isinstance(allowed, list) or not allowed:
        problems["rules.allowed_games"] = ["must be a non-empty list of game types"]
    else:
        bad = [g for g in allowed if g not in GAME_TYPES]
        if bad:
            problems["rules.allowed_games"] = [f"unknown game type {g!r}; one of {list(PRECEDENCE)}" for g in bad]
        elif len(set(allowed)) != len(allowed):
            problems["rules.allowed_games"] = ["lists a game type twice"]
        else:
            # Stored in precedence order so two equal tables record equal rules.
            out["allowed_games"] = [g for g in PRECEDENCE if g in allowed]
    out["tariffs"] = _validate_tariffs(rules.get("tariffs", {}), problems)
    all_pass = rules.get("all_pass", DEFAULT_RULES["all_pass"])
    if all_pass not in ALL_PASS_OPTIONS:
        problems["rules.all_pass"] = [f"must be one of {list(ALL_PASS_OPTIONS)}"]
    out["all_pass"] = all_pass
    counts = rules.get("thrown_in_counts", DEFAULT_RULES["thrown_in_counts"])
    if not isinstance(counts, bool):
        problems["rules.thrown_in_counts"] = ["must be true or false"]
    out["thrown_in_counts"] = counts
    if problems:
        raise InvalidSetup(problems)
    return out


def validate_presets(presets: Any) -> tuple[dict[str, Any], ...]:
    """Each preset: ``{"hands": [[8 codes] per seat], "dealer": seat (optional)}``."""
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
        if dealer is not None and (not _is_int(dealer) or not 0 <= dealer < PLAYERS):
            problems[f"{path}.dealer"] = [f"must be a seat 0..{PLAYERS - 1}"]
        hands = preset.get("hands")
        if not isinstance(hands, list) or len(hands) != PLAYERS:
            problems[f"{path}.hands"] = [f"must be a list of {PLAYERS} hands"]
            continue
        seen: dict[str, str] = {}
        for i, hand in enumerate(hands):
            hpath = f"{path}.hands[{i}]"
            if not isinstance(hand, list) or len(hand) != HAND_SIZE:
                problems[hpath] = [f"must be a list of {HAND_SIZE} cards"]
                continue
            messages = []
            for card in hand:
                if card not in DECK_SET:
                    messages.append(f"unknown card {card!r}")
                elif card in seen:
                    messages.append(f"{card} appears twice (also in {seen[card]})")
                else:
                    seen[card] = hpath
            if messages:
                problems[hpath] = messages
        entry = {"hands": [list(hand) for hand in hands]}
        if dealer is not None:
            entry["dealer"] = dealer
        out.append(entry)
    if problems:
        raise InvalidSetup(problems)
    return tuple(out)
