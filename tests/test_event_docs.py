"""docs/events.md is true: its worked hash example, and a version for every event type stich writes
or still replays.

``written_event_types`` and ``replayed_event_types`` read the code (not a playout, which may never
reach a rare house rule): every ``Event("Type", ...)`` the game's modules can write, and every type
its fold dispatches on. ``tests/domain/test_audit.py`` holds the stored fixtures to the first list.
"""
from __future__ import annotations

import ast
import hashlib
import hmac
import json
import re
from pathlib import Path

import pytest

from domain import chain
from domain.registry import all_games
from domain.schafkopf.evolve import HANDLERS as SCHAFKOPF_FOLD
from domain.upcast import latest

from tests.domain.harness import random_playout

ROOT = Path(__file__).resolve().parents[1]
EVENTS_DOC = (ROOT / "docs" / "events.md").read_text()
TABLE_EVENTS = {"GameCreated", "SeatTaken", "GameStarted", "GameCutShort", "SeedRevealed", "TurnTimedOut",
                "SeatReclaimed", "GamePaused", "GameResumed"}
DOMAIN = ROOT / "domain"
# Each game's events are written by its package (its bots only re-create events they were given);
# the table's (creation, seating, ceilings, clocks, the seed) by domain/table.py (any module directly
# in domain/ counts as the table's). Tournaments keep a stream of their own (docs/tournaments.md),
# which is neither exported nor replayed as a game.
PACKAGES = {"schafkopf": "schafkopf", "scharwenzel": "scharwenzel", "scharfe-schoten": "scharfe_schoten"}
TABLE = "table"


def _written_in(paths) -> set[str]:
    """The literal types of ``Event("Type", ...)`` calls in these modules."""
    out = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Event"
                    and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                out.add(node.args[0].value)
    return out


def _compared_to_kind(path: Path) -> set[str]:
    """The types an ``evolve`` in this module dispatches on (``kind == "T"``, ``kind in ("T", ...)``)."""
    out = set()
    for function in ast.walk(ast.parse(path.read_text())):
        if not (isinstance(function, ast.FunctionDef) and function.name == "evolve"):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Compare) and getattr(node.left, "id", None) == "kind":
                for right in node.comparators:
                    items = right.elts if isinstance(right, ast.Tuple | ast.List | ast.Set) else [right]
                    out |= {c.value for c in items if isinstance(c, ast.Constant) and isinstance(c.value, str)}
    return out


def written_event_types() -> dict[str, set[str]]:
    """Per game (and ``"table"``, for every game): the event types the code can write today."""
    out = {game: _written_in(sorted((DOMAIN / package).glob("*.py"))) for game, package in PACKAGES.items()}
    out[TABLE] = _written_in(sorted(DOMAIN.glob("*.py")))
    return out


def replayed_event_types() -> dict[str, set[str]]:
    """Per game (and ``"table"``): the event types its fold reads, written today or only in the past."""
    return {"schafkopf": set(SCHAFKOPF_FOLD),
            "scharwenzel": _compared_to_kind(DOMAIN / "scharwenzel" / "game.py"),
            "scharfe-schoten": _compared_to_kind(DOMAIN / "scharfe_schoten" / "game.py"),
            TABLE: _compared_to_kind(DOMAIN / "table.py")}


def test_the_worked_example_hashes_as_documented():
    block = re.search(r"A worked example.*?```\n(.*?)```", EVENTS_DOC, re.S).group(1)
    fields = dict(line.split(None, 1) for line in block.strip().splitlines())
    seed, record = fields["seed"].strip(), json.loads(fields["record"])
    assert chain.canonical(record).decode() == fields["record"].strip()
    # Recomputed from the prose alone, without domain.chain:
    salt = hmac.new(bytes.fromhex(seed), f"stich-chain-v1|{record['seq']}".encode(), hashlib.sha256).digest()
    assert salt.hex() == fields["salt(1)"].strip()
    digest = hashlib.sha256(bytes(32) + salt + fields["record"].strip().encode("ascii")).hexdigest()
    assert digest == fields["hash"].strip() == chain.link(chain.GENESIS, record, seed)


def documented_versions(text: str) -> dict[str, int]:
    """`| `Type` | ... | v | ...` rows: the event name and the first cell that is a bare number."""
    out = {}
    for row in re.findall(r"^\| `([A-Z][A-Za-z]+)` \|(.*)$", text, re.M):
        cells = [cell.strip() for cell in row[1].split("|")]
        numbers = [int(cell) for cell in cells if cell.isdigit()]
        if numbers:
            out[row[0]] = numbers[0]
    return out


@pytest.mark.parametrize("name,players,rules", [
    ("schafkopf", 4, {"deals": 8, "preset": "tournament"}), ("schafkopf", 4, {"deals": 6, "doppeln": "all"}),
    ("scharwenzel", 4, {"deals": 3}), ("scharfe-schoten", 4, {"rounds": 2}),
])
def test_every_event_type_written_is_documented_with_its_version(name, players, rules):
    game = all_games()[name]
    doc = (ROOT / "docs" / "games" / f"{name}.md").read_text()
    versions = {**documented_versions(doc), **documented_versions(EVENTS_DOC)}
    for seed in range(3):
        _, _, events = random_playout(game, players, seed=seed, rules=rules)
        for event in events:
            assert event.type in versions, f"{event.type} has no row with its version in the docs"
            assert versions[event.type] == event.v == latest(event.type), event.type
    assert TABLE_EVENTS <= set(documented_versions(EVENTS_DOC))


def test_the_code_is_read_for_the_event_types_it_writes_and_replays():
    """The scans find what they should (so an empty scan cannot pass the tests below)."""
    written, replayed = written_event_types(), replayed_event_types()
    assert set(written) == set(replayed) == set(all_games()) | {TABLE}
    assert written[TABLE] == replayed[TABLE] == TABLE_EVENTS
    for game in all_games():
        assert {"HandsDealt", "CardPlayed", "TrickTaken", "GameEnded"} <= written[game] & replayed[game], game
    assert {"DoppelnDeclared", "HochzeitCardReceived", "CardsReceived", "SchieberrundePaid"} <= written["schafkopf"]
    assert "HochzeitSpoken" in replayed["schafkopf"] - written["schafkopf"]  # replayed, no longer written
    assert "ThreadWon" in written["scharwenzel"] & replayed["scharwenzel"]


@pytest.mark.parametrize("game", sorted(all_games()) + [TABLE])
def test_every_event_type_written_or_replayed_is_documented_with_its_version(game):
    """Not only what a playout happens to write: every type the code writes, and every type its
    fold still reads (an old type must keep its documented ``v`` as long as it is replayed)."""
    doc = "" if game == TABLE else (ROOT / "docs" / "games" / f"{game}.md").read_text()
    versions = {**documented_versions(doc), **documented_versions(EVENTS_DOC)}
    types = written_event_types()[game] | replayed_event_types()[game]
    undocumented = sorted(t for t in types if t not in versions)
    assert not undocumented, f"{game}: no row with its version in the docs for {undocumented}"
    assert {t: versions[t] for t in types} == {t: latest(t) for t in types}


@pytest.mark.parametrize("game", sorted(all_games()))
def test_every_documented_event_type_is_written_or_replayed(game):
    """No row documents a type the code neither writes nor reads."""
    documented = set(documented_versions((ROOT / "docs" / "games" / f"{game}.md").read_text()))
    known = written_event_types()[game] | replayed_event_types()[game]
    assert documented <= known, sorted(documented - known)
    assert set(documented_versions(EVENTS_DOC)) <= written_event_types()[TABLE] | replayed_event_types()[TABLE]
