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
from typing import Any, Mapping, Sequence

from .audit_report import Failed, Finding, Report
from .export_reader import BOUNDS, Bounds, OverBound, Pause, idle, parse_lines
from .integrity import HEX64, check_chain, check_envelopes, check_seed
from .replay import Progress, replay
from .table import Table

# The verifier's steps live by responsibility: the report (audit_report), reading within bounds
# (export_reader), envelopes, seed and chain (integrity), the rules' replay (replay). The names
# callers use stay this module's too (audit.verify, audit.Report, audit.BOUNDS, ...).
__all__ = ["BOUNDS", "Bounds", "FORMAT", "FORMAT_VERSION", "Failed", "Finding", "HEX64", "OverBound", "Pause",
           "Progress", "Report", "parse_lines", "verify", "verify_text"]

FORMAT = "stich-export"
FORMAT_VERSION = 1
GAME_ID = re.compile(r"[0-9a-f]{16}")
HEADER = "line 1 (header)"
# The header's fields (docs/events.md, "Exports"); ``game_id`` and ``stich`` are labels no event holds.
HEADER_FIELDS = ("format", "version", "game_id", "game", "players", "rules", "seats", "status", "complete",
                 "events", "head", "stich", "scores")


def verify_text(table: Table, text: str, head: str | None = None, progress: Progress | None = None,
                game_id: str | None = None, pause: Pause = idle) -> Report:
    try:
        records = parse_lines(text, pause=pause)
    except Failed as failed:
        return Report(problem=failed.finding, readable=False)
    return verify(table, records, head, progress, game_id, pause)


def verify(table: Table, records: Sequence[Mapping[str, Any]], head: str | None = None,
           progress: Progress | None = None, game_id: str | None = None, pause: Pause = idle) -> Report:
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
            progress: Progress, game_id: str | None = None, pause: Pause = idle) -> None:
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
    events = check_envelopes(events, pause)
    report.passed.append(f"{len(events)} events in order, seq 1..{len(events)}")
    if header.get("events") != len(events):
        raise Failed(None, f"{HEADER}: events says {json.dumps(header.get('events'))} but the file holds "
                           f"{len(events)} event lines")

    seed_hex = check_seed(events)
    report.passed.append("the revealed seed matches the commitment published in event 1")
    check_chain(events, seed_hex, head, pause)
    report.head = events[-1]["hash"]
    report.passed.append("the hash chain holds from the first event to the last"
                         + (", through the head you gave" if head else ""))

    state = replay(table, events, seed_hex, report, progress, pause)
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
