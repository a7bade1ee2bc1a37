"""The daily duplicate challenge (domain/challenge.py, api/challenges.py): every player of the day gets the
same deals at seat 0 against the same bots; the day's leaderboard ranks them by margin over everyone who
held the same cards; until the day is over its games are nobody's but their players' to read."""
from __future__ import annotations

import random
import secrets
from datetime import datetime, timedelta, timezone

import pytest

from eventstore.challenges import today

from .play import auth, play_to_end


def register(client) -> tuple[str, str]:
    answer = client.post("/v1/players", json={"handle": f"c{secrets.token_hex(5)}"}).get_json()
    return answer["handle"], answer["token"]


@pytest.fixture
def challenge_app(redis_url, tmp_path):
    """An app of its own (a key space for its challenges, a database for its history)."""
    from api import create_app

    app = create_app(redis_url, bots="inline", database_url=f"sqlite:///{tmp_path / 'history.sqlite3'}")
    app.extensions["stich"].challenges.base = f"stich-test-{secrets.token_hex(4)}:{{challenge}}"
    return app


def dealt(client, game_id: str, token: str) -> list:
    events = client.get(f"/v1/games/{game_id}/events", headers=auth(token)).get_json()["events"]
    return [e["data"]["hands"][0] for e in events if e["type"] == "HandsDealt"]


def test_every_player_of_the_day_holds_the_same_cards_and_is_ranked_by_margin(challenge_app):
    client = challenge_app.test_client()
    day = today()
    listed = client.get("/v1/challenges").get_json()
    assert listed["day"] == day and {c["game"] for c in listed["challenges"]} == {"schafkopf", "scharwenzel",
                                                                                   "scharfe-schoten"}
    people = [register(client) for _ in range(3)]
    games = []
    for handle, token in people:
        entered = client.post(f"/v1/challenges/scharfe-schoten/{day}/entry", headers=auth(token))
        assert entered.status_code == 201, entered.get_json()
        body = entered.get_json()
        assert body["seat"] == 0 and body["status"] == "active"
        again = client.post(f"/v1/challenges/scharfe-schoten/{day}/entry", headers=auth(token))
        assert again.status_code == 200 and again.get_json()["id"] == body["id"]  # one entry a day
        games.append(body["id"])
        seats = client.get(f"/v1/games/{body['id']}", headers=auth(token)).get_json()["seats"]
        assert seats[0]["player"] == handle and [s.get("bot") for s in seats[1:]] == ["heuristic", "heuristic"]
    # The same first hand at seat 0 for everyone (their own views show it)
    assert len({tuple(dealt(client, g, t)[0]) for g, (_, t) in zip(games, people)}) == 1
    # Embargoed while the day runs: a stranger reads nothing, nobody exports
    stranger = client.get(f"/v1/games/{games[0]}")
    assert stranger.status_code == 403 and stranger.get_json()["code"] == "embargoed"
    assert client.get(f"/v1/games/{games[0]}/export", headers=auth(people[0][1])).get_json()["code"] == "embargoed"
    for game_id, (_, token) in zip(games, people):
        play_to_end(client, game_id, {0: token}, rng=random.Random(game_id))
    board = client.get(f"/v1/challenges/scharfe-schoten/{day}").get_json()
    assert board["finished"] == 3 and not board["over"]
    totals = [row["total_margin"] for row in board["standings"]]
    assert totals == sorted(totals, reverse=True) and abs(sum(totals)) < 1e-9  # margins sum to nothing
    assert all("deals" not in row for row in board["standings"])  # each deal's margins once the day is over
    assert {row["player"] for row in board["standings"]} == {h for h, _ in people}
    assert client.get(f"/v1/players/{people[0][0]}/games").get_json()["games"] == []  # recorded after the day
    # The day is over: the deals' margins are shown, and the games are anyone's to read
    later = datetime.now(timezone.utc) + timedelta(days=1, minutes=1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("api.challenges.datetime", _Clock(later))
        over = client.get(f"/v1/challenges/scharfe-schoten/{day}").get_json()
    assert over["over"] and all(len(row["deals"]) == 3 for row in over["standings"])
    for deal in range(3):
        assert abs(sum(row["deals"][deal]["margin"] for row in over["standings"])) < 1e-9


class _Clock:
    """``datetime`` with ``now`` at a set moment."""

    def __init__(self, moment: datetime):
        self.moment = moment

    def now(self, tz=None):
        return self.moment


def test_only_todays_challenge_is_open_and_only_to_players(challenge_app):
    client = challenge_app.test_client()
    _, token = register(client)
    yesterday = (datetime.now(timezone.utc) - timedelta(days=1)).date().isoformat()
    closed = client.post(f"/v1/challenges/schafkopf/{yesterday}/entry", headers=auth(token))
    assert closed.status_code == 409 and closed.get_json()["code"] == "challenge_closed"
    assert client.post(f"/v1/challenges/schafkopf/{today()}/entry").status_code == 401
    assert client.post(f"/v1/challenges/poker/{today()}/entry", headers=auth(token)).status_code == 404
    assert client.get("/v1/challenges/schafkopf/not-a-day").status_code == 422
    entered = client.post(f"/v1/challenges/schafkopf/{today()}/entry", headers=auth(token)).get_json()
    assert entered["status"] == "active"
