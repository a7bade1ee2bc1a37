"""Replaying an export's events through the rules: the opening is what creating the game gives,
every deal what the seed gives, every seat's events what one of its legal commands gives, and
every system event the one due. ``expect`` and ``to_domain`` are public: a tournament's bundle
replays its own events with them (``domain/tournament/bundle.py``)."""
from __future__ import annotations

import json
from typing import Any, Callable, Mapping

from .audit_report import Failed, Report
from .errors import InvalidSetup, RuleViolation
from .event import Event, Visibility
from .export_reader import Pause, idle
from .table import Table, TableState

Progress = Callable[[int, int], None]  # (events replayed, events in all)


def _recorded(event: dict) -> tuple:
    return (event["type"], event["upcast_v"], event["upcast_data"], event["visibility"], event["actor"])


def _decided(event: Event, actor: int | str) -> tuple:
    # Through JSON, as the store keeps it: tuples become lists.
    return (event.type, event.v, json.loads(json.dumps(event.data)), event.visibility.to_json(), actor)


def _difference(recorded: tuple, expected: tuple) -> str:
    names = ("type", "v", "data", "visibility", "actor")
    for name, have, want in zip(names, recorded, expected):
        if have == want:
            continue
        if name == "data" and isinstance(have, dict) and isinstance(want, dict):
            keys = sorted(k for k in set(have) | set(want) if have.get(k) != want.get(k))
            return "; ".join(f"data.{k} is {json.dumps(have.get(k))} in the log, the rules give "
                             f"{json.dumps(want.get(k))}" for k in keys)
        return f"{name} is {json.dumps(have)} in the log, the rules give {json.dumps(want)}"
    return "it matches"


def match_count(events: list[dict], at: int, decided: list[Event], actor: int | str) -> int:
    """How many of ``decided`` (acted by ``actor``) equal the recorded events from index ``at``."""
    count = 0
    for offset, event in enumerate(decided):
        if at + offset >= len(events) or _recorded(events[at + offset]) != _decided(event, actor):
            break
        count += 1
    return count


def expect(events: list[dict], at: int, decided: list[Event], actor: int | str, what: str) -> None:
    matched = match_count(events, at, decided, actor)
    if matched == len(decided):
        return
    if at + matched >= len(events):
        raise Failed(len(events), f"the log ends where {what} gives {decided[matched].type} next")
    wrong = events[at + matched]
    expected = _decided(decided[matched], actor)
    raise Failed(wrong["seq"], f"({wrong['type']}) is not what {what} gives: "
                               f"{_difference(_recorded(wrong), expected)}")


def to_domain(event: dict) -> Event:
    return Event(event["type"], event["upcast_data"], Visibility.from_json(event["visibility"]), event["upcast_v"])


def _before_playouts(opening: list[Event], seats: list[dict]) -> list[Event]:
    """``opening`` as a game recorded before seats had ``playouts`` holds it: creating it today records
    its game's default for each search seat; such a seat's search plays at the default anyway."""
    created = opening[0]
    mine = created.data["seats"]
    if all("playouts" in recorded or "playouts" not in made for recorded, made in zip(seats, mine)):
        return opening
    data = {**created.data, "seats": [{k: v for k, v in made.items() if k != "playouts" or "playouts" in recorded}
                                      for recorded, made in zip(seats, mine)]}
    return [Event(created.type, data, created.visibility, created.v), *opening[1:]]


def _before_idle_ceiling(opening: list[Event], recorded: Any) -> list[Event]:
    """``opening`` as a game recorded before the idle ceiling holds it: its limits without ``max_idle_s``
    (such a game takes the default, ``domain/limits.py``)."""
    created = opening[0]
    made = created.data.get("limits")
    if not isinstance(recorded, Mapping) or "max_idle_s" in recorded or not made or "max_idle_s" not in made:
        return opening
    data = {**created.data, "limits": {k: v for k, v in made.items() if k != "max_idle_s"}}
    return [Event(created.type, data, created.visibility, created.v), *opening[1:]]


