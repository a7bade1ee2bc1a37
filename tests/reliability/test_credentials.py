"""Seat tokens: long and random, stored only as hashes, never echoed, never logged,
checked in constant time against every seat."""
from __future__ import annotations

import hashlib
import json
import logging
import math
import random
import string
import threading
import types

import pytest
import requests
from werkzeug.serving import make_server

import api.auth
from api.auth import new_token, seat_for_token, token_hash
from api.problems import Problem
from eventstore.keys import index_key

URLSAFE = set(string.ascii_letters + string.digits + "-_")


def auth(token):
    return {"Authorization": f"Bearer {token}"}


def split(token: str) -> str:
    assert token.startswith(api.auth.TOKEN_PREFIX), token
    return token[len(api.auth.TOKEN_PREFIX):]


def dump_redis_key(client, key) -> list[bytes]:
    """Every byte string stored under ``key``, whatever its type."""
    kind = client.type(key).decode()
    if kind == "none":
        return []
    if kind == "string":
        return [client.get(key)]
    if kind == "hash":
        return [b for pair in client.hgetall(key).items() for b in pair]
    if kind == "stream":
        out = []
        for entry_id, fields in client.xrange(key):
            out.append(entry_id)
            out += [b for pair in fields.items() for b in pair]
        return out
    if kind == "list":
        return client.lrange(key, 0, -1)
    if kind == "set":
        return list(client.smembers(key))
    if kind == "zset":
        return [m for m, _ in client.zrange(key, 0, -1, withscores=True)]
    raise AssertionError(f"unexpected Redis type {kind} for {key}")


def contains_token(blobs, tokens) -> list[str]:
    found = []
    for blob in blobs:
        text = blob.decode("utf-8", "replace") if isinstance(blob, bytes) else str(blob)
        for token in tokens:
            # the raw token, and its secret part alone (a prefix-stripping store would still leak)
            if token in text or split(token) in text:
                found.append(f"{token[:8]}… in {text[:80]}")
    return found


def text_of(response) -> str:
    """Body and headers, read at once (a streamed body must be consumed in its context)."""
    text = response.get_data(as_text=True) + json.dumps(dict(response.headers))
    response.close()
    return text


def play_to_end(client, game_id, tokens, seen: list, rng=None, max_moves=3000):
    """Every human posts random legal commands; every response is appended to ``seen``."""
    rng = rng or random.Random(0)
    for _ in range(max_moves):
        progressed = False
        for seat, token in tokens.items():
            response = client.get(f"/v1/games/{game_id}/view", headers=auth(token))
            seen.append(text_of(response))
            view = response.get_json()
            if view["status"] == "finished":
                return
            if view["legal"]:
                response = client.post(f"/v1/games/{game_id}/commands", json=rng.choice(view["legal"]),
                                       headers={**auth(token), "Idempotency-Key": f"k{rng.random()}"})
                seen.append(text_of(response))
                assert response.status_code == 200, response.get_json()
                progressed = True
        if not progressed and client.get(f"/v1/games/{game_id}").get_json()["status"] == "finished":
            return
    raise AssertionError("the game did not finish")


def new_game(client, players=3, humans=(0, 1), rules=None, seen=None, game="scharfe-schoten"):
    seats = [{"kind": "human"} if i in humans else {"kind": "bot", "bot": "random"} for i in range(players)]
    response = client.post("/v1/games", json={"game": game, "players": players, "seats": seats,
                                              "rules": rules or {"rounds": 1}})
    assert response.status_code == 201
    game_id = response.get_json()["id"]
    tokens = {}
    for seat in humans:
        taken = client.post(f"/v1/games/{game_id}/seats/{seat}", json={"entropy": f"e{seat}"})
        assert taken.status_code == 201
        assert taken.headers.get("Cache-Control", "no-store") != "public"
        tokens[seat] = taken.get_json()["token"]
    return game_id, tokens


# -- entropy ------------------------------------------------------------------------------

def test_tokens_carry_at_least_128_random_bits():
    tokens = [new_token() for _ in range(1000)]
    assert len(set(tokens)) == 1000, "two of 1,000 tokens are equal"
    secrets_part = [split(t) for t in tokens]
    alphabet = set("".join(secrets_part))
    assert alphabet <= URLSAFE, alphabet - URLSAFE
    for part in secrets_part:
        # at most 6 bits per base64url character, and none of it padding
        assert len(part) * math.log2(len(URLSAFE)) >= 128, part
        assert "=" not in part
    # every character position varies: no fixed or low-entropy stretch inside the token
    length = min(len(p) for p in secrets_part)
    for position in range(length):
        assert len({p[position] for p in secrets_part}) >= 40, f"position {position} barely varies"


def test_tokens_from_the_api_are_distinct_and_long(client):
    seen = set()
    for _ in range(8):
        _, tokens = new_game(client, players=4, humans=(0, 1, 2, 3))
        for token in tokens.values():
            assert len(split(token)) * 6 >= 128 and set(split(token)) <= URLSAFE
            seen.add(token)
    assert len(seen) == 32


