"""The organizer's controls through the API: a paused-and-resumed tournament with a withdrawal, an abort."""
from __future__ import annotations

from .test_tournaments import bearer, create

SIX = [{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 5


def play(client, game_id: str, token: str) -> None:
    auth = bearer(token)
    for _ in range(500):
        view = client.get(f"/v1/games/{game_id}/view", headers=auth).get_json()
        if view["status"] == "finished":
            return
        if view["legal"]:
            assert client.post(f"/v1/games/{game_id}/commands", json=view["legal"][0], headers=auth).status_code == 200
    raise AssertionError("the table did not finish")


def started(client, **overrides) -> tuple[str, str, str]:
    created = create(client, game="scharfe-schoten", players=3, rounds=2, deals_per_table=1, participants=SIX,
                     **overrides)
    tid = created["id"]
    participant = client.post(f"/v1/tournaments/{tid}/participants/0").get_json()["token"]
    assert client.post(f"/v1/tournaments/{tid}/start", headers=bearer(created["token"])).status_code == 200
    return tid, created["token"], participant


def event_types(client, tid: str) -> list[str]:
    return [e["type"] for e in client.get(f"/v1/tournaments/{tid}/events").get_json()["events"]]


def test_a_paused_tournament_draws_no_round_until_resumed_and_a_withdrawn_human_is_played_by_its_bot(client):
    tid, organizer, participant = started(client)
    paused = client.post(f"/v1/tournaments/{tid}/pause", json={"reason": "lunch"}, headers=bearer(organizer))
    assert paused.status_code == 200 and paused.get_json()["paused"] is True
    withdrawn = client.post(f"/v1/tournaments/{tid}/participants/0/withdraw", json={"bot": "heuristic"},
                            headers=bearer(organizer))
    assert withdrawn.status_code == 200
    assert withdrawn.get_json()["participants"][0]["withdrawn"] == {"bot": "heuristic", "from_round": 2}
    # Round 1's table is open already: the pause holds it too (GamePaused) until the resume.
    seat = client.post(f"/v1/tournaments/{tid}/participants/0/seat", headers=bearer(participant)).get_json()
    table_game = client.get(f"/v1/games/{seat['game_id']}").get_json()
    assert table_game["paused"] is True and table_game["to_act"] == []
    held = client.get(f"/v1/tournaments/{tid}").get_json()
    assert held["round"] == 1 and not held["schedule"][0]["finished"] and held["status"] == "active"
    assert client.get(f"/v1/tournaments?status=active&limit=1000").get_json()["tournaments"][0]["paused"] is True
    resumed = client.post(f"/v1/tournaments/{tid}/resume", headers=bearer(organizer))
    assert resumed.status_code == 200
    play(client, seat["game_id"], seat["token"])
    after = client.get(f"/v1/tournaments/{tid}").get_json()
    assert after["status"] == "finished" and after["paused"] is False and after["round"] == 2
    [table] = [t for t in after["schedule"][1]["tables"] if 0 in t["participants"]]
    game = client.get(table["url"]).get_json()
    assert game["seats"][table["participants"].index(0)]["kind"] == "bot"
    types = event_types(client, tid)
    assert types.index("TournamentPaused") < types.index("ParticipantWithdrawn") < types.index("TournamentResumed")
    assert types.index("TournamentResumed") < [i for i, t in enumerate(types) if t == "RoundDrawn"][1]
    streamed = client.get(f"/v1/tournaments/{tid}/events/stream?timeout=10").get_data(as_text=True)
    for kind in ("TournamentPaused", "ParticipantWithdrawn", "TournamentResumed"):
        assert f'"type":"{kind}"' in streamed.replace(" ", "")


def test_an_aborted_tournament_finishes_with_its_reason_and_reveals_its_seed(client):
    tid, organizer, _ = started(client)
    aborted = client.post(f"/v1/tournaments/{tid}/abort", json={"reason": "venue closed"}, headers=bearer(organizer))
    assert aborted.status_code == 200
    body = aborted.get_json()
    assert body["status"] == "finished" and body["aborted"] == "venue closed" and body["final"] and "seed" in body
    assert event_types(client, tid)[-2:] == ["TournamentAborted", "SeedRevealed"]
    again = client.post(f"/v1/tournaments/{tid}/abort", json={"reason": "twice"}, headers=bearer(organizer))
    assert again.status_code == 409 and again.get_json()["code"] == "game_finished"


def test_controls_refuse_bad_bodies_and_out_of_turn_commands_and_change_nothing(client):
    tid, organizer, participant = started(client)
    auth = bearer(organizer)
    seq = client.get(f"/v1/tournaments/{tid}").get_json()["seq"]
    for url, body, status, code in (
        ("/abort", {}, 422, "validation_error"),
        ("/abort", {"reason": "  "}, 422, "validation_error"),
        ("/pause", {"reason": "x" * 201}, 422, "validation_error"),
        ("/pause", {"why": "x"}, 422, "validation_error"),
        ("/resume", None, 409, "wrong_phase"),
        ("/participants/1/withdraw", None, 409, "wrong_phase"),  # a bot
        ("/participants/9/withdraw", None, 404, "unknown_participant"),
        ("/participants/0/withdraw", {"bot": "oracle"}, 422, "validation_error"),
    ):
        answer = client.post(f"/v1/tournaments/{tid}{url}", json=body, headers=auth)
        assert (answer.status_code, answer.get_json()["code"]) == (status, code), (url, body, answer.get_json())
    for who in ({}, bearer(participant)):
        answer = client.post(f"/v1/tournaments/{tid}/pause", headers=who)
        assert answer.status_code in (401, 403) and "organizer's token" in answer.get_json()["detail"]
    assert client.get(f"/v1/tournaments/{tid}").get_json()["seq"] == seq
