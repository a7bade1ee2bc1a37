"""The benchmarked WSGI app: stich's API plus two baselines on the same server.

* ``GET /bench/a`` — a bare Flask JSON endpoint: the framework's ceiling.
* ``POST /bench/b`` — validates a small body with marshmallow and does one
  XADD: the storage ceiling.

Only the benchmark serves these routes; the production app never does.
"""
from __future__ import annotations

import json

from flask import request
from marshmallow import RAISE, Schema, fields

from api import create_app


class SmallBody(Schema):
    class Meta:
        unknown = RAISE

    type = fields.String(required=True)
    card = fields.String(required=True)


app = create_app()
_client = app.extensions["stich"].store.redis
_schema = SmallBody()


@app.get("/bench/a")
def baseline_a():
    return {"ok": True}


@app.post("/bench/b")
def baseline_b():
    body = _schema.load(request.get_json())
    entry = _client.xadd("stich:bench:{b}", {"e": json.dumps(body)})
    return {"id": entry.decode()}
