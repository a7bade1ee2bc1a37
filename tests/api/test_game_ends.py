"""Every game ends (workers/idle.py, domain/limits.py): a game waiting for a person who never comes, a
bulk-paired game whose humans never move, a tournament aborted or left paused — each ends after its
idle time with an event that says why, leaves the open games, and its export verifies."""
from __future__ import annotations

import secrets
import time

import pytest

from domain.audit import verify_text
from domain.clock import iso
from workers.idle import IdleSweep

from .play import auth

HUMAN, BOT = {"kind": "human"}, {"kind": "bot", "bot": "random"}
SCHOTEN = {"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 1}}


class Listed:
    """The game list as the sweep pages it, holding only this test's games (the shared store has others)."""

    def __init__(self, index, ids):
        self.index, self.wanted = index, list(ids)

    def ids(self, status=None, page_size=500):
        return [i for i in self.wanted if (self.index.get(i) or {}).get("status") == status]


@pytest.fixture
def later(app, monkeypatch):
    """Move the handler's clock (and the sweep's now) ``seconds`` ahead of the real time."""
    handler = app.extensions["stich"].handler

    def move(seconds: float) -> int:
        now_ms = int(time.time() * 1000 + seconds * 1000)
        monkeypatch.setattr(handler, "clock", lambda: iso(now_ms))
        return now_ms
    return move


def sweep(app, game_ids=(), tournament_ids=(), idle_s=6 * 3600):
    rt = app.extensions["stich"]
    desk = rt.tournaments

    class Desk:
        handler = desk.handler
        index = Listed(desk.index, tournament_ids)

    return IdleSweep(rt.handler, Listed(rt.index, game_ids), Desk, tournament_idle_s=idle_s)


def listed(client, game_id, status):
    return [g for g in client.get(f"/v1/games?status={status}&limit=200").get_json()["games"] if g["id"] == game_id]


def test_a_game_waiting_for_a_person_who_never_comes_ends_and_leaves_the_open_games(app, client, later):
    created = client.post("/v1/games", json={**SCHOTEN, "seats": [HUMAN, HUMAN, BOT], "limits": {"max_idle_s": 600}})
    game_id = created.get_json()["id"]
    assert created.get_json()["limits"]["max_idle_s"] == 600
    client.post(f"/v1/games/{game_id}/seats/0")
    assert listed(client, game_id, "waiting")[0]["open_seats"] == [1]
    assert sweep(app, [game_id]).pass_once(later(599)) == {"games": 0, "tournaments": 0}  # not yet
    assert sweep(app, [game_id]).pass_once(later(601)) == {"games": 1, "tournaments": 0}
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["status"] == "finished" and summary["cut_short"] == "idle" and summary["seed"]
    assert not listed(client, game_id, "waiting") and listed(client, game_id, "finished")
    taken = client.post(f"/v1/games/{game_id}/seats/1")
    assert taken.status_code == 409 and taken.get_json()["code"] == "game_finished", taken.get_json()
    events = client.get(f"/v1/games/{game_id}/events").get_json()["events"]
    assert [e["type"] for e in events[-2:]] == ["GameCutShort", "SeedRevealed"]
    assert events[-2]["data"]["reason"] == "idle" and events[-2]["data"]["idle_since"] == events[-3]["at"]
    report = verify_text(app.extensions["stich"].handler.table, client.get(f"/v1/games/{game_id}/export").get_data(
        as_text=True))
    assert report.ok, report.lines()


def test_a_bulk_paired_game_without_a_clock_whose_humans_never_move_ends_with_its_standings(app, client, later):
    paired = client.post("/v1/games/bulk", headers={"Idempotency-Key": secrets.token_hex(8)}, json={
        "games": [{**SCHOTEN, "seats": [HUMAN, {"kind": "human", "player": "ida"}, BOT]}]})
    game = paired.get_json()["games"][0]
    token = game["seats"][0]["token"]
    view = client.get(f"/v1/games/{game['id']}/view", headers=auth(token)).get_json()
    client.post(f"/v1/games/{game['id']}/commands", json=view["legal"][0], headers=auth(token))  # one move
    assert client.get(game["url"]).get_json()["status"] == "active"
    assert sweep(app, [game["id"]]).pass_once(later(6 * 3600 - 5)) == {"games": 0, "tournaments": 0}
    assert sweep(app, [game["id"]]).pass_once(later(6 * 3600 + 5)) == {"games": 1, "tournaments": 0}
    summary = client.get(game["url"]).get_json()
    assert summary["status"] == "finished" and summary["cut_short"] == "idle"
    assert summary["scores"]["ranking"] == [1, 1, 1]  # no round settled: every total 0
    report = verify_text(app.extensions["stich"].handler.table,
                         client.get(f"{game['url']}/export").get_data(as_text=True))
    assert report.ok, report.lines()


def test_an_aborted_tournaments_tables_end_and_no_list_offers_their_seats(app, client):
    created = client.post("/v1/tournaments", json={"game": "scharfe-schoten", "players": 3, "rounds": 2,
                                                   "deals_per_table": 1, "participants": [HUMAN, HUMAN, BOT]})
    tid, organizer = created.get_json()["id"], auth(created.get_json()["token"])
    client.post(f"/v1/tournaments/{tid}/participants/0")
    client.post(f"/v1/tournaments/{tid}/participants/1")
    assert client.post(f"/v1/tournaments/{tid}/start", headers=organizer).status_code == 200
    [table] = client.get(f"/v1/tournaments/{tid}").get_json()["schedule"][0]["tables"]
    assert client.get(f"/v1/games/{table['game_id']}").get_json()["status"] == "waiting"
    aborted = client.post(f"/v1/tournaments/{tid}/abort", json={"reason": "the hall closed"}, headers=organizer)
    assert aborted.status_code == 200
    summary = client.get(f"/v1/games/{table['game_id']}").get_json()
    assert summary["status"] == "finished" and summary["cut_short"] == "aborted", summary
    events = client.get(f"/v1/games/{table['game_id']}/events").get_json()["events"]
    assert events[-2]["data"] == {"reason": "aborted", "events": events[-2]["seq"] - 1,
                                  "detail": f"tournament {tid} was aborted: the hall closed"}
    assert not listed(client, table["game_id"], "waiting")
    report = verify_text(app.extensions["stich"].handler.table,
                         client.get(f"/v1/games/{table['game_id']}/export").get_data(as_text=True))
    assert report.ok, report.lines()


def test_a_tournament_left_paused_or_never_started_is_aborted_once_idle(app, client, later):
    def tournament(start: bool) -> tuple[str, dict]:
        created = client.post("/v1/tournaments", json={"game": "scharfe-schoten", "players": 3, "rounds": 1,
                                                       "deals_per_table": 1, "participants": [HUMAN, BOT, BOT]})
        tid, organizer = created.get_json()["id"], auth(created.get_json()["token"])
        if start:
            client.post(f"/v1/tournaments/{tid}/participants/0")
            client.post(f"/v1/tournaments/{tid}/start", headers=organizer)
            assert client.post(f"/v1/tournaments/{tid}/pause", headers=organizer).status_code == 200
        return tid, organizer

    paused, _ = tournament(start=True)
    never, _ = tournament(start=False)
    [table] = client.get(f"/v1/tournaments/{paused}").get_json()["schedule"][0]["tables"]
    sweeper = sweep(app, [table["game_id"]], [paused, never], idle_s=3600)
    # The paused table is not ended as idle: it waits for its tournament
    assert sweeper.pass_once(later(3500)) == {"games": 0, "tournaments": 0}
    assert sweeper.pass_once(later(3700)) == {"games": 0, "tournaments": 2}
    for tid in (paused, never):
        body = client.get(f"/v1/tournaments/{tid}").get_json()
        assert body["status"] == "finished" and body["aborted"].startswith("idle: nothing happened since"), body
    summary = client.get(f"/v1/games/{table['game_id']}").get_json()
    assert summary["status"] == "finished" and summary["cut_short"] == "aborted"
