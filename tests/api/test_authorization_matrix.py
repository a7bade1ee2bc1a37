"""Who may call which route with which credential: every operation of ``openapi.yaml`` with every kind
of caller, and the documented answer for each cell.

The rows are the contract's operations (path x method); a route added to ``openapi.yaml`` without a
row here fails the test, by name, and so does a row for a route the contract no longer has. The
columns are ``callers.CALLERS``; the world they act in (games, tournaments, an export, an operator
key) is built once per module through the API (``callers.build_world``).

Each cell asserts the status and, for a refusal, the problem ``code``, and holds them to the
contract: the status must be one the operation lists, and a refusal's code must be named in that
response's description. A 401 or 403 must name, in its detail, the credential the route means (a
seat token, the organizer's token, a participant token, an operator key). A refused write must change nothing (its target's ``seq``, or the newest
game, is read before and after). All cells run and every wrong one is reported together.

Decisions:

* **spectator**: the API has no spectator credential; a spectator is the anonymous reader of a
  game it does not sit in. It sends what ``none`` sends and is owed the same answers; its column is
  kept apart because the README promises it something more — the spectator's view (``viewer`` null,
  no ``legal``), which the view row checks — and so that a spectator credential, should one come,
  has its column.
* **superseded** is tried on its own game (``superseded_game``): a token of a seat's earlier holder
  is a seat token of no current holder, 401 on every route that reads a seat token. On routes that
  take no seat token it is a stranger's token (403 ``invalid_token`` where another credential is
  required, ignored where none is).
* **forged_near**: a right-shaped token of another game is the ``other_table`` column; this one is
  this seat's own token with its last character changed, so an inexact comparison would show.
* Creating games, tournaments and imports needs the operator key on this server (``STICH_API_KEYS``
  set, as the README's Configuration describes); without keys those routes are open to all.
* ``redeemClaim``: the claim in the path is the credential, and no other is read; each caller redeems a
  claim of its own (``World.claims``), so every cell is the 201.
* ``takeSeat`` is tried on a tournament table's free human seat: only the participant route hands
  those out, so it is refused to every caller.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import pytest

from api.quotas import Quotas
from eventstore.challenges import today

from .callers import CALLERS, OPERATOR_KEY, SCHOTEN, World, build_world, bearer
from .contract.spec import SPEC

METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
SPEC_OPERATIONS = {(method.upper(), path) for path, item in SPEC["paths"].items() for method in item
                   if method in METHODS}

# The codes of the answers being fixed alongside this test (issue 22): see the report.
SUPERSEDED = (401, "token_superseded")
TOURNAMENT_SEAT = (403, "tournament_seat")


@dataclass(frozen=True)
class Answer:
    status: int
    code: str | None = None  # a refusal's problem code

    def __str__(self) -> str:
        return f"{self.status} {self.code}" if self.code else str(self.status)


def answers(default, **cells) -> dict[str, Answer]:
    """A row: ``default`` for every caller, except the ones named."""
    def as_answer(value) -> Answer:  # 200, or (403, "invalid_token")
        return Answer(*value) if isinstance(value, tuple) else Answer(value)

    row = {caller: as_answer(default) for caller in CALLERS}
    unknown = set(cells) - set(CALLERS)
    assert not unknown, f"no such callers: {unknown}"
    row.update({caller: as_answer(value) for caller, value in cells.items()})
    return row


MISSING_TOKEN, INVALID_TOKEN = (401, "missing_token"), (403, "invalid_token")
# The world's player sits at none of the world's tables: its tokens (and another player's) are strangers' there.
PLAYERS_ELSEWHERE = dict(player=INVALID_TOKEN, player_play_only=INVALID_TOKEN, revoked_player=INVALID_TOKEN,
                         other_player=INVALID_TOKEN)
STRANGERS = dict(other_table=INVALID_TOKEN, participant=INVALID_TOKEN, organizer=INVALID_TOKEN,
                 forged_random=INVALID_TOKEN, forged_near=INVALID_TOKEN, paired_seat=INVALID_TOKEN,
                 claim=INVALID_TOKEN, **PLAYERS_ELSEWHERE)

PUBLIC = answers(200)
# A seat token is optional (it selects the seat's view); any token that is not a current seat's is refused.
SEAT_READ = answers(200, **STRANGERS, superseded=SUPERSEDED, malformed=MISSING_TOKEN)
# A seat token is required.
SEAT_WRITE = answers(MISSING_TOKEN, this_seat=200, other_seat=200, superseded=SUPERSEDED, **STRANGERS)
# The operator key is required (this server has keys).
OPERATOR_ONLY = answers((401, "missing_api_key"), operator=201, forged_key=(403, "invalid_api_key"))


def player_account(success: int) -> dict[str, Answer]:
    """A route of the world's player that needs its token of scope ``account``: every other token is
    refused (a seat token, a stranger's, a revoked one), one of its without the scope by name."""
    strangers = {caller: INVALID_TOKEN for caller in CALLERS}
    return answers(MISSING_TOKEN, **{**{c: a for c, a in strangers.items() if c not in ("none", "spectator",
                                                                                        "operator", "forged_key",
                                                                                        "malformed")},
                                     "player": success, "player_play_only": (403, "insufficient_scope")})


def pool_entry(success: int, **cells) -> dict[str, Answer]:
    """A quick-play route: a live player token of scope 'play' (each player its own entry); any other bearer
    token is refused, and no token is a 401."""
    return answers(INVALID_TOKEN, **{**dict(none=MISSING_TOKEN, spectator=MISSING_TOKEN, operator=MISSING_TOKEN,
                                            forged_key=MISSING_TOKEN, malformed=MISSING_TOKEN, player=success,
                                            player_play_only=success, other_player=success), **cells})


def tournament_credential(holder: str, success: int) -> dict[str, Answer]:
    """A route that needs the tournament's organizer's or participant's token: everyone else's is
    a stranger's."""
    return answers(MISSING_TOKEN, this_seat=INVALID_TOKEN, other_seat=INVALID_TOKEN, superseded=INVALID_TOKEN,
                   **{**STRANGERS, holder: success})


@dataclass(frozen=True)
class Route:
    path: Callable[[World, str], str]  # the URL this caller's request goes to
    row: dict[str, Answer]
    body: Callable | None = None  # (client, world, caller) -> keyword arguments of the request
    mark: Callable | None = None  # (client, world, caller) -> what a refusal must leave unchanged (a seq)
    then: Callable | None = None  # (response, world, caller) -> None: more checks of a 200
    # The credential a refusal's detail must name (401 and 403): the one this route means.
    credential: str | None = None


def game(suffix: str = "") -> Callable[[World, str], str]:
    return lambda world, caller: f"/v1/games/{world.game_of(caller)}{suffix}"


def tournament(suffix: str = "") -> Callable[[World, str], str]:
    return lambda world, caller: f"/v1/tournaments/{world.tournament}{suffix}"


def fixed(url: str) -> Callable[[World, str], str]:
    return lambda world, caller: url


def game_seq(client, world, caller) -> int:
    return client.get(f"/v1/games/{world.game_of(caller)}").get_json()["seq"]


def newest_game(client, world, caller) -> str:
    return client.get("/v1/games?limit=1").get_json()["games"][0]["id"]


def tournament_seq(client, world, caller) -> int:
    return client.get(f"/v1/tournaments/{world.tournament}").get_json()["seq"]


def seat_table_seq(client, world, caller) -> int:
    return client.get(f"/v1/games/{world.seat_table}").get_json()["seq"]


def table_seq(client, world, caller) -> int:
    [table] = client.get(f"/v1/tournaments/{world.tournament}").get_json()["schedule"][0]["tables"]
    return client.get(f"/v1/games/{table['game_id']}").get_json()["seq"]


def command(client, world, caller) -> dict:
    """A seat posts a command legal for it now; everyone else posts seat 0's (an impersonation)."""
    seat = world.seat_of(caller)
    token = world.seat_tokens[0 if seat is None else seat]
    legal = client.get(f"/v1/games/{world.game}/view", headers=bearer(token)).get_json()["legal"]
    return {"json": legal[0] if legal else {"type": "predict", "most": "R", "fewest": "G"}}


def upload(client, world, caller) -> dict:
    return {"data": world.export, "content_type": "application/x-ndjson"}


def viewer_is_callers(response, world, caller) -> None:
    view = response.get_json()
    assert view["viewer"] == world.seat_of(caller), f"viewer {view['viewer']}"
    if view["viewer"] is None:
        assert view["legal"] == [], "a spectator's view has legal commands"


# Reads first, then the writes whose success changes state (their cells refuse before they change it).
MATRIX: dict[tuple[str, str], Route] = {
    ("GET", "/"): Route(fixed("/"), PUBLIC),
    ("GET", "/v1"): Route(fixed("/v1"), PUBLIC),
    ("GET", "/v1/openapi.yaml"): Route(fixed("/v1/openapi.yaml"), PUBLIC),
    ("GET", "/v1/openapi.json"): Route(fixed("/v1/openapi.json"), PUBLIC),
    ("GET", "/v1/asyncapi.yaml"): Route(fixed("/v1/asyncapi.yaml"), PUBLIC),
    # The upgrade takes no credential: a plain request is a 426 for everyone. The socket's messages carry
    # the tokens, and are answered by the stream's and the command's routes: their rows below, cell by
    # cell over a real socket, in tests/e2e/test_socket.py (the 101 itself needs a server that hands the
    # connection over, which the test client does not).
    ("GET", "/v1/socket"): Route(fixed("/v1/socket"), answers((426, "upgrade_required"))),
    ("GET", "/docs"): Route(fixed("/docs"), PUBLIC),
    ("GET", "/docs/assets/{name}"): Route(fixed("/docs/assets/swagger-ui.css"), PUBLIC),
    ("GET", "/favicon.ico"): Route(fixed("/favicon.ico"), PUBLIC),
    ("GET", "/problems"): Route(fixed("/problems"), PUBLIC),
    ("GET", "/problems/{code}"): Route(fixed("/problems/not_your_turn"), PUBLIC),
    ("GET", "/play"): Route(fixed("/play"), PUBLIC),
    ("GET", "/play/assets/{name}"): Route(fixed("/play/assets/play.js"), PUBLIC),
    ("GET", "/metrics"): Route(fixed("/metrics"), PUBLIC),
    ("GET", "/v1/health"): Route(fixed("/v1/health"), PUBLIC),
    ("GET", "/v1/games"): Route(fixed("/v1/games?limit=5"), PUBLIC),
    ("GET", "/v1/games/{id}"): Route(game(), PUBLIC),
    ("GET", "/v1/games/{id}/view"): Route(game("/view"), SEAT_READ, then=viewer_is_callers, credential="seat"),
    ("GET", "/v1/games/{id}/events"): Route(game("/events"), SEAT_READ, credential="seat"),
    ("GET", "/v1/games/{id}/events/stream"): Route(game("/events/stream?timeout=0"), SEAT_READ, credential="seat"),
    ("GET", "/v1/games/{id}/export"): Route(game("/export"), SEAT_READ, credential="seat"),
    ("GET", "/v1/games/{id}/transcript"): Route(game("/transcript"), SEAT_READ, credential="seat"),
    # Anyone, no credential, once the game has finished (then all is public); the world's games run.
    ("GET", "/v1/games/{id}/analysis"): Route(game("/analysis"), answers((409, "game_not_finished"))),
    # A seat's own token only (another seat's is refused by name); the world's game has hints.
    ("GET", "/v1/games/{id}/seats/{seat}/hint"): Route(
        game("/seats/0/hint"), answers(MISSING_TOKEN, this_seat=200, other_seat=(403, "not_your_seat"),
                                       superseded=SUPERSEDED, **STRANGERS), credential="seat"),
    ("POST", "/v1/verify"): Route(fixed("/v1/verify"), PUBLIC, body=upload),
    # Anyone may ask; a key, though, must be one of the server's (it lifts the analysis quota).
    ("POST", "/v1/games/{id}/analysis"): Route(
        game("/analysis"), answers((409, "game_not_finished"), forged_key=(403, "invalid_api_key")),
        mark=game_seq, credential="operator key"),
    ("GET", "/v1/tournaments"): Route(fixed("/v1/tournaments?limit=5"), PUBLIC),
    ("GET", "/v1/tournaments/{tournament_id}"): Route(tournament(), PUBLIC),
    ("GET", "/v1/tournaments/{tournament_id}/standings"): Route(tournament("/standings"), PUBLIC),
    # Everyone alike, once finished; the world's tournament still runs, so every caller gets the 409.
    ("GET", "/v1/tournaments/{tournament_id}/export"): Route(tournament("/export"),
                                                             answers((409, "tournament_not_finished"))),
    ("GET", "/v1/tournaments/{tournament_id}/events"): Route(tournament("/events"), PUBLIC),
    ("GET", "/v1/tournaments/{tournament_id}/events/stream"): Route(tournament("/events/stream?timeout=0"),
                                                                    PUBLIC),
    # Starting a started tournament answers as the first start did: the organizer's cell changes nothing.
    ("POST", "/v1/tournaments/{tournament_id}/start"): Route(
        tournament("/start"), tournament_credential("organizer", 200), mark=tournament_seq,
        credential="organizer's token"),
    ("POST", "/v1/games"): Route(
        fixed("/v1/games"), OPERATOR_ONLY, mark=newest_game, credential="operator key",
        body=lambda client, world, caller: {"json": {**SCHOTEN, "seats": [{"kind": "human"}] * 3}}),
    ("POST", "/v1/tournaments"): Route(
        fixed("/v1/tournaments"), OPERATOR_ONLY, credential="operator key",
        body=lambda client, world, caller: {"json": {"game": "scharfe-schoten", "players": 3, "rounds": 1,
                                                     "deals_per_table": 1, "participants": [{"kind": "bot"}] * 3}}),
    ("POST", "/v1/games/bulk"): Route(
        fixed("/v1/games/bulk"), OPERATOR_ONLY, mark=newest_game, credential="operator key",
        body=lambda client, world, caller: {"json": {"games": [{**SCHOTEN, "seats": [{"kind": "human"}] * 3}]},
                                            "headers": {"Idempotency-Key": f"matrix-{caller}-{world.game}"}}),
    ("POST", "/v1/claims/{claim}"): Route(lambda world, caller: f"/v1/claims/{world.claims[caller]}", answers(201)),
    ("POST", "/v1/imports"): Route(fixed("/v1/imports"), OPERATOR_ONLY, body=upload, mark=newest_game,
                                   credential="operator key"),
    # Joining is open: whoever comes first holds the slot; each caller joins a slot of its own. A player token
    # joins as its player, once a tournament (its play-only token is the same player's: refused by name).
    ("POST", "/v1/tournaments/{tournament_id}/participants/{participant}"): Route(
        lambda world, caller: f"/v1/tournaments/{world.open_tournament}/participants/{CALLERS.index(caller)}",
        answers(201, player_play_only=(403, "player_seat"), revoked_player=INVALID_TOKEN, malformed=MISSING_TOKEN),
        credential="player"),
    # Players: registering is open (each caller a handle of its own); profiles, histories, ratings and
    # leaderboards are public; the tokens' routes are the player's own, with the scope 'account'.
    ("POST", "/v1/players"): Route(fixed("/v1/players"), answers(201),
                                   body=lambda client, world, caller: {"json": {"handle": f"m{CALLERS.index(caller)}"
                                                                                 f"x{world.game[:8]}"}}),
    ("GET", "/v1/players/{handle}"): Route(lambda world, caller: f"/v1/players/{world.player}", PUBLIC),
    ("GET", "/v1/players/{handle}/games"): Route(lambda world, caller: f"/v1/players/{world.player}/games", PUBLIC),
    ("GET", "/v1/players/{handle}/ratings/{game}"): Route(
        lambda world, caller: f"/v1/players/{world.player}/ratings/scharfe-schoten", PUBLIC),
    ("GET", "/v1/leaderboards/{game}"): Route(fixed("/v1/leaderboards/scharfe-schoten"), PUBLIC),
    ("GET", "/v1/pools"): Route(fixed("/v1/pools"), PUBLIC),
    ("GET", "/v1/exports"): Route(lambda world, caller: f"/v1/exports?player={world.player}", PUBLIC),
    ("GET", "/v1/challenges"): Route(fixed("/v1/challenges"), PUBLIC),
    ("GET", "/v1/challenges/{game}/{day}"): Route(fixed("/v1/challenges/scharfe-schoten/today"), PUBLIC),
    # Today's challenge, each player its own game (its play-only token is the same player: the same game, 200).
    ("POST", "/v1/challenges/{game}/{day}/entry"): Route(
        lambda world, caller: f"/v1/challenges/scharfe-schoten/{today()}/entry",
        pool_entry(201, player_play_only=200), credential="player token"),
    ("GET", "/v1/players/{handle}/tokens"): Route(lambda world, caller: f"/v1/players/{world.player}/tokens",
                                                  player_account(200), credential="player token"),
    ("POST", "/v1/players/{handle}/tokens"): Route(
        lambda world, caller: f"/v1/players/{world.player}/tokens", player_account(201), credential="player token",
        mark=lambda client, world, caller: len(client.get(f"/v1/players/{world.player}/tokens",
                                                          headers=world.headers("player")).get_json()["tokens"]),
        body=lambda client, world, caller: {"json": {"scopes": ["play"], "label": f"matrix {caller}"}}),
    # Quick play, the player's own entry: the world's player joins (its play-only token is the same player, who
    # waits already), reads, then leaves (and its play-only token finds no entry left); another player alike.
    ("POST", "/v1/pools/{pool}/entry"): Route(
        fixed("/v1/pools/scharfe-schoten-4/entry"), pool_entry(201, player_play_only=(409, "already_waiting")),
        credential="player token", body=lambda client, world, caller: {"json": {"bots": False}}),
    ("GET", "/v1/pools/{pool}/entry"): Route(fixed("/v1/pools/scharfe-schoten-4/entry"), pool_entry(200),
                                             credential="player token"),
    ("DELETE", "/v1/pools/{pool}/entry"): Route(fixed("/v1/pools/scharfe-schoten-4/entry"),
                                                pool_entry(200, player_play_only=(404, "no_entry")),
                                                credential="player token"),
    ("DELETE", "/v1/players/{handle}/tokens/{token_id}"): Route(
        lambda world, caller: f"/v1/players/{world.player}/tokens/{world.spare_token_id}", player_account(204),
        credential="player token",
        mark=lambda client, world, caller: len(client.get(f"/v1/players/{world.player}/tokens",
                                                          headers=world.headers("player")).get_json()["tokens"])),
    ("POST", "/v1/games/{id}/seats/{seat}"): Route(
        lambda world, caller: f"/v1/games/{world.seat_table}/seats/{world.seat_table_seat}",
        answers(TOURNAMENT_SEAT, malformed=MISSING_TOKEN, revoked_player=INVALID_TOKEN),
        mark=seat_table_seq, credential="token"),
    ("POST", "/v1/tournaments/{tournament_id}/participants/{participant}/seat"): Route(
        tournament("/participants/0/seat"), tournament_credential("participant", 201), mark=table_seq,
        credential="participant"),
    ("POST", "/v1/games/{id}/commands"): Route(game("/commands"), SEAT_WRITE, body=command, mark=game_seq, credential="seat"),
    # The organizer's controls, last and in this order: each organizer's cell finds the state the one
    # before left (paused, then resumed), and the abort ends the tournament.
    ("POST", "/v1/tournaments/{tournament_id}/pause"): Route(
        tournament("/pause"), tournament_credential("organizer", 200), mark=tournament_seq,
        credential="organizer's token"),
    ("POST", "/v1/tournaments/{tournament_id}/resume"): Route(
        tournament("/resume"), tournament_credential("organizer", 200), mark=tournament_seq,
        credential="organizer's token"),
    ("POST", "/v1/tournaments/{tournament_id}/participants/{participant}/withdraw"): Route(
        tournament("/participants/0/withdraw"), tournament_credential("organizer", 200), mark=tournament_seq,
        credential="organizer's token"),
    ("POST", "/v1/tournaments/{tournament_id}/abort"): Route(
        tournament("/abort"), tournament_credential("organizer", 200), mark=tournament_seq,
        credential="organizer's token", body=lambda client, world, caller: {"json": {"reason": "the matrix"}}),
}


# --------------------------------------------------------------------------- the contract's side

def resolved(node: dict) -> dict:
    while "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        node = SPEC["components"]["responses"][name]
    return node


def undocumented(route: tuple[str, str], answer: Answer) -> str | None:
    """Why ``answer`` is not what the contract says this operation answers, or None."""
    method, path = route
    operation = SPEC["paths"][path][method.lower()]
    response = operation["responses"].get(str(answer.status))
    if response is None:
        return f"{answer.status} is not among its documented responses {sorted(operation['responses'])}"
    if answer.code and f"`{answer.code}`" not in resolved(response).get("description", "") + \
            operation.get("description", ""):
        return f"its {answer.status} response does not name the code `{answer.code}`"
    return None


def coverage_problems() -> list[str]:
    problems = [f"{m} {p}: in openapi.yaml but not in the authorization matrix; add its row"
                for m, p in sorted(SPEC_OPERATIONS - set(MATRIX))]
    problems += [f"{m} {p}: in the authorization matrix but no longer in openapi.yaml; drop its row"
                 for m, p in sorted(set(MATRIX) - SPEC_OPERATIONS)]
    problems += [f"{m} {p}: row lacks callers {sorted(set(CALLERS) - set(route.row))}"
                 for (m, p), route in MATRIX.items() if set(route.row) != set(CALLERS)]
    return problems


# --------------------------------------------------------------------------- the cells

@pytest.fixture(scope="module")
def keyed_app(redis_url):
    """The API as a deployment with a tournament backend runs it: with an operator key."""
    from api import create_app

    return create_app(redis_url, bots="inline", quotas=Quotas(api_keys=frozenset({OPERATOR_KEY})))


@pytest.fixture(scope="module")
def world(keyed_app) -> World:
    return build_world(keyed_app, keyed_app.test_client())


def ask(client, world: World, route_key: tuple[str, str], caller: str):
    """One cell: the answer (status, problem code) and the response, read to its end."""
    method, _ = route_key
    route = MATRIX[route_key]
    extra = route.body(client, world, caller) if route.body else {}
    headers = {**world.headers(caller), **extra.pop("headers", {})}  # a route's own headers (Idempotency-Key)
    response = client.open(route.path(world, caller), method=method, headers=headers, **extra)
    response.get_data()  # a stream (timeout=0) or an export: read it all, so its slot is given back
    response.close()
    code = None
    if response.status_code >= 400:
        assert response.mimetype == "application/problem+json", f"{response.status_code} {response.mimetype}"
        problem = response.get_json()
        assert problem["status"] == response.status_code, problem
        code = problem["code"]
    return Answer(response.status_code, code), response


def test_the_matrix_has_a_row_for_every_route_of_the_contract_and_no_other():
    problems = coverage_problems()
    assert not problems, "\n".join(problems)


def test_every_caller_gets_the_documented_answer_on_every_route(keyed_app, world):
    client = keyed_app.test_client()
    failures = coverage_problems()
    cells = 0
    for route_key, route in MATRIX.items():
        if route_key not in SPEC_OPERATIONS:
            continue
        method, path = route_key
        for caller in CALLERS:
            cells += 1
            wanted = route.row[caller]
            where = f"{method} {path} as {caller}"
            why = undocumented(route_key, wanted)
            if why:
                failures.append(f"{where}: the matrix expects {wanted}, but {why} (spec and matrix disagree)")
            before = route.mark(client, world, caller) if route.mark and wanted.status >= 400 else None
            try:
                got, response = ask(client, world, route_key, caller)
            except AssertionError as exc:
                failures.append(f"{where}: not a problem+json refusal: {exc}")
                continue
            if got != wanted:
                failures.append(f"{where}: expected {wanted}, got {got}")
                continue
            if route.credential and got.status in (401, 403):
                detail = response.get_json()["detail"]
                if route.credential not in detail:
                    failures.append(f"{where}: the detail {detail!r} does not name the {route.credential!r}")
            if before is not None and route.mark(client, world, caller) != before:
                failures.append(f"{where}: refused, yet it changed {route.mark.__name__} from {before!r}")
            if route.then and got.status == 200:
                try:
                    route.then(response, world, caller)
                except AssertionError as exc:
                    failures.append(f"{where}: {exc}")
    assert not failures, f"{len(failures)} failures in {cells} cells:\n" + "\n".join(failures)
    assert cells == len(SPEC_OPERATIONS) * len(CALLERS), cells
