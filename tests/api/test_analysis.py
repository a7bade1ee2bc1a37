"""POST/GET /v1/games/{id}/analysis: a finished game's analysis as a background job, its progress,
its cache by head, its quota, and the transcript's marks."""
from __future__ import annotations


import pytest

from api import create_app
from api.quotas import Quotas
from workers import analysis as job

from .contract.spec import validate_response
from .queue_recorder import Recorder
from ..addresses import fresh_address

KEY = "analysis-operator-key"
GAMES = {  # all bots: the game is played to its end inside the POST that creates it
    "schafkopf": {"players": 4, "rules": {"deals": 1}},
    "scharwenzel": {"players": 4, "rules": {"deals": 1}},
    "scharfe-schoten": {"players": 3, "rules": {"rounds": 1}},
}


@pytest.fixture(autouse=True)
def small_budget(monkeypatch):
    monkeypatch.setenv("STICH_ANALYSIS_PLAYOUTS", "8")


@pytest.fixture
def address():
    return fresh_address()


@pytest.fixture(scope="module")
def keyed(redis_url):
    return create_app(redis_url, bots="inline", quotas=Quotas(analyses=1, api_keys=frozenset({KEY})))


def finished(client, game="scharfe-schoten", bots=("heuristic",)) -> str:
    spec = GAMES[game]
    seats = [{"kind": "bot", "bot": bots[i % len(bots)]} for i in range(spec["players"])]
    response = client.post("/v1/games", json={"game": game, **spec, "seats": seats},
                           headers={"X-API-Key": KEY})
    assert response.status_code == 201, response.get_json()
    game_id = response.get_json()["id"]
    assert client.get(f"/v1/games/{game_id}").get_json()["status"] == "finished"
    return game_id


PATH = "/v1/games/{id}/analysis"


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_finished_game_is_analysed_inline_and_then_answered_from_the_cache(app, game, address):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    game_id = finished(client, game)
    missing = client.get(f"/v1/games/{game_id}/analysis")
    validate_response(missing, PATH, "get")
    assert missing.status_code == 200 and missing.get_json()["status"] == "none", missing.get_json()
    assert missing.get_json()["seats"] == [] and "Retry-After" not in missing.headers
    seq = client.get(f"/v1/games/{game_id}").get_json()["seq"]
    done = client.post(f"/v1/games/{game_id}/analysis")
    assert done.status_code == 200, done.get_json()
    body = validate_response(done, PATH, "post")
    assert body["status"] == "done" and body["progress"]["done"] == body["progress"]["total"] > 0
    assert any(d["loss"] is not None for d in body["decisions"])
    assert body["budget"]["playouts"] == 8 and body["unit"]
    assert validate_response(client.get(f"/v1/games/{game_id}/analysis"), PATH, "get") == body
    again = client.post(f"/v1/games/{game_id}/analysis")  # the cache: the same record, nothing run
    assert again.status_code == 200 and again.get_json() == body
    assert client.get(f"/v1/games/{game_id}").get_json()["seq"] == seq  # derived data: no event


def test_the_transcript_shows_the_marks_once_an_analysis_is_done(app):
    client = app.test_client()
    game_id = finished(client, "scharfe-schoten", bots=("random",))
    assert "## Analysis" not in client.get(f"/v1/games/{game_id}/transcript").get_data(as_text=True)
    body = client.post(f"/v1/games/{game_id}/analysis").get_json()
    text = client.get(f"/v1/games/{game_id}/transcript").get_data(as_text=True)
    assert "## Analysis" in text and "values and losses in points of the round for the seat" in text
    for row in body["seats"]:
        assert f"| {row['seat']} | {row['summary']['decisions']} |" in text
    for d in body["decisions"]:
        if d["mark"]:
            assert f"| {d['seq']} | {d['seat']} | {d['mark']} |" in text
            shown = "(exact)" if d["exact"] else f"± {d['loss_spread']}"
            assert f"| {d['loss']} {shown} |" in text  # the loss with its spread


def test_an_unfinished_or_unknown_game_is_refused(app):
    client = app.test_client()
    created = client.post("/v1/games", json={"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 1},
                                             "seats": [{"kind": "human"}] * 3}).get_json()
    for method in ("get", "post"):
        running = getattr(client, method)(f"/v1/games/{created['id']}/analysis")
        validate_response(running, PATH, method)
        assert running.status_code == 409 and running.get_json()["code"] == "game_not_finished"
        unknown = getattr(client, method)("/v1/games/nosuchgame0000/analysis")
        assert unknown.status_code == 404 and unknown.get_json()["code"] == "unknown_game"


def test_with_a_queue_the_job_is_queued_its_progress_shown_and_the_quota_applies(keyed, address, monkeypatch):
    client = keyed.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    runtime = keyed.extensions["stich"]
    recorder = Recorder()
    monkeypatch.setattr(runtime, "queue", recorder)
    first, second, third = (finished(client) for _ in range(3))
    queued = client.post(f"/v1/games/{first}/analysis")
    assert validate_response(queued, PATH, "post")["status"] == "queued" and queued.status_code == 202
    assert queued.headers["Location"] == f"/v1/games/{first}/analysis"
    [(func, args, options)] = recorder.jobs
    head = queued.get_json()["head"]
    assert func == "workers.analysis.analyse_game" and args[:2] == (first, head)
    assert options["job_id"] == f"analysis-{first}-{head}"  # deterministic: a duplicate job is the same job
    assert client.post(f"/v1/games/{first}/analysis").status_code == 202 and len(recorder.jobs) == 1
    over = client.post(f"/v1/games/{second}/analysis")
    validate_response(over, PATH, "post")
    assert over.status_code == 429 and over.get_json()["code"] == "analysis_quota"
    assert "Retry-After" in over.headers
    assert client.post(f"/v1/games/{second}/analysis", headers={"X-API-Key": KEY}).status_code == 202
    forged = client.post(f"/v1/games/{third}/analysis", headers={"X-API-Key": "not-the-key"})
    assert forged.status_code == 403 and forged.get_json()["code"] == "invalid_api_key"

    seen = []
    put = job.Analyses.put

    def watch(self, game_id, head_, record):
        seen.append(dict(record))
        if record["status"] == job.RUNNING and record["progress"]["total"]:
            shown = client.get(f"/v1/games/{game_id}/analysis")  # what a caller polling sees
            assert shown.get_json()["progress"]["done"] <= record["progress"]["total"]
        put(self, game_id, head_, record)

    monkeypatch.setattr(job.Analyses, "put", watch)
    monkeypatch.setattr(job, "PROGRESS_EVERY_S", 0.0)
    assert job.analyse_game(*args, runtime=runtime) == job.DONE
    running = [r["progress"] for r in seen if r["status"] == job.RUNNING and r["progress"]["total"]]
    assert running and [p["done"] for p in running] == sorted(p["done"] for p in running)
    assert running[-1]["done"] == running[-1]["total"]
    polled = client.get(f"/v1/games/{first}/analysis")
    assert polled.get_json()["status"] == "done" and "Retry-After" not in polled.headers
    # The first one is done: the address may ask for another.
    assert client.post(f"/v1/games/{third}/analysis").status_code == 202
