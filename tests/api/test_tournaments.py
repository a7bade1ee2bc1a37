"""Tournaments through the API, bots played inline: every game to the end, standings = the games' results."""
from __future__ import annotations

import csv
import hashlib
import io
from collections import defaultdict

import pytest


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def create(client, **body) -> dict:
    response = client.post("/v1/tournaments", json=body)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def run(client, **body) -> dict:
    created = create(client, **body)
    started = client.post(f"/v1/tournaments/{created['id']}/start", headers=bearer(created["token"]))
    assert started.status_code == 200, started.get_json()
    return client.get(f"/v1/tournaments/{created['id']}").get_json()


def game_results(client, tournament: dict) -> dict[int, list[int]]:
    """Each participant's final total in each of its games, read from the games themselves."""
    out = defaultdict(list)
    for round_ in tournament["schedule"]:
        for table in round_["tables"]:
            game = client.get(f"/v1/games/{table['game_id']}").get_json()
            assert game["status"] == "finished"
            for seat, participant in enumerate(table["participants"]):
                out[participant].append(game["scores"]["totals"][seat])
    return out


@pytest.mark.parametrize("game,players,count,seating", [
    ("schafkopf", 4, 8, "swiss"),
    ("scharwenzel", 4, 8, "random"),
    ("scharfe-schoten", 3, 6, "by_standings"),
])
def test_a_bot_tournament_of_each_game_runs_to_the_end_and_its_standings_add_up(client, game, players, count,
                                                                                 seating):
    tournament = run(client, game=game, players=players, rounds=2, deals_per_table=1, seating=seating,
                     participants=[{"kind": "bot", "bot": "random"}] * count, name=f"{game} cup")
    assert tournament["status"] == "finished" and tournament["final"]
    assert hashlib.sha256(bytes.fromhex(tournament["seed"])).hexdigest() == tournament["seed_sha256"]
    assert [len(r["tables"]) for r in tournament["schedule"]] == [count // players] * 2
    results = game_results(client, tournament)
    standings = tournament["standings"]
    assert sorted(row["participant"] for row in standings) == list(range(count))
    for row in standings:
        assert row["points"] == row["results"] == sum(results[row["participant"]])
        assert row["rounds_played"] == 2
    assert [row["place"] for row in standings] == sorted(row["place"] for row in standings)
    assert standings[0]["place"] == 1
    # The table games are ordinary games, listed with the rest.
    listed = client.get(f"/v1/games?game={game}&status=finished&limit=1000").get_json()["games"]
    assert tournament["schedule"][0]["tables"][0]["game_id"] in {g["id"] for g in listed}


@pytest.mark.parametrize("game,players", [("schafkopf", 4), ("scharwenzel", 4), ("scharfe-schoten", 3)])
def test_a_duplicate_round_plays_each_hand_from_each_seat_and_compares_like_with_like(client, game, players):
    tournament = run(client, game=game, players=players, rounds=1, deals_per_table=1, duplicate=True,
                     participants=[{"kind": "bot"}] * players * players)
    tables = tournament["schedule"][0]["tables"]
    seats_of_hand = defaultdict(set)  # (deal, hand as a set of cards) -> seats that held it
    holders = defaultdict(list)  # hand of deal 0 -> (participant, result)
    results = game_results(client, tournament)
    for table in tables:
        feed = client.get(f"/v1/games/{table['game_id']}/events").get_json()["events"]
        created = feed[0]["data"]  # a finished game shows its preset deals
        assert created["preset"]
        for k, deal in enumerate(created["preset_deals"]):
            for seat, hand in enumerate(deal["hands"]):
                seats_of_hand[(k, frozenset(hand))].add(seat)
        for seat, participant in enumerate(table["participants"]):
            holders[frozenset(created["preset_deals"][0]["hands"][seat])].append(
                (participant, results[participant][0]))
    assert len({hand for _, hand in seats_of_hand}) == len(seats_of_hand)
    assert all(seats == set(range(players)) for seats in seats_of_hand.values())
    points = {row["participant"]: row["points"] for row in tournament["standings"]}
    assert len(holders) == players
    for group in holders.values():
        assert len(group) == players
        for participant, result in group:  # its margins over the three others who held those cards
            assert points[participant] == sum(result - other for p, other in group if p != participant)


def test_a_human_participant_joins_takes_its_seat_each_round_and_plays(client):
    created = create(client, game="scharfe-schoten", players=3, rounds=2, deals_per_table=1,
                     participants=[{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}])
    tid, organizer = created["id"], created["token"]
    assert client.post(f"/v1/tournaments/{tid}/start", headers=bearer(organizer)).status_code == 409
    joined = client.post(f"/v1/tournaments/{tid}/participants/0")
    assert joined.status_code == 201
    token = joined.get_json()["token"]
    assert client.post(f"/v1/tournaments/{tid}/participants/0").get_json()["code"] == "seat_taken"
    assert client.post(f"/v1/tournaments/{tid}/participants/1").status_code == 409  # a bot
    assert client.post(f"/v1/tournaments/{tid}/start", headers=bearer(token)).status_code == 403
    assert client.post(f"/v1/tournaments/{tid}/participants/0/seat", headers=bearer(token)).status_code == 409
    assert client.post(f"/v1/tournaments/{tid}/start", headers=bearer(organizer)).status_code == 200
    for round_ in (1, 2):
        assert client.post(f"/v1/tournaments/{tid}/participants/0/seat", headers=bearer(organizer)).status_code == 403
        seat = client.post(f"/v1/tournaments/{tid}/participants/0/seat", headers=bearer(token))
        assert seat.status_code == 201, seat.get_json()
        seat = seat.get_json()
        assert seat["round"] == round_
        again = client.post(f"/v1/tournaments/{tid}/participants/0/seat", headers=bearer(token))
        assert again.get_json()["code"] == "seat_taken"
        play(client, seat["game_id"], seat["token"])
    tournament = client.get(f"/v1/tournaments/{tid}").get_json()
    assert tournament["status"] == "finished"
    assert {row["participant"]: row["points"] for row in tournament["standings"]} == {
        p: sum(r) for p, r in game_results(client, tournament).items()}


def play(client, game_id: str, token: str) -> None:
    for _ in range(500):
        view = client.get(f"/v1/games/{game_id}/view", headers=bearer(token)).get_json()
        if view["status"] == "finished":
            return
        assert view["legal"], view
        response = client.post(f"/v1/games/{game_id}/commands", json=view["legal"][0], headers=bearer(token))
        assert response.status_code == 200, response.get_json()
    raise AssertionError("the game did not finish")


def test_standings_as_csv_and_the_event_feed_and_stream(client):
    tournament = run(client, game="scharwenzel", rounds=1, deals_per_table=1, participants=[{"kind": "bot"}] * 4)
    tid = tournament["id"]
    as_json = client.get(f"/v1/tournaments/{tid}/standings").get_json()
    assert as_json["final"] and as_json["standings"] == tournament["standings"]
    for response in (client.get(f"/v1/tournaments/{tid}/standings?format=csv"),
                     client.get(f"/v1/tournaments/{tid}/standings", headers={"Accept": "text/csv"})):
        assert response.mimetype == "text/csv"
        rows = list(csv.DictReader(io.StringIO(response.data.decode())))
        assert [int(r["participant"]) for r in rows] == [r["participant"] for r in tournament["standings"]]
        assert [int(r["points"]) for r in rows] == [r["points"] for r in tournament["standings"]]
    assert client.get(f"/v1/tournaments/{tid}/standings?format=xml").status_code == 422
    feed = client.get(f"/v1/tournaments/{tid}/events?after=0").get_json()
    types = [e["type"] for e in feed["events"]]
    assert types[:3] == ["TournamentCreated", "TournamentStarted", "RoundDrawn"]
    assert types[-3:] == ["RoundFinished", "TournamentFinished", "SeedRevealed"]
    assert types.count("TableOpened") == types.count("TableFinished") == 1
    assert [e["seq"] for e in feed["events"]] == list(range(1, feed["seq"] + 1))
    page = client.get(f"/v1/tournaments/{tid}/events?after=2&limit=2").get_json()["events"]
    assert [e["seq"] for e in page] == [3, 4]
    stream = client.get(f"/v1/tournaments/{tid}/events/stream", headers={"Last-Event-ID": str(feed["seq"] - 2)})
    text = stream.data.decode()
    assert [int(line[4:]) for line in text.splitlines() if line.startswith("id: ")] == [feed["seq"] - 1, feed["seq"]]


def test_duplicate_deals_stay_hidden_in_the_feed_until_the_end(client):
    created = create(client, game="schafkopf", rounds=1, deals_per_table=1, duplicate=True,
                     participants=[{"kind": "human"}] + [{"kind": "bot"}] * 7)
    tid = created["id"]
    client.post(f"/v1/tournaments/{tid}/participants/0")
    client.post(f"/v1/tournaments/{tid}/start", headers=bearer(created["token"]))
    drawn = [e for e in client.get(f"/v1/tournaments/{tid}/events").get_json()["events"] if e["type"] == "RoundDrawn"]
    assert drawn and drawn[0]["redacted"] and "deals" not in drawn[0]["data"] and drawn[0]["data"]["tables"]


def test_errors_are_problems(client):
    assert client.get("/v1/tournaments/t000000000000000").get_json()["code"] == "unknown_tournament"
    bad = client.post("/v1/tournaments", json={"game": "schafkopf", "participants": [{"kind": "bot"}] * 5,
                                               "deals_per_table": 1})
    assert bad.status_code == 422 and "participants" in bad.get_json()["errors"]
    created = create(client, game="schafkopf", deals_per_table=1, participants=[{"kind": "bot"}] * 4)
    tid = created["id"]
    assert client.post(f"/v1/tournaments/{tid}/start").status_code == 401
    assert client.post(f"/v1/tournaments/{tid}/start", headers=bearer("st_nope")).status_code == 403
    assert client.post(f"/v1/tournaments/{tid}/participants/9").get_json()["code"] == "unknown_participant"
    assert client.get(f"/v1/tournaments/{tid}?x=1").status_code == 422
    assert client.get(f"/v1/games/{tid}").status_code == 404  # a tournament is not a game
    assert client.post(f"/v1/tournaments/{tid}/start", headers=bearer(created["token"])).status_code == 200
    assert client.post(f"/v1/tournaments/{tid}/start", headers=bearer(created["token"])).status_code == 200


def test_with_a_clock_a_participant_who_never_plays_cannot_hold_up_the_tournament(client, monkeypatch):
    """The tables of a clocked tournament start at once; a human who never asks for its seat times out,
    its seat is abandoned, the clock's bot plays it, and the tournament ends."""
    from domain.clock import iso, millis
    from workers.deadline import time_out_turn

    handler = client.application.extensions["stich"].handler
    now = [2_000_000_000_000]
    monkeypatch.setattr(handler, "clock", lambda: iso(now[0]))
    monkeypatch.setattr("workers.deadline.time.time", lambda: now[0] / 1000)
    created = create(client, game="scharfe-schoten", players=3, rounds=1, deals_per_table=1,
                     participants=[{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}],
                     clock={"per_move_s": 1, "abandon_after": 1})
    assert created["clock"] == {"per_move_s": 1, "bank_s": 0, "bot": "heuristic", "abandon_after": 1}
    joined = client.post(f"/v1/tournaments/{created['id']}/participants/0")
    assert joined.status_code == 201, joined.get_json()
    started = client.post(f"/v1/tournaments/{created['id']}/start", headers=bearer(created["token"]))
    assert started.status_code == 200, started.get_json()
    table = client.get(f"/v1/tournaments/{created['id']}").get_json()["schedule"][0]["tables"][0]
    game = client.get(f"/v1/games/{table['game_id']}").get_json()
    seat = table["participants"].index(0)
    # The table started without the human asking for its seat; its clock runs
    assert game["status"] == "active" and game["seats"][seat]["taken"]
    deadline = game["clock"]["seats"][seat]["deadline_at"]
    now[0] = millis(deadline)
    assert time_out_turn(table["game_id"], seat, game["seq"], handler=handler) == "timed out"
    tournament = client.get(f"/v1/tournaments/{created['id']}").get_json()
    assert tournament["status"] == "finished", tournament["schedule"]
    # The participant can still ask for its seat's token (now only a spectator of its own abandoned seat's end)
    late = client.post(f"/v1/tournaments/{created['id']}/participants/0/seat", headers=bearer(joined.get_json()["token"]))
    assert late.status_code == 409


def test_a_duplicate_rounds_tables_are_read_only_by_their_seats_until_the_round_ends(client):
    # Given a duplicate round with one human: the bots' table finishes first, on the same deals
    created = create(client, game="scharfe-schoten", players=3, rounds=1, deals_per_table=1, duplicate=True,
                     participants=[{"kind": "human"}] + [{"kind": "bot"}] * 5)
    tid = created["id"]
    token = client.post(f"/v1/tournaments/{tid}/participants/0").get_json()["token"]
    assert client.post(f"/v1/tournaments/{tid}/start", headers=bearer(created["token"])).status_code == 200
    seat = client.post(f"/v1/tournaments/{tid}/participants/0/seat", headers=bearer(token)).get_json()
    tables = client.get(f"/v1/tournaments/{tid}").get_json()["schedule"][0]["tables"]
    other = next(t["game_id"] for t in tables if t["game_id"] != seat["game_id"])
    # Then nobody reads the finished bots' table while the human's table still plays those deals
    for path in ("", "/view", "/events", "/export", "/transcript", "/view?at=3"):
        refused = client.get(f"/v1/games/{other}{path}")
        assert refused.status_code == 403 and refused.get_json()["code"] == "embargoed", path
    assert client.get(f"/v1/games/{other}/view", headers=bearer(seat["token"])).status_code == 403
    # ... while the human's own seat reads its own table, and a spectator does not
    assert client.get(f"/v1/games/{seat['game_id']}/view", headers=bearer(seat["token"])).status_code == 200
    assert client.get(f"/v1/games/{seat['game_id']}").status_code == 403
    # When the human has played, the round is over and everything is public
    play(client, seat["game_id"], seat["token"])
    assert client.get(f"/v1/tournaments/{tid}").get_json()["status"] == "finished"
    for game_id in (other, seat["game_id"]):
        assert client.get(f"/v1/games/{game_id}/export").status_code == 200


def test_a_bot_only_duplicate_tournament_is_not_embargoed(client):
    tournament = run(client, game="scharfe-schoten", players=3, rounds=1, deals_per_table=1, duplicate=True,
                     participants=[{"kind": "bot"}] * 6)
    game_id = tournament["schedule"][0]["tables"][0]["game_id"]
    assert client.get(f"/v1/games/{game_id}").status_code == 200
