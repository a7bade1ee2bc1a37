"""The immutable state of a Schafkopf session (frozen, picklable, comparable)."""
from __future__ import annotations

from dataclasses import dataclass

from ..trick import Trick
from .ruleset import Config

# Phases of one deal:
#   dealing -> [doppeln] -> announce -> naming -> [auction] -> [exchange] -> play
#   -> (settled) dealing ...
# (a Hochzeit is offered inside the announcement, so it has no phase of its own: see hochzeit.py)
# A Schieberrunde deal (after a won Herz-Solo):
#   dealing -> schieber -> [push] -> naming -> play -> (settled) dealing ...
DEALING, DOPPELN, ANNOUNCE, NAMING, EXCHANGE, PLAY, FINISHED = (
    "dealing", "doppeln", "announce", "naming", "exchange", "play", "finished")
AUCTION, SCHIEBER, PUSH = "auction", "schieber", "push"
WIN = 61  # the target without an auction (SK-7)


@dataclass(frozen=True)
class Contract:
    """The declared game: who plays what, and (Rufspiel) which card is called.

    ``call`` is the called card when it is not the suit's Ace (As-Renonce
    with all three Aces in hand calls a Ten, or a King). Ramsch has no
    declarer (``None``).
    """

    game: str
    suit: str | None
    declarer: int | None
    call: str | None = None
    renonce: bool = False
    target: int | None = None  # the auction's winning target (band games with rules.auction)

    @property
    def called_ace(self) -> str | None:
        """The called card (normally the suit's Ace); None outside a Rufspiel."""
        if self.game != "rufspiel":
            return None
        return self.call or self.suit + "A"

    def to_json(self) -> dict:
        out = {"game": self.game, "suit": self.suit, "declarer": self.declarer,
               "called_ace": self.called_ace}
        if self.renonce:
            out["renonce"] = True
        if self.target is not None:
            out["target"] = self.target
        return out


@dataclass(frozen=True)
class Settlement:
    """The public result of one deal (also what ``DealSettled`` carries)."""

    deal: int
    game: str | None  # None: thrown in
    declarers: tuple[int, ...]  # Ramsch: the loser (or the Durchmarsch player)
    card_points: tuple[int, int]  # (declaring side, defenders)
    tricks: tuple[int, int]
    won: bool
    schneider: bool
    schwarz: bool
    laufende: int
    value: int  # the price per payment, multiplier included
    payments: tuple[int, ...]
    multiplier: int = 1  # 2 ** (Doppeln + Stoß + doubled-after-all-pass)
    stock: int = 0  # the pot's change; payments + stock sum to zero
    seat_points: tuple[int, ...] = ()  # Ramsch: card points per seat
    durchmarsch: bool = False
    jungfrauen: tuple[int, ...] = ()
    target: int | None = None  # the points the declarers needed, with rules.auction (band games)
    declarer: int | None = None  # who played it (None: thrown in, Ramsch)
    suit: str | None = None  # the called Ace's suit or the trump suit, where the game has one


@dataclass(frozen=True)
class State:
    config: Config
    presets: tuple[tuple[tuple[tuple[str, ...], ...], int | None], ...]
    phase: str = DEALING
    next_deal: int = 0  # the deal index the next deal command must carry
    deals_counted: int = 0  # towards rules.deals
    deal: int = -1  # the current (or last) deal index
    dealer: int = -1
    dealt: tuple[tuple[str, ...], ...] = ()  # hands as dealt (first half first)
    hands: tuple[tuple[str, ...], ...] = ()
    held: tuple[tuple[str, ...], ...] = ()  # Doppeln: second halves not yet picked up
    doppeln: tuple[tuple[int, bool], ...] = ()  # (seat, doubled) in speaking order
    hochzeit: int | None = None  # the seat offering a Hochzeit
    swap: tuple[int, int, str, str] | None = None  # Hochzeit: (giver, receiver, card given, trump)
    announcements: tuple[tuple[int, str], ...] = ()  # (seat, pass|play)
    namers: tuple[int, ...] = ()  # seats still to speak in the naming round
    naming: tuple[tuple[int, str | None, str | None], ...] = ()  # (seat, game|None=withdrew, suit)
    best: tuple[int, str, str | None] | None = None  # standing highest (seat, game, suit)
    mode: str | None = None  # naming round: "muss" | "renonce" (after all passed) | "schieber"
    target: int = WIN  # the auction's standing target
    holder: int | None = None  # the auction's standing bidder
    bidders: tuple[int, ...] = ()  # auction: seats still to answer the standing bid, in turn
    bids: tuple[tuple[int, int | None], ...] = ()  # auction: (seat, target | None = passed)
    schieber: bool = False  # this deal is a Schieberrunde
    schieber_calls: tuple[tuple[int, bool], ...] = ()  # (seat, plays) — Vorhand, then the dealer
    pushes: tuple[tuple[int, int, tuple[str, ...]], ...] = ()  # Schieberrunde: (from, to, two cards)
    push_hint: tuple[int, dict] | None = None  # Schieberrunde with hinting: (the push's index, its hint)
    contract: Contract | None = None
    partner: int | None = None  # holder of the called card (private until revealed)
    partner_revealed: bool = False
    called_suit_led: bool = False
    ace_free: bool = False  # davonlaufen: the called Ace may be played anyhow
    stoss: tuple[int, ...] = ()  # seats that gave Kontra, Re, Supra, Resupra
    trick: Trick | None = None
    last_trick: Trick | None = None
    tricks: tuple[tuple[int, Trick], ...] = ()  # (winner, trick) this deal
    totals: tuple[int, ...] = (0, 0, 0, 0)
    stock: int = 0  # the pot's balance
    bock: int = 0  # doublings the next game carries (all_pass "redeal_double")
    schieber_due: bool = False  # the next deal is a Schieberrunde (a Herz-Solo was just won)
    settlements: tuple[Settlement, ...] = ()  # one per deal index, thrown-in included

    @property
    def trick_number(self) -> int:
        return len(self.tricks)

    @property
    def doublers(self) -> tuple[int, ...]:
        return tuple(seat for seat, doubled in self.doppeln if doubled)

    @property
    def multiplier(self) -> int:
        return 2 ** (len(self.doublers) + len(self.stoss) + self.bock)

    def cards_played(self, seat: int) -> int:
        played = sum(1 for _, trick in self.tricks for s, _ in trick.plays if s == seat)
        if self.trick is not None:
            played += sum(1 for s, _ in self.trick.plays if s == seat)
        return played
