"""The history database and the ratings derived from it (eventstore/history.py, workers/rater.py), against
the SQLite default and a real PostgreSQL alike: games recorded once, a player's games filtered and paged,
statistics per game type, and ratings that apply in their units' order, a late unit included, always to
the numbers a recomputation from scratch gives."""
from __future__ import annotations

import random

import pytest
import sqlalchemy as sa

from eventstore.history import Filters, History, ratings
from workers.rater import MODEL, Rater, rate

from ..databases import fresh_database


@pytest.fixture(params=["sqlite", "postgres"])
def history(request, tmp_path):
    if request.param == "sqlite":
        store = History.open(f"sqlite:///{tmp_path / 'history.sqlite3'}")
        yield store
        store.engine.dispose()
        return
    with fresh_database() as url:
        store = History.open(url)
        yield store
        store.engine.dispose()


def a_game(game_id: str, finished_at: str, players: list[str | None], places: list[int], game_type: str = "round",
           rated: bool = True, tournament: str | None = None, roles=None):
    seats = [{"seat": n, "kind": "human", "taken": True, **({"player": p} if p else {})} for n, p in enumerate(players)]
    game = {"game_id": game_id, "game": "scharfe-schoten", "players": len(players), "rules": {"rounds": 1},
            "rated": rated, "tournament_id": tournament, "origin": None, "seats": seats,
            "scores": {"totals": [10 - p for p in places], "ranking": places}, "cut_short": None,
            "created_at": finished_at, "finished_at": finished_at, "head": "00" * 32}
    seat_rows = [{"game_id": game_id, "seat": n, "identity": p, "identity_key": p.lower() if p else None,
                  "game": "scharfe-schoten", "total": 10 - places[n], "place": places[n],
                  "outcome": "won" if places[n] == 1 else "lost", "rated": rated, "tournament_id": tournament,
                  "finished_at": finished_at} for n, p in enumerate(players)]
    roles = roles or ["player"] * len(players)
    deal_rows = [{"game_id": game_id, "deal": 0, "seat": n, "identity_key": p.lower() if p else None,
                  "game": "scharfe-schoten", "game_type": game_type, "role": roles[n], "result": 10 - places[n],
                  "outcome": "won" if places[n] == 1 else "lost", "details": {}, "finished_at": finished_at}
                 for n, p in enumerate(players)]
    unit = {"key": f"{finished_at}|{game_id}", "game": "scharfe-schoten", "kind": "game", "ref": game_id,
            "matches": [{"teams": [[p] for p in players], "ranks": places, "game_id": game_id, "deal": None}]}
    return game, seat_rows, deal_rows, unit if rated else None


def at(n: int) -> str:
    return f"2030-01-01T12:{n // 60:02d}:{n % 60:02d}.000Z"


