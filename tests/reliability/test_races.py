"""32 concurrent clients send conflicting commands to the same game.

Every response must be a 200 or a clear 4xx problem; the stream stays gapless;
every acknowledged event is stored exactly once and no human move is stored
without an acknowledgement; retried idempotency keys give the first answer and
append nothing; the stored state equals a fresh replay.
"""
from __future__ import annotations

import random
import uuid

import pytest

from domain.registry import all_games

from . import Ledger, Reply, assert_clean, assert_gapless, assert_replay_equal, race

CLIENTS = 32
COLOURS = "RGYB"
PREDICTIONS = [{"type": "predict", "most": m, "fewest": f} for m in COLOURS for f in COLOURS if m != f]


def auth(token):
    return {"Authorization": f"Bearer {token}"}


def new_game(client, game="scharfe-schoten", players=3, humans=None, rules=None):
    humans = range(players) if humans is None else humans
    seats = [{"kind": "human"} if i in humans else {"kind": "bot", "bot": "random"} for i in range(players)]
    response = client.post("/v1/games", json={"game": game, "players": players, "seats": seats,
                                              "rules": rules or {}})
    assert response.status_code == 201, response.get_json()
    game_id = response.get_json()["id"]
    tokens = {}
    for seat in humans:
        taken = client.post(f"/v1/games/{game_id}/seats/{seat}")
        assert taken.status_code == 201, taken.get_json()
        tokens[seat] = taken.get_json()["token"]
    return game_id, tokens


def command_job(game_id, seat, token, command, key=None, if_match=None):
    headers = auth(token)
    if key is not None:
        headers["Idempotency-Key"] = key
    if if_match is not None:
        headers["If-Match"] = f'"{if_match}"'

    def job(client):
        response = client.post(f"/v1/games/{game_id}/commands", json=command, headers=headers)
        return Reply.of(response, seat=seat, command=command, key=key, if_match=if_match)

    return job


def post(client, ledger, game_id, seat, token, command, key=None):
    reply = command_job(game_id, seat, token, command, key)(client)
    ledger.record(reply)
    return reply


def state_of(app, game_id):
    return app.extensions["stich"].handler.load(game_id)


def acting(app, game_id):
    loaded = state_of(app, game_id)
    return loaded, sorted(app.extensions["stich"].handler.table.to_act(loaded.state))


def accepted(replies):
    return [r for r in replies if r.status == 200]


# -- (b) the simultaneous prediction phase -------------------------------------------------

@pytest.mark.parametrize("players", [3, 4])
def test_every_seat_predicts_at_once_some_twice(app, players):
    """All seats human; 32 predictions race, each seat sending several different ones.
    Exactly one prediction per seat is accepted, the rest are 409, and the revealed
    predictions are exactly the accepted ones."""
    client = app.test_client()
    for game_number in range(4):
        rng = random.Random(f"predict-{players}-{game_number}")
        game_id, tokens = new_game(client, players=players, rules={"rounds": 1})
        ledger = Ledger(game_id, tokens)
        jobs = []
        for i in range(CLIENTS):
            seat = i % players
            jobs.append(command_job(game_id, seat, tokens[seat], rng.choice(PREDICTIONS)))
        replies = race(app, jobs)
        for reply in replies:
            ledger.record(reply)
        wins = accepted(replies)
        assert sorted(r.request["seat"] for r in wins) == list(range(players)), \
            [(r.request["seat"], r.status, r.body.get("code")) for r in replies]
        for reply in replies:
            if reply.status != 200:
                assert reply.status == 409 and reply.body["code"] in ("already_done", "wrong_phase"), reply.body
        events = ledger.verify(app)
        made = [e for e in events if e.type == "PredictionMade"]
        assert sorted(e.data["seat"] for e in made) == list(range(players))
        revealed = [e for e in events if e.type == "PredictionsRevealed"]
        assert len(revealed) == 1
        expected = {r.request["seat"]: {"most": r.request["command"]["most"], "fewest": r.request["command"]["fewest"]}
                    for r in wins}
        assert {s: dict(p) for s, p in enumerate(revealed[0].data["predictions"])} == expected
        view = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[0])).get_json()
        assert view["game_state"]["phase"] == "playing"


