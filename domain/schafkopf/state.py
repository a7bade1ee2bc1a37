"""The immutable state of a Schafkopf session (frozen, picklable, comparable)."""
from __future__ import annotations

from dataclasses import dataclass

from ..trick import Trick
from .ruleset import Config

# Phases of one deal: dealing -> announce -> naming -> play -> (settled) dealing ...
DEALING, ANNOUNCE, NAMING, PLAY, FINISHED = "dealing", "announce", "naming", "play", "finished"


@dataclass(frozen=True)
class Contract:
    """The declared game: who plays what, and (Rufspiel) which Ace is called."""

    game: str
    suit: str | None
    declarer: int

    @property
    def called_ace(self) -> str | None:
        return self.suit + "A" if self.game == "rufspiel" else None

    def to_json(self) -> dict:
        return {"game": self.game, "suit": self.suit, "declarer": self.declarer,
                "called_ace": self.called_ace}


@dataclass(frozen=True)
class Settlement:
    """The public result of one deal (also what ``DealSettled`` carries)."""

    deal: int
    game: str | None  # None: thrown in
    declarers: tuple[int, ...]
    card_points: tuple[int, int]  # (declaring side, defenders)
    tricks: tuple[int, int]
    won: bool
    schneider: bool
    schwarz: bool
    laufende: int
    value: int
    payments: tuple[int, ...]


@dataclass(frozen=True)
class State:
    config: Config
    presets: tuple[tuple[tuple[tuple[str, ...], ...], int | None], ...]
    phase: str = DEALING
    next_deal: int = 0  # the deal index the next deal command must carry
    deals_counted: int = 0  # towards rules.deals
    deal: int = -1  # the current (or last) deal index
    dealer: int = -1
    dealt: tuple[tuple[str, ...], ...] = ()  # hands as dealt (first half = first 4)
    hands: tuple[tuple[str, ...], ...] = ()
    announcements: tuple[tuple[int, str], ...] = ()  # (seat, pass|play)
    namers: tuple[int, ...] = ()  # seats still to speak in the naming round
    naming: tuple[tuple[int, str | None, str | None], ...] = ()  # (seat, game|None=withdrew, suit)
    best: tuple[int, str, str | None] | None = None  # standing highest (seat, game, suit)
    contract: Contract | None = None
    partner: int | None = None  # holder of the called Ace (private until revealed)
    partner_revealed: bool = False
    called_suit_led: bool = False
    ace_free: bool = False  # davonlaufen: the called Ace may be played anyhow
    trick: Trick | None = None
    last_trick: Trick | None = None
    tricks: tuple[tuple[int, Trick], ...] = ()  # (winner, trick) this deal
    totals: tuple[int, ...] = (0, 0, 0, 0)
    settlements: tuple[Settlement, ...] = ()  # one per deal index, thrown-in included

    @property
    def trick_number(self) -> int:
        return len(self.tricks)
