"""The offline verifier: check a finished game's export without trusting the server.

An export (``GET /v1/games/{id}/export``, docs/events.md) is a header line and
then every event. ``verify`` checks, in this order, and stops at the first
event that is wrong, naming it and saying why:

1. the header's format and the envelope of every event; seqs run 1, 2, 3 …
   (a missing or moved event is named where its place is), and the header's
   ``events`` is the number of event lines;
2. the game has finished and its revealed seed matches ``seed_sha256``, the
   commitment in its first event;
3. the hash chain (``domain.chain``): every event's hash from its content,
   the hash before it and the seed; optionally that the last hash is a head
   the auditor kept from the server (then everything up to it is the history
   the server showed);
4. the rules: the first events are what creating a game with its recorded
   rules and seats gives; every deal is the one the seed and the seats'
   entropy give (or the recorded preset); every seat's events are exactly what
   one of the commands legal for that seat at that moment gives (the verifier
   finds that command among the seat's legal commands); the system's events
   (deals, a ceiling, the seed reveal) are exactly the ones due;
5. the header: every claim in it that the events determine is theirs -
   ``game``, ``players`` and ``rules`` are GameCreated's, ``head`` the last
   event's hash, ``seats``, ``status`` and ``complete`` the replayed game's,
   and ``scores`` the final scores the replay gives (a finished game's export
   must carry ``head`` and ``scores``).
   Two fields are labels that no event holds, so nothing can check them:
   ``game_id`` is the exporting server's name for the game (only its form is
   checked, and that it is the game's whose URL the export was fetched from,
   when it was; what identifies the game verifiably is its seed commitment
   and its head: pin the head you got from that server with ``head``), and
   ``stich`` names the version that wrote the export. A header field no
   export has is refused, so nothing unchecked passes as verified.

A wrong header is reported as ``line 1 (header): <field> says … but … says …``.

It needs no server and no Redis: only these rules and the standard library.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from . import chain
from .errors import InvalidSetup, RuleViolation
from .event import Event, Visibility
from .shuffle import seed_commitment
from .table import EVENTS_PER_DEAL, FINAL_EVENT, MAX_EVENTS, Table, TableState
from .upcast import UnknownVersion, upcast

FORMAT = "stich-export"
FORMAT_VERSION = 1
ENVELOPE = ("seq", "type", "v", "at", "actor", "visibility", "data", "hash")
HEX64 = re.compile(r"[0-9a-f]{64}")
GAME_ID = re.compile(r"[0-9a-f]{16}")
HEADER = "line 1 (header)"
# The header's fields (docs/events.md, "Exports"); ``game_id`` and ``stich`` are labels no event holds.
HEADER_FIELDS = ("format", "version", "game_id", "game", "players", "rules", "seats", "status", "complete",
                 "events", "head", "stich", "scores")


@dataclass(frozen=True)
class Finding:
    """The first thing wrong: the event (seq) it is found at, or None for the file as a whole."""

    seq: int | None
    message: str

    def __str__(self) -> str:
        return self.message if self.seq is None else f"event {self.seq}: {self.message}"


@dataclass
class Report:
    game_id: str | None = None
    game: str | None = None
    events: int = 0
    deals: int = 0
    commands: int = 0
    head: str | None = None
    scores: dict | None = None
    passed: list[str] = field(default_factory=list)  # the checks that held, in order
    problem: Finding | None = None
    readable: bool = True  # False: the input is no export at all (not JSON lines, no export header)

    @property
    def ok(self) -> bool:
        return self.problem is None

    def lines(self) -> list[str]:
        """The report ``stich verify`` prints."""
        name = f"game {self.game_id or '?'} ({self.game or '?'})"
        if self.problem is None:
            out = [f"{name}: {self.events} events, {self.deals} deal(s), {self.commands} seat commands"]
        elif not self.readable:
            out = [f"{name}: not read as an export, so nothing was checked"]
        else:  # what was checked before the failure, not zeros that look like an empty game
            out = [f"{name}: {self.events} events read; {len(self.passed)} check(s) held, then one failed"]
        out += [f"  ok    {check}" for check in self.passed]
        if self.problem is not None:
            out.append(f"  FAIL  {self.problem}")
        else:
            out.append(f"  head  {self.head}")
            if self.scores is not None:
                out.append(f"  final totals {self.scores.get('totals')}, ranking {self.scores.get('ranking')}")
        out.append("VERIFIED" if self.ok else "NOT VERIFIED")
        return out


class Failed(Exception):
    def __init__(self, seq: int | None, message: str):
        super().__init__(message)
        self.finding = Finding(seq, message)


@dataclass(frozen=True)
class Bounds:
    """What an export may hold, each bound far above what any legal game writes, so that reading
    an export costs a bounded amount whoever wrote it (openapi.yaml lists them under POST /v1/verify)."""

    # The header and the longest game: its event ceiling, plus what the command that reaches it
    # and the system's end of the game add (less than one deal's events).
    lines: int = 1 + MAX_EVENTS + EVENTS_PER_DEAL
    line_chars: int = 256 * 1024  # GameCreated with 64 preset deals is under 64 KiB (the create body's limit)
    depth: int = 16  # exports nest at most 7 deep
    string_chars: int = 256  # an export's longest strings are 64-digit hashes and entropy
    keys: int = 64  # its widest objects (rules, scores) have about 20 keys


BOUNDS = Bounds()
Pause = Callable[[], None]  # called between lines and between events, so a caller can yield


def _idle() -> None:
    return None


class OverBound(Failed):
    """A line past one of the ``Bounds``: ``line`` is its number, ``bound`` the bound's name."""

    def __init__(self, line: int, bound: str, limit: int, message: str):
        super().__init__(None, f"line {line}: {message}")
        self.line, self.bound, self.limit = line, bound, limit


