"""A finished tournament's bundle, verified offline: its events, every table, from the revealed seed.

A bundle (``GET /v1/tournaments/{id}/export``, docs/tournaments.md) is JSON
Lines: a header (``format`` ``stich-tournament-export``, ``tournament_id``,
``events``, ``tables``, ``head``, ``stich``), the tournament's events, then
each recorded table's game export (its own header and events), in the order
the tables finished. ``verify`` checks, and stops at the first thing wrong,
naming the tournament event or the table it is found at:

1. the tournament's events: envelopes and seqs, the seed revealed last matches
   the commitment in ``TournamentCreated``, the hash chain (as a game's);
2. every table's export, with the game verifier (``domain/audit.py``);
3. the replay: ``TournamentCreated`` is what creating the tournament with its
   configuration gives; every organizer's and participant's event (join,
   start, pause, resume, withdraw, abort) is what its command gives, the
   abort's standings included; every ``RoundDrawn`` is the seating (and the
   duplicate deals) the seed gives; every table's game was created with the
   seats, rules, clock and preset deals the round gives it (who sat where, and
   the round's deals turned for its table); every ``TableFinished`` holds its
   verified game's final totals and places, and every ``RoundFinished`` and
   ``TournamentFinished`` the standings recomputed from them.

``tournament_id`` and ``stich`` are labels, as a game export's are; a table
is found by its header's ``game_id``, which must be the id its tournament,
round and table derive. Standard library only.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from .. import audit
from ..audit import Failed, Finding
from ..integrity import check_chain, check_envelopes
from ..replay import expect, to_domain
from ..game import rank_places
from ..shuffle import seed_commitment
from ..table import Table
from .config import LENGTH_RULE, OTHER_LENGTH_RULES
from .decider import FINAL_EVENT, Tournaments, table_game_id
from .state import TournamentState

FORMAT = "stich-tournament-export"
FORMAT_VERSION = 1
MAX_TABLES = 16 * 128  # rounds x tables a round: the most a tournament opens
MAX_EVENTS = 16 * 128 * 3 + 256 + 64  # its tables' events, the joins, the rest
# The commands that people give, re-decided from the data their events record.
PEOPLE = {"ParticipantJoined": lambda d: {"type": "join", "participant": d.get("participant"),
                                          **({"player": d["player"]} if "player" in d else {})},
          "TournamentStarted": lambda d: {"type": "start"},
          "TournamentPaused": lambda d: {"type": "pause", "reason": d.get("reason", "")},
          "TournamentResumed": lambda d: {"type": "resume"},
          "ParticipantWithdrawn": lambda d: {"type": "withdraw", "participant": d.get("participant"),
                                             "bot": d.get("bot")},
          "TournamentAborted": lambda d: {"type": "abort", "reason": d.get("reason")}}


@dataclass
class Report:
    tournament_id: str | None = None
    events: int = 0
    tables: int = 0
    passed: list[str] = field(default_factory=list)
    problem: str | None = None
    readable: bool = True

    @property
    def ok(self) -> bool:
        return self.problem is None

    def lines(self) -> list[str]:
        name = f"tournament {self.tournament_id or '?'}"
        out = [f"{name}: {self.events} events, {self.tables} table(s)"]
        out += [f"  ok    {check}" for check in self.passed]
        if self.problem is not None:
            out.append(f"  FAIL  {self.problem}")
        out.append("VERIFIED" if self.ok else "NOT VERIFIED")
        return out


class Wrong(Exception):
    """The first thing wrong, said where it is (a tournament event, a table)."""


def is_bundle(text: str) -> bool:
    first = text.split("\n", 1)[0]
    try:
        return json.loads(first).get("format") == FORMAT
    except (ValueError, AttributeError):
        return False


def verify_text(games: Mapping[str, Any], text: str, pause: Callable[[], None] = lambda: None) -> Report:
    report = Report()
    try:
        header, events, tables = _split(text)
        report.tournament_id, report.events, report.tables = header.get("tournament_id"), len(events), len(tables)
        _verify(Tournaments(games), Table(games), header, events, tables, report, pause)
    except Wrong as wrong:
        report.problem = str(wrong)
    return report


def _split(text: str) -> tuple[dict, list[dict], list[str]]:
    """The header, the tournament's event records and each table's export text (bounded)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    try:
        header = json.loads(lines[0]) if lines else None
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise Wrong(f"line 1 is not a tournament bundle header (format {FORMAT!r})")
    if header.get("version") != FORMAT_VERSION:
        raise Wrong(f"line 1 (header): bundle format version {header.get('version')!r}; this verifier reads "
                    f"{FORMAT_VERSION}")
    count, tables = header.get("events"), header.get("tables")
    if not (isinstance(count, int) and 1 <= count <= MAX_EVENTS and isinstance(tables, int)
            and 0 <= tables <= MAX_TABLES):
        raise Wrong(f"line 1 (header): events must be 1..{MAX_EVENTS} and tables 0..{MAX_TABLES}")
    try:
        events = [json.loads(line) for line in lines[1:1 + count]]
    except ValueError as exc:
        raise Wrong(f"the tournament's events are not JSON lines: {exc}") from None
    if len(events) != count or not all(isinstance(e, dict) for e in events):
        raise Wrong(f"line 1 (header): events says {count}, but the bundle holds fewer event lines")
    chunks, at = [], 1 + count
    for number in range(tables):
        if at >= len(lines):
            raise Wrong(f"line 1 (header): tables says {tables}, but the bundle holds {number}")
        try:
            first = json.loads(lines[at])
            size = first["events"]
        except (ValueError, KeyError, TypeError):
            raise Wrong(f"line {at + 1}: not the header of table export {number + 1}") from None
        if not isinstance(size, int) or not 1 <= size <= audit.BOUNDS.lines:
            raise Wrong(f"line {at + 1}: table export {number + 1} claims {size!r} events")
        chunks.append("\n".join(lines[at:at + 1 + size]) + "\n")
        at += 1 + size
    if at != len(lines):
        raise Wrong(f"line {at + 1}: the bundle goes on after its {tables} table exports")
    return header, events, chunks


