"""The feed's shortcuts stay faithful: a process that follows a game folds the events another
process appended into its cached game, and the renderings it shares between waiters are each
viewer's own redaction."""
from __future__ import annotations

import random
import threading
import time

import pytest

from api import create_app
from domain.table import TableState
from eventstore.codec import encode_for_viewer

from .play import auth, new_game


@pytest.fixture(scope="module")
def other_app(redis_url):
    """A second API process on the same Redis: its commands reach the first one only through Redis."""
    return create_app(redis_url, bots="inline")


def handler_of(app):
    return app.extensions["stich"].handler


def reader_started(app, game_id) -> None:
    """Wait until this process's reader follows the game, so the next move reaches it as a batch."""
    deadline = time.monotonic() + 10
    while app.extensions["stich.watcher"].current(game_id) is None:
        assert time.monotonic() < deadline, "the reader did not start"
        time.sleep(0.01)


def move_any(client, game_id, tokens, rng):
    for token in tokens.values():
        legal = client.get(f"/v1/games/{game_id}/view", headers=auth(token)).get_json()["legal"]
        if legal:
            answer = client.post(f"/v1/games/{game_id}/commands", json=rng.choice(legal), headers=auth(token))
            assert answer.status_code == 200, answer.get_json()
            return
    raise AssertionError("nobody can move")


def test_a_followed_game_is_kept_current_with_moves_made_elsewhere(app, other_app):
    here, there = app.test_client(), other_app.test_client()
    game_id, tokens = new_game(here, players=3, humans=(0, 1, 2))
    rng = random.Random(7)
    for _ in range(15):  # each move is made in the other process while a long poll here waits for it
        seq = there.get(f"/v1/games/{game_id}").get_json()["seq"]
        polled = {}
        poll = threading.Thread(target=lambda: polled.update(
            here.get(f"/v1/games/{game_id}/events?after={seq}&wait=20").get_json()))
        poll.start()
        reader_started(app, game_id)
        move_any(there, game_id, tokens, rng)
        poll.join(30)
        assert polled["events"][0]["seq"] == seq + 1
        # Only the watcher's batches brought this process past seq: the poll's own load came first.
        cached = handler_of(app).cached(game_id)
        assert cached.seq >= polled["events"][-1]["seq"]
        stored = handler_of(app).store.read(game_id, 0)
        replayed = handler_of(app).table.fold(TableState(), (e.to_domain() for e in stored if e.seq <= cached.seq))
        assert cached.state == replayed
    for token in tokens.values():
        assert (here.get(f"/v1/games/{game_id}/view", headers=auth(token)).get_json()
                == there.get(f"/v1/games/{game_id}/view", headers=auth(token)).get_json())


def test_a_shared_rendering_is_each_viewers_own_redaction(app):
    client = app.test_client()
    game_id, tokens = new_game(client, players=3, humans=(0, 1, 2))
    watcher = app.extensions["stich.watcher"]
    seq = client.get(f"/v1/games/{game_id}").get_json()["seq"]
    with watcher.watching(game_id) as watch:
        reader_started(app, game_id)
        move_any(client, game_id, tokens, random.Random(1))  # a prediction: hidden from the other seats
        fresh = watcher.next_events(watch, seq, timeout_s=10)
        assert fresh and any(e.visibility.scope != "public" for e in fresh)
        for event in fresh:
            forms = {}
            for viewer in (None, 0, 1, 2):
                forms[viewer] = watch.render(event, viewer, False)
                assert forms[viewer] == encode_for_viewer(event, viewer, False)
                assert watch.render(event, viewer, False) is forms[viewer]  # made once, then shared
            assert watch.render(event, None, True) == encode_for_viewer(event, None, True)
            if event.visibility.scope != "public":
                assert len(set(forms.values())) > 1  # the seats did not all get the same text
    pages = {seat: client.get(f"/v1/games/{game_id}/events?after={seq}", headers=auth(token)).get_json()["events"]
             for seat, token in tokens.items()}
    for seat, events in pages.items():
        assert events == [e.for_viewer(seat, False) for e in fresh]
