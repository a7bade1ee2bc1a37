"""Seat claims: a free seat's first token, and an abandoned seat's new one.

Both the game's own seat route (``POST /v1/games/{id}/seats/{n}``) and a
tournament participant's (``POST /v1/tournaments/{id}/participants/{n}/seat``)
hand out seat tokens; they share this module so a tournament table's seat is
claimed and reclaimed exactly like any other, only by its participant.
"""
from __future__ import annotations

from domain.errors import RuleViolation
from eventstore.handler import Loaded, Outcome, StaleSeq

from .auth import credential, new_token, token_hash
from .http import runtime
from .problems import Problem


def abandoned(loaded: Loaded, seat: int) -> bool:
    """Taken, then given up after its time-outs: the clock's bot plays it until someone takes it again."""
    state = loaded.state
    return bool(state.seats[seat].taken and state.clocks and state.clocks[seat].abandoned)


def reclaim(loaded: Loaded, seat: int) -> tuple[str, Outcome]:
    """Take a seat abandoned after its time-outs: the bot stops playing it and a new token
    replaces the old one, whose hash is kept as superseded (its holder gets 401s, and its open
    streams end). The append's expected seq makes one of two racing claims win; the credential
    is written after it, so a crash in between leaves a seat nobody's token plays, whose clock
    times out again — never one two tokens play."""
    rt = runtime()
    generation = loaded.state.seats[seat].generation + 1
    try:
        outcome = rt.handler.execute(loaded.game_id, None, {"type": "take_seat", "seat": seat},
                                     expected_seq=loaded.seq)
    except (StaleSeq, RuleViolation):
        raise Problem(409, "seat_taken", f"seat {seat} was just taken again by someone else; look again")
    token = new_token()
    before = rt.store.seat_credentials(loaded.game_id).get(seat)
    rt.store.replace_seat_credential(loaded.game_id, seat, credential(token_hash(token), generation, before))
    return token, outcome
