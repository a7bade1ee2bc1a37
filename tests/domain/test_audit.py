"""The offline verifier, on stored exports of finished games: no server, no Redis.

``tests/fixtures/exports`` holds games exported by stich 0.1.0 on 2026-12-01: one
per game (and a preset-deal game), and the games that hold every other event type
the code can write (the Schafkopf house rules, a Scharwenzel thread, a clocked game
cut short; its README.md says how they were made). They are never regenerated:
replaying and verifying them on every run proves that today's code still reads
what earlier code wrote (docs/events.md, "Schema versions").
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from domain import audit, chain
from domain.event import Event, Visibility
from domain.registry import all_games
from domain.table import Table, TableState
from domain.upcast import UnknownVersion, upcast
from tests.test_event_docs import written_event_types

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "exports"
TABLE = Table(all_games())


def load(name: str) -> list[dict]:
    return audit.parse_lines((FIXTURES / f"{name}.ndjson").read_text())


@pytest.mark.parametrize("name", sorted(p.stem for p in FIXTURES.glob("*.ndjson")))
def test_a_stored_export_still_verifies_and_replays_to_its_scores(name):
    records = load(name)
    report = audit.verify(TABLE, records)
    assert report.ok, report.lines()
    assert report.scores == records[0]["scores"] and report.head == records[0]["head"]
    # And the plain fold, as the server loads a game (upcasting what it reads), gives the same final scores.
    events = [Event(r["type"], data, Visibility.from_json(r["visibility"]), v)
              for r in records[1:] for v, data in [upcast(r["type"], r["v"], r["data"])]]
    state = TABLE.fold(TableState(), events)
    assert TABLE.is_finished(state) and TABLE.summary(state)["scores"] == records[0]["scores"]


def test_the_fixtures_cover_every_game_and_a_preset_deal():
    games = {load(p.stem)[0]["game"] for p in FIXTURES.glob("*.ndjson")}
    assert games == set(all_games())
    assert load("scharfe-schoten-preset")[1]["data"]["preset"] is True


def test_the_fixtures_hold_every_event_type_the_code_writes():
    """Each game's fixtures hold every type its package writes, and together every table event:
    a new event type fails here until a stored export of a finished game holds it."""
    written = written_event_types()
    seen: dict[str, set[str]] = {game: set() for game in all_games()}
    for path in FIXTURES.glob("*.ndjson"):
        records = load(path.stem)
        seen[records[0]["game"]] |= {record["type"] for record in records[1:]}
    missing = {game: sorted(written[game] - seen[game]) for game in seen}
    missing["table"] = sorted(written["table"] - set().union(*seen.values()))
    assert not any(missing.values()), f"event types no stored export holds: {missing}"


def test_progress_is_reported_through_the_whole_replay():
    records = load("scharwenzel")
    seen = []
    assert audit.verify(TABLE, records, progress=lambda done, total: seen.append((done, total))).ok
    assert seen[-1] == (len(records) - 1, len(records) - 1) and len(seen) > 50


def test_an_unknown_version_is_refused_by_name():
    records = load("schafkopf")
    records[5] = {**records[5], "v": 7}
    report = audit.verify(TABLE, records)
    assert report.problem.seq == 5 and "v7" in report.problem.message
    with pytest.raises(UnknownVersion):
        upcast("CardPlayed", 0, {})


def test_a_float_has_no_canonical_form():
    with pytest.raises(chain.NotCanonical):
        chain.canonical({"actor": 0, "at": "", "data": {"x": 1.5}, "seq": 1, "type": "T", "v": 1,
                         "visibility": {"scope": "public"}})


def test_text_that_is_not_json_lines_names_its_line():
    report = audit.verify_text(TABLE, '{"format": "stich-export"}\nnot json\n')
    assert not report.ok and "line 2" in report.problem.message


def test_the_report_reads_well():
    report = audit.verify(TABLE, load("scharfe-schoten"))
    text = "\n".join(report.lines())
    assert text.endswith("VERIFIED") and "FAIL" not in text and report.head in text
    bad = load("scharfe-schoten")
    bad[-1] = {**bad[-1], "data": {"seed": "ab" * 32}}
    lines = audit.verify(TABLE, bad).lines()
    assert lines[-1] == "NOT VERIFIED" and any(line.startswith("  FAIL  event ") for line in lines)
    assert json.dumps(bad[0])  # the header was not touched by verifying


@pytest.mark.parametrize("name", sorted(p.stem for p in FIXTURES.glob("*.ndjson")))
def test_a_stored_exports_header_is_checked_claim_by_claim(name):
    """A header is checked against the events: each claim changed alone (the events untouched) fails."""
    records = load(name)
    header = records[0]
    other_game = next(g for g in sorted(all_games()) if g != header["game"])
    changes = {
        "game": {**header, "game": other_game},
        "players": {**header, "players": header["players"] + 1},
        "rules": {**header, "rules": {**header["rules"], next(iter(header["rules"])): "changed"}},
        "head": {**header, "head": "00" * 32},
        "scores": {**header, "scores": {**header["scores"], "ranking": [9] * header["players"]}},
        "no head": {k: v for k, v in header.items() if k != "head"},
        "no scores": {k: v for k, v in header.items() if k != "scores"},
        "game_id": {**header, "game_id": "G" * 16},
    }
    for what, changed in changes.items():
        report = audit.verify(TABLE, [changed, *records[1:]])
        assert not report.ok and report.problem.seq is None, what
        assert report.problem.message.startswith("line 1 (header): "), (what, report.problem.message)
        assert "  FAIL  line 1 (header): " in report.lines()[-2]
    assert audit.verify(TABLE, [{**header, "stich": "0.0.0"}, *records[1:]]).ok  # the producer's label


def test_a_header_naming_another_game_reads_as_documented():
    records = load("schafkopf")
    header = {**records[0], "game": "scharwenzel", "players": 6}
    report = audit.verify(TABLE, [header, *records[1:]])
    assert report.problem.message == ('line 1 (header): game says "scharwenzel" but GameCreated says "schafkopf"; '
                                      "players says 6 but GameCreated says 4")


def test_text_past_a_bound_is_refused_at_that_line_before_decoding_it():
    header = (FIXTURES / "schafkopf.ndjson").read_text().split("\n", 1)[0]
    for text, line, bound in [(header + "\n" + "[" * 30_000, 2, "depth"),  # RecursionError in json.loads before
                              ("\n" + "[" * 20 + "]" * 20, 2, "depth"),
                              (header[:-1] + ',"x":"' + "y" * 300 + '"}', 1, "string_chars")]:
        with pytest.raises(audit.OverBound) as over:
            audit.parse_lines(text)
        assert (over.value.line, over.value.bound) == (line, bound), str(over.value)
        assert str(over.value.finding).startswith(f"line {line}: ")


def test_verification_pauses_between_events_in_every_check():
    records = load("scharwenzel")
    pauses = []
    report = audit.verify(TABLE, records, pause=lambda: pauses.append(1))
    # the envelopes, the chain and the replay each pause at least once per event (the replay per command)
    assert report.ok and len(pauses) >= 2 * (len(records) - 1) + report.commands
