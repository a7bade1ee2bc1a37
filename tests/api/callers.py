"""The world the authorization matrix (``test_authorization_matrix.py``) runs in, and its callers.

A server configured as a deployment with a tournament backend is: an operator key
(``STICH_API_KEYS``), bot turns played inline so a test sees them at once, no rate limits.
Built once per module, through the API only:

* ``game``: Scharfe Schoten with hints, seats 0 and 1 human and taken, seat 2 a bot; both humans
  are to predict, so either seat's command is legal (and either may ask for a hint).
* ``other_game``: another game with its seat 0 taken — that token is "another table's seat".
* ``superseded_game``: a clocked game whose seat 0 timed out, was abandoned and was taken again:
  the seat's first token is superseded (``SeatReclaimed``; README "Turn deadlines").
* ``export``: the export of a finished all-bot game, a valid upload for verify and import.
* ``tournament``: one human participant (joined) and two bots, started; the human's table seat
  is free until the participant asks for it.
* ``seat_tournament``: the same again; the ``takeSeat`` cells try its table's free human seat.
* ``open_tournament``: 15 human slots, nobody joined: each caller joins a slot of its own.
* ``claims``: a bulk pairing of six games, every human seat a named player's: each caller redeems a
  claim of its own; one more claim is redeemed for ``paired_seat``'s token, and one more is ``claim``'s.
* ``player``: a registered player (no seat in ``game``) whose routes the player rows try: its token with
  every scope, one with ``play`` only, a revoked one, and another player's; ``spare_token_id``: a token of
  its that each caller tries to revoke (only ``player`` may).
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass, field

import pytest

from domain.clock import iso, millis
from workers.deadline import time_out_turn

OPERATOR_KEY = "op_" + secrets.token_urlsafe(24)

# Every kind of caller, in the matrix's column order.
CALLERS = (
    "none",               # no credential at all
    "spectator",          # reads a game it does not sit in; the API has no spectator credential
    "this_seat",          # seat 0's own token
    "other_seat",         # seat 1's token, same game
    "other_table",        # a seat token of another game
    "superseded",         # seat 0's first token in the game whose seat 0 was abandoned and retaken
    "participant",        # the tournament's human participant's token
    "organizer",          # the tournament's organizer's token
    "operator",           # X-API-Key: one of the server's operator keys
    "forged_key",         # X-API-Key of the right shape that is none of the server's keys
    "forged_random",      # a bearer token of the right shape that nobody was ever given
    "forged_near",        # this seat's token with its last character changed
    "malformed",          # an Authorization header that is not 'Bearer <token>'
    "paired_seat",        # a seat token a bulk pairing's claim gave, for a seat of another game
    "claim",              # a bulk pairing's claim sent as a bearer token (it is a credential only in its path)
    "player",             # the world's player's token (every scope); the player holds no seat in the world's game
    "player_play_only",   # the same player's token with the scope 'play' only
    "revoked_player",     # a token of the same player's, revoked
    "other_player",       # another player's token (every scope)
)

SCHOTEN = {"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 1}}
HUMAN, BOT = {"kind": "human"}, {"kind": "bot", "bot": "random"}


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def operator() -> dict:
    return {"X-API-Key": OPERATOR_KEY}


def near(token: str) -> str:
    return token[:-1] + ("A" if token[-1] != "A" else "B")


@dataclass(frozen=True)
class World:
    game: str
    seat_tokens: dict[int, str]
    other_game: str
    other_token: str
    superseded_game: str
    superseded_token: str
    export: str
    tournament: str
    organizer: str
    participant: str
    seat_tournament: str
    seat_table: str  # seat_tournament's table game
    seat_table_seat: int  # the human participant's (free) seat there
    open_tournament: str
    paired_token: str
    claim: str
    player: str  # the handle
    player_tokens: dict[str, str]  # caller -> its player token
    spare_token_id: str
    claims: dict[str, str] = field(default_factory=dict)  # caller -> the claim it redeems

    def headers(self, caller: str) -> dict:
        """What ``caller`` sends: its credential, if it has one."""
        return {
            "none": {},
            "spectator": {},
            "this_seat": bearer(self.seat_tokens[0]),
            "other_seat": bearer(self.seat_tokens[1]),
            "other_table": bearer(self.other_token),
            "superseded": bearer(self.superseded_token),
            "participant": bearer(self.participant),
            "organizer": bearer(self.organizer),
            "operator": operator(),
            "forged_key": {"X-API-Key": "op_" + secrets.token_urlsafe(24)},
            "forged_random": bearer("st_" + secrets.token_urlsafe(24)),
            "forged_near": bearer(near(self.seat_tokens[0])),
            "malformed": {"Authorization": f"Token {self.seat_tokens[0]}"},
            "paired_seat": bearer(self.paired_token),
            "claim": bearer(self.claim),
            **{name: bearer(token) for name, token in self.player_tokens.items()},
        }[caller]

    def game_of(self, caller: str) -> str:
        """The game a caller's request names: a superseded token is tried on its own game."""
        return self.superseded_game if caller == "superseded" else self.game

    def seat_of(self, caller: str) -> int | None:
        return {"this_seat": 0, "other_seat": 1}.get(caller)