def _verify(tournaments: Tournaments, table: Table, header: dict, raw_events: list[dict], chunks: list[str],
            report: Report, pause: Callable[[], None]) -> None:
    tid = header.get("tournament_id")
    try:
        events = check_envelopes(raw_events, pause)  # the envelope as a game's
        seed_hex = _check_seed(events)
        check_chain(events, seed_hex, None, pause)
    except Failed as failed:
        raise Wrong(f"tournament {failed.finding}") from None
    if header.get("head") != events[-1]["hash"]:
        raise Wrong("line 1 (header): head is not the last tournament event's hash")
    report.passed.append(f"{len(events)} tournament events in order; the seed revealed last matches the "
                         "commitment in TournamentCreated; the hash chain holds")

    games: dict[str, tuple[dict, audit.Report]] = {}
    for number, chunk in enumerate(chunks, 1):
        game_report = audit.verify_text(table, chunk, pause=pause)
        if not game_report.ok:
            raise Wrong(f"table export {number} (game {game_report.game_id}): {game_report.problem}")
        records = audit.parse_lines(chunk)
        games[game_report.game_id] = (records[1], game_report)
    report.passed.append(f"every table's game verifies ({len(chunks)} tables)")

    _replay(tournaments, tid, events, seed_hex, games, pause)
    report.passed.append("every round's seating and duplicate deals are the seed's; every table was created "
                         "with its round's seats, rules and deals; every organizer's event is its command's; "
                         "every table's results are its game's, and every standing the recomputed one")


def _check_seed(events: list[dict]) -> str:
    last, first = events[-1], events[0]
    if last["type"] != FINAL_EVENT:
        raise Failed(last["seq"], f"the tournament has not finished: its last event is {last['type']}")
    seed_hex = last["data"].get("seed")
    if not isinstance(seed_hex, str) or not audit.HEX64.fullmatch(seed_hex):
        raise Failed(last["seq"], "SeedRevealed holds no 32-byte hex seed")
    if first["type"] != "TournamentCreated":
        raise Failed(1, f"is {first['type']}, not TournamentCreated")
    if seed_commitment(bytes.fromhex(seed_hex)) != first["data"].get("seed_sha256"):
        raise Failed(last["seq"], "SeedRevealed: the seed does not match seed_sha256, the commitment in event 1")
    return seed_hex


