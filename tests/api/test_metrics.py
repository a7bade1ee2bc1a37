"""/metrics is scraped and moves with the traffic; every response has a request id; logs are JSON
lines naming it; behind a trusted proxy the per-address quotas see the client's address."""
from __future__ import annotations

import io
import json
import logging

from prometheus_client.parser import text_string_to_metric_families

from api import create_app
from api.feed import TRANSPORT_KEY
from api.quotas import Quotas
from api.request_log import JsonFormatter

from .play import auth, new_game
from ..addresses import fresh_address


def scrape(client) -> dict[tuple[str, tuple], float]:
    response = client.get("/metrics")
    assert response.status_code == 200 and response.content_type.startswith("text/plain")
    samples = {}
    for family in text_string_to_metric_families(response.get_data(as_text=True)):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples, name, **labels) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_metrics_count_requests_moves_and_command_latency(client):
    before = scrape(client)
    game_id, tokens = new_game(client, players=3, humans=(0, 1, 2))
    token = tokens[0]
    legal = client.get(f"/v1/games/{game_id}/view", headers=auth(token)).get_json()["legal"]
    assert client.post(f"/v1/games/{game_id}/commands", json=legal[0], headers=auth(token)).status_code == 200
    assert client.get("/v1/no-such-route").status_code == 404
    after = scrape(client)
    route = "/v1/games/<game_id>/commands"
    assert value(after, "stich_http_requests_total", route=route, method="POST", status="200", transport="http") == \
        value(before, "stich_http_requests_total", route=route, method="POST", status="200", transport="http") + 1
    assert value(after, "stich_http_requests_total", route="unmatched", method="GET", status="404",
                 transport="http") >= 1
    assert value(after, "stich_moves_total", game="scharfe-schoten") == \
        value(before, "stich_moves_total", game="scharfe-schoten") + 1
    assert value(after, "stich_command_seconds_count", game="scharfe-schoten") == \
        value(before, "stich_command_seconds_count", game="scharfe-schoten") + 1
    names = {name for name, _ in after}
    assert not any(game_id in str(labels) for _, labels in after)  # no game id in any label
    assert {"stich_http_requests_total", "stich_moves_total", "stich_command_seconds_bucket"} <= names


def test_open_streams_are_counted_while_open(client):
    game_id, _ = new_game(client, players=3, humans=(0, 1, 2))
    before = value(scrape(client), "stich_open_streams", kind="sse")
    stream = client.get(f"/v1/games/{game_id}/events/stream?timeout=30", buffered=False)
    assert value(scrape(client), "stich_open_streams", kind="sse") == before + 1
    stream.close()
    assert value(scrape(client), "stich_open_streams", kind="sse") == before


def test_every_response_has_a_request_id_and_the_log_line_names_it(client):
    given = client.get("/v1", headers={"X-Request-Id": "trace-42.a_b"})
    assert given.headers["X-Request-Id"] == "trace-42.a_b"
    made = client.get("/v1/games/0000000000000000")  # an error answer has one too
    assert made.status_code == 404 and len(made.headers["X-Request-Id"]) == 16
    refused = client.get("/v1", headers={"X-Request-Id": "no spaces allowed"})
    assert refused.headers["X-Request-Id"] != "no spaces allowed"

    logger, lines = logging.getLogger("stich.access"), io.StringIO()
    handler = logging.StreamHandler(lines)
    handler.setFormatter(JsonFormatter())
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        client.get("/v1/health", headers={"X-Request-Id": "health-1", "Authorization": "Bearer st_secret"})
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    [line] = [json.loads(text) for text in lines.getvalue().splitlines()]
    assert line["request_id"] == "health-1" and line["route"] == "/v1/health" and line["status"] == 200
    assert line["msg"] == "request" and line["level"] == "INFO" and "st_secret" not in lines.getvalue()


def test_behind_a_trusted_proxy_quotas_count_the_forwarded_address(redis_url):
    app = create_app(redis_url, bots="inline", quotas=Quotas(creates=1, create_window_s=3600), trusted_proxies=1)
    client = app.test_client()
    body = {"game": "scharfe-schoten", "players": 3}
    first, second = fresh_address(), fresh_address()
    assert client.post("/v1/games", json=body, headers={"X-Forwarded-For": first}).status_code == 201
    assert client.post("/v1/games", json=body, headers={"X-Forwarded-For": first}).status_code == 429
    assert client.post("/v1/games", json=body, headers={"X-Forwarded-For": second}).status_code == 201


def test_a_socket_message_is_counted_as_its_route_on_the_socket_transport(client):
    """The socket answers a message through the route it stands for (``Session.dispatch`` marks its
    environ): it counts as that route with ``transport="socket"``, never as an HTTP request."""
    game_id, tokens = new_game(client, players=3, humans=(0, 1, 2))
    legal = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[0])).get_json()["legal"]
    before = scrape(client)
    posted = client.post(f"/v1/games/{game_id}/commands", json=legal[0], headers=auth(tokens[0]),
                         environ_overrides={TRANSPORT_KEY: "socket"})
    assert posted.status_code == 200
    after = scrape(client)
    route = "/v1/games/<game_id>/commands"
    for transport, more in (("socket", 1), ("http", 0)):
        assert value(after, "stich_http_requests_total", route=route, method="POST", status="200",
                     transport=transport) == \
            value(before, "stich_http_requests_total", route=route, method="POST", status="200",
                  transport=transport) + more
