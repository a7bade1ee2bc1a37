"""Reading an export's lines within ``Bounds``, so that reading one costs a bounded amount
whoever wrote it: each line is measured (length, nesting, strings, keys) before or as it is decoded."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable

from .audit_report import Failed
from .table import EVENTS_PER_DEAL, MAX_EVENTS


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


def idle() -> None:
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


def parse_lines(text: str, bounds: Bounds = BOUNDS, pause: Pause = idle) -> list[dict]:
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
