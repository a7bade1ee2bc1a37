"""``ramsch_jungfrau: "double_all"`` changed meaning with GameCreated v2 (docs/events.md).

A game created before (GameCreated v1) was played with ``double_all`` doubling a Ramsch
loss once; today ``double_all`` doubles it once per Jungfrau. The v1 -> v2 upcaster reads
the old value as ``double_all_once``, so the old game replays and verifies as it was
played. The two stored exports (tests/fixtures/exports/schafkopf-ramsch-double-all*.ndjson)
are one game, written before and after the change.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from domain import audit
from domain import upcast as versions
from domain.event import Event, Visibility
from domain.registry import all_games
from domain.table import Table, TableState
from domain.upcast import latest, upcast

EXPORTS = Path(__file__).resolve().parents[2] / "fixtures" / "exports"
TABLE = Table(all_games())


def load(name: str) -> list[dict]:
    return audit.parse_lines((EXPORTS / f"{name}.ndjson").read_text())


def test_a_v1_schafkopf_game_created_with_double_all_reads_as_double_all_once():
    rules = {"all_pass": "ramsch", "ramsch_jungfrau": "double_all", "deals": 1}
    data = {"game": "schafkopf", "players": 4, "rules": rules}
    assert latest("GameCreated") == 3
    unhinted = {**rules, "schieberrunde_hinting": False}  # v3: the option that came later, off
    assert upcast("GameCreated", 1, data) == (3, {**data, "rules": {**unhinted, "ramsch_jungfrau": "double_all_once"}})
    assert rules["ramsch_jungfrau"] == "double_all"  # the stored data is not changed in place
    assert upcast("GameCreated", 2, data) == (3, {**data, "rules": unhinted})  # double_all means per Jungfrau
    today = {**data, "rules": {**rules, "schieberrunde_hinting": True}}
    assert upcast("GameCreated", 3, today) == (3, today)


@pytest.mark.parametrize("data", [
    {"game": "schafkopf", "players": 4, "rules": {"ramsch_jungfrau": "double_individually"}},
    {"game": "schafkopf", "players": 4, "rules": {"ramsch_jungfrau": "off"}},
    {"game": "scharwenzel", "players": 4, "rules": {"deals": 2}},
    {"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 2}},
])
def test_every_other_v1_game_created_is_read_unchanged(data):
    version, read = upcast("GameCreated", 1, data)
    assert version == 3 and read == ({**data, "rules": {**data["rules"], "schieberrunde_hinting": False}}
                                     if data["game"] == "schafkopf" else data)


@pytest.mark.parametrize("name,payments", [("schafkopf-ramsch-double-all-v1", [-120, 40, 40, 40]),
                                           ("schafkopf-ramsch-double-all", [-240, 80, 80, 80])])
def test_both_exports_verify_and_fold_to_the_payments_they_were_played_with(name, payments):
    records = load(name)
    created = records[1]
    assert created["type"] == "GameCreated" and created["data"]["rules"]["ramsch_jungfrau"] == "double_all"
    settled = next(r for r in records[1:] if r["type"] == "DealSettled")["data"]
    assert settled["jungfrauen"] == [2, 3] and settled["payments"] == payments
    report = audit.verify(TABLE, records)
    assert report.ok, report.lines()
    events = [Event(r["type"], data, Visibility.from_json(r["visibility"]), v)
              for r in records[1:] for v, data in [upcast(r["type"], r["v"], r["data"])]]
    state = TABLE.fold(TableState(), events)
    assert TABLE.summary(state)["scores"]["totals"] == payments


def test_the_old_export_fails_without_the_upcaster(monkeypatch):
    """What reading the old game by today's meaning of ``double_all`` would do: x4, not x2."""
    monkeypatch.setitem(versions.UPCASTERS, ("GameCreated", 1), dict)
    report = audit.verify(TABLE, load("schafkopf-ramsch-double-all-v1"))
    assert not report.ok and report.problem.seq == 53
    assert "data.payments is [-120, 40, 40, 40] in the log, the rules give [-240, 80, 80, 80]" \
        in report.problem.message


def test_the_old_exports_header_names_the_rules_as_stored_and_a_new_export_of_it_as_upcast():
    records = load("schafkopf-ramsch-double-all-v1")
    header = records[0]
    assert header["rules"]["ramsch_jungfrau"] == "double_all"  # written before the change
    upcast_rules = {**header["rules"], "ramsch_jungfrau": "double_all_once",  # what a server writes today
                    "schieberrunde_hinting": False}
    assert audit.verify(TABLE, [{**header, "rules": upcast_rules}, *records[1:]]).ok
    wrong = {**header["rules"], "ramsch_jungfrau": "double_individually"}
    report = audit.verify(TABLE, [{**header, "rules": wrong}, *records[1:]])
    assert not report.ok and report.problem.message.startswith("line 1 (header): rules.ramsch_jungfrau")
