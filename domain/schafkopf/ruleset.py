"""The ruleset: named options, presets, validation, and the parsed form the state carries.

``setup`` returns the complete ruleset (every default filled in, the preset
named) so the table records it in ``GameCreated`` and a replay never depends
on today's defaults. A preset (``rules.preset``) is a set of defaults; any
option given next to it overrides the preset's value, option by option.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ..errors import InvalidSetup
from .cards import DECKS, PLAYERS, hand_size
from .game_types import BAND, DEFAULT_ALLOWED, GAME_TYPES, PRECEDENCE
from .tariffs import (DEFAULT_TARIFFS, FLAT, PRICED, TOURNAMENT_TARIFFS, Tariff, _is_int, complete,
                      copy_tariffs, merge_tariffs)

ALL_PASS_OPTIONS = ("redeal", "redeal_double", "stock", "stock_double", "muss", "ramsch")
THROWN_IN = ("redeal", "redeal_double", "stock", "stock_double")  # the all-pass options that play no deal
# Game types a hand can name only when it holds particular cards (a Sie: all four Obers and
# Unters, about one deal in 40,000); every other one any hand may name.
RARE_HANDS = frozenset({"sie"})
MAX_DEALS = 400

# name -> (default, allowed values); ints are given as a range.
CHOICES: dict[str, tuple[Any, tuple]] = {
    "deals": (8, tuple(range(1, MAX_DEALS + 1))),
    "deck": ("long", tuple(DECKS)),
    "all_pass": ("redeal", ALL_PASS_OPTIONS),
    "thrown_in_counts": (True, (True, False)),
    "stoss": (4, (0, 1, 2, 3, 4)),
    "doppeln": ("off", ("off", "all", "not_dealer")),
    "stock_winner": ("declarer_and_partner", ("declarer", "declarer_and_partner")),
    "stock_lone_games": (False, (True, False)),
    "ramsch_durchmarsch": ("all_tricks", ("all_tricks", "all_points", "off")),
    "ramsch_jungfrau": ("off", ("off", "double_individually", "double_individually_multiple",
                                 "double_all", "double_all_once")),
    "bettel_stichzwang": (False, (True, False)),
    "renonce": (False, (True, False)),
    "hochzeit": (False, (True, False)),
    "auction": (False, (True, False)),
    "schieberrunde": (False, (True, False)),
    "schieberrunde_hinting": (False, (True, False)),
}
OTHER_OPTIONS = ("preset", "allowed_games", "tariffs")

PRESETS: dict[str, dict[str, Any]] = {
    "standard": {},
    # Tournament: no Stoß, no Doppeln, the tournament point scale instead of money.
    "tournament": {"stoss": 0, "doppeln": "off", "all_pass": "redeal", "tariffs": TOURNAMENT_TARIFFS},
}


def default_rules() -> dict[str, Any]:
    out: dict[str, Any] = {"preset": "standard"}
    out.update({name: default for name, (default, _) in CHOICES.items()})
    out["allowed_games"] = list(DEFAULT_ALLOWED)
    out["tariffs"] = complete(copy_tariffs(DEFAULT_TARIFFS))
    return out


DEFAULT_RULES = default_rules()


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
    deck: str = "long"
    stock_price: int = 0
    stoss: int = 0
    doppeln: str = "off"
    stock_winner: str = "declarer_and_partner"
    stock_lone_games: bool = False
    ramsch_durchmarsch: str = "all_tricks"
    ramsch_jungfrau: str = "off"
    bettel_stichzwang: bool = False
    renonce: bool = False
    hochzeit: bool = False
    auction: bool = False
    schieberrunde: bool = False
    schieberrunde_hinting: bool = False

    def tariff(self, tariff_name: str) -> Tariff:
        return dict(self.tariffs)[tariff_name]

    @property
    def hand_size(self) -> int:
        return hand_size(self.deck)

    @property
    def half(self) -> int:
        return self.hand_size // 2

    @property
    def cards(self) -> tuple[str, ...]:
        return DECKS[self.deck]


def config_from_rules(rules: Mapping[str, Any]) -> Config:
    tariffs = rules["tariffs"]
    return Config(
        deals=rules["deals"],
        allowed_games=tuple(rules["allowed_games"]),
        tariffs=tuple((name, Tariff(**tariffs[name])) for name in PRICED + FLAT),
        tout_factor=tariffs["tout_factor"],
        sie_factor=tariffs["sie_factor"],
        stock_price=tariffs["stock"],
        **{name: rules[name] for name in CHOICES if name in Config.__dataclass_fields__
           and name != "deals"},
    )


def _describe(values: tuple) -> str:
    if all(_is_int(v) for v in values) and len(values) > 5:
        return f"an integer {values[0]}..{values[-1]}"
    return "one of " + ", ".join(repr(v) if not isinstance(v, bool) else str(v).lower() for v in values)


def _same(a: Any, b: Any) -> bool:
    return a == b and type(a) is type(b)


def validate_rules(rules: Any) -> dict[str, Any]:
    if not isinstance(rules, dict):
        raise InvalidSetup({"rules": ["must be an object"]})
    problems: dict[str, list[str]] = {}
    unknown = sorted(set(rules) - set(CHOICES) - set(OTHER_OPTIONS))
    if unknown:
        problems["rules"] = [f"unknown rule option {key!r}" for key in unknown]
    preset_name = rules.get("preset", "standard")
    if not isinstance(preset_name, str) or preset_name not in PRESETS:
        problems["rules.preset"] = [f"unknown preset {preset_name!r}; one of {sorted(PRESETS)}"]
        preset_name = "standard"
    preset = PRESETS[preset_name]
    out: dict[str, Any] = {"preset": preset_name}
    for name, (default, allowed) in CHOICES.items():
        value = rules.get(name, preset.get(name, default))
        if not any(_same(value, v) for v in allowed):
            problems[f"rules.{name}"] = [f"must be {_describe(allowed)}"]
        out[name] = value
    deck = out["deck"] if isinstance(out["deck"], str) and out["deck"] in DECKS else "long"
    allowed_default = [g for g in DEFAULT_ALLOWED if not (deck == "short" and g == "sie")]
    allowed = rules.get("allowed_games", preset.get("allowed_games", allowed_default))
    out["allowed_games"] = allowed_default
    if not isinstance(allowed, list) or not allowed:
        problems["rules.allowed_games"] = ["must be a non-empty list of game types"]
    else:
        bad = [g for g in allowed if not isinstance(g, str) or g not in GAME_TYPES]
        if bad:
            problems["rules.allowed_games"] = [f"unknown game type {g!r}; one of {list(PRECEDENCE)}" for g in bad]
        elif len(set(allowed)) != len(allowed):
            problems["rules.allowed_games"] = ["lists a game type twice"]
        else:
            # Stored in precedence order so two equal tables record equal rules.
            out["allowed_games"] = [g for g in PRECEDENCE if g in allowed]
    base_tariffs = merge_tariffs(DEFAULT_TARIFFS, preset.get("tariffs", {}), problems)
    out["tariffs"] = complete(merge_tariffs(base_tariffs, rules.get("tariffs", {}), problems))
    _check_combinations(out, problems)
    if problems:
        raise InvalidSetup(problems)
    return out


def _check_combinations(out: dict[str, Any], problems: dict[str, list[str]]) -> None:
    """Options that exclude each other: name both fields."""
    rufspiel = isinstance(out["allowed_games"], list) and "rufspiel" in out["allowed_games"]
    if out["all_pass"] == "muss" and not rufspiel:
        problems.setdefault("rules.all_pass", []).append(
            "a Muss-Spiel is a Rufspiel: rules.allowed_games must include 'rufspiel'")
    if out["renonce"] is True and not rufspiel:
        problems.setdefault("rules.renonce", []).append(
            "As-Renonce calls a Rufspiel: rules.allowed_games must include 'rufspiel'")
    allowed = out["allowed_games"] if isinstance(out["allowed_games"], list) else []
    if out["thrown_in_counts"] is False and out["all_pass"] in THROWN_IN and allowed and set(allowed) <= RARE_HANDS:
        # Nearly every deal would be thrown in and none would count: the game could never end.
        message = ("with thrown-in deals not counting, some game must be playable by any hand: "
                   "rules.allowed_games has only " + ", ".join(repr(g) for g in allowed)
                   + "; allow another game, count thrown-in deals, or choose an all-pass rule that "
                   "plays the deal ('ramsch', or 'muss' with a Rufspiel)")
        for name in ("rules.thrown_in_counts", "rules.all_pass", "rules.allowed_games"):
            problems.setdefault(name, []).append(message)
    if out["auction"] is True and not any(game in BAND for game in allowed):
        problems.setdefault("rules.auction", []).append(
            "the auction is for the games between Bettel and the Touts: rules.allowed_games must include "
            "one of " + ", ".join(repr(g) for g in BAND))
    if out["schieberrunde"] is True and "solo" not in allowed:
        problems.setdefault("rules.schieberrunde", []).append(
            "a Schieberrunde follows a won Herz-Solo and is played as a Solo: "
            "rules.allowed_games must include 'solo'")
    if out["schieberrunde_hinting"] is True and out["schieberrunde"] is not True:
        problems.setdefault("rules.schieberrunde_hinting", []).append(
            "hinting is a way of playing the Schieberrunde: set rules.schieberrunde too")
    if out["deck"] == "short":
        for game in ("sie", "bettel"):
            if isinstance(out["allowed_games"], list) and game in out["allowed_games"]:
                problems.setdefault("rules.allowed_games", []).append(
                    f"the short deck has no {game.capitalize()} (rules.deck is 'short')")
        if out["all_pass"] == "ramsch":
            problems.setdefault("rules.all_pass", []).append(
                "the short deck has no Ramsch (rules.deck is 'short')")
