"""The system's commands at every table, whatever the game: a seat taken (or taken again), the set
start, a pause and its resume, a time-out played for a seat, a game cut short (a ceiling, idle, an
aborted tournament) and the seed reveal. Each decides its events from the table's state as the
table's ``decide`` does for a game's own commands (``domain/table.py``); a seat never sends them."""
from __future__ import annotations

import json
import re
from typing import Any, Callable, Mapping

from . import errors
from .clock import deadline_ms, iso, millis, time_out
from .event import Event, only_seat
from .seat import PlayerSeat, check_taker, player_of
from .shuffle import seed_revealed
from .table_state import TableState

ENTROPY_PATTERN = re.compile(r"^[A-Za-z0-9_\-]{0,64}$")
# The reasons a game is cut short besides its ceilings (``end_game``): nothing happened for max_idle_s,
# or its tournament was aborted (the system's command: the game alone cannot tell, its tournament can).
IDLE, ABORTED = "idle", "aborted"
MAX_DETAIL = 200  # characters of an abort's detail


def take_seat(state: TableState, command: Mapping[str, Any]) -> list[Event]:
    seat = command.get("seat")
    if not isinstance(seat, int) or not 0 <= seat < state.players:
        raise errors.InvalidCommand(f"no seat {seat!r}; seats are 0..{state.players - 1}")
    if state.status == "finished" or state.cut_short:  # one that ended before it started included
        raise errors.GameFinished("the game has finished")
    player = player_of(command)
    if state.seats[seat].taken:
        if state.clocks and state.clocks[seat].abandoned and state.status == "active":
            # Taken again (the API hands out a new token): the seat's own entropy stays, deals do not
            # change; a player's seat only by its player.
            if state.seats[seat].player is not None and player != state.seats[seat].player:
                raise PlayerSeat(f"seat {seat} is player {state.seats[seat].player}'s: only that player "
                                 "takes it again")
            data = {"seat": seat, "generation": state.seats[seat].generation + 1}
            if player is not None:
                data["player"] = player
            return [Event("SeatReclaimed", data)]
        raise errors.SeatTaken(f"seat {seat} is already taken")
    entropy = command.get("entropy") or ""
    if not isinstance(entropy, str) or not ENTROPY_PATTERN.match(entropy):
        raise errors.InvalidCommand("entropy must be at most 64 characters of A-Z a-z 0-9 _ -")
    check_taker(state.seats, seat, player)
    if state.rated and state.seats[seat].kind == "human" and player is None:
        raise PlayerSeat("a rated game's human seats are players': take it as a player")
    data = {"seat": seat, "kind": state.seats[seat].kind, "entropy": entropy}
    if player is not None:  # public: who sits where is part of the record
        data["player"] = player
    events = [Event("SeatTaken", data)]
    # A game with a set start waits for the system's ``start`` at that time, however early it filled.
    if all(s.taken for i, s in enumerate(state.seats) if i != seat) and state.start_at_ms is None:
        events.append(Event("GameStarted", {}))
    return events


def start(state: TableState, at: str | None) -> list[Event]:
    """The scheduled start of a game created with ``start_at``: decided at the time it is stamped with."""
    if state.start_at_ms is None:
        raise errors.WrongPhase("only a game created with start_at is started by the system")
    if state.status != "waiting":
        raise errors.AlreadyDone("the game has started")
    if not all(seat.taken for seat in state.seats):
        raise errors.WrongPhase("the game starts when every seat is taken")
    if at is None or millis(at) < state.start_at_ms:
        raise errors.WrongPhase(f"the game starts at {iso(state.start_at_ms)}")
    return [Event("GameStarted", {})]


def pause_or_resume(state: TableState, pause: bool) -> list[Event]:
    """A pause between moves (a tournament's organiser's): no seat or bot acts, no deal is made and
    no clock runs until ``resume``, which gives every running clock back the time it had left. A
    table still waiting for its seats is paused too: it starts, when they are taken, paused."""
    if state.status == "finished" or state.cut_short:
        raise errors.GameFinished("the game has finished")
    if state.status not in ("waiting", "active"):
        raise errors.WrongPhase("only a game being played or waiting for its seats is paused or resumed")
    if state.paused == pause:
        raise errors.AlreadyDone("the game is paused already" if pause else "the game is not paused")
    # Pausing and resuming are events too: near the ceiling a game is not paused again (its resume
    # always is allowed), so no loop of them grows a game past its max_events, waiting or not.
    if pause and state.limits is not None and state.events + 2 > state.limits.max_events:
        raise errors.WrongPhase(f"the game is at its ceiling of {state.limits.max_events} events: "
                                "it is not paused again")
    return [Event("GamePaused", {})] if pause else [Event("GameResumed", {})]


