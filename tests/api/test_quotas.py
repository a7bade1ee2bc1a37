"""Quotas per address (creation rate, unfinished games, open streams) and the operator key that is
exempt from them. Each test speaks from an address of its own, so the shared Redis is no issue."""
from __future__ import annotations


import pytest

from api import create_app
from api.quotas import Quotas
from api.ratelimit import Limits

from .play import auth, play_to_end
from ..addresses import fresh_address

HUMAN_GAME = {"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 1},
              "seats": [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}]}
BOT_GAME = {"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 1}, "seats": [{"kind": "bot"}] * 3}


@pytest.fixture
def address():
    return fresh_address()


def client_for(redis_url, address, limits=None, **quotas):
    client = create_app(redis_url, bots="inline", quotas=Quotas(**quotas), limits=limits).test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def test_creating_more_games_than_the_rate_allows_is_429_per_address(redis_url, address):
    client = client_for(redis_url, address, creates=3, create_window_s=3600)
    assert [client.post("/v1/games", json=HUMAN_GAME).status_code for _ in range(3)] == [201] * 3
    refused = client.post("/v1/games", json=HUMAN_GAME)
    assert refused.status_code == 429 and refused.mimetype == "application/problem+json"
    assert refused.get_json()["code"] == "create_quota" and int(refused.headers["Retry-After"]) >= 1
    other = client_for(redis_url, address + "0", creates=3, create_window_s=3600)
    assert other.post("/v1/games", json=HUMAN_GAME).status_code == 201


def test_unfinished_games_per_address_are_capped_until_one_finishes(redis_url, address):
    client = client_for(redis_url, address, active=2)
    bots_only = client.post("/v1/games", json=BOT_GAME).get_json()["id"]  # played to the end at once
    assert client.get(f"/v1/games/{bots_only}").get_json()["status"] == "finished"
    first = client.post("/v1/games", json=HUMAN_GAME).get_json()["id"]
    assert client.post("/v1/games", json=HUMAN_GAME).status_code == 201
    refused = client.post("/v1/games", json=HUMAN_GAME)
    assert refused.status_code == 429 and refused.get_json()["code"] == "active_games_quota"
    assert refused.headers["Retry-After"] == "60"
    token = client.post(f"/v1/games/{first}/seats/0").get_json()["token"]
    play_to_end(client, first, {0: token})
    assert client.post("/v1/games", json=HUMAN_GAME).status_code == 201


def test_a_running_tournament_is_an_active_creation_of_its_address(redis_url, address):
    """A tournament opens many games, so it counts like one unfinished game of its address: an
    anonymous client cannot keep more tournaments going than its active quota."""
    client = client_for(redis_url, address, active=1)
    body = {"game": "scharfe-schoten", "players": 3, "deals_per_table": 1,
            "participants": [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}]}
    created = client.post("/v1/tournaments", json=body)
    assert created.status_code == 201
    for refused in (client.post("/v1/tournaments", json=body), client.post("/v1/games", json=HUMAN_GAME)):
        assert refused.status_code == 429 and refused.get_json()["code"] == "active_games_quota"
    # A bot tournament plays to the end at once (inline bots): it no longer counts
    other = client_for(redis_url, address + "0", active=1)
    finished = other.post("/v1/tournaments", json={**body, "participants": [{"kind": "bot"}] * 3}).get_json()
    started = other.post(f"/v1/tournaments/{finished['id']}/start", headers=auth(finished["token"]))
    assert started.status_code == 200
    assert other.get(f"/v1/tournaments/{finished['id']}").get_json()["status"] == "finished"
    assert other.post("/v1/tournaments", json=body).status_code == 201


