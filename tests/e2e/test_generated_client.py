"""openapi.yaml is generator-proof: a client generated from it with openapi-python-client plays a whole
game of each of the three games against a real `stich serve`, and no other HTTP code is involved.

Every body the server sends must parse into the generated class of its own game (a union the
generator cannot resolve falls back to a plain dict, which the assertions catch), and the commands
taken from a view's `legal` are posted back as they are.
"""
from __future__ import annotations

import importlib
import random
import subprocess
import sys
from pathlib import Path

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
    """The generated package, imported. The generator reads `application/yaml` (the media type of
    GET /v1/openapi.yaml) as text and JSON Lines (`application/x-ndjson`: exports) as bytes: it
    supports neither media type of its own, and warns otherwise."""
    out = tmp_path_factory.mktemp("generated")
    config = out / "config.yaml"
    config.write_text("content_type_overrides:\n  application/yaml: text/yaml\n"
                      "  application/x-ndjson: application/octet-stream\n")
    result = subprocess.run([str(GENERATOR), "generate", "--path", str(ROOT / "openapi.yaml"),
                             "--output-path", str(out / "stich_client"), "--meta", "none", "--config", str(config)],
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
