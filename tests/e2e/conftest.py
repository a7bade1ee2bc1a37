"""A real `stich serve` (private Redis, worker, gunicorn) shared by the e2e tests."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from stich.redis_server import free_port


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "QUEUE_URL")}
    data_dir = tmp_path_factory.mktemp("stich-data")
    process = subprocess.Popen([sys.executable, "-m", "stich.cli", "serve", "--port", str(port),
                                "--data-dir", str(data_dir)], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    started = time.monotonic()
    url = None
    for line in process.stdout:
        if "serving on" in line:
            url = f"http://127.0.0.1:{port}"
            break
        if time.monotonic() - started > 60:
            break
    assert url, "stich serve did not start"
    yield {"url": url, "startup_s": time.monotonic() - started, "data_dir": data_dir}
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()


