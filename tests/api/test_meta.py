"""The front door: the index, the served contract, offline docs, and the README's route table."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import yaml

from .contract.spec import validate_response

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = ROOT / "openapi.yaml"


def test_the_index_links_to_everything_a_client_starts_from(client):
    index = client.get("/v1").get_json()
    assert index["name"] == "stich" and set(index["games"]) == {"scharfe-schoten", "schafkopf", "scharwenzel"}
    for name, path in index["links"].items():
        # The socket answers a plain GET 426: it is a WebSocket (tests/e2e/test_socket.py opens it).
        assert client.get(path).status_code == (426 if name == "socket" else 200), name
    assert client.get("/", headers={"Accept": "application/json"}).get_json() == index


def test_a_browser_gets_a_page_of_links_at_the_root(client):
    page = client.get("/", headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    assert page.mimetype == "text/html"
    links = re.findall(r'href="([^"]+)"', page.get_data(as_text=True))
    assert {"/docs", "/v1/openapi.yaml", "/v1/openapi.json", "/v1/games", "/v1/health"} <= set(links)


def test_the_served_contract_is_the_repository_file(client):
    served = client.get("/v1/openapi.yaml")
    assert served.mimetype == "application/yaml"
    assert served.get_data(as_text=True) == CONTRACT.read_text()
    assert client.get("/v1/openapi.json").get_json() == yaml.safe_load(CONTRACT.read_text())


def test_every_download_is_offered_as_bytes_too(client):
    """The contracts, the icon and the exports go out under their own media type, or as
    `application/octet-stream` (the same bytes) to a client that asks for that: the contract lists
    both, and generators that know neither YAML nor JSON Lines read the bytes."""
    game = client.post("/v1/games", json={"game": "schafkopf", "players": 4, "seats": [{"kind": "bot"}] * 4})
    assert game.status_code == 201, game.get_json()
    downloads = {"/v1/openapi.yaml": "application/yaml", "/v1/asyncapi.yaml": "application/yaml",
                 "/favicon.ico": "image/x-icon", f"/v1/games/{game.get_json()['id']}/export": "application/x-ndjson"}
    contract = yaml.safe_load(CONTRACT.read_text())
    for path, native in downloads.items():
        own = client.get(path)
        assert own.status_code == 200 and own.mimetype == native, path
        assert client.get(path, headers={"Accept": "*/*"}).mimetype == native, path
        as_bytes = client.get(path, headers={"Accept": "application/octet-stream"})
        assert as_bytes.mimetype == "application/octet-stream" and as_bytes.data == own.data, path
        assert "Accept" in own.vary and "Accept" in as_bytes.vary, path  # a cache keeps the two apart
        template = "/v1/games/{id}/export" if path.endswith("/export") else path
        assert list(contract["paths"][template]["get"]["responses"]["200"]["content"]) == [
            native, "application/octet-stream"], path


def test_the_docs_work_without_internet_access(client):
    page = client.get("/docs")
    assert page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert "://" not in html  # no CDN: every asset comes from this server
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert any(a.endswith("swagger-ui-bundle.js") for a in assets)
    for asset in assets:
        response = client.get(asset)
        assert response.status_code == 200 and len(response.data) > 1000, asset
    assert '"/v1/openapi.json"' in html
    assert client.get("/docs/assets/no-such-file.js").status_code == 404


def test_the_package_ships_the_contract(tmp_path):
    """A wheel built from the project holds openapi.yaml as a real file, identical to the repository's."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(tmp_path)],
                   check=True, capture_output=True, timeout=300)
    [wheel] = tmp_path.glob("stich-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read("api/openapi.yaml") == CONTRACT.read_bytes()


def test_the_readme_route_table_lists_every_route(app):
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## The API in one page"):]
    section = section[:section.index("\n## ", 4)]
    documented = set(re.findall(r"^\| `(GET|POST|PUT|PATCH|DELETE) (/[^`]*)` \|", section, re.M))
    routes = set()
    for rule in app.url_map.iter_rules():
        path = re.sub(r"<(?:[a-z_]+:)?([a-z_]+)>", lambda m: "{" + ("id" if m.group(1) == "game_id" else m.group(1)) + "}",
                      rule.rule)
        routes |= {(method, path) for method in rule.methods - {"HEAD", "OPTIONS"}}
    assert documented == routes


def test_every_route_refuses_unknown_and_repeated_query_parameters(client):
    game_id = json.loads(client.post("/v1/games", json={"game": "scharfe-schoten", "players": 3}).data)["id"]
    for path in ("/v1", "/v1/health", "/v1/games", f"/v1/games/{game_id}", f"/v1/games/{game_id}/view",
                 f"/v1/games/{game_id}/events", "/v1/openapi.json", "/docs"):
        response = client.get(path + "?limt=5")
        assert response.status_code == 422, path
        assert response.get_json()["errors"] == {"limt": ["unknown query parameter"]}
    repeated = client.get("/v1/games?limit=1&limit=2")
    assert repeated.status_code == 422 and repeated.get_json()["errors"] == {"limit": ["given more than once"]}


def test_numbers_in_paths_and_queries_are_ascii_digits_only(client):
    game_id = json.loads(client.post("/v1/games", json={"game": "scharfe-schoten", "players": 3}).data)["id"]
    assert client.post(f"/v1/games/{game_id}/seats/\u0661").status_code == 404  # ARABIC-INDIC DIGIT ONE
    assert client.post(f"/v1/games/{game_id}/seats/\uff11").status_code == 404  # FULLWIDTH DIGIT ONE
    for value in ("\u0661", "1_0", " 1", "1e1", "nan", "inf", "+1", "-0", "0x1"):
        response = client.get(f"/v1/games/{game_id}/events", query_string={"after": value})
        assert response.status_code == 422 and "after" in response.get_json()["errors"], value
        response = client.get(f"/v1/games/{game_id}/events", query_string={"wait": value})
        assert response.status_code == 422 and "wait" in response.get_json()["errors"], value
    assert client.get(f"/v1/games/{game_id}/events", query_string={"after": "0", "wait": "0.25"}).status_code == 200


def test_health_names_the_component_that_is_down(redis_url, monkeypatch):
    from api import create_app, meta as meta_module
    from workers.heartbeat import ANALYSIS_KEY, KEY

    client = create_app(redis_url, bots="rq").test_client()  # bots through a queue: workers are checked
    live = {KEY: 0, ANALYSIS_KEY: 1}
    monkeypatch.setattr(meta_module, "live_workers", lambda queue, key=KEY: live[key])
    down = client.get("/v1/health")
    validate_response(down, "/v1/health", "get")
    assert down.status_code == 503 and down.mimetype == "application/problem+json"
    # An analysis worker alone plays no bot's turn: it is counted apart, and is no bot worker.
    assert down.get_json()["code"] == "unhealthy" and down.get_json()["components"] == {
        "store": {"status": "up"}, "queue": {"status": "up"}, "workers": {"status": "down", "count": 0},
        "analysis": {"status": "up", "count": 1}}
    live.update({KEY: 2, ANALYSIS_KEY: 0})
    ok = client.get("/v1/health")
    validate_response(ok, "/v1/health", "get")
    # Without an analysis worker the games play on (analyses stay queued): said, but not a 503.
    assert ok.status_code == 200 and ok.get_json() == {"status": "ok", "components": {
        "store": {"status": "up"}, "queue": {"status": "up"}, "workers": {"status": "up", "count": 2},
        "analysis": {"status": "absent", "count": 0}}}
    monkeypatch.setattr(meta_module, "answers", lambda redis_client: False)  # as if Redis were gone
    gone = client.get("/v1/health")
    assert gone.status_code == 503 and gone.get_json()["detail"] == "not up: queue, store"


def test_a_worker_counts_while_it_beats(redis_client):
    import secrets

    from workers.heartbeat import STALE_S, beat, live_workers

    key = "stich:test-workers:" + secrets.token_hex(4)
    beat(redis_client, "host:1", now=1000.0, key=key)
    beat(redis_client, "host:2", now=1003.0, key=key)
    assert live_workers(redis_client, now=1004.0, key=key) == 2
    assert live_workers(redis_client, now=1000.0 + STALE_S + 1, key=key) == 1  # host:1 has gone quiet
    assert live_workers(redis_client, now=1003.0 + STALE_S + 1, key=key) == 0
    assert redis_client.exists(key) == 0  # stale members are removed, not only ignored


def test_the_favicon_is_served_from_the_package(client):
    """/docs and /play ask for it; it comes from this server, as everything they load does."""
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.mimetype == "image/x-icon"
    assert icon.data[:4] == b"\x00\x00\x01\x00" and b"PNG" in icon.data[:40]  # an ICO holding a PNG
    assert validate_response(icon, "/favicon.ico", "get") is None