# -- (a) + (b): the seat to act sends all its legal commands, the others interfere ----------

def drive_with_races(app, game, players, rules, races, seed, exactly_one=True):
    """Play an all-human game where every step is a race of 32 clients: most send
    different legal commands for a seat that is to act, the rest are other seats
    sending commands too. Returns the ledger (verified)."""
    client = app.test_client()
    rng = random.Random(seed)
    game_id, tokens = new_game(client, game=game, players=players, rules=rules)
    ledger = Ledger(game_id, tokens)
    table = app.extensions["stich"].handler.table
    for _ in range(races):
        loaded, to_act = acting(app, game_id)
        if loaded.state.status == "finished":
            break
        seat = rng.choice(to_act)
        options = table.legal_commands(loaded.state, seat)
        assert options, (seat, to_act)
        jobs = []
        for i in range(CLIENTS):
            if i % 4 == 3:  # another seat, sending something the seat to act may send
                other = rng.randrange(players)
                jobs.append(command_job(game_id, other, tokens[other], rng.choice(options)))
            else:
                jobs.append(command_job(game_id, seat, tokens[seat], options[i % len(options)]))
        before = loaded.seq
        replies = race(app, jobs)
        for reply in replies:
            ledger.record(reply)
        wins = accepted(replies)
        assert wins, [(r.status, r.body) for r in replies]
        if exactly_one:
            # one command's batch is appended; every other command lost its race.
            assert len(wins) == len({tuple(e["seq"] for e in w.body["events"]) for w in wins})
            after = state_of(app, game_id)
            assert after.seq > before
        for reply in replies:
            if reply.status != 200:
                assert reply.status == 409, reply.body
    ledger.verify(app)
    return ledger, game_id, tokens


def test_same_seat_sends_different_legal_commands_at_once_scharfe_schoten(app):
    """3 humans: after any accepted command the same seat is never to act again at
    once (the next seat plays, or the trick winner must take), so exactly one of
    the racing commands is accepted per race."""
    for game_number in range(3):
        client = app.test_client()
        rng = random.Random(f"same-seat-{game_number}")
        game_id, tokens = new_game(client, players=3, rules={"rounds": 1})
        ledger = Ledger(game_id, tokens)
        table = app.extensions["stich"].handler.table
        # predictions sequentially, then race every play and take
        for seat, token in tokens.items():
            post(client, ledger, game_id, seat, token, rng.choice(PREDICTIONS))
        races = 0
        while races < 14:
            loaded, to_act = acting(app, game_id)
            if loaded.state.status == "finished":
                break
            assert len(to_act) == 1
            seat = to_act[0]
            options = table.legal_commands(loaded.state, seat)
            jobs = [command_job(game_id, seat, tokens[seat], options[i % len(options)]) for i in range(CLIENTS - 4)]
            jobs += [command_job(game_id, (seat + 1 + i % 2) % 3, tokens[(seat + 1 + i % 2) % 3], options[0])
                     for i in range(4)]
            replies = race(app, jobs)
            for reply in replies:
                ledger.record(reply)
            wins = accepted(replies)
            assert len(wins) == 1, [(r.request["seat"], r.request["command"], r.status, r.body.get("code"))
                                    for r in replies]
            assert wins[0].request["seat"] == seat
            for reply in replies:
                if reply.status != 200:
                    assert reply.status == 409 and reply.body["code"] in (
                        "not_your_turn", "wrong_phase", "card_not_in_hand", "must_follow_suit", "illegal_choice"), reply.body
            # the accepted command is the one the stream records
            win = wins[0]
            stored = [e for e in app.extensions["stich"].store.read(game_id, after=loaded.seq) if e.actor == seat]
            command = win.request["command"]
            if command["type"] == "play":
                assert stored[0].type == "CardPlayed" and stored[0].data["card"] == command["card"]
            else:
                assert stored[0].type == "CupboardCardTaken" and stored[0].data["colour"] == command["colour"]
            races += 1
        ledger.verify(app)


