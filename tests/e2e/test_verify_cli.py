"""`stich verify` and `stich import` as a person runs them, against a real `stich serve`."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
import requests

pytestmark = pytest.mark.e2e


def stich(*args, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stich.cli", *args], input=stdin, capture_output=True, text=True,
                          timeout=120)


@pytest.fixture(scope="module")
def finished_game(server):
    api = server["url"] + "/v1"
    body = {"game": "scharwenzel", "players": 4, "rules": {"deals": 1}, "seats": [{"kind": "bot"}] * 4}
    game_id = requests.post(f"{api}/games", json=body, timeout=10).json()["id"]
    deadline = time.monotonic() + 60
    while requests.get(f"{api}/games/{game_id}", timeout=10).json()["status"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish the game"
        time.sleep(0.2)
    return api, game_id


def test_verify_takes_a_games_url_and_a_head(finished_game):
    api, game_id = finished_game
    head = requests.get(f"{api}/games/{game_id}", timeout=10).json()["head"]
    result = stich("verify", f"{api}/games/{game_id}", "--head", head)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("VERIFIED") and head in result.stdout
    assert f"game {game_id} (scharwenzel)" in result.stdout
    export = stich("verify", f"{api}/games/{game_id}/export")  # the export's URL names the game too
    assert export.returncode == 0, export.stdout + export.stderr


def test_verify_reads_stdin_and_fails_with_1_naming_the_event(finished_game):
    api, game_id = finished_game
    lines = requests.get(f"{api}/games/{game_id}/export", timeout=10).text.splitlines()
    event = json.loads(lines[20])
    event["at"] = "2000-01-01T00:00:00.000Z"
    lines[20] = json.dumps(event)
    result = stich("verify", "-", stdin="\n".join(lines))
    assert result.returncode == 1 and f"FAIL  event {event['seq']}:" in result.stdout, result.stdout
    # The report's first line counts what it read and checked, not zeros that look like an empty game.
    assert "events read;" in result.stdout.splitlines()[0] and "check(s) held, then one failed" in result.stdout


def test_verify_fails_with_1_naming_a_tampered_header(finished_game, tmp_path):
    api, game_id = finished_game
    lines = requests.get(f"{api}/games/{game_id}/export", timeout=10).text.splitlines()
    header = json.loads(lines[0])
    forged = {**header, "game": "schafkopf", "players": 6}
    result = stich("verify", "-", stdin="\n".join([json.dumps(forged), *lines[1:]]))
    assert result.returncode == 1, result.stdout
    assert ('FAIL  line 1 (header): game says "schafkopf" but GameCreated says "scharwenzel"; '
            "players says 6 but GameCreated says 4") in result.stdout
    unscored = tmp_path / "unscored.ndjson"
    unscored.write_text("\n".join([json.dumps({k: v for k, v in header.items() if k != "scores"}), *lines[1:]]))
    result = stich("verify", str(unscored))
    assert result.returncode == 1 and "FAIL  line 1 (header): lacks scores" in result.stdout, result.stdout
    relabelled = tmp_path / "relabelled.ndjson"
    relabelled.write_text("\n".join([json.dumps({**header, "stich": "0.0.0-other"}), *lines[1:]]))
    result = stich("verify", str(relabelled))  # the producer's version is a label, not a claim to check
    assert result.returncode == 0 and "game_id and stich are the exporter's labels" in result.stdout


def test_unreadable_sources_exit_2_with_a_reason(server, tmp_path):
    missing = stich("verify", str(tmp_path / "nope.ndjson"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    unknown = stich("verify", server["url"] + "/v1/games/0000000000000000")
    assert unknown.returncode == 2 and "cannot fetch" in unknown.stderr


def test_input_that_is_no_export_exits_2_and_says_nothing_was_checked(tmp_path):
    for name, text in (("not-json.txt", "hello\n"), ("no-header.ndjson", '{"type": "GameCreated"}\n'),
                       ("empty.ndjson", "")):
        (tmp_path / name).write_text(text)
        result = stich("verify", str(tmp_path / name))
        assert result.returncode == 2, (name, result.stdout)
        assert "not read as an export, so nothing was checked" in result.stdout.splitlines()[0]
        assert "0 deal(s)" not in result.stdout and result.stdout.rstrip().endswith("NOT VERIFIED")


def test_import_without_server_names_the_default_it_uses(tmp_path):
    result = subprocess.run([sys.executable, "-m", "stich.cli", "import", str(tmp_path / "nope.ndjson")],
                            capture_output=True, text=True, timeout=60,
                            env={k: v for k, v in os.environ.items() if k != "STICH_SERVER"})
    assert result.returncode == 2 and "cannot read" in result.stderr
    assert "into http://127.0.0.1:8000 (choose another with --server or STICH_SERVER)" in result.stderr


def test_import_refuses_a_file_that_does_not_verify_and_sends_nothing(finished_game, tmp_path):
    api, game_id = finished_game
    lines = requests.get(f"{api}/games/{game_id}/export", timeout=10).text.splitlines()
    forged = tmp_path / "forged.ndjson"
    forged.write_text("\n".join(lines[:-1]) + "\n")  # the seed reveal removed: not finished
    before = requests.get(f"{api}/games?status=finished&limit=1000", timeout=10).json()["games"]
    result = stich("import", str(forged), "--server", api.removesuffix("/v1"))
    assert result.returncode == 1 and "not imported" in result.stdout
    assert f"into {api.removesuffix('/v1')} " in result.stderr  # it says which server it uses
    after = requests.get(f"{api}/games?status=finished&limit=1000", timeout=10).json()["games"]
    assert len(after) == len(before)


@pytest.mark.slow  # a server of its own
def test_an_import_refused_before_its_body_is_read_says_why(tmp_path):
    """A server refuses an upload past the address's quota before reading it, and closes the
    connection after its answer: `stich import` reads that answer (with http.client alone it said
    it could not reach the server: a broken pipe)."""
    from tests.long_export import long_export

    from .own_server import start_server, stop_server

    export = tmp_path / "long.ndjson"
    export.write_text(long_export(31_500))  # 5.4 MB: more than the connection takes in unread
    process, port = start_server(tmp_path, extra_env={"STICH_UPLOAD_BYTES_LIMIT": "1000"})
    try:
        result = stich("import", str(export), "--server", f"http://127.0.0.1:{port}")
    finally:
        stop_server(process)
    assert result.returncode == 2 and "the server refused the import (429)" in result.stderr, result.stderr
    assert '"code": "upload_quota"' in result.stderr and "cannot reach" not in result.stderr
