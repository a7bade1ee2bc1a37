"""GET /v1/games/{id}/seats/{n}/hint: the search's suggestion for a seat, by the table's agreement
(``hints: true`` in GameCreated), from the seat's own view, computed by a job, cached, with a quota."""
from __future__ import annotations

import json
import random
import secrets

import pytest

from api import create_app
from api.quotas import Quotas
from domain.bots import policy
from domain.bots.decision import decision_for, seat_history
from workers import hint as job

from .contract.spec import validate_response
from .queue_recorder import Recorder
from ..addresses import fresh_address

KEY = "hint-operator-key"
PATH = "/v1/games/{id}/seats/{seat}/hint"
SCHOTEN = {"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 1}}
HUMAN, BOT = {"kind": "human"}, {"kind": "bot", "bot": "heuristic"}


@pytest.fixture(autouse=True)
def no_clock_cut(monkeypatch):
    """The wall-clock safety net far away, so that a busy test machine never cuts a search short:
    the hint is then the playouts' alone, which the determinism test depends on."""
    made = job.budget
    monkeypatch.setattr(job, "budget", lambda game: {**made(game), "budget_ms": 60_000})


@pytest.fixture
def address():
    return fresh_address()


@pytest.fixture(scope="module")
def limited(redis_url):
    return create_app(redis_url, bots="inline", quotas=Quotas(hints=2, api_keys=frozenset({KEY})))


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def table(client, hints=True, seats=(HUMAN, HUMAN, BOT), headers=None) -> tuple[str, dict[int, str]]:
    """A Scharfe Schoten game, its human seats taken: (id, token by seat)."""
    body = {**SCHOTEN, "seats": list(seats), **({"hints": hints} if hints is not None else {})}
    created = client.post("/v1/games", json=body, headers=headers or {})
    assert created.status_code == 201, created.get_json()
    game_id = created.get_json()["id"]
    tokens = {n: client.post(f"/v1/games/{game_id}/seats/{n}").get_json()["token"]
              for n, seat in enumerate(seats) if seat["kind"] == "human"}
    return game_id, tokens


def ask(client, game_id: str, seat: int, token: str, **headers):
    response = client.get(f"/v1/games/{game_id}/seats/{seat}/hint", headers={**bearer(token), **headers})
    validate_response(response, PATH, "get")
    return response


def code(response) -> tuple[int, str | None]:
    return response.status_code, (response.get_json() or {}).get("code")


def searched(app, game_id: str, seat: int) -> dict:
    """The search bot's command for the seat's Decision now, built from the store here, with the
    hint's seeded random generator and no clock."""
    rt = app.extensions["stich"]
    loaded = rt.handler.load(game_id)
    history = seat_history([e.to_domain() for e in rt.store.read(game_id, until=loaded.seq)], seat)
    decision = decision_for(rt.handler.table, loaded.state, None, seat,
                            random.Random(f"hint:{loaded.head}:{seat}"), history=history,
                            playouts=job.budget(loaded.state.game.name)["playouts"])
    return policy("search", loaded.state.game.name)(decision)


def hands(app, game_id: str) -> dict[int, list[str]]:
    rt = app.extensions["stich"]
    state = rt.handler.load(game_id).state
    return {seat: rt.handler.table.view(state, seat)["game_state"]["hand"] for seat in range(state.players)}


def test_hints_are_recorded_in_game_created_only_when_agreed_and_shown_to_everyone(client):
    plain, _ = table(client, hints=None)
    agreed, tokens = table(client)
    created = [client.get(f"/v1/games/{g}/events").get_json()["events"][0] for g in (plain, agreed)]
    assert "hints" not in created[0]["data"] and created[1]["data"]["hints"] is True  # old games unchanged
    assert "hints" not in client.get(f"/v1/games/{plain}").get_json()
    assert client.get(f"/v1/games/{agreed}").get_json()["hints"] is True
    assert client.get(f"/v1/games/{agreed}/view").get_json()["hints"] is True  # a spectator knows too
    assert client.get(f"/v1/games/{agreed}/view", headers=bearer(tokens[1])).get_json()["hints"] is True
    assert "- hints: on" in client.get(f"/v1/games/{agreed}/transcript").get_data(as_text=True)
    assert "- hints" not in client.get(f"/v1/games/{plain}/transcript").get_data(as_text=True)
    for bad in (1, "yes", None):  # JSON true or false only (null: the schema's validation_error)
        refused = client.post("/v1/games", json={**SCHOTEN, "hints": bad})
        assert refused.status_code == 422 and "hints" in refused.get_json()["errors"], bad


def test_a_finished_game_with_hints_exports_and_verifies(client):
    game_id, _ = table(client, seats=(BOT, BOT, BOT))
    export = client.get(f"/v1/games/{game_id}/export")
    assert export.status_code == 200
    verified = client.post("/v1/verify", data=export.get_data(), content_type="application/x-ndjson")
    assert verified.status_code == 200 and verified.get_json()["verified"] is True, verified.get_json()


def test_bulk_pairing_passes_hints_to_its_game_and_a_tournament_refuses_them(client):
    paired = client.post("/v1/games/bulk", headers={"Idempotency-Key": secrets.token_hex(8)},
                         json={"games": [{**SCHOTEN, "seats": [HUMAN, BOT, BOT], "hints": True},
                                         {**SCHOTEN, "seats": [HUMAN, BOT, BOT]}]})
    assert paired.status_code == 201, paired.get_json()
    with_hints, without = (client.get(f"/v1/games/{g['id']}").get_json() for g in paired.get_json()["games"])
    assert with_hints.get("hints") is True and "hints" not in without
    refused = client.post("/v1/tournaments", json={"game": "scharfe-schoten", "players": 3, "rounds": 1,
                                                   "deals_per_table": 1, "participants": [BOT] * 3,
                                                   "hints": True})
    assert refused.status_code == 422 and "hints" in refused.get_json()["errors"]


def test_without_hints_nobody_may_ask(client):
    game_id, tokens = table(client, hints=None)
    assert code(ask(client, game_id, 0, tokens[0])) == (403, "hints_off")


def test_the_hint_is_the_search_bots_choice_from_the_seats_own_view_and_legal(app, client):
    game_id, tokens = table(client)
    for seat in (0, 1):  # both humans are predicting
        legal = client.get(f"/v1/games/{game_id}/view", headers=bearer(tokens[seat])).get_json()["legal"]
        answer = ask(client, game_id, seat, tokens[seat])
        body = answer.get_json()
        assert answer.status_code == 200 and body["status"] == "done" and body["bot"] == "search"
        assert body["command"] in legal
        assert body["command"] == searched(app, game_id, seat)  # the same Decision, the same seeded rng
        assert answer.headers["ETag"] == f'"{body["seq"]}"' and "no-store" in answer.headers["Cache-Control"]
    assert client.post(f"/v1/games/{game_id}/commands", headers=bearer(tokens[0]),
                       json=ask(client, game_id, 0, tokens[0]).get_json()["command"]).status_code == 200
    assert code(ask(client, game_id, 0, tokens[0])) == (409, "not_your_turn")  # seat 0 has predicted


def test_another_seat_or_a_stranger_cannot_ask_for_a_seats_hint(client):
    game_id, tokens = table(client)
    other, other_tokens = table(client)
    assert code(ask(client, game_id, 0, tokens[1])) == (403, "not_your_seat")
    assert code(ask(client, game_id, 0, other_tokens[0])) == (403, "invalid_token")
    anonymous = client.get(f"/v1/games/{game_id}/seats/0/hint")
    assert code(anonymous) == (401, "missing_token")
    assert code(client.get(f"/v1/games/{game_id}/seats/7/hint", headers=bearer(tokens[0]))) == (404, "unknown_seat")


def test_a_hint_names_no_card_outside_the_seats_hand(app, client):
    game_id, tokens = table(client, seats=(HUMAN, BOT, BOT))
    plays = 0
    while plays < 3:  # the prediction, then card plays (and takes) until three cards were hinted
        view = client.get(f"/v1/games/{game_id}/view", headers=bearer(tokens[0])).get_json()
        if view["status"] == "finished":
            break
        held = hands(app, game_id)
        text = ask(client, game_id, 0, tokens[0]).get_data(as_text=True)
        hidden = {card for seat, cards in held.items() if seat != 0 for card in cards}
        assert not [card for card in hidden if json.dumps(card) in text], text
        command = json.loads(text)["command"]
        if command["type"] == "play":
            assert command["card"] in held[0]
            plays += 1
        assert client.post(f"/v1/games/{game_id}/commands", headers=bearer(tokens[0]), json=command).status_code == 200
    assert plays == 3


def test_a_finished_game_has_nothing_to_hint(client):
    game_id, tokens = table(client, seats=(HUMAN, BOT, BOT))
    while True:
        view = client.get(f"/v1/games/{game_id}/view", headers=bearer(tokens[0])).get_json()
        if view["status"] == "finished":
            break
        client.post(f"/v1/games/{game_id}/commands", headers=bearer(tokens[0]), json=view["legal"][0])
    assert code(ask(client, game_id, 0, tokens[0])) == (409, "game_finished")


def test_the_quota_counts_new_searches_only_and_an_operator_key_lifts_it(limited, address, monkeypatch):
    monkeypatch.setattr("api.quotas.window_now", lambda window_s: (0, 30))  # one window, whenever it runs
    client = limited.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    game_id, tokens = table(client, headers={"X-API-Key": KEY})
    first = ask(client, game_id, 0, tokens[0]).get_json()
    assert ask(client, game_id, 0, tokens[0]).get_json() == first  # the cache: not counted
    assert ask(client, game_id, 1, tokens[1]).status_code == 200  # the second search
    other, other_tokens = table(client, headers={"X-API-Key": KEY})
    over = ask(client, other, 0, other_tokens[0])
    assert code(over) == (429, "hint_quota") and int(over.headers["Retry-After"]) >= 1
    assert ask(client, other, 0, other_tokens[0], **{"X-API-Key": KEY}).status_code == 200


def test_the_job_runs_in_the_interactive_lane_and_its_answer_is_cached(app, client, monkeypatch):
    runtime = app.extensions["stich"]
    recorder = Recorder()
    monkeypatch.setattr(runtime, "queue", recorder)
    monkeypatch.setattr("api.hints.WAIT_S", 0.1)
    game_id, tokens = table(client)
    queued = ask(client, game_id, 0, tokens[0])
    assert queued.status_code == 202 and queued.get_json()["status"] == "queued" and queued.headers["Retry-After"]
    assert ask(client, game_id, 0, tokens[0]).status_code == 202 and len(recorder.jobs) == 1  # not queued twice
    [(func, args, options)] = recorder.jobs
    seq = queued.get_json()["seq"]
    assert func == "workers.hint.compute_hint" and args == (game_id, seq, 0, 0)
    assert options["job_id"] == f"hint-{game_id}-{seq}-0-0"
    # Seat 1 moves before the worker gets to it: the job still answers for the seq it was asked about.
    assert client.post(f"/v1/games/{game_id}/commands", headers=bearer(tokens[1]),
                       json={"type": "predict", "most": "R", "fewest": "G"}).status_code == 200
    assert job.compute_hint(*args, runtime=runtime) == job.DONE
    record = job.Hints(runtime.store).get(game_id, seq, 0, 0)
    assert record["status"] == "done" and record["command"]["type"] == "predict"

    calls = []
    monkeypatch.setattr(job, "compute_hint", lambda *a, **k: calls.append(a))
    monkeypatch.setattr(runtime, "queue", None)
    now = ask(client, game_id, 0, tokens[0])  # a new seq: a new search (recorded, not run, here)
    assert calls == [(game_id, now.get_json()["seq"], 0, 0)]
    job.Hints(runtime.store).put(game_id, now.get_json()["seq"], 0, 0, {**record, "seq": now.get_json()["seq"]})
    cached = ask(client, game_id, 0, tokens[0])
    assert cached.status_code == 200 and cached.get_json()["command"] == record["command"] and len(calls) == 1
