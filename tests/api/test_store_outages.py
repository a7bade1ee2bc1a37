"""What a client gets while the store cannot answer: a 503 to retry, never a 500.

* Given a game, when loading it meets any of the store's "not now" errors (a dropped connection, a
  time-out, a cluster between a master's death and its replica's promotion: CLUSTERDOWN, TRYAGAIN,
  a slot no node serves yet, a write that reached a demoted master), then the route answers 503
  ``storage_unavailable`` with ``Retry-After`` and counts it as a store error.
* When it meets any other error of the store (a wrong type), then it stays a 500: that is a defect,
  not an outage.
"""
from __future__ import annotations

import pytest
import redis

from api.app import STORE_OUTAGES
from api.metrics import STORE_ERRORS

OUTAGES = [redis.exceptions.ConnectionError("gone"), redis.exceptions.TimeoutError("slow"),
           redis.exceptions.ClusterDownError("CLUSTERDOWN The cluster is down"),
           redis.exceptions.MasterDownError("MASTERDOWN Link with MASTER is down"),
           redis.exceptions.TryAgainError("TRYAGAIN"), redis.exceptions.ReadOnlyError("READONLY replica"),
           redis.exceptions.SlotNotCoveredError("slot 42 not covered"),
           redis.exceptions.RedisClusterUnreachableError("no node answers")]


@pytest.fixture
def game(client):
    created = client.post("/v1/games", json={"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 1},
                                             "seats": [{"kind": "human"}] * 3})
    assert created.status_code == 201
    return created.get_json()["id"]


@pytest.mark.parametrize("error", OUTAGES, ids=lambda e: type(e).__name__)
def test_an_outage_of_the_store_is_a_503_to_retry(client, app, game, monkeypatch, error):
    assert isinstance(error, STORE_OUTAGES)

    def down(*args, **kwargs):
        raise error

    monkeypatch.setattr(app.extensions["stich"].handler, "load", down)
    before = STORE_ERRORS._value.get()
    answer = client.get(f"/v1/games/{game}")
    assert answer.status_code == 503, answer.get_data(as_text=True)
    assert answer.get_json()["code"] == "storage_unavailable" and answer.headers["Retry-After"] == "1"
    assert STORE_ERRORS._value.get() == before + 1


def test_any_other_error_of_the_store_stays_a_500(client, app, game, monkeypatch):
    def wrong(*args, **kwargs):
        raise redis.exceptions.ResponseError("WRONGTYPE Operation against a key holding the wrong kind of value")

    monkeypatch.setattr(app.extensions["stich"].handler, "load", wrong)
    answer = client.get(f"/v1/games/{game}")
    assert answer.status_code == 500 and answer.get_json()["status"] == 500
