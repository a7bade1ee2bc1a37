"""Finding tournaments and following their links: the list, a table's tournament, a tournament's tables."""
from __future__ import annotations

from .test_tournaments import bearer, create, run

BOTS_3 = [{"kind": "bot", "bot": "random"}] * 3
SMALL = dict(game="scharfe-schoten", players=3, rounds=1, deals_per_table=1)


def ids_on_pages(client, query: str, limit: int) -> list[str]:
    found, cursor = [], None
    for _ in range(1000):
        url = f"/v1/tournaments?limit={limit}{query}" + (f"&cursor={cursor}" if cursor else "")
        page = client.get(url)
        assert page.status_code == 200, page.get_json()
        found += [entry["id"] for entry in page.get_json()["tournaments"]]
        cursor = page.get_json()["next"]
        if cursor is None:
            return found
    raise AssertionError("more than 1000 pages")


def test_the_list_pages_newest_first_and_filters_by_status_and_game(client):
    waiting = [create(client, **SMALL, participants=[{"kind": "human"}] + BOTS_3[:2])["id"] for _ in range(3)]
    finished = run(client, **SMALL, participants=BOTS_3)["id"]
    newest = client.get("/v1/tournaments?limit=4").get_json()["tournaments"]
    assert [e["id"] for e in newest] == [finished, *reversed(waiting)]
    assert newest[0]["status"] == "finished" and newest[0]["round"] == 1 and newest[0]["participants"] == 3
    assert newest[1]["status"] == "waiting" and newest[1]["paused"] is False
    paged = ids_on_pages(client, "&game=scharfe-schoten&status=waiting", limit=2)
    assert paged[:3] == list(reversed(waiting)) and finished not in paged
    assert len(paged) == len(set(paged))  # no entry on two pages
    assert finished in ids_on_pages(client, "&status=finished", limit=50)
    assert all(e["game"] == "schafkopf" for e in client.get("/v1/tournaments?game=schafkopf").get_json()["tournaments"])
    assert client.get("/v1/tournaments?game=no-such-game").get_json() == {"tournaments": [], "next": None}


def test_a_bad_filter_or_cursor_is_a_422_naming_it(client):
    for query, field in (("status=paused", "status"), ("game=Schafkopf!", "game"), ("cursor=nonsense", "cursor"),
                         ("limit=0", "limit")):
        answer = client.get(f"/v1/tournaments?{query}")
        assert answer.status_code == 422, query
        assert answer.mimetype == "application/problem+json" and field in answer.get_json()["errors"], query
    # A games-list cursor names a game, not a tournament: refused, not served from the wrong list.
    games_cursor = client.get("/v1/games?limit=1").get_json()["next"]
    if games_cursor:
        assert client.get(f"/v1/tournaments?cursor={games_cursor}").status_code == 422


def test_a_table_names_its_tournament_round_and_table_and_the_tournament_links_its_tables(client):
    tournament = run(client, game="scharfe-schoten", players=3, rounds=2, deals_per_table=1,
                     participants=BOTS_3 * 2)
    for round_ in tournament["schedule"]:
        for table in round_["tables"]:
            assert table["url"] == f"/v1/games/{table['game_id']}"
            link = {"id": tournament["id"], "round": round_["round"], "table": table["table"]}
            assert client.get(table["url"]).get_json()["tournament"] == link
            assert client.get(table["url"] + "/view").get_json()["tournament"] == link
            assert client.get(table["url"] + "/view?at=1").get_json()["tournament"] == link


def test_an_ordinary_game_names_no_tournament(client):
    created = client.post("/v1/games", json={"game": "scharfe-schoten", "players": 3,
                                             "seats": [{"kind": "human"}] * 3})
    assert created.status_code == 201 and created.get_json()["tournament"] is None
    game = created.get_json()["id"]
    assert client.get(f"/v1/games/{game}").get_json()["tournament"] is None
    assert client.get(f"/v1/games/{game}/view").get_json()["tournament"] is None


def test_an_open_table_of_a_running_round_names_its_tournament(client):
    created = create(client, **SMALL, participants=[{"kind": "human"}] + BOTS_3[:2])
    client.post(f"/v1/tournaments/{created['id']}/participants/0")
    client.post(f"/v1/tournaments/{created['id']}/start", headers=bearer(created["token"]))
    [table] = client.get(f"/v1/tournaments/{created['id']}").get_json()["schedule"][0]["tables"]
    assert client.get(table["url"]).get_json()["tournament"] == {"id": created["id"], "round": 1, "table": 0}
