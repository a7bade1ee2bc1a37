"""Starting stich as a newcomer does: the installed `stich` command, its defaults, a fresh directory,
and a plain message (never a traceback) when it cannot start."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from stich.redis_server import free_port

pytestmark = pytest.mark.e2e

STICH = str(Path(sys.executable).parent / "stich")  # the console script the install created


def clean_env() -> dict:
    return {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "QUEUE_URL", "STICH_DATA_DIR")}


def serve(cwd: Path, *args: str) -> tuple[subprocess.Popen, list[str]]:
    """Start `stich serve` in ``cwd``; returns the process and its output up to "serving on" (or its end)."""
    process = subprocess.Popen([STICH, "serve", *args], cwd=cwd, env=clean_env(), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    lines = []
    deadline = time.monotonic() + 60
    for line in process.stdout:
        lines.append(line)
        if "serving on" in line or time.monotonic() > deadline:
            break
    return process, lines


def stop(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()


def test_the_defaults_work_from_a_fresh_directory(tmp_path):
    port = free_port()
    process, lines = serve(tmp_path, "--port", str(port))
    try:
        assert any("serving on" in line for line in lines), "".join(lines)
        assert requests.get(f"http://127.0.0.1:{port}/v1/health", timeout=5).json()["status"] == "ok"
        data = tmp_path / ".stich-data"
        assert (data / "server.log").exists() and (data / "appendonlydir").is_dir()
        assert f"data in {data}" in "".join(lines)  # the absolute path, whatever the working directory
        # The banner names every door a newcomer may want: the browser client, the API docs, the API.
        banner = "".join(lines)
        assert all(f"http://127.0.0.1:{port}{path}" in banner for path in ("/play", "/docs", "/v1")), banner
    finally:
        stop(process)


def test_a_relative_data_dir_is_taken_from_the_working_directory(tmp_path):
    port = free_port()
    process, lines = serve(tmp_path, "--port", str(port), "--data-dir", "nested/data")
    try:
        assert any("serving on" in line for line in lines), "".join(lines)
        assert (tmp_path / "nested" / "data" / "server.log").exists()
    finally:
        stop(process)


def test_a_data_dir_that_cannot_be_made_is_named(tmp_path):
    (tmp_path / "taken").write_text("a file where the directory should be")
    result = subprocess.run([STICH, "serve", "--port", str(free_port()), "--data-dir", "taken/data"], cwd=tmp_path,
                            env=clean_env(), capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "private Redis-compatible server did not start" in result.stderr and "taken" in result.stderr


def test_a_server_that_refuses_to_start_shows_its_log(tmp_path):
    data = tmp_path / "data"
    (data / "appendonlydir").mkdir(parents=True)
    (data / "appendonlydir" / "appendonly.aof.manifest").write_text("this is not a manifest\n")
    result = subprocess.run([STICH, "serve", "--port", str(free_port()), "--data-dir", str(data)], cwd=tmp_path,
                            env=clean_env(), capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    log = data / "server.log"
    assert f"The last lines of {log}" in result.stderr and log.exists()
    assert "manifest" in result.stderr.lower()  # the server's own reason, shown


def test_a_port_in_use_is_named(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run([STICH, "serve", "--port", str(port)], cwd=tmp_path, env=clean_env(),
                                capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert not (tmp_path / ".stich-data").exists()  # nothing was started


@pytest.mark.parametrize("name, value", [("STICH_ARCHIVE_AFTER", "a day"), ("STICH_ARCHIVE_AFTER", "-5"),
                                         ("STICH_IDLE_AFTER", "10")])
def test_a_setting_out_of_range_is_named_before_anything_starts(tmp_path, name, value):
    result = subprocess.run([STICH, "serve", "--port", str(free_port())], cwd=tmp_path,
                            env={**clean_env(), name: value}, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert name in result.stderr and "seconds" in result.stderr
    assert not (tmp_path / ".stich-data").exists()  # nothing was started


def test_a_worker_without_redis_url_says_what_it_needs(tmp_path):
    result = subprocess.run([STICH, "worker"], cwd=tmp_path, env=clean_env(), capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "needs REDIS_URL" in result.stderr


def test_serve_works_from_a_directory_holding_folders_named_like_its_packages(tmp_path):
    """A clone of stich, say: `python -m` and gunicorn put the working directory on sys.path, and
    these folders (no __init__.py: namespace packages) must not shadow the installed packages."""
    for name in ("stich", "api", "domain", "workers", "eventstore"):
        (tmp_path / name).mkdir()
    port = free_port()
    process, lines = serve(tmp_path, "--port", str(port))
    try:
        assert any("serving on" in line for line in lines), "".join(lines)
        assert requests.get(f"http://127.0.0.1:{port}/v1/health", timeout=5).json()["status"] == "ok"
        assert requests.get(f"http://127.0.0.1:{port}/play", timeout=5).status_code == 200
    finally:
        stop(process)
