"""Random games through the leak check: nobody sees a card they may not see.

The long version of ``tests/api/test_hidden_information.py``, whose
``play`` (one game, every response scanned) it runs for many games of
every game and player count, taken in turn, every seat human, played with
random legal commands through the API. At every step each seat's and a
spectator's view and summary, and every seventh step the event page, a long
poll and an illegal command's error body, are scanned for any card that is
neither in the viewer's hand nor played, for another seat's hidden
prediction and for the seed; the first few games of each kind also read
SSE. After the end everything, the seed included, must be public.
"""
from __future__ import annotations

import random
import time
from collections import Counter

from api import create_app
from stich.redis_server import PrivateRedis
from tests.api.test_hidden_information import KINDS, play

from . import Violation

SSE_GAMES_PER_KIND = 3  # SSE of a finished game replays every event: costly, so only the first few


def kinds() -> list[tuple[str, int]]:
    """Every game and player count the leak check knows, as (game, players)."""
    return [(game, players) for game, (counts, *_rest) in KINDS.items() for players in counts]


def run(games: int, say, seed: int = 0) -> dict:
    server = PrivateRedis(fsync="everysec").start()
    started = time.monotonic()
    per_kind: Counter = Counter()
    responses = steps = 0
    try:
        app = create_app(server.url, bots="inline")
        client = app.test_client()
        every = kinds()
        report_every = max(1, games // 40)
        for number in range(games):
            game, players = every[number % len(every)]
            _counts, rules, deck, public = KINDS[game]
            rng = random.Random(f"soak-{seed}-{game}-{players}-{number}")
            with_sse = per_kind[(game, players)] < SSE_GAMES_PER_KIND
            try:
                checked, moves = play(client, app, game, players, rules, deck(players), public, rng, with_sse)
            except (AssertionError, Violation) as failure:  # the reused checks assert
                raise Violation(f"game {number + 1} ({game}, {players} players): {failure}",
                                {"games_clean": number, "moves": steps, "responses_scanned": responses}) from None
            per_kind[(game, players)] += 1
            responses += checked
            steps += moves
            if (number + 1) % report_every == 0 or number + 1 == games:
                elapsed = time.monotonic() - started
                say(f"{number + 1}/{games} games clean, {steps} moves, {responses} responses scanned, "
                    f"{(number + 1) / elapsed:.2f} games/s")
    finally:
        server.stop()
    elapsed = time.monotonic() - started
    return {"games": games, "moves": steps, "responses_scanned": responses, "leaks": 0,
            "per_kind": {f"{game}-{players}": n for (game, players), n in sorted(per_kind.items())},
            "games_per_s": round(games / elapsed, 3), "duration_s": round(elapsed, 1)}