def _numbered_lines(text: str):
    """(number, start, end) of each line, without splitting the whole text at once."""
    start, number, size = 0, 0, len(text)
    while start < size:
        end = text.find("\n", start)
        end = size if end < 0 else end
        number += 1
        yield number, start, end
        start = end + 1


# A JSON string, escapes included, and what is left of a line once they are gone.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_INNERMOST = re.compile(r"\[\]|\{\}")


def _nesting_over(line: str, depth: int) -> bool | None:
    """Whether ``line`` nests deeper than ``depth`` (None: its brackets do not balance), found
    with a handful of regular-expression passes and no recursion, so before json.loads is tried."""
    if line.count("[") + line.count("{") <= depth:  # most lines: too few brackets to nest that deep
        return False
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", line))
    for _ in range(depth):
        if not brackets:
            return False
        brackets, removed = _INNERMOST.subn("", brackets)
        if not removed:  # no innermost pair left: only unmatched brackets (a line cut off, say)
            return True if brackets.count("[") + brackets.count("{") > depth else None
    return bool(brackets)


def _out_of_bounds(value: Any, bounds: Bounds) -> tuple[str, int, str] | None:
    """The first size bound ``value`` breaks, as (bound, limit, what), or None (its depth is
    already known to be within bounds, which bounds this recursion too)."""
    if isinstance(value, str):
        if len(value) > bounds.string_chars:
            return "string_chars", bounds.string_chars, (f"holds a string of {len(value)} characters; "
                                                         f"at most {bounds.string_chars}")
    elif isinstance(value, dict):
        if len(value) > bounds.keys:
            return "keys", bounds.keys, f"holds an object of {len(value)} keys; at most {bounds.keys}"
        for key, item in value.items():
            found = _out_of_bounds(key, bounds) or _out_of_bounds(item, bounds)
            if found:
                return found
    elif isinstance(value, list):
        for item in value:
            found = _out_of_bounds(item, bounds)
            if found:
                return found
    return None


def parse_lines(text: str, bounds: Bounds = BOUNDS, pause: Pause = _idle) -> list[dict]:
    """An export's JSON lines (blank lines skipped). Raises Failed naming the first line that is
    not a JSON object, or OverBound naming the first line past one of ``bounds`` (checked before
    the line is decoded, or, for depth, before the decoder's recursion can run away)."""
    records: list[dict] = []
    for number, start, end in _numbered_lines(text):
        pause()
        if end - start > bounds.line_chars:
            raise OverBound(number, "line_chars", bounds.line_chars,
                            f"is {end - start} characters long; a line holds at most {bounds.line_chars}")
        line = text[start:end]
        if not line.strip():
            continue
        if len(records) >= bounds.lines:
            raise OverBound(number, "lines", bounds.lines,
                            f"is one line too many: an export holds at most {bounds.lines} lines "
                            "(the header and the longest game's events)")
        too_deep = _nesting_over(line, bounds.depth)
        if too_deep:
            raise OverBound(number, "depth", bounds.depth, f"nests deeper than {bounds.depth} levels")
        if too_deep is None:
            raise Failed(None, f"line {number} is not JSON: its brackets do not balance")
        try:
            record = json.loads(line)
        except RecursionError:  # the C decoder recurses per level: a guard, before the stack runs out
            raise OverBound(number, "depth", bounds.depth, f"nests deeper than {bounds.depth} levels") from None
        except ValueError as exc:
            raise Failed(None, f"line {number} is not JSON: {exc}") from None
        if not isinstance(record, dict):
            raise Failed(None, f"line {number} is not a JSON object")
        broken = _out_of_bounds(record, bounds)
        if broken:
            raise OverBound(number, *broken)
        records.append(record)
    return records


