"""Fixtures shared by the contract tests: one app and the seeded games for the whole package."""
from __future__ import annotations

import copy
import os

import pytest

import schemathesis

from .spec import SCHAFKOPF_HOUSE_RULES, SPEC, UNKNOWN_ID, create, play_to_end, take


# Exports are JSON Lines, described as a string: read them as text. (They are uploaded as
# `application/octet-stream`, which schemathesis sends as it is.)
@schemathesis.deserializer("application/x-ndjson", "text/markdown")
def _text_body(ctx, response):
    return response.content.decode("utf-8")

# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="package")
def app(redis_url):
    from api import create_app

    # The fuzzer asks for analyses of finished games, which run inline here: a small budget keeps
    # each to a fraction of a second (the answer's shape is what the contract tests check).
    before = os.environ.get("STICH_ANALYSIS_PLAYOUTS")
    os.environ["STICH_ANALYSIS_PLAYOUTS"] = "4"
    yield create_app(redis_url, bots="inline")
    if before is None:
        os.environ.pop("STICH_ANALYSIS_PLAYOUTS", None)
    else:
        os.environ["STICH_ANALYSIS_PLAYOUTS"] = before


@pytest.fixture(scope="package")
def client(app):
    return app.test_client()


@pytest.fixture(scope="package")
def games(client):
    """Seeded games: id → {seat: token} for the seats this test holds."""
    human_bots = [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
    out: dict[str, dict] = {}

    waiting = create(client)  # three open human seats
    out[waiting] = {"name": "waiting", "tokens": {}}

    active = create(client, seats=human_bots, rules={"rounds": 2})
    out[active] = {"name": "active", "tokens": {0: take(client, active, 0)}}

    two = create(client, seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}])
    out[two] = {"name": "two-humans", "tokens": {0: take(client, two, 0), 1: take(client, two, 1)}}

    four = create(client, players=4, seats=[{"kind": "human"}] + [{"kind": "bot"}] * 3,
                  rules={"rounds": 1, "first_starter": 0})
    out[four] = {"name": "four-players", "tokens": {0: take(client, four, 0)}}

    finished = create(client, seats=human_bots, rules={"rounds": 1})
    tokens = {0: take(client, finished, 0)}
    play_to_end(client, finished, tokens)
    out[finished] = {"name": "finished", "tokens": tokens}

    installed = client.application.extensions["stich"].handler.table.games
    for name, rules in (("schafkopf", {"deals": 1}), ("scharwenzel", {"deals": 1})):
        if name in installed:
            other = create(client, game=name, players=4, rules=rules,
                           seats=[{"kind": "human"}] + [{"kind": "bot"}] * 3)
            out[other] = {"name": name, "tokens": {0: take(client, other, 0)}}
    # Schafkopf with the house rules on: the fuzzer also walks Doppeln, Hochzeit, Stoß, Ramsch, auction … states.
    if "schafkopf" in installed:
        house = create(client, game="schafkopf", players=4,
                       rules=dict(SCHAFKOPF_HOUSE_RULES, deals=2, auction=True, schieberrunde=True),
                       seats=[{"kind": "human"}] + [{"kind": "bot"}] * 3)
        out[house] = {"name": "schafkopf-house-rules", "tokens": {0: take(client, house, 0)}}
    return out



@pytest.fixture(scope="package")
def fuzz_schema(app, games):
    """The spec with the game id narrowed to the seeded games (plus one unknown id)."""
    import schemathesis

    raw = copy.deepcopy(SPEC)
    raw["components"]["parameters"]["GameId"]["schema"] = {"type": "string", "enum": [*games, UNKNOWN_ID]}
    schema = schemathesis.openapi.from_dict(raw)
    # 412 (a well-formed but stale If-Match) and 413 are rejections too.
    rejection = schema.config.checks.negative_data_rejection
    rejection.expected_statuses = [*rejection.expected_statuses, "412", "413"]
    schema.app = app
    return schema