def _replay(tournaments: Tournaments, tid: Any, events: list[dict], seed_hex: str,
            games: dict[str, tuple[dict, audit.Report]], pause: Callable[[], None]) -> TournamentState:
    first = events[0]
    config = {k: v for k, v in first["data"].items() if k != "seed_sha256"}
    if isinstance(config.get("rules"), dict) and config.get("game") in LENGTH_RULE:
        # The recorded rules are complete, the length included, which a creation may not set itself.
        length = (LENGTH_RULE[config["game"]], *OTHER_LENGTH_RULES.get(config["game"], ()))
        config["rules"] = {k: v for k, v in config["rules"].items() if k not in length}
    try:
        created = tournaments.create(config, first["data"]["seed_sha256"])
    except Exception as exc:  # an invalid configuration, whichever way it is wrong
        raise Wrong(f"tournament event 1 (TournamentCreated): not a configuration stich creates: {exc}") from None
    _expect(events, 0, created, "creating the tournament with its configuration")
    state = tournaments.fold(tournaments.empty(), [to_domain(first)])
    at = 1
    while at < len(events):
        pause()
        event = events[at]
        kind, data = event["type"], event["upcast_data"]
        if kind in PEOPLE:
            command, what = PEOPLE[kind](data), f"the {kind} command its data names"
        elif kind == "TableOpened":
            command, what = {"type": "open_table", "round": data.get("round"), "table": data.get("table"),
                             "game_id": data.get("game_id")}, "opening the table"
            _check_opened(tournaments, tid, state, data, games, event["seq"])
        elif kind == "TableFinished":
            command, what = _finish_command(state, data, games, event["seq"]), "its table game's final scores"
        else:
            command = tournaments.system_command(state, seed_hex)
            what = "the seed and the tables' results"
            if command is None:
                raise Wrong(f"tournament event {event['seq']} ({kind}): nothing is due from the system here")
        try:
            decided = tournaments.decide(state, None, command)
        except Exception as exc:
            raise Wrong(f"tournament event {event['seq']} ({kind}): the rules refuse it: {exc}") from None
        _expect(events, at, decided, what)
        state = tournaments.fold(state, [to_domain(e) for e in events[at:at + len(decided)]])
        at += len(decided)
    if tournaments.needs_system(state) or state.status != "finished":
        raise Wrong("the tournament's events end before it has finished")
    recorded = {slot.game_id for round_ in state.rounds for slot in round_.tables if slot.finished}
    extra = sorted(set(games) - recorded)
    if extra:
        raise Wrong(f"table export of game {extra[0]}: no TableFinished of this tournament names it")
    return state


def _expect(events: list[dict], at: int, decided, what: str) -> None:
    try:
        expect(events, at, decided, "system", what)
    except Failed as failed:
        raise Wrong(f"tournament {failed.finding}") from None


def _check_opened(tournaments: Tournaments, tid: Any, state: TournamentState, data: dict,
                  games: dict[str, tuple[dict, audit.Report]], seq: int) -> None:
    """The table's game is the one its round seats, rules and deals (when its export is in the bundle:
    a table the abort left unrecorded may be missing)."""
    round_, table_number, game_id = data.get("round"), data.get("table"), data.get("game_id")
    where = f"tournament event {seq} (TableOpened, round {round_} table {table_number})"
    if isinstance(tid, str) and game_id != table_game_id(tid, round_, table_number):
        raise Wrong(f"{where}: game_id {game_id!r} is not the id round {round_}, table {table_number} derive")
    if game_id not in games:
        return
    if not (isinstance(round_, int) and 1 <= round_ <= len(state.rounds)
            and isinstance(table_number, int) and 0 <= table_number < len(state.rounds[round_ - 1].tables)):
        return  # the decider refuses it, naming the event
    created = games[game_id][0]
    setup = tournaments.table_setup(state, round_, table_number)
    have = created["data"]
    wanted = {"game": setup["game"], "players": setup["players"], "rules": setup["rules"],
              "seats": [{k: s[k] for k in ("kind", "bot", "player") if k in s} for s in setup["seats"]],
              "preset_deals": json.loads(json.dumps(setup["preset_deals"] or [])), "clock": setup["clock"],
              "rated": setup["rated"]}
    seats = [{k: v for k, v in seat.items() if k in ("kind", "bot", "player")} for seat in have.get("seats") or ()]
    actual = {"game": have.get("game"), "players": have.get("players"), "rules": have.get("rules"),
              "seats": seats, "preset_deals": have.get("preset_deals") or [], "clock": have.get("clock"),
              "rated": bool(have.get("rated"))}
    for key in ("game", "players", "rules", "seats", "preset_deals", "clock", "rated"):
        if actual[key] != wanted[key]:
            what = {"seats": "who sits where (its seats' kinds, bots and players)", "preset_deals": "the round's deals"}
            raise Wrong(f"table game {game_id} (round {round_}, table {table_number}), event 1 (GameCreated): "
                        f"{key} is not {what.get(key, 'what its round gives')}: the game has "
                        f"{json.dumps(actual[key])[:200]}, the round gives {json.dumps(wanted[key])[:200]}")


def _finish_command(state: TournamentState, data: dict, games: dict[str, tuple[dict, audit.Report]],
                    seq: int) -> dict:
    game_id = data.get("game_id")
    if game_id not in games:
        raise Wrong(f"tournament event {seq} (TableFinished): the bundle holds no export of its game {game_id!r}")
    scores = games[game_id][1].scores or {}
    totals = list(scores.get("totals") or ())
    command = {"type": "finish_table", "round": data.get("round"), "table": data.get("table"), "totals": totals,
               "places": list(scores.get("ranking") or rank_places(totals))}
    if data.get("cut_short") is not None:  # the game's export proves its own ceiling
        command["cut_short"] = data["cut_short"]
    return command


__all__ = ["FORMAT", "FORMAT_VERSION", "Finding", "Report", "is_bundle", "verify_text"]
