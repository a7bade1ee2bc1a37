"""openapi.yaml is generator-proof: a client generated from it with openapi-python-client plays a whole
game of each of the three games against a real `stich serve`, and no other HTTP code is involved (but
one plain read of the feed, to hold the timestamps the client hands over to the bytes the server sent).
The client is generated with no configuration and no warning.

Every body the server sends must parse into the generated class of its own game (a union the
generator cannot resolve falls back to a plain dict, which the assertions catch), and the commands
taken from a view's `legal` are posted back as they are.
"""
from __future__ import annotations

import importlib
import inspect
import random
import subprocess
import sys
import typing
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = Path(sys.executable).parent / "openapi-python-client"

pytestmark = pytest.mark.e2e

# Class-name prefixes of the generated models, and a table of each game.
GAMES = {
    "scharfe-schoten": ("ScharfeSchoten", 3, {"rounds": 1}),
    "schafkopf": ("Schafkopf", 4, {"deals": 2}),
    "scharwenzel": ("Scharwenzel", 4, {"deals": 2}),
}
SHARED_EVENTS = {"SeatTaken", "GameStarted", "SeedRevealed"}


@pytest.fixture(scope="module")
def stich_client(tmp_path_factory):
    """The generated package, imported: generated from the contract as it is, with no configuration,
    and with no warning (every operation and every response generated)."""
    out = tmp_path_factory.mktemp("generated")
    result = subprocess.run([str(GENERATOR), "generate", "--path", str(ROOT / "openapi.yaml"),
                             "--output-path", str(out / "stich_client"), "--meta", "none"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "warning" not in (result.stdout + result.stderr).lower(), result.stdout + result.stderr
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module("stich_client")
    finally:
        sys.path.remove(str(out))
        for name in [m for m in sys.modules if m == "stich_client" or m.startswith("stich_client.")]:
            del sys.modules[name]


def load(stich_client, module: str):
    return importlib.import_module(f"stich_client.{module}")


def model(stich_client, name: str):
    return getattr(load(stich_client, "models"), name)


def create_body(stich_client, game: str):
    """The create request, built from the generated classes."""
    prefix, players, rules = GAMES[game]
    seat = model(stich_client, "SeatSpec")
    kind = model(stich_client, "SeatSpecKind")
    bot = model(stich_client, "SeatSpecBot")
    seats = [seat(kind=kind.HUMAN)] + [seat(kind=kind.BOT, bot=bot.RANDOM) for _ in range(players - 1)]
    game_enum = model(stich_client, f"Create{prefix}GameGame")
    return model(stich_client, f"Create{prefix}Game")(
        game=game_enum(game), players=players, rules=model(stich_client, f"{prefix}Rules").from_dict(rules),
        seats=seats)


def is_game_model(value, prefix: str) -> bool:
    return type(value).__module__.startswith("stich_client.models.") and type(value).__name__.startswith(prefix)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_generated_client_plays_a_whole_game(server, stich_client, game):
    prefix = GAMES[game][0]
    create_game = load(stich_client, "api.games.create_game")
    get_game = load(stich_client, "api.games.get_game")
    get_view = load(stich_client, "api.games.get_view")
    take_seat = load(stich_client, "api.seats.take_seat")
    post_command = load(stich_client, "api.commands.post_command")
    list_events = load(stich_client, "api.events.list_events")
    problem = model(stich_client, "Problem")
    status = model(stich_client, "GameStatus")

    anonymous = stich_client.Client(base_url=server["url"], raise_on_unexpected_status=True, timeout=30)
    summary = create_game.sync(client=anonymous, body=create_body(stich_client, game))
    assert type(summary).__name__ == f"{prefix}GameSummary" and summary.status == status.WAITING
    granted = take_seat.sync(summary.id, 0, client=anonymous)
    assert type(granted).__name__ == "SeatGranted" and granted.status == status.ACTIVE
    seat = stich_client.AuthenticatedClient(base_url=server["url"], token=granted.token,
                                            raise_on_unexpected_status=True, timeout=30)

    rng = random.Random(game)
    moves = 0
    for _ in range(3000):
        view = get_view.sync(summary.id, client=seat)
        assert type(view).__name__ == f"{prefix}View", view
        if view.status == status.FINISHED:
            break
        assert type(view.game_state).__name__ == f"{prefix}GameState", view.game_state
        if not view.legal:  # the bots' turn: long-poll for news
            page = list_events.sync(summary.id, client=seat, after=view.seq, wait=10.0)
            assert type(page).__name__ == f"{prefix}EventPage"
            continue
        command = rng.choice(view.legal)
        assert is_game_model(command, prefix), command  # a parsed command of this game, not a dict
        answer = post_command.sync(summary.id, client=seat, body=command, if_match=f'"{view.seq}"',
                                   idempotency_key=f"move-{view.seq}")
        if isinstance(answer, problem):  # the bots moved first (a simultaneous phase): look again
            assert answer.code == "stale_seq", answer
            continue
        assert type(answer).__name__ == f"{prefix}CommandAccepted" and answer.duplicate is False
        assert all(is_game_model(event, prefix) or type(event).__name__ in SHARED_EVENTS for event in answer.events)
        moves += 1
    else:
        pytest.fail("the game did not finish")
    assert moves > 0

    final = get_game.sync(summary.id, client=anonymous)
    assert type(final).__name__ == f"{prefix}GameSummary" and final.status == status.FINISHED
    assert len(final.scores.totals) == GAMES[game][1] and final.seed
    history = list_events.sync(summary.id, client=anonymous, after=0, limit=500)
    assert type(history).__name__ == f"{prefix}EventPage"
    kinds = [type(event).__name__ for event in history.events]
    assert all(kind.startswith(prefix) or kind in SHARED_EVENTS for kind in kinds), kinds
    assert kinds[0] == f"{prefix}GameCreated" and kinds[-1] == "SeedRevealed"
    assert [event.seq for event in history.events] == list(range(1, len(kinds) + 1))
    assert not any(event.redacted for event in history.events)  # finished: everything public
    # Timestamps as the server sent them: a string, in UTC with its `Z`, whatever a model does with it.
    raw = httpx.get(f"{server['url']}/v1/games/{summary.id}/events", params={"after": 0, "limit": 500}).json()
    assert [event.at for event in history.events] == [event["at"] for event in raw["events"]]
    assert all(event.to_dict()["at"].endswith("Z") for event in history.events)


def client_kinds(stich_client, module: str) -> set[str]:
    """The client classes the generated function's `client` argument is typed to take."""
    annotation = inspect.signature(load(stich_client, module).sync).parameters["client"].annotation
    return {kind.__name__ for kind in (typing.get_args(annotation) or (annotation,))}


def test_an_operation_open_to_everyone_takes_a_plain_client(stich_client):
    """No `security` (not `[{}]`, which said the same): the generated function takes either client."""
    for module in ("api.players.get_player", "api.games.redeem_claim", "api.audit.export_games"):
        assert client_kinds(stich_client, module) == {"AuthenticatedClient", "Client"}, module


@pytest.mark.xfail(strict=True, reason="openapi-python-client 0.29 types an operation whose security lists {} "
                   "beside a scheme as needing AuthenticatedClient (openapi-generators/openapi-python-client#1372); "
                   "when this passes, say so in docs/openapi-contract.md and drop the mark")
def test_an_optional_credential_is_optional_in_the_generated_client(stich_client):
    for module in ("api.games.get_view", "api.games.create_game", "api.seats.take_seat"):
        assert client_kinds(stich_client, module) == {"AuthenticatedClient", "Client"}, module