@pytest.mark.parametrize("game,players,rules", [
    ("scharfe-schoten", 4, {"rounds": 1}),
    ("scharwenzel", 4, {"deals": 1}),
    ("scharwenzel", 6, {"deals": 1}),
    ("schafkopf", 4, {"deals": 1}),
])
def test_several_seats_race_in_every_game(app, game, players, rules):
    if game not in all_games():
        pytest.skip(f"{game} is not built into this tree")
    drive_with_races(app, game, players, rules, races=12, seed=f"several-{game}-{players}", exactly_one=False)


# -- (c) If-Match, Idempotency-Key and duplicate keys mixed ---------------------------------

def test_if_match_and_idempotency_keys_mixed_in_one_race(app):
    """The seat to act: 8 requests with If-Match (the current seq), 8 that share key K1
    (one command), 8 that share key K2 (another), 8 plain. One command wins; every
    request of the winning key answers 200 with the same seqs, the losing key never
    appends; If-Match losers are 412 or 409."""
    client = app.test_client()
    table = app.extensions["stich"].handler.table
    for game_number in range(3):
        rng = random.Random(f"mix-{game_number}")
        game_id, tokens = new_game(client, players=3, rules={"rounds": 1})
        ledger = Ledger(game_id, tokens)
        for seat, token in tokens.items():
            post(client, ledger, game_id, seat, token, rng.choice(PREDICTIONS), key=f"p-{seat}")
        for step in range(10):
            loaded, to_act = acting(app, game_id)
            if loaded.state.status == "finished":
                break
            seat = to_act[0]
            token = tokens[seat]
            options = table.legal_commands(loaded.state, seat)
            c1, c2 = options[0], options[-1]
            k1, k2 = f"k1-{step}-{uuid.uuid4().hex[:6]}", f"k2-{step}-{uuid.uuid4().hex[:6]}"
            jobs = []
            for i in range(8):
                jobs.append(command_job(game_id, seat, token, rng.choice(options), if_match=loaded.seq))
                jobs.append(command_job(game_id, seat, token, c1, key=k1))
                jobs.append(command_job(game_id, seat, token, c2, key=k2))
                jobs.append(command_job(game_id, seat, token, rng.choice(options)))
            replies = race(app, jobs)
            for reply in replies:
                ledger.record(reply)
            wins = accepted(replies)
            distinct = {tuple(e["seq"] for e in w.body["events"]) for w in wins}
            assert len(distinct) == 1, [(r.request, r.status, r.body.get("code")) for r in replies]
            for key in (k1, k2):
                group = [r for r in replies if r.request["key"] == key]
                if any(r.status == 200 for r in group):
                    assert all(r.status == 200 for r in group), (
                        f"a raced retry of the winning key {key!r} was refused: "
                        f"{[(r.status, r.body.get('code'), r.body.get('duplicate')) for r in group]}")
                    assert sum(not r.body["duplicate"] for r in group) <= 1
            for reply in replies:
                if reply.status == 412:
                    assert reply.request["if_match"] is not None and reply.body["current_seq"] > loaded.seq
                elif reply.status != 200:
                    assert reply.status == 409, reply.body
            # a late sequential retry of a winning key is a duplicate and appends nothing
            for key, command in ((k1, c1), (k2, c2)):
                group = [r for r in replies if r.request["key"] == key and r.status == 200]
                if group:
                    seq = state_of(app, game_id).seq
                    again = post(client, ledger, game_id, seat, token, command, key=key)
                    assert again.status == 200 and again.body["duplicate"] is True
                    assert [e["seq"] for e in again.body["events"]] == [e["seq"] for e in group[0].body["events"]]
                    assert state_of(app, game_id).seq == seq
        ledger.verify(app)


@pytest.mark.parametrize("bots", [False, True])
def test_32_clients_retry_one_idempotency_key_at_once(app, bots):
    """The same command with the same key from 32 clients at once: exactly one first
    answer, 31 duplicates, all reporting the same seqs; one batch appended."""
    client = app.test_client()
    for game_number in range(4):
        humans = (0,) if bots else None
        game_id, tokens = new_game(client, players=3, humans=humans, rules={"rounds": 1})
        ledger = Ledger(game_id, tokens)
        command = PREDICTIONS[game_number]
        key = f"same-{uuid.uuid4().hex}"
        replies = race(app, [command_job(game_id, 0, tokens[0], command, key=key) for _ in range(CLIENTS)])
        for reply in replies:
            ledger.record(reply)
        summary = [(r.status, (r.body or {}).get("code"), (r.body or {}).get("duplicate")) for r in replies]
        assert all(r.status == 200 for r in replies), f"raced retries of one key were refused: {summary}"
        assert sum(not r.body["duplicate"] for r in replies) == 1, summary
        assert len({tuple(e["seq"] for e in r.body["events"]) for r in replies}) == 1
        events = ledger.verify(app)
        assert sum(e.type == "PredictionMade" and e.data["seat"] == 0 for e in events) == 1