def test_with_operator_keys_creating_needs_one_and_a_key_is_exempt(redis_url, address):
    client = client_for(redis_url, address, creates=1, active=1, api_keys=frozenset({"op-key-1", "op-key-2"}),
                        limits=Limits(per_address=2, window_s=3600))
    missing = client.post("/v1/games", json=HUMAN_GAME)
    assert missing.status_code == 401 and missing.get_json()["code"] == "missing_api_key"
    wrong = client.post("/v1/games", json=HUMAN_GAME, headers={"X-API-Key": "op-key-3"})
    assert wrong.status_code == 403 and wrong.get_json()["code"] == "invalid_api_key"
    created = [client.post("/v1/games", json=HUMAN_GAME, headers={"X-API-Key": "op-key-2"}) for _ in range(4)]
    assert [c.status_code for c in created] == [201] * 4  # past creates, active and the address's write limit
    game_id = created[0].get_json()["id"]
    assert client.post(f"/v1/games/{game_id}/seats/0").status_code == 201  # seats need no key


def test_open_streams_and_long_polls_per_address_are_capped(redis_url, address):
    client = client_for(redis_url, address, streams=2)
    game_id = client.post("/v1/games", json=HUMAN_GAME).get_json()["id"]
    token = client.post(f"/v1/games/{game_id}/seats/0").get_json()["token"]
    held = [client.get(f"/v1/games/{game_id}/events/stream?timeout=30", buffered=False) for _ in range(2)]
    assert [h.status_code for h in held] == [200, 200]
    refused = client.get(f"/v1/games/{game_id}/events/stream?timeout=30", buffered=False)
    assert refused.status_code == 429 and refused.get_json()["code"] == "stream_quota"
    seq = client.get(f"/v1/games/{game_id}").get_json()["seq"]
    poll = client.get(f"/v1/games/{game_id}/events?after={seq}&wait=1", headers=auth(token))
    assert poll.status_code == 429 and poll.get_json()["code"] == "stream_quota"
    assert client.get(f"/v1/games/{game_id}/events?after=0").status_code == 200  # no wait: no slot needed
    held[0].close()  # a closed stream gives its slot back
    assert client.get(f"/v1/games/{game_id}/events?after={seq}&wait=0.1").status_code == 200
    reopened = client.get(f"/v1/games/{game_id}/events/stream?timeout=30", buffered=False)
    assert reopened.status_code == 200
    for response in (held[1], reopened):
        response.close()
    keeper = client.application.extensions["stich.quotas"]
    assert keeper._open == {}  # every slot given back