Progress = Callable[[int, int], None]  # (events replayed, events in all)


def verify_text(table: Table, text: str, head: str | None = None, progress: Progress | None = None,
                game_id: str | None = None, pause: Pause = _idle) -> Report:
    try:
        records = parse_lines(text, pause=pause)
    except Failed as failed:
        return Report(problem=failed.finding, readable=False)
    return verify(table, records, head, progress, game_id, pause)


def verify(table: Table, records: Sequence[Mapping[str, Any]], head: str | None = None,
           progress: Progress | None = None, game_id: str | None = None, pause: Pause = _idle) -> Report:
    """Check an export's records (the header, then the events); ``head``: a head hash to pin.
    ``progress`` is called as the replay goes on (a long game takes seconds). ``game_id``: the
    id the header must name, when the caller knows it (the game URL the export came from);
    no event holds it, so without it the header's ``game_id`` is only checked for its form.
    ``pause`` is called between events in every check (a long game's replay takes seconds of
    CPU): a server yields there to its other requests."""
    report = Report()
    try:
        _verify(table, records, head, report, progress or (lambda done, total: None), game_id, pause)
    except Failed as failed:
        report.problem = failed.finding
        report.readable = bool(records) and records[0].get("format") == FORMAT
    return report


def _verify(table: Table, records: Sequence[Mapping[str, Any]], head: str | None, report: Report,
            progress: Progress, game_id: str | None = None, pause: Pause = _idle) -> None:
    if not records:
        raise Failed(None, "the file is empty")
    header, events = records[0], list(records[1:])
    if header.get("format") != FORMAT:
        raise Failed(None, f"line 1 is not a stich export header (format {header.get('format')!r}, expected {FORMAT!r})")
    if header.get("version") != FORMAT_VERSION:
        raise Failed(None, f"{HEADER}: export format version {header.get('version')!r}; "
                           f"this verifier reads {FORMAT_VERSION}")
    report.game_id, report.game = header.get("game_id"), header.get("game")
    report.events = len(events)
    events = _check_envelopes(events, pause)
    report.passed.append(f"{len(events)} events in order, seq 1..{len(events)}")
    if header.get("events") != len(events):
        raise Failed(None, f"{HEADER}: events says {json.dumps(header.get('events'))} but the file holds "
                           f"{len(events)} event lines")

    seed_hex = _check_seed(events)
    report.passed.append("the revealed seed matches the commitment published in event 1")
    _check_chain(events, seed_hex, head, pause)
    report.head = events[-1]["hash"]
    report.passed.append("the hash chain holds from the first event to the last"
                         + (", through the head you gave" if head else ""))

    state = _replay(table, events, seed_hex, report, progress, pause)
    report.passed.append(f"every deal is the one the seed gives ({report.deals} deals)")
    report.passed.append(f"every seat's events follow from a legal command ({report.commands} commands), "
                         "every system event is the one due")
    summary = table.summary(state)
    report.scores = summary["scores"]
    _check_header(header, events, summary, game_id)
    report.passed.append("the header is the events': game, players and rules as GameCreated records them, "
                         "seats and status as replayed, head the last event's hash, and the final scores "
                         "the recomputed ones (game_id and stich are the exporter's labels: no event holds them)")


_ABSENT = object()  # a field the header (or the events) do not have


def _claims(path: str, have: Any, want: Any, source: str) -> list[str]:
    """Where the header's ``have`` differs from ``want``, key by key for objects; ``source`` says
    what gives ``want``, verb included ("GameCreated says")."""
    if isinstance(have, dict) and isinstance(want, dict):
        return [claim for key in sorted(set(have) | set(want), key=str)
                for claim in _claims(f"{path}.{key}", have.get(key, _ABSENT), want.get(key, _ABSENT), source)]
    if have is _ABSENT and want is _ABSENT:
        return []
    if have is _ABSENT:
        return [f"lacks {path}, which {source} {json.dumps(want)}"]
    if want is _ABSENT:
        return [f"{path} says {json.dumps(have)} but {source} nothing of the kind"]
    if json.dumps(have, sort_keys=True) != json.dumps(want, sort_keys=True):
        return [f"{path} says {json.dumps(have)} but {source} {json.dumps(want)}"]
    return []