# -- storage --------------------------------------------------------------------------------

def test_tokens_are_stored_only_as_hashes_and_never_in_redis(client, app, redis_client):
    store = app.extensions["stich"].store
    game_id, tokens = new_game(client, players=3, humans=(0, 1))
    stored = store.redis.hgetall(store.keys(game_id).seats)
    assert {int(k): v.decode() for k, v in stored.items()} == {
        seat: hashlib.sha256(token.encode()).hexdigest() for seat, token in tokens.items()}
    play_to_end(client, game_id, tokens, [])
    assert client.get(f"/v1/games/{game_id}").get_json()["status"] == "finished"
    keys = set(store.keys(game_id).all())
    # also any key of the game that ``all()`` might not list, found by its hash tag
    keys |= {k.decode() for k in redis_client.scan_iter(match=f"*{{g:{game_id}}}*")}
    blobs = []
    for key in sorted(keys):
        blobs += dump_redis_key(redis_client, key)
    blobs += dump_redis_key(redis_client, index_key())
    assert blobs, "nothing was stored for the game"
    assert not contains_token(blobs, tokens.values())


def test_tokens_never_enter_the_event_stream(client, app):
    store = app.extensions["stich"].store
    game_id, tokens = new_game(client, players=4, humans=(0, 1, 2, 3))
    play_to_end(client, game_id, tokens, [])
    events = store.read(game_id)
    assert events[-1].type == "SeedRevealed"
    blobs = [json.dumps(e.data) for e in events]
    assert not contains_token(blobs, tokens.values())


# -- responses ------------------------------------------------------------------------------

def test_only_the_seat_taking_response_names_the_token(client):
    seen = []
    game_id, tokens = new_game(client, players=3, humans=(0, 1))
    paths = [f"/v1/games/{game_id}", f"/v1/games/{game_id}/view", f"/v1/games/{game_id}/events",
             f"/v1/games/{game_id}/events?after=3&wait=0.01",
             f"/v1/games/{game_id}/events/stream?timeout=0.05", "/v1/games?limit=1000"]
    for headers in [auth(tokens[0]), auth(tokens[1]), {}]:
        seen += [text_of(client.get(p, headers=headers)) for p in paths]
    # errors: a wrong move, a stale If-Match, an unknown command, a taken seat, a foreign token
    seen.append(text_of(client.post(f"/v1/games/{game_id}/commands", json={"type": "play", "card": "R1"},
                            headers=auth(tokens[0]))))
    seen.append(text_of(client.post(f"/v1/games/{game_id}/commands", json={"type": "fly"}, headers=auth(tokens[0]))))
    seen.append(text_of(client.post(f"/v1/games/{game_id}/commands", json={"type": "predict", "most": "R", "fewest": "G"},
                            headers={**auth(tokens[1]), "If-Match": '"1"'})))
    seen.append(text_of(client.post(f"/v1/games/{game_id}/seats/0")))
    seen.append(text_of(client.post(f"/v1/games/{game_id}/commands", json={}, headers=auth(tokens[0] + "x"))))
    play_to_end(client, game_id, tokens, seen)
    for headers in [auth(tokens[0]), {}]:
        seen += [text_of(client.get(p, headers=headers)) for p in paths]
    assert len(seen) > 50
    for text in seen:
        assert not contains_token([text], tokens.values()), text[:200]


# -- logs -------------------------------------------------------------------------------------

@pytest.fixture
def all_logs(caplog):
    caplog.set_level(logging.DEBUG)  # the root logger: every logger propagates here
    for name in ("werkzeug", "stich", "stich.api", "rq", "flask.app", "redis"):
        caplog.set_level(logging.DEBUG, logger=name)
    return caplog


def log_text(caplog) -> str:
    parts = [caplog.text]
    for record in caplog.records:
        parts.append(record.getMessage())
        parts.append(repr(record.args))
        parts.append(repr(getattr(record, "exc_text", "")))
    return "\n".join(parts)