def time_out_seat(state: TableState, command: Mapping[str, Any], at: str | None,
                  legal_commands: Callable[[TableState, int], list[dict]]) -> list[Event]:
    """The system plays for a seat whose time ran out, with the move its clock's bot chose."""
    if state.clock is None:
        raise errors.WrongPhase("this game has no clock")
    seat = command.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.players:
        raise errors.InvalidCommand(f"no seat {seat!r}; seats are 0..{state.players - 1}")
    if at is None:
        raise errors.InvalidCommand("a time-out is decided at the time its events are stamped with")
    due = deadline_ms(state.clock, state.clocks[seat])
    if due is None or state.status != "active" or state.cut_short or state.paused:
        raise errors.WrongPhase(f"seat {seat} is not on the clock")
    if millis(at) < due:
        raise errors.WrongPhase(f"seat {seat} has time until {iso(due)}")
    move = command.get("move")
    legal = legal_commands(state, seat)
    if not any(same_command(move, option) for option in legal):
        raise errors.InvalidCommand(f"the move made for seat {seat} must be one of its legal commands")
    after = time_out(state.clock, state.clocks[seat])
    data = {"seat": seat, "seq": state.events, "move": move, "timeouts": after.timeouts,
            "abandoned": after.abandoned}
    # The move may be a hidden one (a card pushed to a partner): only the seat sees it until the end.
    timed_out = Event("TurnTimedOut", data, only_seat(seat, "seat", "seq", "timeouts", "abandoned"))
    return [timed_out] + state.game.decide(state.inner, seat, move)


def end_game(state: TableState, command: Mapping[str, Any], at: str | None) -> list[Event]:
    """The system cuts a game short: at one of its ceilings, when it has been idle for ``max_idle_s``
    (decided at the time its event is stamped with), or when its tournament was aborted."""
    reason = command.get("reason")
    if state.status == "finished" or state.cut_short:
        raise errors.GameFinished("the game has finished")
    if reason == IDLE:
        return end_idle(state, at)
    if reason == ABORTED:
        detail = command.get("detail", "")
        if not isinstance(detail, str) or len(detail) > MAX_DETAIL:
            raise errors.InvalidCommand(f"an abort's detail is at most {MAX_DETAIL} characters")
        if state.status not in ("waiting", "active"):
            raise errors.WrongPhase("only a game waiting or being played is aborted")
        return [Event("GameCutShort", {"reason": ABORTED, "detail": detail, "events": state.events})]
    if state.status != "active" or reason != ceiling_reached(state):
        raise errors.WrongPhase("a game is cut short only when it reaches one of its limits")
    limit = getattr(state.limits, reason)
    return [Event("GameCutShort", {"reason": reason, "limit": limit, "events": state.events})]


def end_idle(state: TableState, at: str | None) -> list[Event]:
    if state.status not in ("waiting", "active") or state.paused:
        # A paused table waits for its tournament, whose own idle rule ends it (workers/idle.py).
        raise errors.WrongPhase("only a game waiting or being played, not paused, ends for being idle")
    if at is None or state.last_at is None:
        raise errors.InvalidCommand("an idle game is ended at the time its events are stamped with")
    limit = state.limits.max_idle_s
    if millis(at) - millis(state.last_at) < limit * 1000:
        raise errors.WrongPhase(f"the game is idle since {state.last_at}: it ends {limit} s after that")
    return [Event("GameCutShort", {"reason": IDLE, "limit": limit, "events": state.events,
                                   "idle_since": state.last_at})]


def ceiling_reached(state: TableState) -> str | None:
    """The ceiling that ends the game now, if any (checked between commands)."""
    if state.limits is None or state.game.is_finished(state.inner):
        return None
    if state.events >= state.limits.max_events:
        return "max_events"
    request = state.game.pending_deal(state.inner)
    if request is not None and request.index >= state.limits.max_deals:
        return "max_deals"
    return None


def reveal_seed(state: TableState, command: Mapping[str, Any]) -> list[Event]:
    ended = state.cut_short or (state.status == "active" and state.game.is_finished(state.inner))
    if state.status not in ("waiting", "active") or not ended:
        raise errors.WrongPhase("the seed is revealed when the game has finished")
    return [seed_revealed(command.get("seed", ""), state.seed_sha256)]


def same_command(a: Any, b: Any) -> bool:
    """Commands equal as JSON (a move read back from JSON has lists where the rules made tuples)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
