"""The benchmarked WSGI app: stich's API plus two baselines on the same server.

* ``GET /bench/a`` — a bare Flask JSON endpoint: the framework's ceiling.
* ``POST /bench/b`` — validates a small body with marshmallow and does one
  XADD: the storage ceiling.

Only the benchmark serves these routes; the production app never does.

With ``BENCH_GC_LOG`` set (the benchmark sets it), each worker process appends
one line per slow garbage collection (every full one, and any other that took
over 5 ms) to that file: ``<time.time()> <pid> <generation> <milliseconds>``.
A full collection stops the worker's whole event loop, so it shows in every
request's latency; the streams phase reports them per run.
"""
from __future__ import annotations

import gc
import json
import os
import time

from flask import request
from marshmallow import RAISE, Schema, fields

from api import create_app


class SmallBody(Schema):
    class Meta:
        unknown = RAISE

    type = fields.String(required=True)
    card = fields.String(required=True)


def build(redis_url: str | None = None):
    """The API (``REDIS_URL`` unless given) with the two baselines; gunicorn loads ``bench.app:build()``,
    and ``bench.cpu`` calls it in its own process."""
    app = create_app(redis_url)
    client = app.extensions["stich"].store.redis
    schema = SmallBody()

    @app.get("/bench/a")
    def baseline_a():
        return {"ok": True}

    @app.post("/bench/b")
    def baseline_b():
        body = schema.load(request.get_json())
        entry = client.xadd("stich:bench:{b}", {"e": json.dumps(body)})
        return {"id": entry.decode()}

    return app


def _log_slow_collections(path: str) -> None:
    started = [0.0]

    def callback(phase: str, info: dict) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
            return
        took = (time.perf_counter() - started[0]) * 1000
        if info["generation"] == 2 or took > 5:
            with open(path, "a") as log:  # one short line: O_APPEND keeps the workers' lines whole
                log.write(f"{time.time():.3f} {os.getpid()} {info['generation']} {took:.2f}\n")

    gc.callbacks.append(callback)


if os.environ.get("BENCH_GC_LOG"):
    _log_slow_collections(os.environ["BENCH_GC_LOG"])
