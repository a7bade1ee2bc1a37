"""Random games through the leak check: nobody sees a card they may not see.

The long version of ``tests/api/test_hidden_information.py`` (its decks,
``leaks`` scanner, SSE reader and prediction check are reused): games of
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
from tests.api.play import auth
from tests.api.test_hidden_information import KINDS, assert_no_hidden_predictions, leaks, sse_events

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


def play(client, app, game, players, rules, full_deck, public, rng, with_sse) -> tuple[int, int]:
    """One game to its end, every response scanned; (responses scanned, moves)."""
    handler = app.extensions["stich"].handler
    store = app.extensions["stich"].store
    body = {"game": game, "players": players, "rules": rules, "seats": [{"kind": "human"}] * players}
    game_id = client.post("/v1/games", json=body).get_json()["id"]
    viewers: dict = {s: auth(client.post(f"/v1/games/{game_id}/seats/{s}").get_json()["token"])
                     for s in range(players)}
    viewers[None] = {}  # a spectator
    seed = store.load_secret(game_id)
    checked = step = 0
    while True:
        loaded = handler.load(game_id)
        if loaded.state.status == "finished":
            break
        table = handler.table
        hands = {s: set(table.view(loaded.state, s)["game_state"].get("hand") or ()) for s in range(players)}
        played = {e.data["card"] for e in store.read(game_id) if e.type == "CardPlayed"}
        deep = step % 7 == 0
        for viewer, headers in viewers.items():
            secrets = full_deck - played - (hands[viewer] if viewer is not None else set())
            received = [client.get(f"/v1/games/{game_id}/view", headers=headers),
                        client.get(f"/v1/games/{game_id}", headers=headers)]
            if deep:
                received.append(client.get(f"/v1/games/{game_id}/events", headers=headers))
                received.append(client.get(f"/v1/games/{game_id}/events?after={max(loaded.seq - 3, 0)}&wait=0.01",
                                           headers=headers))
            for response in received:
                scan(response, secrets, public, seed, f"seat {viewer} at seq {loaded.seq} ({response.request.path})")
                assert_no_hidden_predictions(response.get_json(), viewer)
            checked += len(received)
        seat = rng.choice(sorted(table.to_act(loaded.state)))
        if deep:  # an illegal command's error body must not leak either
            foreign = sorted(full_deck - hands[seat] - played)
            if foreign:
                card = rng.choice(foreign)
                response = client.post(f"/v1/games/{game_id}/commands", json={"type": "play", "card": card},
                                       headers=viewers[seat])
                if response.status_code not in (409, 422):
                    raise Violation(f"playing a foreign card answered {response.status_code}: {response.get_json()}")
                scan(response, full_deck - played - hands[seat] - {card}, public, seed, f"error body for seat {seat}")
                checked += 1
        response = client.post(f"/v1/games/{game_id}/commands", json=rng.choice(table.legal_commands(loaded.state, seat)),
                               headers=viewers[seat])
        if response.status_code != 200:
            raise Violation(f"a legal command answered {response.status_code}: {response.get_json()}")
        answer = response.get_json()
        if answer["view"]["status"] != "finished":
            secrets = full_deck - {e.data["card"] for e in store.read(game_id) if e.type == "CardPlayed"} \
                - set(answer["view"]["game_state"].get("hand") or ())
            scan(response, secrets, public, seed, f"command answer to seat {seat}")
        checked += 1
        step += 1
    if with_sse:  # redacted while running; after the end, the whole feed in the clear
        for headers in viewers.values():
            streamed = sse_events(client, game_id, headers)
            if not streamed or any(e["redacted"] for e in streamed):
                raise Violation(f"SSE of finished game {game_id} is empty or still redacted")
            checked += 1
    final = client.get(f"/v1/games/{game_id}/events?limit=500").get_json()["events"]
    if final[-1]["type"] != "SeedRevealed" or final[-1]["data"]["seed"] != seed or any(e["redacted"] for e in final):
        raise Violation(f"finished game {game_id}: the seed is not revealed last, or events are still redacted")
    return checked + 1, step


def scan(response, secrets: set[str], public: set[str], seed: str, where: str) -> None:
    if response.status_code >= 500 or (response.request.method == "GET" and response.status_code != 200):
        raise Violation(f"{where}: {response.status_code} {response.get_data(as_text=True)[:300]}")
    if seed in response.get_data(as_text=True):
        raise Violation(f"{where}: the seed is in the response")
    found = leaks(response.get_json(), secrets, public)
    if found:
        raise Violation(f"{where}: hidden cards {found[:5]}")
