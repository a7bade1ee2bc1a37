"""GET /v1/games: pages with an opaque cursor over any number of games, filtered by status and game."""
from __future__ import annotations

import base64

import pytest

from .play import create, take


def entries(client, query: str, limit: int) -> list[dict]:
    """Every entry the list shows for ``query``, page by page."""
    found, cursor, pages = [], None, 0
    while True:
        url = f"/v1/games?{query}&limit={limit}" + (f"&cursor={cursor}" if cursor else "")
        body = client.get(url).get_json()
        assert set(body) == {"games", "next"} and len(body["games"]) <= limit
        found += body["games"]
        cursor, pages = body["next"], pages + 1
        if cursor is None:
            return found
        assert len(body["games"]) == limit  # only the last page is short
        assert pages < 10_000


def walk(client, query: str, limit: int) -> list[str]:
    return [entry["id"] for entry in entries(client, query, limit)]


def test_pages_show_every_game_once_newest_first(client):
    created = {create(client, game="scharwenzel", players=4, humans=(0, 1, 2, 3)) for _ in range(23)}
    listed = entries(client, "status=waiting&game=scharwenzel", limit=5)
    assert len(listed) == len({entry["id"] for entry in listed})
    assert created <= {entry["id"] for entry in listed}
    order = [(entry["created_at"], entry["id"]) for entry in listed]
    assert order == sorted(order, reverse=True)  # newest first; games of the same millisecond by id


def test_an_unfiltered_walk_sees_every_game(client):
    created = {create(client) for _ in range(7)}
    listed = walk(client, "", limit=1000)
    assert created <= set(listed) and len(listed) == len(set(listed))


def test_a_game_moves_between_status_filters(client):
    game_id = create(client, players=3, humans=(0,))
    assert game_id in walk(client, "status=waiting&game=scharfe-schoten", 1000)
    take(client, game_id, 0)
    assert game_id not in walk(client, "status=waiting&game=scharfe-schoten", 1000)
    assert game_id in walk(client, "status=active", 1000)
    entry = next(e for e in client.get("/v1/games?status=active&limit=1000").get_json()["games"] if e["id"] == game_id)
    assert entry["status"] == "active" and entry["open_seats"] == []


def test_an_unknown_game_name_lists_nothing(client):
    assert client.get("/v1/games?game=skat").get_json() == {"games": [], "next": None}


@pytest.mark.parametrize("query,field", [
    ("cursor=not-a-cursor", "cursor"),
    ("cursor=", "cursor"),
    ("cursor=" + base64.urlsafe_b64encode(b"2026-01-01T00:00:00.000Z|zz").decode(), "cursor"),
    ("status=lost", "status"),
    ("game=Skat%21", "game"),
    ("limit=0", "limit"),
    ("limit=1001", "limit"),
    ("page=2", "page"),
])
def test_bad_list_queries_are_422_naming_the_field(client, query, field):
    response = client.get(f"/v1/games?{query}")
    assert response.status_code == 422, response.get_json()
    assert field in response.get_json()["errors"]
