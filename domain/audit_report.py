"""What the verifier finds: the first thing wrong (``Finding``, raised as ``Failed``) and the
report ``stich verify`` prints (``Report``). Shared by every step of the check (``domain/audit.py``)."""
from __future__ import annotations

from dataclasses import dataclass, field


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

