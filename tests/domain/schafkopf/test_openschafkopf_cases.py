"""Replays the settled deals of an independent engine (openschafkopf) through our rules.

Each case: preset hands with seat 3 dealing (so seat 0 speaks and leads
first), the declarer says "Ich spiele" and names the case's game, everybody
else passes, the tricks are played as recorded (every card must be legal
here), and our payments must equal the case's payouts under the case's
tariff. See /work/shared/reference/README.md for the file's fields.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from domain.schafkopf.game import Schafkopf
from tests.domain.harness import new_table

REPO = Path(__file__).resolve().parents[3]
CASES_FILE = REPO / ".." / "shared" / "reference" / "openschafkopf-cases.json"


def _load() -> list[dict]:
    if not CASES_FILE.exists():
        return []
    return json.loads(CASES_FILE.read_text())


CASES = _load()

# House rules of openschafkopf that this table does not build yet; a case
# needing one is skipped with its name. (The Stock only matters when the
# case's stock actually changes hands: a lone Bettel leaves it untouched.)
def missing_option(case: dict) -> str | None:
    if case["deck"] != "long":
        return "short deck (24 cards) is not built"
    if case["game"] == "ramsch":
        return "Ramsch (all_pass='ramsch') is not built"
    if case["doublings"]:
        return "Doppeln is not built"
    if case["stoss"]:
        return "Stoß (Kontra/Re) is not built"
    if case["stock_payout"] != 0:
        return "Stock (pot) is not built"
    if case["game"] == "bettel" and case["tariff"].get("stichzwang"):
        return "Bettel with Stichzwang (must beat the trick) is not built"
    return None


# Disagreements that are house-rule differences, with the reason: none left.
KNOWN_DIFFERENCES: dict[str, str] = {}


def game_name(case: dict) -> str:
    return case["game"] + "_tout" if case["payout_kind"] == "tout" else case["game"]


def rules_for(case: dict) -> dict:
    game, tariff = case["game"], case["tariff"]
    if game == "bettel":
        tariffs = {"bettel": {"base": tariff["base"]}}
    else:
        assert tariff.get("points_to_win", 61) == 61
        tariffs = {game: {"base": tariff["base"], "schneider": tariff["schneider_schwarz"],
                          "schwarz": tariff["schneider_schwarz"], "laufende": tariff["laufende_unit"],
                          "laufende_min": tariff["laufende_min"]}}
    return {"deals": 1, "allowed_games": [game_name(case)], "tariffs": tariffs}


def replay(case: dict) -> dict:
    """Play the case through a table; return the DealSettled data."""
    game = Schafkopf()
    preset = [{"hands": case["hands"], "dealer": 3}]
    table, state, events = new_table(game, 4, rules_for(case), preset_deals=preset)

    def act(seat: int, command: dict):
        nonlocal state, events
        assert command in table.legal_commands(state, seat), (seat, command)
        new = table.decide(state, seat, command)
        events = events + new
        state = table.fold(state, new)

    for seat in range(4):
        act(seat, {"type": "announce", "intent": "play" if seat == case["declarer"] else "pass"})
    named = {"type": "name_game", "game": game_name(case)}
    if case["suit"] is not None:
        named["suit"] = case["suit"]
    act(case["declarer"], named)
    for trick in case["tricks"]:
        for offset, card in enumerate(trick["cards"]):
            act((trick["leader"] + offset) % 4, {"type": "play", "card": card})
    settled = [e for e in events if e.type == "DealSettled"]
    assert len(settled) == 1
    return settled[0].data


@pytest.mark.skipif(not CASES, reason=f"reference cases not found at {CASES_FILE}")
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_openschafkopf_case(case):
    missing = missing_option(case)
    if missing:
        pytest.skip(f"needs house rule: {missing}")
    if case["id"] in KNOWN_DIFFERENCES:
        pytest.skip(f"house-rule difference: {KNOWN_DIFFERENCES[case['id']]}")
    settled = replay(case)
    assert settled["payments"] == case["payouts"], settled


def test_reference_file_present_or_skipped():
    if not CASES:
        pytest.skip(f"reference cases not found at {CASES_FILE}")
    assert len(CASES) == 103