def replay(table: Table, events: list[dict], seed_hex: str, report: Report, progress: Progress,
            pause: Pause = idle) -> TableState:
    created = events[0]["upcast_data"]
    seats = created.get("seats", [])
    if not isinstance(seats, list) or not all(isinstance(seat, dict) for seat in seats):
        raise Failed(1, f"(GameCreated) records seats {json.dumps(seats)}, not a list of seats")
    if not isinstance(created.get("game"), str):
        raise Failed(1, f"(GameCreated) records game {json.dumps(created.get('game'))}, not a game's name")
    try:
        opening = table.create(created.get("game"), created.get("players"), created.get("rules"),
                               [{"kind": s.get("kind"), **({"bot": s["bot"]} if s.get("bot") else {}),
                                 **({key: s[key] for key in ("budget_ms", "playouts", "player")
                                     if s.get(key) is not None})}
                                for s in seats],
                               created.get("preset_deals") or None, created.get("seed_sha256"),
                               created.get("limits"), created.get("clock"), created.get("start_at"),
                               created.get("hints", False), created.get("rated", False))
    except (RuleViolation, InvalidSetup) as exc:
        raise Failed(1, f"(GameCreated) records a game that cannot be created: {exc}") from None
    opening = _before_idle_ceiling(_before_playouts(opening, seats), created.get("limits"))
    expect(events, 0, opening, "system", "creating a game with these rules and seats")
    state = table.fold(TableState(), opening, events[0]["at"], "system")
    at = len(opening)
    while at < len(events):
        pause()
        stamp = events[at]["at"]  # a clock's times are the recorded ones (hashed like the rest)
        if table.needs_system(state):
            command = table.system_command(state, seed_hex)
            decided = table.decide(state, None, command, stamp)
            what = {"deal": f"deal {command.get('deal')} from the seed and the seats' entropy"
                            + (" (a preset deal)" if command.get("deal", -1) < len(state.setup.preset_deals) else ""),
                    "end_game": f"the ceiling {command.get('reason')}",
                    "reveal_seed": "the seed reveal"}.get(command["type"], command["type"])
            expect(events, at, decided, "system", what)
            report.deals += command["type"] == "deal"
        else:
            decided = _seat_events(table, state, events, at)
            report.commands += events[at]["actor"] != "system"
        state = table.fold(state, decided, stamp, events[at]["actor"])
        at += len(decided)
        progress(at, len(events))
    if not table.is_finished(state):
        raise Failed(len(events), "the replay does not finish the game")
    return state


# The system's commands whose one event names them: a set start (GameCreated.start_at), pause and resume.
SCHEDULED = {"GameStarted": "start", "GamePaused": "pause", "GameResumed": "resume"}


def _seat_events(table: Table, state: TableState, events: list[dict], at: int) -> list[Event]:
    """The events of the command that the event at ``at`` starts: the one legal command whose
    events are exactly the recorded ones (the log keeps events, not commands)."""
    event = events[at]
    actor = event["actor"]
    if actor == "system":  # a seat taken (or taken again), or a move made for a seat whose time ran out
        data = event["upcast_data"]
        if event["type"] == "TurnTimedOut":
            command = {"type": "time_out", "seat": data.get("seat"), "move": data.get("move")}
            what = f"seat {data.get('seat')}'s time running out at {event['at']}"
        elif event["type"] in SCHEDULED:  # a set start, or a tournament's organiser's pause and resume
            command, what = {"type": SCHEDULED[event["type"]]}, f"the system's {SCHEDULED[event['type']]}"
        elif event["type"] == "GameCutShort":  # idle for its ceiling (checked against the times), or aborted
            command = {"type": "end_game", "reason": data.get("reason"),
                       **({"detail": data["detail"]} if "detail" in data else {})}
            what = f"ending the game ({data.get('reason')}) at {event['at']}"
        else:
            command = {"type": "take_seat", "seat": data.get("seat"), "entropy": data.get("entropy", ""),
                       **({"player": data["player"]} if "player" in data else {})}
            what = "taking that seat" + (f" as player {data['player']}" if "player" in data else "")
        try:
            decided = table.decide(state, None, command, event["at"])
        except RuleViolation as exc:
            raise Failed(event["seq"], f"({event['type']}) by the system is not allowed now: {exc}") from None
        expect(events, at, decided, "system", what)
        return decided
    if not isinstance(actor, int) or not 0 <= actor < state.players:
        raise Failed(event["seq"], f"({event['type']}) names actor {actor!r}, not a seat of this game")
    legal = table.legal_commands(state, actor)
    best: tuple[int, list[Event], dict] | None = None
    for command in legal:
        decided = table.decide(state, actor, command)
        matched = match_count(events, at, decided, actor)
        if matched == len(decided):
            return decided
        if best is None or matched > best[0]:
            best = (matched, decided, command)
    if not legal:
        raise Failed(event["seq"], f"({event['type']}) by seat {actor}: seat {actor} may not act now "
                                   f"(to act: {sorted(table.to_act(state))})")
    if best[0] == 0:
        raise Failed(event["seq"], f"({event['type']}) by seat {actor} is what no legal command gives; "
                                   f"legal now: {json.dumps(legal)}")
    expect(events, at, best[1], actor, f"seat {actor}'s command {json.dumps(best[2])}")
    return best[1]  # not reached: expect raised
