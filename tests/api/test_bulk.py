"""Bulk pairing (api/bulk.py): a league round created in one request, all or nothing, idempotent, with
tokens or claim links, and games that start at a set time (workers/start.py)."""
from __future__ import annotations

import secrets
import time

import pytest
import redis

from api.quotas import Quotas
from domain.audit import verify_text
from domain.clock import iso, millis
from workers.start import KIND, settle_start
from ..addresses import fresh_address

KEY = "op_" + secrets.token_urlsafe(24)
OPERATOR = {"X-API-Key": KEY}
HUMAN, BOT = {"kind": "human"}, {"kind": "bot", "bot": "random"}
SCHOTEN = {"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 1}}


@pytest.fixture(scope="module")
def keyed(redis_url):
    from api import create_app

    return create_app(redis_url, bots="inline", quotas=Quotas(api_keys=frozenset({KEY})))


@pytest.fixture
def api(keyed):
    return keyed.test_client()


def post(client, body, key=None, headers=OPERATOR):
    return client.post("/v1/games/bulk", json=body,
                       headers={**headers, "Idempotency-Key": key or secrets.token_hex(8)})


def league_round(players: list[str]) -> dict:
    """Tables of three humans, each seat naming its player."""
    return {"games": [{**SCHOTEN, "seats": [{"kind": "human", "player": p} for p in players[i:i + 3]]}
                      for i in range(0, len(players), 3)]}


def test_a_league_round_is_paired_in_one_request_and_each_player_claims_its_seat_once_with_answers_repeatable(api):
    players = [f"p{n}" for n in range(9)]
    created = post(api, league_round(players))
    assert created.status_code == 201, created.get_json()
    body = created.get_json()
    assert len(body["games"]) == 3 and {c["player"] for c in body["claims"]} == set(players)
    assert all("token" not in seat for game in body["games"] for seat in game["seats"])  # claims, not tokens
    for game in body["games"]:
        summary = api.get(game["url"]).get_json()
        assert summary["status"] == "active" and all(seat["taken"] for seat in summary["seats"])
    claim = body["claims"][0]
    redeemed = api.post(claim["url"])
    assert redeemed.status_code == 201, redeemed.get_json()
    [seat] = redeemed.get_json()["seats"]
    assert (seat["game_id"], seat["seat"]) == (claim["seats"][0]["game_id"], claim["seats"][0]["seat"])
    view = api.get(f"/v1/games/{seat['game_id']}/view", headers={"Authorization": f"Bearer {seat['token']}"})
    assert view.get_json()["viewer"] == seat["seat"] and view.get_json()["legal"]
    again = api.post(claim["url"])  # a lost answer is fetched again: the same seat, the same token
    assert again.status_code == 200 and again.get_json()["seats"] == redeemed.get_json()["seats"]
    assert again.get_json()["redeemed_at"] == redeemed.get_json()["redeemed_at"]
    assert api.post("/v1/claims/cl_" + "A" * 32).get_json()["code"] == "unknown_claim"
    # A claim's token is of its own seat: another table's is not its to read as a seat.
    other = body["claims"][3]["seats"][0]
    assert other["game_id"] != seat["game_id"]
    refused = api.get(f"/v1/games/{other['game_id']}/view", headers={"Authorization": f"Bearer {seat['token']}"})
    assert refused.status_code == 403


def test_a_retry_answers_the_first_answer_and_the_same_key_with_another_batch_is_refused(api):
    body = {"games": [{**SCHOTEN, "seats": [HUMAN, HUMAN, BOT]}, {**SCHOTEN, "seats": [HUMAN, BOT, BOT]}]}
    key = secrets.token_hex(8)
    first = post(api, body, key)
    assert first.status_code == 201
    tokens = [s["token"] for g in first.get_json()["games"] for s in g["seats"] if s["kind"] == "human"]
    assert len(tokens) == 3
    before = api.get("/v1/games?limit=5").get_json()["games"]
    retry = post(api, body, key)
    assert retry.status_code == 201 and retry.get_json() == first.get_json()
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert api.get("/v1/games?limit=5").get_json()["games"] == before  # nothing more created
    game, seat = first.get_json()["games"][0]["id"], first.get_json()["games"][0]["seats"][0]
    view = api.get(f"/v1/games/{game}/view", headers={"Authorization": f"Bearer {seat['token']}"})
    assert view.get_json()["viewer"] == 0
    reused = post(api, {"games": body["games"][:1]}, key)
    assert reused.status_code == 422 and reused.get_json()["code"] == "idempotency_key_reused"


def test_a_create_that_fails_midway_is_completed_by_the_retry(api, keyed, monkeypatch):
    handler = keyed.extensions["stich"].handler
    real, calls = handler.create_with, []

    def failing(build, game_id=None):
        calls.append(game_id)
        if len(calls) == 2:
            raise redis.exceptions.ConnectionError("the store went away")
        return real(build, game_id=game_id)

    body = {"games": [{**SCHOTEN, "seats": [HUMAN, BOT, BOT]} for _ in range(3)]}
    key = secrets.token_hex(8)
    monkeypatch.setattr(handler, "create_with", failing)
    failed = post(api, body, key)
    assert failed.status_code == 503 and failed.get_json()["code"] == "storage_unavailable"
    monkeypatch.setattr(handler, "create_with", real)
    assert api.get(f"/v1/games/{calls[0]}").status_code == 200 and api.get(f"/v1/games/{calls[1]}").status_code == 404
    retry = post(api, body, key)
    assert retry.status_code == 201
    ids = [g["id"] for g in retry.get_json()["games"]]
    assert ids[:2] == calls and all(api.get(f"/v1/games/{i}").status_code == 200 for i in ids)


def test_one_bad_game_refuses_the_whole_batch_by_its_field_and_creates_nothing(api):
    before = api.get("/v1/games?limit=1").get_json()["games"]
    bad = {"games": [{**SCHOTEN, "seats": [HUMAN, HUMAN, BOT]}, {**SCHOTEN, "players": 5},
                     {**SCHOTEN, "seats": [{"kind": "human", "player": "a"}, {"kind": "human", "player": "a"}, BOT]}]}
    refused = post(api, bad)
    assert refused.status_code == 422, refused.get_json()
    errors = refused.get_json()["errors"]
    assert "games[1].players" in errors and "games[2].seats" in errors and not any(k.startswith("games[0]")
                                                                                   for k in errors)
    assert api.get("/v1/games?limit=1").get_json()["games"] == before
    too_many = post(api, {"games": [SCHOTEN] * 65})
    assert too_many.status_code == 422 and "games" in too_many.get_json()["errors"]
    assert post(api, {"games": [SCHOTEN], "start_at": "2001-01-01T00:00:00Z"}).get_json()["errors"] == {
        "start_at": ["must be ahead of now"]}
    missing_key = api.post("/v1/games/bulk", json={"games": [SCHOTEN]}, headers=OPERATOR)
    assert missing_key.status_code == 422 and "Idempotency-Key" in missing_key.get_json()["errors"]
    for headers, status in (({}, 401), ({"X-API-Key": "op_wrong"}, 403)):
        answer = post(api, {"games": [SCHOTEN]}, headers=headers)
        assert answer.status_code == status and "operator key" in answer.get_json()["detail"]
    assert api.get("/v1/games?limit=1").get_json()["games"] == before


def test_games_with_a_set_start_wait_with_their_bots_until_then_and_their_clocks_start_then(api, keyed):
    rt = keyed.extensions["stich"]
    start_ms = int(time.time() * 1000) + 60_000
    body = {"start_at": iso(start_ms),
            "games": [{**SCHOTEN, "seats": [HUMAN, BOT, BOT], "clock": {"per_move_s": 30}},
                      {**SCHOTEN, "seats": [BOT, BOT, BOT]}]}
    created = post(api, body)
    assert created.status_code == 201, created.get_json()
    [human_game, bot_game] = created.get_json()["games"]
    token = human_game["seats"][0]["token"]
    for game in (human_game, bot_game):
        summary = api.get(game["url"]).get_json()
        assert summary["status"] == "waiting" and summary["start_at"] == iso(start_ms) and summary["to_act"] == []
    assert api.get(bot_game["url"]).get_json()["seq"] == 4  # created, three seats: no bot moved
    move = api.post(f"{human_game['url']}/commands", json={"type": "predict", "most": "R", "fewest": "G"},
                    headers={"Authorization": f"Bearer {token}"})
    assert move.status_code == 409 and move.get_json()["code"] == "game_not_started"
    assert iso(start_ms) in move.get_json()["detail"]

    # The sweeper finds the start due: early, it leaves the game waiting; on time, it starts it.
    class Sweeper:
        handler, schedule = rt.handler, FakeSchedule()

    entry = type("E", (), {"kind": KIND, "game_id": human_game["id"], "seq": 0})()
    assert settle_start(Sweeper, entry, start_ms / 1000 - 1) == 0
    assert Sweeper.schedule.redued == [start_ms / 1000]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rt.handler, "clock", lambda: iso(start_ms + 5))
        assert settle_start(Sweeper, entry, start_ms / 1000 + 0.005) == 1
        entry.game_id = bot_game["id"]
        assert settle_start(Sweeper, entry, start_ms / 1000 + 0.005) == 1
    summary = api.get(human_game["url"]).get_json()
    assert summary["status"] == "active" and summary["clock"]["seats"][0]["turn_started_at"] == iso(start_ms + 5)
    assert millis(summary["clock"]["seats"][0]["deadline_at"]) == start_ms + 5 + 30_000
    finished = api.get(bot_game["url"]).get_json()
    assert finished["status"] == "finished"  # the bots played once it started
    export = api.get(f"{bot_game['url']}/export").get_data(as_text=True)
    report = verify_text(rt.handler.table, export)
    assert report.ok, report.lines()


