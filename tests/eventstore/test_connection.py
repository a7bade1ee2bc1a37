"""The pool's check before lending a connection (``eventstore.connection.PeekingConnection``).

A command cut short (a greenlet killed mid-read, as when a stream's client hangs up) or a connection
the server closed must never hand the next caller a wrong reply or an error. Checked where the cheap
check runs (a gevent-patched process, as the HTTP workers are) and where the library's own check
runs (a plain process, as the bot workers are)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import json, sys
if sys.argv[2] == "gevent":
    from gevent import monkey
    monkey.patch_all()
import redis.connection
fallbacks = [0]  # the library's own check, which the cheap one stands in for where it can
library_check = redis.connection.AbstractConnection.can_read
def counted(self, timeout=0):
    fallbacks[0] += 1
    return library_check(self, timeout)
redis.connection.AbstractConnection.can_read = counted
from eventstore.connection import PeekingConnection, connect, take_connection

client = connect(sys.argv[1], max_connections=1)  # one connection: the next checkout must be it or its replacement
pool = client.connection_pool
assert pool.connection_class is PeekingConnection
client.set("pool-check", "mine")
out = {}

# A command cut short while its reply is on its way (the reply comes 0.2 s later).
if sys.argv[2] == "gevent":
    import gevent
    try:
        with gevent.Timeout(0.02):
            client.blpop(["pool-check-empty"], timeout=0.2)
    except gevent.Timeout:
        pass
    gevent.sleep(0.3)  # the late reply has arrived by now, on whichever socket it was sent to
out["after_cut_short"] = client.get("pool-check").decode()

# Closed by the server meanwhile.
conn = take_connection(pool)
client_id = conn.send_command("CLIENT", "ID") or conn.read_response()
pool.release(conn)
redis_admin = __import__("redis").Redis.from_url(sys.argv[1])
redis_admin.execute_command("CLIENT", "KILL", "ID", client_id)
import time; time.sleep(0.05)
out["after_kill"] = client.get("pool-check").decode()

# A clean connection is lent as it is.
before = fallbacks[0]
for _ in range(20):
    client.get("pool-check")
out["library_checks_per_clean_checkout"] = (fallbacks[0] - before) / 20
print(json.dumps(out))
"""


def run(redis_url: str, mode: str) -> dict:
    done = subprocess.run([sys.executable, "-c", SCRIPT, redis_url, mode], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("mode", ["gevent", "plain"])
def test_a_cut_short_or_closed_connection_never_answers_the_next_caller(redis_url, mode):
    out = run(redis_url, mode)
    assert out["after_cut_short"] == "mine"
    assert out["after_kill"] == "mine"


def test_under_gevent_a_clean_checkout_costs_one_peek_not_the_librarys_poll(redis_url):
    assert run(redis_url, "gevent")["library_checks_per_clean_checkout"] == 0
    # Without gevent the library's check runs (a real poll(), cheap in a plain process).
    assert run(redis_url, "plain")["library_checks_per_clean_checkout"] >= 1
