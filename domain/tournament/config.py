"""A tournament's configuration: validated once, recorded in full in ``TournamentCreated``.

The tournament sets each table game's length (``deals_per_table``) through the
game's own rule for it, so the rules given may not set that rule themselves.
Every bad field is reported under its path, as for a game (422 ``invalid_setup``).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import errors
from ..game import Game
from ..clock import validate_clock
from ..seat import HANDLE
from ..table import BOT_KINDS

MAX_PARTICIPANTS = 256
MAX_ROUNDS = 16
MAX_DEALS_PER_TABLE = 32
SEATINGS = ("random", "by_standings", "swiss")
# The rule that sets a game's length, which the tournament fills from ``deals_per_table``.
LENGTH_RULE = {"schafkopf": "deals", "scharwenzel": "deals", "scharfe-schoten": "rounds"}
# Rules a game has that also set its length, which a tournament's table may not set either.
OTHER_LENGTH_RULES = {"scharwenzel": ("threads",)}
FIELDS = ("name", "game", "players", "rules", "participants", "rounds", "deals_per_table", "seating", "duplicate",
          "clock", "rated")


def _whole(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def validate(games: Mapping[str, Game], raw: Mapping[str, Any]) -> dict:
    """The complete configuration (defaults filled in); raises ``InvalidSetup`` naming each bad field."""
    if not isinstance(raw, Mapping):
        raise errors.InvalidSetup({"_body": ["must be an object"]})
    problems: dict[str, list[str]] = {}
    for key in sorted(set(raw) - set(FIELDS)):
        problems[key] = ["unknown field"]
    name = raw.get("game")
    game = games.get(name) if isinstance(name, str) else None
    if game is None or name not in LENGTH_RULE:
        raise errors.InvalidSetup({**problems, "game": [f"unknown game {name!r}; one of {sorted(LENGTH_RULE)}"]})
    players = raw.get("players", game.player_counts[0])
    if players not in game.player_counts:
        problems["players"] = [f"{game.title} is played by {' or '.join(map(str, game.player_counts))} players"]
        players = game.player_counts[0]
    title = raw.get("name", "")
    if not isinstance(title, str) or len(title) > 80:
        problems["name"] = ["must be a string of at most 80 characters"]
    participants = _participants(raw.get("participants"), players, problems)
    rounds = raw.get("rounds", 1)
    if not _whole(rounds, 1, MAX_ROUNDS):
        problems["rounds"] = [f"must be a whole number 1..{MAX_ROUNDS}"]
    deals = raw.get("deals_per_table")
    if not _whole(deals, 1, MAX_DEALS_PER_TABLE):
        problems["deals_per_table"] = [f"is required: a whole number 1..{MAX_DEALS_PER_TABLE}"]
        deals = 1
    seating = raw.get("seating", "random")
    if seating not in SEATINGS:
        problems["seating"] = [f"must be one of {list(SEATINGS)}"]
    duplicate = raw.get("duplicate", False)
    if not isinstance(duplicate, bool):
        problems["duplicate"] = ["must be true or false"]
    elif duplicate and participants and len(participants) < 2 * players:
        problems["duplicate"] = [f"a duplicate round compares tables: needs at least {2 * players} participants"]
    rules = _rules(game, players, raw.get("rules"), deals, problems)
    rated = raw.get("rated", False)
    if not isinstance(rated, bool):
        problems["rated"] = ["must be true or false"]
    clock = None
    try:  # every table's turn deadlines: a human who never moves cannot hold up a round
        clock = validate_clock(raw.get("clock"), BOT_KINDS)
    except errors.InvalidSetup as invalid:
        problems.update(invalid.errors)
    if problems:
        raise errors.InvalidSetup(problems)
    out = {"name": title, "game": game.name, "players": players, "rules": rules, "participants": participants,
           "rounds": rounds, "deals_per_table": deals, "seating": seating, "duplicate": duplicate}
    if clock is not None:  # only then: a tournament without one records the config it always did
        out["clock"] = clock.to_json()
    if rated is True:  # likewise: its results move its players' ratings, so its human slots are players'
        out["rated"] = True
    return out


def _participants(raw: Any, players: int, problems: dict[str, list[str]]) -> list[dict]:
    if not isinstance(raw, list) or not raw:
        problems["participants"] = ["must be a list of participants"]
        return []
    if len(raw) > MAX_PARTICIPANTS or len(raw) % players:
        problems["participants"] = [f"must fill whole tables: a multiple of {players}, at most {MAX_PARTICIPANTS}"]
    out = []
    for i, entry in enumerate(raw[:MAX_PARTICIPANTS]):
        path = f"participants[{i}]"
        kind = entry.get("kind") if isinstance(entry, Mapping) else None
        if kind == "human" and set(entry) == {"kind"}:
            out.append({"kind": "human"})
        elif kind == "human" and set(entry) == {"kind", "player"}:  # a slot kept for a registered player
            if not (isinstance(entry["player"], str) and HANDLE.fullmatch(entry["player"])):
                problems[f"{path}.player"] = [f"must be a player's handle ({HANDLE.pattern})"]
            out.append({"kind": "human", "player": entry["player"]})
        elif kind == "bot" and set(entry) <= {"kind", "bot"}:
            bot = entry.get("bot", "random")
            if bot not in BOT_KINDS:
                problems[f"{path}.bot"] = [f"unknown bot {bot!r}; one of {list(BOT_KINDS)}"]
            out.append({"kind": "bot", "bot": bot})
        else:
            problems[path] = ["must be {\"kind\": \"human\"} (with a \"player\" it is kept for, or not) or "
                              "{\"kind\": \"bot\", \"bot\": <kind>}"]
    named = [str(p["player"]).lower() for p in out if p.get("player")]
    for handle in sorted({h for h in named if named.count(h) > 1}):
        problems.setdefault("participants", []).append(f"player {handle!r} has one slot a tournament")
    return out


def _rules(game: Game, players: int, raw: Any, deals: int, problems: dict[str, list[str]]) -> dict:
    """The game's complete rules with the length the tournament sets, checked by the game itself."""
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        problems["rules"] = ["must be an object"]
        return {}
    length = LENGTH_RULE[game.name]
    for key in (length, *OTHER_LENGTH_RULES.get(game.name, ())):
        if key in raw:
            problems[f"rules.{key}"] = ["a tournament sets each table's length: use deals_per_table"]
    try:
        setup = game.setup(players, {**raw, length: deals}, None)
    except errors.InvalidSetup as invalid:
        for path, messages in invalid.errors.items():
            problems["deals_per_table" if path == f"rules.{length}" else path] = messages
        return {}
    return dict(setup.rules)