def test_a_game_is_recorded_once_and_a_players_games_are_filtered_and_paged(history):
    assert history.record(*a_game("g1", at(1), ["Ann", "bob", None], [1, 2, 3]))
    assert not history.record(*a_game("g1", at(1), ["Ann", "bob", None], [1, 2, 3]))  # once
    history.record(*a_game("g2", at(2), ["ann", "cy", "bob"], [2, 1, 3], rated=False, game_type="solo",
                           roles=["declarer", "defender", "defender"]))
    history.record(*a_game("g3", at(3), ["bob", "ANN", "cy"], [1, 1, 3], tournament="t0123456789abcde"))
    newest = [e["game_id"] for e in history.games_of("ann", Filters(), 10)]
    assert newest == ["g3", "g2", "g1"]  # the handle whatever its case, newest first
    assert [e["game_id"] for e in history.games_of("ann", Filters(), 2)] == ["g3", "g2"]
    assert [e["game_id"] for e in history.games_of("ann", Filters(), 2, after=(at(2), "g2"))] == ["g1"]
    assert [e["game_id"] for e in history.games_of("ann", Filters(rated=False), 10)] == ["g2"]
    assert [e["game_id"] for e in history.games_of("ann", Filters(result="won"), 10)] == ["g3", "g1"]
    assert [e["game_id"] for e in history.games_of("ann", Filters(game_type="solo"), 10)] == ["g2"]
    assert [e["game_id"] for e in history.games_of("ann", Filters(role="declarer"), 10)] == ["g2"]
    assert [e["game_id"] for e in history.games_of("ann", Filters(tournament="t0123456789abcde"), 10)] == ["g3"]
    assert [e["game_id"] for e in history.games_of("ann", Filters(since=at(2), until=at(3)), 10)] == ["g2"]
    assert history.games_of("ann", Filters(game="schafkopf"), 10) == []
    [entry] = history.games_of("bob", Filters(game_type="solo"), 10)
    assert entry["seat"] == 2 and entry["deals"][0]["role"] == "defender" and entry["outcome"] == "lost"
    stats = history.statistics("ann")["scharfe-schoten"]
    assert stats["round"]["deals"] == 2 and stats["round"]["won"] == 2
    assert stats["solo"] == {"deals": 1, "won": 0, "lost": 1, "even": 0, "roles": {"declarer": 1}, "results": 8}
    assert history.counts("ANN") == {"scharfe-schoten": {"games": 3, "won": 2, "lost": 1, "even": 0}}


def test_ratings_apply_in_their_units_order_and_recompute_to_the_same_numbers(history):
    rng = random.Random(7)
    people = ["ann", "bob", "cy", "dee", "eve"]
    for n in range(30):
        table = rng.sample(people, 3)
        places = rng.sample([1, 2, 3], 3)
        history.record(*a_game(f"g{n:02d}", at(n), table, places))
    rater = Rater(history)
    assert rater.apply_pending(settle_s=0) == 30
    before = snapshot(history)
    assert before["ann"][2] > 0 and len(before) == 5
    assert rater.recompute("scharfe-schoten") == 30
    assert snapshot(history) == before  # bit for bit
    # A unit that comes late (recorded after later ones were applied) is applied in its place: the
    # numbers are those of all the units in key order
    history.record(*a_game("late", at(5) + "x", ["ann", "bob", "cy"], [3, 2, 1]))
    assert rater.apply_pending(settle_s=0) == 31
    after = snapshot(history)
    assert after != before
    rater.recompute("scharfe-schoten")
    assert snapshot(history) == after
    board = history.leaderboard("scharfe-schoten", 10)
    assert [row["ordinal"] for row in board] == sorted((row["ordinal"] for row in board), reverse=True)
    assert sum(row["matches"] for row in board) == 31 * 3


def snapshot(history: History) -> dict:
    with history.engine.connect() as connection:
        return {row.identity: (row.mu, row.sigma, row.matches) for row in connection.execute(sa.select(ratings))}


def test_a_unit_settles_before_it_applies(history):
    from datetime import datetime, timezone

    now = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    history.record(*a_game("fresh", now, ["ann", "bob", "cy"], [1, 2, 3]))
    rater = Rater(history)
    assert rater.apply_pending(settle_s=60) == 0  # finished a moment ago: it waits for its neighbours
    assert rater.apply_pending(settle_s=0) == 1


def test_an_identity_in_several_places_of_a_match_moves_by_the_mean_of_its_places():
    current = {"bot:search": (25.0, 25 / 3, 0), "ann": (25.0, 25 / 3, 0)}
    moved = rate([["bot:search"], ["ann"], ["bot:search"]], [1, 2, 3], current)
    first, _, third = MODEL.rate([[MODEL.rating()], [MODEL.rating()], [MODEL.rating()]], ranks=[1, 2, 3])
    assert moved["bot:search"][0] == pytest.approx((first[0].mu + third[0].mu) / 2)
    assert set(moved) == {"bot:search", "ann"}
    assert rate([["ann"], [None]], [1, 2], current)["ann"][0] > 25  # an anonymous place moves nobody
