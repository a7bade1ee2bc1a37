"""An HTTP worker that boots while the store is down waits for it instead of failing to boot
(which would make gunicorn's master exit and put the HTTP server through its back-off)."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from stich.redis_server import PrivateRedis

pytestmark = pytest.mark.slow


def test_the_wsgi_app_loads_once_the_store_comes_back(tmp_path):
    server = PrivateRedis(data_dir=str(tmp_path / "data")).start()
    server.kill()
    env = {**os.environ, "REDIS_URL": server.url, "STICH_LOG_LEVEL": "WARNING"}
    env.pop("QUEUE_URL", None)
    booting = subprocess.Popen([sys.executable, "-c", "import api.wsgi; print('loaded', flush=True)"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(2.5)  # well past the import: it is waiting for the store
        assert booting.poll() is None, booting.communicate()
        server.restart()
        out, err = booting.communicate(timeout=20)
    finally:
        if booting.poll() is None:
            booting.kill()
        server.stop()
    assert booting.returncode == 0 and "loaded" in out, err
    assert err.count("the store is unreachable") == 1, err  # one line for the outage, not one per attempt