def created(response) -> dict:
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def new_game(client, seats, **extra) -> str:
    return created(client.post("/v1/games", json={**SCHOTEN, "seats": seats, **extra}, headers=operator()))["id"]


def take(client, game_id: str, seat: int) -> str:
    return created(client.post(f"/v1/games/{game_id}/seats/{seat}"))["token"]


def superseded_seat(app, client) -> tuple[str, str]:
    """A clocked game whose seat 0 times out once (abandoned at once) and is taken again; the
    handler's clock is set so that the deadline has passed, as the deadline worker would see it."""
    handler = app.extensions["stich"].handler
    now = [int(millis(handler.clock()))]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(handler, "clock", lambda: iso(now[0]))
        patch.setattr("workers.deadline.time.time", lambda: now[0] / 1000)
        game_id = new_game(client, [HUMAN, HUMAN, BOT], clock={"per_move_s": 1, "abandon_after": 1})
        first = take(client, game_id, 0)
        take(client, game_id, 1)
        seat0 = client.get(f"/v1/games/{game_id}").get_json()["clock"]["seats"][0]
        now[0] = millis(seat0["deadline_at"])
        assert time_out_turn(game_id, 0, handler.load(game_id).seq, handler=handler) == "timed out"
        assert client.get(f"/v1/games/{game_id}").get_json()["clock"]["seats"][0]["abandoned"]
        now[0] += 1000
        take(client, game_id, 0)  # the seat's second holder: the first token is superseded
    return game_id, first


def started_tournament(client) -> tuple[str, str, str, dict]:
    """(id, organizer token, participant token, its table) of a started one-table tournament."""
    body = created(client.post("/v1/tournaments", headers=operator(), json={
        "game": "scharfe-schoten", "players": 3, "rounds": 1, "deals_per_table": 1,
        "participants": [HUMAN, BOT, BOT]}))
    tid = body["id"]
    participant = created(client.post(f"/v1/tournaments/{tid}/participants/0"))["token"]
    started = client.post(f"/v1/tournaments/{tid}/start", headers=bearer(body["token"]))
    assert started.status_code == 200, started.get_json()
    table = started.get_json()["schedule"][0]["tables"][0]
    assert table["game_id"], table
    return tid, body["token"], participant, table


def build_world(app, client) -> World:
    game = new_game(client, [HUMAN, HUMAN, BOT], hints=True)  # hints: so that the hint route answers a seat
    tokens = {0: take(client, game, 0), 1: take(client, game, 1)}
    other_game = new_game(client, [HUMAN, BOT, BOT])
    other_token = take(client, other_game, 0)
    superseded_game, superseded_token = superseded_seat(app, client)
    finished = new_game(client, [BOT, BOT, BOT])
    assert client.get(f"/v1/games/{finished}").get_json()["status"] == "finished"
    export = client.get(f"/v1/games/{finished}/export").get_data(as_text=True)
    tid, organizer, participant, _ = started_tournament(client)
    seat_tid, _, _, table = started_tournament(client)
    open_tid = created(client.post("/v1/tournaments", headers=operator(), json={
        "game": "scharfe-schoten", "players": 3, "rounds": 1, "deals_per_table": 1,
        "participants": [HUMAN] * 3 * (len(CALLERS) // 3 + 1)}))["id"]
    paired = client.post("/v1/games/bulk", headers={**operator(), "Idempotency-Key": secrets.token_hex(8)}, json={
        "games": [{**SCHOTEN, "seats": [{"kind": "human", "player": f"p{table}-{seat}"} for seat in range(3)]}
                  for table in range(8)]})
    every_claim = [claim["claim"] for claim in created(paired)["claims"]]
    assert len(every_claim) >= len(CALLERS) + 2
    claims = dict(zip(CALLERS, every_claim))
    paired_token = created(client.post(f"/v1/claims/{every_claim[len(CALLERS)]}"))["seats"][0]["token"]
    return World(game=game, seat_tokens=tokens, other_game=other_game, other_token=other_token,
                 superseded_game=superseded_game, superseded_token=superseded_token, export=export,
                 tournament=tid, organizer=organizer, participant=participant, seat_tournament=seat_tid,
                 seat_table=table["game_id"], seat_table_seat=table["participants"].index(0),
                 open_tournament=open_tid, paired_token=paired_token, claim=every_claim[len(CALLERS) + 1],
                 claims=claims, **players_of(client))


def players_of(client) -> dict:
    """A player with a token of every scope, one of 'play' only, a revoked one and a spare; another player."""
    handle = f"w{secrets.token_hex(6)}"
    token = created(client.post("/v1/players", json={"handle": handle}))["token"]

    def issue(scopes):
        return created(client.post(f"/v1/players/{handle}/tokens", json={"scopes": scopes}, headers=bearer(token)))

    play_only = issue(["play"])["token"]
    revoked = issue(["play", "account"])
    assert client.delete(f"/v1/players/{handle}/tokens/{revoked['token_info']['id']}",
                         headers=bearer(token)).status_code == 204
    other = created(client.post("/v1/players", json={"handle": f"o{secrets.token_hex(6)}"}))["token"]
    return {"player": handle, "spare_token_id": issue(["play"])["token_info"]["id"],
            "player_tokens": {"player": token, "player_play_only": play_only, "revoked_player": revoked["token"],
                              "other_player": other}}