def search_game(*budgets, human=True):
    seats = ([{"kind": "human"}] if human else []) + [{"kind": "bot", "bot": "search", "budget_ms": b} for b in budgets]
    seats += [{"kind": "bot"}] * (3 - len(seats))
    return {"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 1}, "seats": seats}


def test_search_budget_in_an_addresss_unfinished_games_is_capped(redis_url, address):
    """The search bots' budgets per decision, summed over the address's unfinished games: over the limit is
    a 429 naming it, one game over it alone a 403; games without search bots and finished games are free."""
    client = client_for(redis_url, address, search_ms=100)
    assert client.post("/v1/games", json=search_game(60, 40)).status_code == 201  # waits for its human: holds 100
    refused = client.post("/v1/games", json=search_game(10))
    body = refused.get_json()
    assert refused.status_code == 429 and refused.mimetype == "application/problem+json"
    assert body["code"] == "search_budget_quota" and (body["limit"], body["held"], body["requested"]) == (100, 100, 10)
    assert refused.headers["Retry-After"] == "60"
    assert client.post("/v1/games", json=HUMAN_GAME).status_code == 201  # no search seat: not refused
    too_big = client.post("/v1/games", json=search_game(60, 50))
    assert too_big.status_code == 403 and too_big.get_json()["code"] == "search_budget_limit"
    assert too_big.get_json()["limit"] == 100
    default = client.post("/v1/games", json={**HUMAN_GAME, "seats": [{"kind": "human"}, {"kind": "bot", "bot": "search"},
                                                                      {"kind": "bot"}]})
    assert default.status_code == 403 and default.get_json()["requested"] == 500  # a seat without one: the default cap
    other = client_for(redis_url, address + "0", search_ms=100)
    assert other.post("/v1/games", json=search_game(50, 50, human=False)).status_code == 201  # bots only: finished
    assert other.post("/v1/games", json=search_game(50, 50)).status_code == 201  # so it holds nothing


def test_an_operator_key_lifts_the_search_budget_and_the_tournament_size(redis_url, address):
    client = client_for(redis_url, address, search_ms=100, tournament_deals=1, active=1,
                        api_keys=frozenset({"op-key"}))
    key = {"X-API-Key": "op-key"}
    assert client.post("/v1/games", json=search_game(2000, 2000), headers=key).status_code == 201
    big = {"game": "scharfe-schoten", "players": 3, "rounds": 2, "deals_per_table": 2,
           "participants": [{"kind": "human"}] + [{"kind": "bot", "bot": "search"}] * 5}
    assert client.post("/v1/tournaments", json=big, headers=key).status_code == 201


TOURNAMENT = {"game": "scharfe-schoten", "players": 3, "rounds": 2, "deals_per_table": 2,
              "participants": [{"kind": "human"}] + [{"kind": "bot"}] * 5}  # 2 tables: 8 table deals


def test_a_tournament_counts_the_tables_of_a_round_against_the_active_games(redis_url, address):
    client = client_for(redis_url, address, active=3, tournament_deals=8)
    assert client.post("/v1/tournaments", json=TOURNAMENT).status_code == 201  # 2 of 3
    assert client.post("/v1/games", json=HUMAN_GAME).status_code == 201  # 3 of 3
    refused = client.post("/v1/games", json=HUMAN_GAME)
    assert refused.status_code == 429 and refused.get_json()["code"] == "active_games_quota"
    fresh = client_for(redis_url, address + "0", active=3, tournament_deals=8)
    assert fresh.post("/v1/games", json=HUMAN_GAME).status_code == 201
    assert fresh.post("/v1/games", json=HUMAN_GAME).status_code == 201
    crowded = fresh.post("/v1/tournaments", json=TOURNAMENT)  # 2 + 2 tables > 3
    assert crowded.status_code == 429 and crowded.get_json()["code"] == "active_games_quota"
    assert "opens 2 at once" in crowded.get_json()["detail"]


def test_a_tournament_over_the_anonymous_size_is_a_403_naming_the_limit(redis_url, address):
    client = client_for(redis_url, address, active=3, tournament_deals=8, search_ms=300)
    longer = client.post("/v1/tournaments", json={**TOURNAMENT, "rounds": 3})  # 2 x 3 x 2 = 12 table deals
    assert longer.status_code == 403 and longer.mimetype == "application/problem+json"
    assert longer.get_json()["code"] == "tournament_size_limit"
    assert (longer.get_json()["limit"], longer.get_json()["requested"]) == (8, 12)
    wider = client.post("/v1/tournaments", json={**TOURNAMENT, "rounds": 1, "deals_per_table": 1,
                                                 "participants": [{"kind": "bot"}] * 12})  # 4 tables at once > 3
    assert wider.status_code == 403 and wider.get_json()["code"] == "tournament_size_limit"
    assert wider.get_json()["limit"] == 3
    searching = client.post("/v1/tournaments", json={**TOURNAMENT, "participants": [{"kind": "human"}]
                                                     + [{"kind": "bot", "bot": "search"}] * 5})  # 5 x 500 ms
    assert searching.status_code == 403 and searching.get_json()["code"] == "search_budget_limit"
    assert searching.get_json()["requested"] == 2500
    assert client.post("/v1/tournaments", json=TOURNAMENT).status_code == 201  # nothing refused changed anything


def test_withdrawing_to_the_search_bot_is_counted_as_creating_with_it_would_be(redis_url, address):
    """60 humans withdrawn one by one to the search bot would think 30,000 ms a decision, past the 26,500 ms a
    tournament of 60 search bots is refused for: each withdrawal to the search is checked like a creation."""
    client = client_for(redis_url, address, search_ms=1500, active=100, tournament_deals=1000)
    created = client.post("/v1/tournaments", json={**TOURNAMENT, "participants": [{"kind": "human"}] * 6})
    assert created.status_code == 201, created.get_json()
    tid, organizer = created.get_json()["id"], auth(created.get_json()["token"])
    withdrawn = [client.post(f"/v1/tournaments/{tid}/participants/{p}/withdraw", json={"bot": "search"},
                             headers=organizer) for p in range(4)]
    assert [w.status_code for w in withdrawn[:3]] == [200] * 3  # 3 x 500 ms: the limit
    refused = withdrawn[3].get_json()
    assert withdrawn[3].status_code == 403 and refused["code"] == "search_budget_limit", refused
    assert refused["requested"] == 2000 and refused["limit"] == 1500
    after = client.get(f"/v1/tournaments/{tid}").get_json()
    assert "withdrawn" not in after["participants"][3]  # nothing changed
    # The heuristic costs no search: still allowed; and the tournament's search now counts for its address
    assert client.post(f"/v1/tournaments/{tid}/participants/3/withdraw", json={"bot": "heuristic"},
                       headers=organizer).status_code == 200
    game = client.post("/v1/games", json=search_game(10))
    assert game.status_code == 429 and game.get_json()["code"] == "search_budget_quota"
    assert game.get_json()["held"] == 1500


def test_a_withdrawal_that_does_not_fit_beside_the_addresss_other_games_is_a_429(redis_url, address):
    client = client_for(redis_url, address, search_ms=1000, active=100, tournament_deals=1000)
    assert client.post("/v1/games", json=search_game(600)).status_code == 201  # waits for its human: holds 600
    created = client.post("/v1/tournaments", json={**TOURNAMENT, "participants": [{"kind": "human"}] * 6})
    tid, organizer = created.get_json()["id"], auth(created.get_json()["token"])
    refused = client.post(f"/v1/tournaments/{tid}/participants/0/withdraw", json={"bot": "search"}, headers=organizer)
    assert refused.status_code == 429 and refused.get_json()["code"] == "search_budget_quota", refused.get_json()
    assert (refused.get_json()["held"], refused.get_json()["requested"]) == (600, 500)


def test_a_clock_whose_bot_is_the_search_counts_every_human_seat_it_may_play(redis_url, address):
    client = client_for(redis_url, address, search_ms=1000)
    clocked = {**HUMAN_GAME, "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}],
               "clock": {"per_move_s": 30, "bot": "search"}}
    assert client.post("/v1/games", json=clocked).status_code == 201  # 2 humans x 500 ms
    refused = client.post("/v1/games", json=clocked)
    assert refused.status_code == 429 and refused.get_json()["code"] == "search_budget_quota"
    everyone = client.post("/v1/games", json={**clocked, "seats": None, "players": 3})
    assert everyone.status_code in (403, 422) or everyone.get_json()["code"] == "search_budget_quota"
    tournament = client.post("/v1/tournaments", json={**TOURNAMENT, "participants": [{"kind": "human"}] * 3
                                                      + [{"kind": "bot"}] * 3, "clock": {"per_move_s": 30,
                                                                                         "bot": "search"}})
    assert tournament.status_code == 403 and tournament.get_json()["requested"] == 1500


def test_a_creation_that_can_never_pass_the_rate_is_a_403_and_costs_nothing(redis_url, address):
    client = client_for(redis_url, address, creates=4, create_window_s=3600)
    body = {"games": [HUMAN_GAME] * 5}
    too_many = client.post("/v1/games/bulk", json=body, headers={"Idempotency-Key": "five"})
    assert too_many.status_code == 403 and too_many.get_json()["code"] == "create_limit", too_many.get_json()
    assert too_many.get_json()["limit"] == 4 and "Retry-After" not in too_many.headers
    # ...and it used none of the window: four games still fit
    assert client.post("/v1/games/bulk", json={"games": [HUMAN_GAME] * 4},
                       headers={"Idempotency-Key": "four"}).status_code == 201
    refused = client.post("/v1/games", json=HUMAN_GAME)
    assert refused.status_code == 429 and refused.get_json()["code"] == "create_quota"
