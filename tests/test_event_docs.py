"""docs/events.md is true: its worked hash example, and a version for every event type stich writes."""
from __future__ import annotations

import hashlib
import hmac
import json
import re
from pathlib import Path

import pytest

from domain import chain
from domain.registry import all_games
from domain.upcast import latest

from tests.domain.harness import random_playout

ROOT = Path(__file__).resolve().parents[1]
EVENTS_DOC = (ROOT / "docs" / "events.md").read_text()
TABLE_EVENTS = {"GameCreated", "SeatTaken", "GameStarted", "GameCutShort", "SeedRevealed", "TurnTimedOut",
                "SeatReclaimed"}


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