def test_tokens_never_reach_the_logs(all_logs, capfd, app, redis_url):
    """A whole game with bots over a real werkzeug server (request log lines included)
    and through the test client, with wrong tokens and errors along the way."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        http = requests.Session()
        created = http.post(f"{base}/v1/games", json={"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 1},
                                                      "seats": [{"kind": "human"}, {"kind": "human"},
                                                                {"kind": "bot", "bot": "random"}]})
        game_id = created.json()["id"]
        tokens = {s: http.post(f"{base}/v1/games/{game_id}/seats/{s}").json()["token"] for s in (0, 1)}
        http.get(f"{base}/v1/games/{game_id}/view", headers=auth(tokens[0] + "wrong"))
        http.post(f"{base}/v1/games/{game_id}/commands", data="{", headers={**auth(tokens[1]),
                                                                             "Content-Type": "application/json"})
        rng = random.Random(1)
        for _ in range(400):
            view = http.get(f"{base}/v1/games/{game_id}/view", headers=auth(tokens[0])).json()
            if view["status"] == "finished":
                break
            for seat, token in tokens.items():
                legal = http.get(f"{base}/v1/games/{game_id}/view", headers=auth(token)).json()["legal"]
                if legal:
                    answer = http.post(f"{base}/v1/games/{game_id}/commands", json=rng.choice(legal),
                                       headers={**auth(token), "Idempotency-Key": token[-8:] + str(rng.random())})
                    assert answer.status_code in (200, 409), answer.text
        assert http.get(f"{base}/v1/games/{game_id}").json()["status"] == "finished"
        http.get(f"{base}/v1/games/{game_id}/events/stream?timeout=0.05", headers=auth(tokens[1])).close()
    finally:
        server.shutdown()
        thread.join(5)
    # the same again through the test client, with a second game
    client = app.test_client()
    other_id, other_tokens = new_game(client, players=3, humans=(0,))
    play_to_end(client, other_id, other_tokens, [])
    client.get(f"/v1/games/{other_id}/view", headers=auth(other_tokens[0][:-1]))
    everything = list(tokens.values()) + list(other_tokens.values())
    logged = log_text(all_logs)
    assert any("werkzeug" == r.name for r in all_logs.records), "werkzeug's request log was not captured"
    captured = capfd.readouterr()
    assert not contains_token([logged, captured.out, captured.err], everything)


# -- wrong tokens and constant-time comparison ----------------------------------------------

def test_wrong_tokens_are_403(client):
    game_id, tokens = new_game(client, players=3, humans=(0, 1))
    other_id, other_tokens = new_game(client, players=3, humans=(0,))
    token = tokens[0]
    flipped = token[:-1] + ("A" if token[-1] != "A" else "B")
    wrong = [flipped, token + "x", token[:-1], other_tokens[0], "st_" + "A" * 32, hashlib.sha256(token.encode()).hexdigest(),
             token_hash(token), "x"]
    command = {"type": "predict", "most": "R", "fewest": "G"}
    before = client.get(f"/v1/games/{game_id}").get_json()["seq"]
    for bad in wrong:
        for response in (client.post(f"/v1/games/{game_id}/commands", json=command, headers=auth(bad)),
                         client.get(f"/v1/games/{game_id}/view", headers=auth(bad)),
                         client.get(f"/v1/games/{game_id}/events", headers=auth(bad)),
                         client.get(f"/v1/games/{game_id}/events/stream?timeout=0", headers=auth(bad))):
            assert response.status_code == 403, (bad, response.get_data(as_text=True))
            assert response.mimetype == "application/problem+json"
            assert response.get_json()["code"] == "invalid_token"
    response = client.post(f"/v1/games/{game_id}/commands", json=command, headers={"Authorization": "Bearer "})
    assert response.status_code == 401 and response.get_json()["code"] == "missing_token"
    assert client.get(f"/v1/games/{game_id}").get_json()["seq"] == before
    # the right token still works
    assert client.post(f"/v1/games/{game_id}/commands", json=command, headers=auth(token)).status_code == 200


class CountingHmac:
    def __init__(self, real):
        self.real = real
        self.calls: list[tuple] = []

    def compare_digest(self, a, b):
        self.calls.append((a, b))
        return self.real.compare_digest(a, b)

    def __getattr__(self, name):
        return getattr(self.real, name)


@pytest.fixture
def counting_hmac(monkeypatch):
    counter = CountingHmac(api.auth.hmac)
    monkeypatch.setattr(api.auth, "hmac", counter)
    return counter


def test_seat_for_token_compares_every_seat_in_constant_time(counting_hmac):
    tokens = {seat: new_token() for seat in range(8)}
    credentials = {seat: token_hash(t) for seat, t in tokens.items()}
    for seat, token in tokens.items():
        counting_hmac.calls.clear()
        assert seat_for_token(credentials, token) == (seat, 0)
        assert len(counting_hmac.calls) == len(credentials), "not every stored seat was compared"
        assert {b for _, b in counting_hmac.calls} == set(credentials.values())
        assert all(a == token_hash(token) for a, _ in counting_hmac.calls)
    counting_hmac.calls.clear()
    with pytest.raises(Problem) as refused:
        seat_for_token(credentials, new_token())
    assert refused.value.status == 403 and refused.value.code == "invalid_token"
    assert len(counting_hmac.calls) == len(credentials)


def test_every_api_lookup_goes_through_compare_digest(client, counting_hmac):
    game_id, tokens = new_game(client, players=4, humans=(0, 1, 2, 3))
    counting_hmac.calls.clear()
    response = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[2]))
    assert response.status_code == 200 and response.get_json()["viewer"] == 2
    assert counting_hmac.calls and len(counting_hmac.calls) % 4 == 0, len(counting_hmac.calls)
    counting_hmac.calls.clear()
    response = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[2][:-2] + "zz"))
    assert response.status_code == 403
    # a miss may re-read the stored hashes once; every pass compares all four seats
    assert counting_hmac.calls and len(counting_hmac.calls) % 4 == 0, len(counting_hmac.calls)
    assert all(a == token_hash(tokens[2][:-2] + "zz") for a, _ in counting_hmac.calls)
