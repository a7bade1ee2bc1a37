"""A game as Markdown for people: the table's frame around the game's own deals.

The frame says what every game shares (the game, the seats, the rules, the
seed, the final standings); each game's ``transcript`` writes its deals in its
own terms. Both read the events as the reader may see them, so a transcript of
a running game withholds exactly what the feed withholds.
"""
from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from .game import Game


def render(game: Game, summary: Mapping[str, Any], events: Sequence[Mapping[str, Any]],
           viewer: int | None, analysis: Mapping[str, Any] | None = None) -> str:
    """``summary`` is the game's public summary (``Table.summary`` with its ``id``); ``analysis``,
    a finished game's analysis when one is done (``domain/bots/analysis.py``): its marks close the
    transcript."""
    lines = [f"# {game.title}: game {summary.get('id', '')}", ""]
    lines.append(f"- status: {summary['status']}" + (f" (cut short: {summary['cut_short']})"
                                                     if summary.get("cut_short") else ""))
    lines.append(f"- players: {summary['players']}")
    lines.append("- seats: " + ", ".join(
        f"{s['seat']} {s['kind']}" + (f" ({s['bot']})" if s.get("bot") else "") for s in summary["seats"]))
    lines += listed("rules", summary["rules"])
    if summary.get("hints"):
        lines.append("- hints: on (by the table's agreement, every seat may ask for the search's suggestion)")
    lines.append(f"- seed commitment: `{summary['seed_sha256']}`")
    if summary.get("seed"):
        lines.append(f"- seed (revealed): `{summary['seed']}`")
    lines.append("- written for: " + ("everyone (the game has finished)" if summary["status"] == "finished"
                                      else "a spectator" if viewer is None else f"seat {viewer}"))
    lines.append("")
    lines += game.transcript(events)
    scores = summary.get("scores")
    if scores:
        lines += ["", "## Standings", "", "| seat | total | place |", "|---|---|---|"]
        ranking = scores.get("ranking") or [None] * len(scores["totals"])
        for seat, (total, place) in enumerate(zip(scores["totals"], ranking)):
            lines.append(f"| {seat} | {total} | {place if place is not None else ''} |")
    if analysis and analysis.get("status") == "done":
        lines += [""] + analysis_lines(analysis)
    return "\n".join(lines).rstrip() + "\n"


WIDTH = 100  # characters of a list item's line: a Schafkopf table's rules ran to over 1,000 on one


def listed(name: str, mapping: Mapping[str, Any], indent: str = "") -> list[str]:
    """``mapping`` as a Markdown list item: its plain values packed into lines of at most ``WIDTH``
    characters, then each value that is itself a mapping (Schafkopf's tariffs) as an item nested in it."""
    lines = packed(f"{indent}- {name}:", [f"{key} {json.dumps(value)}" for key, value in mapping.items()
                                           if not isinstance(value, Mapping)], indent + "  ")
    for key, value in mapping.items():
        if isinstance(value, Mapping):
            lines += listed(key, value, indent + "  ")
    return lines


def packed(first: str, items: Sequence[str], indent: str, width: int = WIDTH) -> list[str]:
    """``first`` and the comma-separated ``items`` as lines of at most ``width`` characters, each
    further line starting with ``indent`` (the list item's continuation); an item is never split."""
    lines, line = [], first
    for number, item in enumerate(items):
        text = item + ("," if number < len(items) - 1 else "")
        if line != first and len(line) + 1 + len(text) > width:
            lines.append(line)
            line = indent + text
        else:
            line += " " + text
    return lines + [line]


def analysis_lines(analysis: Mapping[str, Any]) -> list[str]:
    """The analysis's summary per seat, then every marked decision by its seq."""
    budget = analysis.get("budget") or {}
    lines = ["## Analysis", "",
             f"The search judged each decision from what its seat knew ({budget.get('playouts', '?')} "
             f"playouts a decision; thresholds {json.dumps(analysis.get('thresholds') or {})}"
             f"{'; values and losses in ' + analysis['unit'] if analysis.get('unit') else ''}).", "",
             "| seat | decisions | inaccuracies | mistakes | blunders | average loss |", "|---|---|---|---|---|---|"]
    for row in analysis["seats"]:
        s = row["summary"]
        lines.append(f"| {row['seat']} | {s.get('decisions', '')} | {s['inaccuracies']} | {s['mistakes']} | "
                     f"{s['blunders']} | {s['average_loss']} |")
    marked = [d for d in analysis["decisions"] if d.get("mark")]
    if marked:
        lines += ["", "Each value is the search's estimate ± its standard error over the sampled deals "
                      "(\"exact\": the seat's knowledge fixed every hidden card, and the deal was solved); "
                      "a move is marked only where its loss is also more than twice its own.",
                  "", "| seq | seat | mark | played | value | best | value | loss |", "|---|---|---|---|---|---|---|---|"]
        for d in marked:
            lines.append(f"| {d['seq']} | {d['seat']} | {d['mark']} | {_command(d['played']['command'])} | "
                         f"{_estimate(d['played']['value'], d['played'].get('spread'), d.get('exact'))} | "
                         f"{_command(d['best']['command'])} | "
                         f"{_estimate(d['best']['value'], d['best'].get('spread'), d.get('exact'))} | "
                         f"{_estimate(d['loss'], d.get('loss_spread'), d.get('exact'))} |")
    return lines


def _estimate(value, spread, exact) -> str:
    """A value with its spread (an analysis made before spreads were given has none)."""
    if exact:
        return f"{value} (exact)"
    return f"{value} ± {spread}" if spread is not None else f"{value}"


def _command(command: Mapping[str, Any]) -> str:
    rest = " ".join(str(v) for k, v in command.items() if k != "type")
    return f"`{command.get('type', '')}{' ' + rest if rest else ''}`"