class FakeSchedule:
    def __init__(self):
        self.redued, self.dropped = [], []

    def redue(self, entry, due_at):
        self.redued.append(due_at)

    def drop(self, entry):
        self.dropped.append(entry)


def test_without_operator_keys_a_bulk_counts_against_the_quotas_by_its_games(redis_url):
    from api import create_app

    app = create_app(redis_url, bots="inline", quotas=Quotas(creates=4, active=100))
    client = app.test_client()
    address = {"REMOTE_ADDR": fresh_address()}
    body = {"games": [{**SCHOTEN, "seats": [HUMAN, BOT, BOT]}] * 3}
    first = client.post("/v1/games/bulk", json=body, headers={"Idempotency-Key": "a"}, environ_base=address)
    assert first.status_code == 201
    second = client.post("/v1/games/bulk", json=body, headers={"Idempotency-Key": "b"}, environ_base=address)
    assert second.status_code == 429 and second.get_json()["code"] == "create_quota"  # 6 games > 4


def test_a_retry_after_start_at_has_passed_answers_the_first_answer(api, monkeypatch):
    """The key promises the first answer for 24 hours: a batch cut short by a 503 is completed by its retry
    even once its start_at has passed (only a new batch must start ahead of now)."""
    start_ms = int(time.time() * 1000) + 60_000
    body = {"start_at": iso(start_ms), "games": [{**SCHOTEN, "seats": [HUMAN, BOT, BOT]}]}
    key = secrets.token_hex(8)
    first = post(api, body, key)
    assert first.status_code == 201, first.get_json()
    monkeypatch.setattr("api.bulk.time.time", lambda: start_ms / 1000 + 3600)  # an hour past start_at
    retry = post(api, body, key)
    assert retry.status_code == 201, retry.get_json()
    assert retry.get_json() == first.get_json() and retry.headers["Idempotent-Replayed"] == "true"
    late = post(api, body)  # a new batch with that start_at: refused
    assert late.status_code == 422 and late.get_json()["errors"] == {"start_at": ["must be ahead of now"]}
