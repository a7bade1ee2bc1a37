"""The documents' quick start and walkthroughs are true: each marked block runs against a real server.

The game walkthrough is on the front page (README.md); the audit, deadlines and tournament walkthroughs
live in docs/ beside the subject they show. Each block is found by its marker in the file that holds it.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
# Which file holds each marked walkthrough block.
WALKTHROUGHS = {"walkthrough": "README.md", "audit": "docs/audit.md", "deadlines": "docs/deadlines.md",
                "tournament": "docs/tournaments.md", "controls": "docs/tournaments.md", "bulk": "docs/tournaments.md", "players": "docs/players.md"}


def walkthrough(marker: str) -> str:
    """The ```bash block right after ``<!-- marker -->`` in the file that holds it."""
    path = WALKTHROUGHS[marker]
    found = re.search(rf"<!-- {marker} -->\n```bash\n(.*?)```", (ROOT / path).read_text(), re.S)
    assert found, f"{path} has no <!-- {marker} --> block"
    return found.group(1)


def run_walkthrough(marker: str, server, timeout: float, **options) -> list[str]:
    """Run the block marked ``marker`` against ``server`` (STICH set to its API); its output's lines.
    ``options``: more of ``subprocess.run``'s (``cwd``), and ``path`` to put in front of PATH."""
    env = {**os.environ, "STICH": server["url"] + "/v1"}
    if "path" in options:
        env["PATH"] = f"{options.pop('path')}{os.pathsep}{os.environ.get('PATH', '')}"
    result = subprocess.run(["bash", "-euo", "pipefail", "-c", walkthrough(marker)], env=env, capture_output=True,
                            text=True, timeout=timeout, **options)
    assert result.returncode == 0, result.stderr + result.stdout
    return result.stdout.strip().splitlines()

pytestmark = pytest.mark.e2e


def test_walkthrough_plays_a_game_to_the_final_scores(server):
    lines = run_walkthrough("walkthrough", server, 240)
    scores, seed = json.loads(lines[-2]), lines[-1]  # the walkthrough prints JSON, and strings as they are
    assert len(scores["totals"]) == 3 and sorted(scores["ranking"])[0] == 1
    assert json.loads(lines[0]) and all(command["type"] for command in json.loads(lines[0]))  # step 3's legal
    # The play loop says what it sends, so a minute of play never looks hung.
    progress = [line for line in lines if re.match(r"seq \d+: you send \{", line)]
    assert len(progress) >= 5 and all(json.loads(line.split("you send ", 1)[1])["type"] for line in progress)
    assert re.fullmatch(r"[0-9a-f]{64}", seed)


def test_audit_walkthrough_verifies_a_game_and_catches_a_forged_card(server, tmp_path):
    # `stich` from this interpreter's environment, even when the venv is not activated
    out = "\n".join(run_walkthrough("audit", server, 240, cwd=tmp_path, path=Path(sys.executable).parent))
    assert out.count("VERIFIED") == 2 and "NOT VERIFIED" in out  # the real game, then the forged one
    assert "FAIL  event 7: (HandsDealt)" in out, out
    assert "not verified, as it should be" in out
    assert "# Schafkopf: game " in out and re.search(r"imported game [0-9a-f]{16} as [0-9a-f]{16}", out)
    hands = next(line for line in out.splitlines() if line.startswith("[["))
    assert len(json.loads(hands)) == 4


def test_deadlines_walkthrough_times_out_a_silent_seat(server):
    deadline, timed_out, seat = run_walkthrough("deadlines", server, 120)[-3:]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", deadline), deadline
    first = json.loads(timed_out)
    assert first["seat"] == 0 and first["timeouts"] == 1 and first["abandoned"] is True and first["move"]["type"]
    # The seat's clock counts the time-out its TurnTimedOut recorded, though its bot has moved since.
    assert json.loads(seat)["abandoned"] is True and json.loads(seat)["timeouts"] == 1


def test_players_walkthrough_plays_a_rated_pool_game_and_reads_its_ratings(server):
    seats, matches, leader, history, game = run_walkthrough("players", server, 300)[-5:]
    names = [seat["player"] for seat in json.loads(seats)]
    assert [n.rstrip("0123456789") for n in names] == ["ann", "bob", "cy"]
    assert json.loads(matches) == 1 and leader and history == game


def test_quick_start_test_command_is_what_ci_runs():
    quick_start = README[README.index("## Quick start"):]
    quick_start = quick_start[:quick_start.index("\n## ")]
    commands = re.findall(r"```bash\n(.*?)\n```", quick_start, re.S)
    assert len(commands) == 2 and all(len(c.splitlines()) == 1 for c in commands), commands
    install_and_serve, install_and_test = commands
    assert install_and_serve == "pip install . && stich serve"
    assert install_and_test == (ROOT / ".ci" / "run").read_text().rstrip("\n").splitlines()[-1]
    # `pip install .` needs the checkout's top directory; only the installed command runs anywhere.
    assert "top directory" in quick_start and "pyproject.toml" in quick_start
    assert "in any directory you like" not in quick_start


def test_every_marked_block_is_found_where_it_lives():
    for marker in WALKTHROUGHS:
        assert "curl" in walkthrough(marker), marker


def test_tournament_walkthrough_plays_a_tournament_to_the_final_standings(server):
    lines = run_walkthrough("tournament", server, 240)
    assert lines[0] == "active"
    header, *rows, seed = lines[1:]
    assert header == "place,participant,kind,bot,points,results,wins,best_round,rounds_played"
    assert len(rows) == 8 and rows[0].startswith("1,")
    assert sorted(int(row.split(",")[1]) for row in rows) == list(range(8))
    assert all(row.split(",")[-1] == "2" for row in rows)  # everyone played both rounds
    assert re.fullmatch(r"[0-9a-f]{64}", seed)


def test_controls_block_pauses_withdraws_resumes_and_aborts_a_tournament(server):
    lines = run_walkthrough("controls", server, 60)
    assert lines[:3] == ["active", "true", "false"] and lines[-1] == "finished", lines
    types = lines[-2].split()
    for step in ("TournamentStarted", "TournamentPaused", "ParticipantWithdrawn", "TournamentResumed"):
        assert step in types, (step, types)
    assert types.index("TournamentPaused") < types.index("ParticipantWithdrawn") < types.index("TournamentResumed")


def test_bulk_walkthrough_pairs_a_round_that_waits_for_its_start(server):
    token, same, same_seats, status, legal = run_walkthrough("bulk", server, 120)[-5:]
    assert len(token) > 20 and same == "the same batch" and same_seats == "the same seats"
    assert status == "waiting" and json.loads(legal) == []  # start_at is a minute away: nobody acts yet
