"""Every game package has the same shape: the same file names for the same roles.

A reader who has learned one game's package can find their way in the next. The roles are
named in docs/writing-a-game.md; a game that needs more (Schafkopf's phases) adds modules,
and never holds a role under another name.
"""
from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from domain.registry import all_games

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "writing-a-game.md"

# role module -> what it holds
ROLES = {
    "cards": "the deck, card codes and card order",
    "ruleset": "the rule options: defaults and validation",
    "presets": "preset deals: validation and how a preset becomes a deal",
    "deal": "how shuffled decks become hands",
    "state": "the frozen dataclasses of the game's state",
    "game": "the Game subclass: setup, decide, evolve",
    "view": "what a seat (or a spectator) sees",
    "scoring": "the scores or settlement of a deal and of the game",
    "simulator": "integer cards and bitmask hands for the bots' search",
    "transcript": "the deals as Markdown",
    "record": "a finished game's deal records and rating matches, for history and ratings",
}
BOT_ROLES = ("heuristic", "search", "determinize")
# Names that would hold one of the roles above under another name.
ALIASES = {"views": "view", "rules": "ruleset", "deals": "deal", "preset": "presets", "settlement": "scoring",
           "scores": "scoring", "card": "cards", "states": "state", "transcripts": "transcript",
           "records": "record", "history": "record"}


def game_packages() -> list[Path]:
    packages = {Path(importlib.import_module(type(game).__module__).__file__).parent for game in all_games().values()}
    return sorted(packages)


def test_every_registered_game_has_its_own_package():
    assert len(game_packages()) == len(all_games()) >= 3


@pytest.mark.parametrize("package", game_packages(), ids=lambda p: p.name)
def test_the_package_has_every_role_under_its_name(package):
    modules = {path.stem for path in package.glob("*.py")}
    missing = [role for role in ROLES if role not in modules]
    assert not missing, f"{package.name} lacks {missing}"
    aliases = {name: role for name, role in ALIASES.items() if name in modules}
    assert not aliases, f"{package.name} holds roles under other names: {aliases}"
    bots = {path.stem for path in (package / "bots").glob("*.py")}
    assert all(role in bots for role in BOT_ROLES), f"{package.name}/bots lacks {set(BOT_ROLES) - bots}"


@pytest.mark.parametrize("package", game_packages(), ids=lambda p: p.name)
def test_the_game_class_lives_in_game_py(package):
    modules = {type(game).__module__ for game in all_games().values()}
    assert f"domain.{package.name}.game" in modules


def test_the_guide_names_the_shape():
    text = GUIDE.read_text()
    for role in (*ROLES, *(f"bots/{role}" for role in BOT_ROLES)):
        assert re.search(rf"`{re.escape(role)}(\.py)?`", text), f"docs/writing-a-game.md does not name `{role}.py`"