def _check_header(header: Mapping[str, Any], events: list[dict], summary: Mapping[str, Any],
                  game_id: str | None = None) -> None:
    """Every claim of the header against the events that determine it (see the module's step 5)."""
    unknown = sorted(set(header) - set(HEADER_FIELDS), key=str)
    if unknown:
        raise Failed(None, f"{HEADER}: holds {unknown}, which no export has (nothing can check them)")
    for name, what in (("head", "the last event's hash"), ("scores", "the final scores")):
        if name not in header:
            raise Failed(None, f"{HEADER}: lacks {name}: a finished game's export carries {what}")
    named = header.get("game_id")
    if not isinstance(named, str) or not GAME_ID.fullmatch(named):
        raise Failed(None, f"{HEADER}: game_id {json.dumps(named)} is not a game id (16 lowercase hex digits)")
    if game_id is not None and named != game_id:
        raise Failed(None, f"{HEADER}: game_id says {json.dumps(named)} but the URL it came from names "
                           f"{json.dumps(game_id)}")
    created, stored = events[0]["upcast_data"], events[0]["data"]
    last = events[-1]

    def recorded(name: str):
        # A header written before GameCreated's upcast names it as stored, one written after as
        # upcast (the server reads it so): both are GameCreated's own claim.
        as_stored = stored.get(name, _ABSENT)
        return as_stored if not _claims(name, header.get(name, _ABSENT), as_stored, "") else created.get(name, _ABSENT)

    checks = [
        (name, recorded(name), "GameCreated says") for name in ("game", "players", "rules")
    ] + [
        ("seats", summary["seats"], "the replay gives"),
        ("status", summary["status"], "the replay gives"),
        ("complete", True, "a finished game's export (nothing redacted, the seed revealed) says"),
        ("head", last["hash"], f"the last event's (seq {last['seq']}) hash is"),
        ("scores", summary["scores"], "the final scores recomputed by the replay are"),
    ]
    wrong = [claim for name, want, source in checks
             for claim in _claims(name, header.get(name, _ABSENT), want, source)]
    if wrong:
        raise Failed(None, f"{HEADER}: " + "; ".join(wrong))


def _check_envelopes(events: list[Mapping[str, Any]], pause: Pause = _idle) -> list[dict]:
    out = []
    for index, raw in enumerate(events):
        pause()
        place, line = index + 1, index + 2
        missing = [key for key in ENVELOPE if key not in raw]
        if missing:
            raise Failed(raw.get("seq", place), f"line {line} lacks {missing}")
        if raw["seq"] != place:
            if isinstance(raw["seq"], int) and raw["seq"] > place:
                raise Failed(place, f"is missing or out of order: line {line} holds event {raw['seq']} where "
                                    f"event {place} belongs")
            raise Failed(place, f"is out of order: line {line} holds seq {raw['seq']!r} where event {place} belongs")
        shapes = (("type", str, "a string"), ("at", str, "a string"), ("data", dict, "an object"),
                  ("visibility", dict, "an object"))
        for key, kind, what in shapes:
            if not isinstance(raw[key], kind):
                raise Failed(place, f"line {line}: {key} is {json.dumps(raw[key])}, not {what}")
        if raw["actor"] != "system" and (isinstance(raw["actor"], bool) or not isinstance(raw["actor"], int)):
            raise Failed(place, f"line {line}: actor is {json.dumps(raw['actor'])}, not a seat number or \"system\"")
        if raw.get("redacted"):
            raise Failed(place, "is redacted: the export was made while the game ran, for one seat; "
                                "only a finished game's export holds every card")
        try:
            version, data = upcast(raw["type"], raw["v"], raw["data"])
        except UnknownVersion as exc:
            raise Failed(place, str(exc)) from None
        out.append({**raw, "upcast_v": version, "upcast_data": data})
    if not out:
        raise Failed(None, "the export holds no events")
    return out


def _check_seed(events: list[dict]) -> str:
    last = events[-1]
    if last["type"] != FINAL_EVENT:
        raise Failed(last["seq"], f"the game has not finished: its last event is {last['type']}, not {FINAL_EVENT}")
    seed_hex = last["data"].get("seed")
    if not isinstance(seed_hex, str) or not HEX64.fullmatch(seed_hex):
        raise Failed(last["seq"], "SeedRevealed holds no 32-byte hex seed")
    first = events[0]
    if first["type"] != "GameCreated":
        raise Failed(1, f"is {first['type']}, not GameCreated")
    if seed_commitment(bytes.fromhex(seed_hex)) != first["data"].get("seed_sha256"):
        raise Failed(last["seq"], "SeedRevealed: the seed does not match seed_sha256, the commitment in event 1")
    return seed_hex


