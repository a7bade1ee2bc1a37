"""A command costs one Redis round trip in the common case (issue 24): its write rate-limit counts
go in the append's own script, and every write still counts exactly once."""
from __future__ import annotations


import pytest
from redis.connection import AbstractConnection

from api import create_app
from api.ratelimit import Limits

from .play import auth, new_game
from ..addresses import fresh_address


@pytest.fixture(scope="module")
def limited(redis_url):
    app = create_app(redis_url, bots="inline", limits=Limits(per_token=50, per_address=50, window_s=3600))
    return app


def an_address() -> dict:
    return {"REMOTE_ADDR": fresh_address()}


@pytest.fixture
def round_trips(monkeypatch):
    """Counts what is sent to Redis: one packed send per round trip (a pipeline is one too)."""
    sent = []
    original = AbstractConnection.send_packed_command

    def counting(self, command, check_health=True):
        sent.append(command)
        return original(self, command, check_health)

    monkeypatch.setattr(AbstractConnection, "send_packed_command", counting)
    return sent


def legal_move(client, game_id, tokens):
    for seat, token in tokens.items():
        legal = client.get(f"/v1/games/{game_id}/view", headers=auth(token)).get_json()["legal"]
        if legal:
            return seat, legal[0]
    raise AssertionError("nobody can move")


def test_a_rate_limited_command_is_one_round_trip_and_counts_once(limited, round_trips):
    client = limited.test_client()
    env = an_address()
    game_id, tokens = new_game(client, game="scharfe-schoten", players=3, humans=(0, 1, 2))
    seat, command = legal_move(client, game_id, tokens)
    round_trips.clear()
    answer = client.post(f"/v1/games/{game_id}/commands", json=command, headers=auth(tokens[seat]),
                         environ_base=env)
    assert answer.status_code == 200, answer.get_json()
    assert len(round_trips) == 1  # the append script, which counted the write too
    store = limited.extensions["stich"].store.redis
    counters = [k for k in store.keys("stich:rl:a:" + env["REMOTE_ADDR"] + ":*")]
    assert [int(store.get(k)) for k in counters] == [1]  # counted once, not by both paths

    # Refused before any append (a rule violation): counted on its own, still once.
    refused = client.post(f"/v1/games/{game_id}/commands", json=command, headers=auth(tokens[seat]),
                          environ_base=env)
    assert refused.status_code in (409, 412, 422), refused.get_json()
    assert [int(store.get(k)) for k in counters] == [2]


def test_past_the_limit_the_append_appends_nothing(app, redis_url):
    game_id, tokens = new_game(app.test_client(), game="scharfe-schoten", players=3, humans=(0, 1, 2))  # no limits
    client = create_app(redis_url, bots="inline",
                        limits=Limits(per_token=None, per_address=1, window_s=3600)).test_client()
    env = an_address()
    seat, command = legal_move(client, game_id, tokens)
    first = client.post(f"/v1/games/{game_id}/commands", json=command, headers=auth(tokens[seat]), environ_base=env)
    assert first.status_code == 200, first.get_json()
    seq = client.get(f"/v1/games/{game_id}").get_json()["seq"]
    seat, command = legal_move(client, game_id, tokens)  # a command the rules take: only the limit refuses it
    refused = client.post(f"/v1/games/{game_id}/commands", json=command, headers=auth(tokens[seat]),
                          environ_base=env)
    assert refused.status_code == 429 and refused.get_json()["code"] == "rate_limited"
    assert refused.headers["Retry-After"]
    assert client.get(f"/v1/games/{game_id}").get_json()["seq"] == seq  # nothing appended


@pytest.fixture(scope="module")
def queued(redis_url):
    """Bot turns go to RQ (nobody plays them here): the due-time index is kept, as under stich serve."""
    return create_app(redis_url, bots="rq")


def store_round_trips(sent) -> list:
    """The round trips to the event store, not those queueing a bot's job (RQ's keys start ``rq:``)."""
    return [command for command in sent if b"rq:" not in b"".join(command if isinstance(command, list) else [command])]


def human_move(client, game_id, token):
    legal = client.get(f"/v1/games/{game_id}/view", headers=auth(token)).get_json()["legal"]
    assert legal, "the human seat should be able to act"
    return legal[0]


def due_members(app, game_id) -> list[str]:
    schedule = app.extensions["stich"].schedule
    return sorted(m.decode() for m in schedule.redis.zrange(schedule.key, 0, -1) if game_id.encode() in m)


def test_a_command_in_a_game_with_bots_writes_the_due_time_entry_in_its_append(queued, round_trips):
    client = queued.test_client()
    game_id, tokens = new_game(client, game="scharfe-schoten", players=3, humans=(0,))
    command = human_move(client, game_id, tokens[0])
    before = client.get(f"/v1/games/{game_id}").get_json()["seq"]
    round_trips.clear()
    answer = client.post(f"/v1/games/{game_id}/commands", json=command, headers=auth(tokens[0]))
    assert answer.status_code == 200, answer.get_json()
    assert len(store_round_trips(round_trips)) == 1  # the append script wrote the bot's entry too
    seq = answer.get_json()["seq"]
    assert seq > before
    assert due_members(queued, game_id) == [f"bot|{game_id}|{seq}"]  # the new seq's entry, the old one gone


def test_on_a_store_that_cannot_take_them_the_listener_writes_the_entry_after_the_append(queued, round_trips,
                                                                                          monkeypatch):
    client = queued.test_client()
    game_id, tokens = new_game(client, game="scharfe-schoten", players=3, humans=(0,))
    command = human_move(client, game_id, tokens[0])
    store = queued.extensions["stich"].store
    monkeypatch.setattr(type(store), "takes_due_changes", property(lambda self: False))  # as on a Redis Cluster
    round_trips.clear()
    answer = client.post(f"/v1/games/{game_id}/commands", json=command, headers=auth(tokens[0]))
    assert answer.status_code == 200, answer.get_json()
    assert len(store_round_trips(round_trips)) == 2  # the append, then the schedule's own write
    assert due_members(queued, game_id) == [f"bot|{game_id}|{answer.get_json()['seq']}"]
