"""Seat claims: a free seat's first token, and an abandoned seat's new one.

Both the game's own seat route (``POST /v1/games/{id}/seats/{n}``) and a
tournament participant's (``POST /v1/tournaments/{id}/participants/{n}/seat``)
hand out seat tokens; they share this module so a tournament table's seat is
claimed and reclaimed exactly like any other, only by its participant. A
player's seat has no seat token: ``take_as_player`` takes it (or takes it
again) as the player, whose player token is its credential.
"""
from __future__ import annotations

from domain.errors import RuleViolation
from eventstore.handler import Loaded, Outcome, StaleSeq

from .auth import credential, new_token, token_hash
from .http import game_response, runtime
from .problems import Problem


def abandoned(loaded: Loaded, seat: int) -> bool:
    """Taken, then given up after its time-outs: the clock's bot plays it until someone takes it again."""
    state = loaded.state
    return bool(state.seats[seat].taken and state.clocks and state.clocks[seat].abandoned)


def reclaim(loaded: Loaded, seat: int, token: str | None = None) -> tuple[str, Outcome]:
    """Take a seat abandoned after its time-outs: the bot stops playing it and a new token
    replaces the old one, whose hash is kept as superseded (its holder gets 401s, and its open
    streams end). The append's expected seq makes one of two racing claims win; the credential
    is written after it, so a crash in between leaves a seat nobody's token plays, whose clock
    times out again — never one two tokens play. ``token``: the new holder's, when the caller derives
    it (a claim's, ``api/bulk.py``); else a fresh random one."""
    rt = runtime()
    generation = loaded.state.seats[seat].generation + 1
    try:
        outcome = rt.handler.execute(loaded.game_id, None, {"type": "take_seat", "seat": seat},
                                     expected_seq=loaded.seq)
    except (StaleSeq, RuleViolation):
        raise Problem(409, "seat_taken", f"seat {seat} was just taken again by someone else; look again")
    token = token or new_token()
    before = rt.store.seat_credentials(loaded.game_id).get(seat)
    rt.store.replace_seat_credential(loaded.game_id, seat, credential(token_hash(token), generation, before))
    return token, outcome


def take_as_player(loaded: Loaded, seat: int, handle: str, entropy: str):
    """The seat taken by a player as itself (``SeatTaken.player``, public), or taken again once abandoned:
    no seat token, the player token is its credential at this table. Its own seat again is a 200."""
    rt = runtime()
    state = loaded.state
    elsewhere = [n for n, s in enumerate(state.seats) if s.player == handle and n != seat]
    if elsewhere:
        raise Problem(409, "player_seat", f"player {handle} sits at seat {elsewhere[0]} of this game already",
                      player=handle)
    held = state.seats[seat]
    if held.taken and held.player == handle and not abandoned(loaded, seat):
        return game_response({"id": loaded.game_id, "seat": seat, "player": handle, "status": state.status},
                             loaded.seq, 200)
    if held.taken and held.player != handle:
        raise Problem(409, "seat_taken", f"seat {seat} is already taken")
    command = {"type": "take_seat", "seat": seat, "player": handle}
    if not held.taken:
        command["entropy"] = entropy
    try:
        outcome = rt.handler.execute(loaded.game_id, None, command, expected_seq=loaded.seq if held.taken else None)
    except StaleSeq:
        raise Problem(409, "seat_taken", f"seat {seat} was just taken again; look again")
    except RuleViolation as exc:
        raise Problem(409, exc.code, exc.detail)
    body = {"id": loaded.game_id, "seat": seat, "player": handle, "status": outcome.loaded.state.status}
    return game_response(body, outcome.loaded.seq, 201)