def _check_chain(events: list[dict], seed_hex: str, head: str | None, pause: Pause = _idle) -> None:
    previous = chain.GENESIS
    for event in events:
        pause()
        if event["hash"] is None:
            raise Failed(event["seq"], "has no hash: it was stored before the hash chain existed")
        try:
            expected = chain.link(previous, event, seed_hex)
        except chain.NotCanonical as exc:
            raise Failed(event["seq"], f"cannot be hashed: {exc}") from None
        if event["hash"] != expected:
            raise Failed(event["seq"], f"({event['type']}) does not match its hash: the event was changed, "
                                       "or an event before it was removed or moved")
        previous = expected
    if head is not None and head not in {event["hash"] for event in events}:
        raise Failed(events[-1]["seq"], f"the chain never reaches the head you gave ({head}): this is not the "
                                        "history the server showed you")


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


def _match(events: list[dict], at: int, decided: list[Event], actor: int | str) -> int:
    """How many of ``decided`` (acted by ``actor``) equal the recorded events from index ``at``."""
    count = 0
    for offset, event in enumerate(decided):
        if at + offset >= len(events) or _recorded(events[at + offset]) != _decided(event, actor):
            break
        count += 1
    return count


def _expect(events: list[dict], at: int, decided: list[Event], actor: int | str, what: str) -> None:
    matched = _match(events, at, decided, actor)
    if matched == len(decided):
        return
    if at + matched >= len(events):
        raise Failed(len(events), f"the log ends where {what} gives {decided[matched].type} next")
    wrong = events[at + matched]
    expected = _decided(decided[matched], actor)
    raise Failed(wrong["seq"], f"({wrong['type']}) is not what {what} gives: "
                               f"{_difference(_recorded(wrong), expected)}")


def _to_domain(event: dict) -> Event:
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


def _replay(table: Table, events: list[dict], seed_hex: str, report: Report, progress: Progress,
            pause: Pause = _idle) -> TableState:
    created = events[0]["upcast_data"]
    seats = created.get("seats", [])
    if not isinstance(seats, list) or not all(isinstance(seat, dict) for seat in seats):
        raise Failed(1, f"(GameCreated) records seats {json.dumps(seats)}, not a list of seats")
    if not isinstance(created.get("game"), str):
        raise Failed(1, f"(GameCreated) records game {json.dumps(created.get('game'))}, not a game's name")
    try:
        opening = table.create(created.get("game"), created.get("players"), created.get("rules"),
                               [{"kind": s.get("kind"), **({"bot": s["bot"]} if s.get("bot") else {}),
                                 **({key: s[key] for key in ("budget_ms", "playouts") if s.get(key) is not None})}
                                for s in seats],
                               created.get("preset_deals") or None, created.get("seed_sha256"),
                               created.get("limits"), created.get("clock"), created.get("start_at"),
                               created.get("hints", False))
    except (RuleViolation, InvalidSetup) as exc:
        raise Failed(1, f"(GameCreated) records a game that cannot be created: {exc}") from None
    opening = _before_playouts(opening, seats)
    _expect(events, 0, opening, "system", "creating a game with these rules and seats")
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
            _expect(events, at, decided, "system", what)
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
        else:
            command = {"type": "take_seat", "seat": data.get("seat"), "entropy": data.get("entropy", "")}
            what = "taking that seat"
        try:
            decided = table.decide(state, None, command, event["at"])
        except RuleViolation as exc:
            raise Failed(event["seq"], f"({event['type']}) by the system is not allowed now: {exc}") from None
        _expect(events, at, decided, "system", what)
        return decided
    if not isinstance(actor, int) or not 0 <= actor < state.players:
        raise Failed(event["seq"], f"({event['type']}) names actor {actor!r}, not a seat of this game")
    legal = table.legal_commands(state, actor)
    best: tuple[int, list[Event], dict] | None = None
    for command in legal:
        decided = table.decide(state, actor, command)
        matched = _match(events, at, decided, actor)
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
    _expect(events, at, best[1], actor, f"seat {actor}'s command {json.dumps(best[2])}")
    return best[1]  # not reached: _expect raised
