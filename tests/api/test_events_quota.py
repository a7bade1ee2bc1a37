"""The daily stored-events quota per address (api/quotas.py ``reserve_events``): every game created
counts its ``max_events`` ceiling, since a game is kept for good however soon it finishes. A red-team
probe bought 19,000 stored events (a 4.8 MB export) with one anonymous request, and could repeat it
all day once the game had finished and left the active-games quota."""
from __future__ import annotations

import secrets

import pytest

from api import create_app
from api.footprint import game_events, tournament_events
from api.quotas import EVENTS_LIMIT, EVENTS_WINDOW_S, Quotas
from api.ratelimit import window_now
from domain.registry import all_games
from domain.table import Table
from domain.tournament import Tournaments
from workers.dispatch import lane_queues

from .play import auth
from ..addresses import fresh_address

# The probe's request: four random bots, 400 deals, the hard maximum of events.
ATTACK = {"game": "schafkopf", "players": 4, "seats": [{"kind": "bot", "bot": "random"}] * 4,
          "rules": {"deals": 400}, "limits": {"max_deals": 5000, "max_events": 100000}}
HUMAN = {"kind": "human"}
# Waits for its human: nothing is played, so a test creates it in no time. 3 deals' ceiling: 1,000 events.
WAITING = {"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 1}, "seats": [HUMAN] * 3}


@pytest.fixture
def address():
    return fresh_address()


def client_for(redis_url, address, bots="inline", **quotas):
    client = create_app(redis_url, bots=bots, quotas=Quotas(**quotas)).test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def counted(client, address) -> int:
    """The events counted against ``address`` in the current window."""
    index, _ = window_now(EVENTS_WINDOW_S)
    raw = client.application.extensions["stich"].store.redis.get(f"stich:quota:events:{address}:{index}")
    return int(raw or 0)


def games_listed(client) -> int:
    return sum(1 for _ in client.application.extensions["stich"].index.ids())


@pytest.fixture
def queued(redis_url, address, monkeypatch):
    """Bot turns queued to a private RQ queue nobody works (the probe's game would take the bots a
    minute inline); its jobs and due entries are removed afterwards."""
    monkeypatch.setenv("STICH_QUEUE", f"test-events-{secrets.token_hex(4)}")
    client = client_for(redis_url, address, bots="rq", events=150_000)
    client.created = []  # the games to clean up after
    yield client
    rt = client.application.extensions["stich"]
    for queue in lane_queues(rt.queue):
        queue.delete(delete_jobs=True)
    for member in rt.store.redis.zrange(rt.schedule.key, 0, -1):
        if any(f"|{game_id}|".encode() in member for game_id in client.created):
            rt.store.redis.zrem(rt.schedule.key, member)


def test_the_probes_request_is_admitted_once_and_refused_the_second_time_until_the_day_is_over(queued, address):
    first = queued.post("/v1/games", json=ATTACK)
    assert first.status_code == 201, first.get_json()
    queued.created.append(first.get_json()["id"])
    assert counted(queued, address) == 100_000
    listed = games_listed(queued)
    refused = queued.post("/v1/games", json=ATTACK)
    assert refused.status_code == 429 and refused.mimetype == "application/problem+json"
    problem = refused.get_json()
    assert problem["code"] == "events_quota"
    assert (problem["limit"], problem["window_s"], problem["used"], problem["requested"]) == (
        150_000, EVENTS_WINDOW_S, 100_000, 100_000)
    assert 0 < int(refused.headers["Retry-After"]) <= EVENTS_WINDOW_S
    assert abs(int(refused.headers["Retry-After"]) - window_now(EVENTS_WINDOW_S)[1]) <= 1  # the window's end
    assert games_listed(queued) == listed and counted(queued, address) == 100_000  # the refusal changed nothing
    smaller = queued.post("/v1/games", json={**WAITING, "limits": {"max_events": 50_000}})  # what is left fits
    assert smaller.status_code == 201
    queued.created.append(smaller.get_json()["id"])
    assert counted(queued, address) == 150_000


def test_one_creation_over_the_limit_alone_is_a_403_that_changes_nothing(redis_url, address):
    client = client_for(redis_url, address, events=5_000)
    listed = games_listed(client)
    refused = client.post("/v1/games", json={**WAITING, "limits": {"max_events": 6_000}})
    assert refused.status_code == 403 and refused.get_json()["code"] == "events_limit"
    assert (refused.get_json()["limit"], refused.get_json()["requested"]) == (5_000, 6_000)
    assert "Retry-After" not in refused.headers  # no waiting mends it
    assert games_listed(client) == listed and counted(client, address) == 0
    assert client.post("/v1/games", json={**WAITING, "limits": {"max_events": 5_000}}).status_code == 201
    assert counted(client, address) == 5_000


def test_an_operator_key_is_exempt_from_the_events_quota(redis_url, address):
    client = client_for(redis_url, address, events=1_000, api_keys=frozenset({"op-key"}))
    big = {**WAITING, "limits": {"max_events": 100_000}}
    for _ in range(3):
        assert client.post("/v1/games", json=big, headers={"X-API-Key": "op-key"}).status_code == 201
    assert counted(client, address) == 0


def test_a_failed_or_refused_creation_gives_its_events_back(redis_url, address, monkeypatch):
    client = client_for(redis_url, address, events=10_000, creates=2, create_window_s=3600)
    invalid_rules = client.post("/v1/games", json={**WAITING, "rules": {"rounds": 0}})
    assert invalid_rules.status_code == 422 and invalid_rules.get_json()["code"] == "invalid_setup"
    # Valid rules (so their ceiling is reserved) but seats the table refuses: given back
    invalid_seats = client.post("/v1/games", json={**WAITING, "seats": [HUMAN, {"kind": "bot", "bot": "nope"}, HUMAN]})
    assert invalid_seats.status_code == 422, invalid_seats.get_json()
    assert counted(client, address) == 0
    handler = client.application.extensions["stich"].handler

    def broken(*args, **kwargs):
        raise RuntimeError("the store broke")

    monkeypatch.setattr(handler, "create", broken)
    assert client.post("/v1/games", json=WAITING).status_code == 500
    monkeypatch.undo()
    assert counted(client, address) == 0
    # The attempts that created nothing cost no creation rate either: two games still fit the window of two
    assert [client.post("/v1/games", json={**WAITING, "limits": {"max_events": 100}}).status_code
            for _ in range(2)] == [201, 201]
    assert counted(client, address) == 200
    # The creation rate refuses the third after its events were reserved: given back
    refused = client.post("/v1/games", json=WAITING)
    assert refused.status_code == 429 and refused.get_json()["code"] == "create_quota"
    assert counted(client, address) == 200


def bulk(client, games, key=None):
    return client.post("/v1/games/bulk", json={"games": games},
                       headers={"Idempotency-Key": key or secrets.token_hex(8)})


def test_a_bulk_pairing_counts_the_ceilings_of_all_its_games(redis_url, address):
    client = client_for(redis_url, address, events=1_000)
    game = {**WAITING, "limits": {"max_events": 300}}
    key = secrets.token_hex(8)
    assert bulk(client, [game] * 3, key).status_code == 201
    assert counted(client, address) == 900
    replayed = bulk(client, [game] * 3, key)  # the same batch answered again: nothing more stored
    assert replayed.status_code == 201 and replayed.headers["Idempotent-Replayed"] == "true"
    assert counted(client, address) == 900
    refused = bulk(client, [game])
    assert refused.status_code == 429 and refused.get_json()["code"] == "events_quota"
    assert refused.get_json()["used"] == 900 and int(refused.headers["Retry-After"]) > 0
    too_big = client_for(redis_url, address + "0", events=1_000)
    alone = bulk(too_big, [game] * 4)
    assert alone.status_code == 403 and alone.get_json()["code"] == "events_limit"
    assert alone.get_json()["requested"] == 1_200
    invalid = bulk(too_big, [game, {**game, "rules": {"rounds": 0}}])  # refused before anything is counted
    assert invalid.status_code == 422 and counted(too_big, address + "0") == 0
    assert bulk(too_big, [game] * 3).status_code == 201 and counted(too_big, address + "0") == 900


BOT_TOURNAMENT = {"game": "scharfe-schoten", "players": 3, "rounds": 2, "deals_per_table": 2,
                  "participants": [{"kind": "bot"}] * 6}  # 2 tables a round, 4 table games


@pytest.mark.parametrize("duplicate", [False, True])
def test_a_tournament_counts_every_table_game_it_will_open_at_the_ceiling_its_driver_gives_it(
        redis_url, address, duplicate):
    client = client_for(redis_url, address, events=100_000)
    created = client.post("/v1/tournaments", json={**BOT_TOURNAMENT, "duplicate": duplicate})
    assert created.status_code == 201, created.get_json()
    reserved = counted(client, address)
    tournament_id = created.get_json()["id"]
    started = client.post(f"/v1/tournaments/{tournament_id}/start", headers=auth(created.get_json()["token"]))
    assert started.status_code == 200
    tournament = client.get(f"/v1/tournaments/{tournament_id}").get_json()
    assert tournament["status"] == "finished"  # inline bots: every table has been played
    tables = [t["game_id"] for r in tournament["schedule"] for t in r["tables"]]
    assert len(tables) == 4
    ceilings = [client.get(f"/v1/games/{g}").get_json()["limits"]["max_events"] for g in tables]
    assert reserved == sum(ceilings)  # exactly what the driver's table games may store
    assert counted(client, address) == reserved  # the tables themselves are not counted again


def test_a_tournament_over_the_limit_is_refused_and_counts_nothing(redis_url, address):
    config = Tournaments(all_games()).create(BOT_TOURNAMENT, "")[0].data
    events = tournament_events(Table(all_games()), config)
    client = client_for(redis_url, address, events=events - 1)
    alone = client.post("/v1/tournaments", json=BOT_TOURNAMENT)
    assert alone.status_code == 403 and alone.get_json()["code"] == "events_limit"
    assert alone.get_json()["requested"] == events and counted(client, address) == 0
    roomy = client_for(redis_url, address, events=events + 1)
    assert roomy.post("/v1/tournaments", json=BOT_TOURNAMENT).status_code == 201
    refused = roomy.post("/v1/tournaments", json=BOT_TOURNAMENT)
    assert refused.status_code == 429 and refused.get_json()["code"] == "events_quota"
    assert counted(roomy, address) == events


def test_the_default_limit_admits_a_day_of_ordinary_games(redis_url, address, monkeypatch):
    """40 default Scharwenzel games (the longest default: 20,500 events each) from one address in a day."""
    monkeypatch.delenv("STICH_EVENTS_LIMIT", raising=False)
    assert Quotas.from_env().events == 4_000_000
    monkeypatch.setenv("STICH_EVENTS_LIMIT", "0")
    assert Quotas.from_env().events is None  # 0 turns it off
    client = client_for(redis_url, address, events=1_000_000)
    game = {"game": "scharwenzel", "players": 4, "seats": [HUMAN] * 4}
    assert [client.post("/v1/games", json=game).status_code for _ in range(40)] == [201] * 40
    assert counted(client, address) == 40 * 20_500


@pytest.mark.parametrize("body", [
    {"game": "schafkopf", "players": 4},
    {"game": "schafkopf", "players": 4, "rules": {"deals": 400}},
    {"game": "schafkopf", "players": 4, "limits": {"max_deals": 3}},
    {"game": "scharwenzel", "players": 6, "rules": {"deals": 12}},
    {"game": "scharfe-schoten", "players": 4, "limits": {"max_events": 77}},
])
def test_the_ceiling_reserved_before_a_creation_is_the_one_the_table_records(body):
    table = Table(all_games())
    events = table.create(body["game"], body["players"], body.get("rules") or {}, None, None, "0" * 64,
                          body.get("limits"))
    assert game_events(table, body) == events[0].data["limits"]["max_events"]


@pytest.mark.parametrize("game,players", [("schafkopf", 4), ("scharwenzel", 4), ("scharfe-schoten", 4)])
def test_the_largest_tournament_the_size_limit_admits_fits_the_default_events_limit(game, players):
    # 16 tables x 8 rounds x 8 deals: the 1,024 table deals of STICH_TOURNAMENT_DEALS_LIMIT's default
    assert Quotas.from_env().tournament_deals == 16 * 8 * 8
    raw = {"game": game, "players": players, "rounds": 8, "deals_per_table": 8,
           "participants": [{"kind": "bot"}] * (16 * players)}
    config = Tournaments(all_games()).create(raw, "")[0].data
    assert tournament_events(Table(all_games()), config) <= EVENTS_LIMIT