# -- the dropped connection -----------------------------------------------------------------

@pytest.mark.parametrize("game,players,rules", [
    ("scharfe-schoten", 3, {"rounds": 1}),
    ("scharwenzel", 4, {"deals": 1}),
    ("schafkopf", 4, {"deals": 1, "thrown_in_counts": False}),  # a deal all four pass would end it at once
])
def test_dropped_connection_retry_gets_the_first_answer(app, game, players, rules):
    """A client's response is lost; the retry with the same key returns the same
    events with duplicate: true and appends nothing, even after bots moved on."""
    if game not in all_games():
        pytest.skip(f"{game} is not built into this tree")
    client = app.test_client()
    store = app.extensions["stich"].store
    game_id, tokens = new_game(client, game=game, players=players, humans=(0,), rules=rules)
    ledger = Ledger(game_id, tokens)
    moves = 0
    for step in range(200):
        loaded = state_of(app, game_id)
        if loaded.state.status == "finished":
            break
        options = app.extensions["stich"].handler.table.legal_commands(loaded.state, 0)
        if not options:
            continue
        command = options[step % len(options)]
        key = f"drop-{step}"
        client.post(f"/v1/games/{game_id}/commands", json=command,
                    headers={**auth(tokens[0]), "Idempotency-Key": key})  # the answer is "lost"
        first = [e for e in store.read(game_id, after=loaded.seq) if e.actor == 0]
        assert first, "the lost request's move is not in the stream"
        length = store.seq(game_id)
        retry = post(client, ledger, game_id, 0, tokens[0], command, key=key)
        assert retry.status == 200 and retry.body["duplicate"] is True, retry.body
        assert retry.body["events"][0]["seq"] == first[0].seq
        assert [e["type"] for e in retry.body["events"]][:1] == [first[0].type]
        assert store.seq(game_id) == length, "the retry appended"
        again = post(client, ledger, game_id, 0, tokens[0], command, key=key)
        assert again.body["events"] == retry.body["events"]
        moves += 1
    assert moves > 3
    assert_gapless(app, game_id)
    assert_replay_equal(app, game_id)
    # the stream holds each retried move once, and nothing the human did beyond them
    spans = [seqs for (seat, key), seqs in ledger.by_key.items()]
    assert len(spans) == moves
    covered = [s for span in spans for s in span]
    assert len(covered) == len(set(covered)), "two keys answered with the same events"
    human = {e.seq for e in store.read(game_id) if e.actor == 0}
    assert human <= set(covered), "a human move was stored that no answer reported"


# -- humans and inline bots racing ----------------------------------------------------------

def test_races_with_bots_in_the_game(app):
    """One human seat with 32 clients, two bot seats played inline by whichever
    request thread appended: the bots' moves may interleave with the racers."""
    client = app.test_client()
    table = app.extensions["stich"].handler.table
    for game_number in range(3):
        rng = random.Random(f"bots-{game_number}")
        game_id, tokens = new_game(client, players=3, humans=(0,), rules={"rounds": 1})
        ledger = Ledger(game_id, tokens)
        for step in range(12):
            loaded, to_act = acting(app, game_id)
            if loaded.state.status == "finished":
                break
            assert to_act == [0], to_act  # bots are played inline before any answer
            options = table.legal_commands(loaded.state, 0)
            jobs = [command_job(game_id, 0, tokens[0], options[i % len(options)],
                                key=f"b{step}-{i % 3}" if i % 2 else None) for i in range(CLIENTS)]
            replies = race(app, jobs)
            for reply in replies:
                ledger.record(reply)
            assert accepted(replies)
        ledger.verify(app)
