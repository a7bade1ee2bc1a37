"""A Scharwenzel game as Markdown for people: per deal the hands, the bidding, the tout
round, every trick and the score sheet (``Game.transcript``).

The input is the event list the API serves, already redacted for the reader, so every
field is read defensively: a withheld hand reads "hidden", and an unknown or malformed
event becomes a plain line instead of an error.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from .bidding import describe
from .cards import SUIT_NAMES, deck, trump_order

# The table's own events: the API's frame around this transcript tells their story.
TABLE_EVENTS = frozenset({"GameCreated", "SeatTaken", "GameStarted", "GameCutShort", "SeedRevealed"})
HIDDEN = "hidden"
NO_TOUT = "* No tout: "
LEGEND = ("Cards are rank + suit: C clubs, S spades, H hearts, D diamonds: the queen of clubs is Q + C. "
          "Side 0 is the even seats, side 1 the odd seats. Scharwenzel counts tricks, not card points.")
# Deck order of the 36-card deck; the 32-card deck is the same order without the sixes.
ORDER = {card: i for i, card in enumerate(deck(6))}
TRICKS_HEADER = ["| trick | leader | cards in play order (seat: card) | winner | tricks side 0–1 |",
                 "|---|---|---|---|---|"]


def transcript(events: Sequence[Mapping[str, Any]]) -> list[str]:
    writer = _Writer()
    for event in events:
        writer.add(event)
    writer.finish()
    return writer.lines


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _seat(value: Any) -> str:
    return f"seat {value}" if _is_int(value) else HIDDEN


def _side(value: Any) -> str:
    return f"side {value}" if _is_int(value) else HIDDEN


def _pair(value: Any) -> list[int]:
    """A per-side pair of numbers; anything else reads as nothing scored."""
    if isinstance(value, list) and len(value) == 2 and all(_is_int(v) for v in value):
        return list(value)
    return [0, 0]


def _number(value: Any) -> int:
    return value if _is_int(value) else 0


def _cards(value: Any) -> list[str]:
    return [str(card) for card in value] if isinstance(value, list) else []


def _suit(value: Any) -> str:
    return SUIT_NAMES.get(value, HIDDEN) if isinstance(value, str) else HIDDEN


def _hand(cards: list[str]) -> str:
    return " ".join(sorted(cards, key=lambda card: (ORDER.get(card, len(ORDER)), card))) or "(none)"


class _Writer:
    """Reads the events in order and appends Markdown lines to ``lines``."""

    def __init__(self) -> None:
        self.lines: list[str] = [LEGEND]
        self.section: str | None = None
        self.players = 0
        self.plays: list[tuple[Any, str]] = []  # the trick in play: (seat, card)
        self.tally = [0, 0]  # tricks per side in this deal
        self.points, self.threads, self.hooks, self.bock = [0, 0], [0, 0], [0, 0], 0
        self.sheet_due = False
        self.deals = 0  # deals seen, for a deal whose number is missing

    def add(self, event: Any) -> None:
        if not isinstance(event, Mapping):
            self.note("An event that is not an object (not shown).")
            return
        kind = event.get("type")
        kind = kind if isinstance(kind, str) else repr(kind)
        data = event.get("data")
        data = data if isinstance(data, Mapping) else {}
        if kind in TABLE_EVENTS:
            return
        if self.sheet_due and kind != "ThreadWon":
            self.write_sheet()
        if self.plays and kind not in ("CardPlayed", "TrickTaken"):
            self.write_trick(None, None)
        handler = getattr(self, f"read_{kind}", None) if kind in HANDLED else None
        if handler is None:
            self.note(f"Event `{kind}` (v{event.get('v')}): not known to this transcript.")
            return
        try:
            handler(data)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            # A malformed or future shape of a known event must not cost the reader the rest.
            self.note(f"Event `{kind}` could not be read (not shown).")

    def finish(self) -> None:
        if self.plays:
            self.write_trick(None, None)
        if self.sheet_due:
            self.write_sheet()

    def open(self, section: str) -> None:
        if self.section != section:
            self.section = section
            self.lines += ["", f"### {section}", ""]
            if section == "Tricks":
                self.lines += TRICKS_HEADER

    def note(self, text: str) -> None:
        self.open("Other events")
        self.lines.append(f"* {text}")

    # -- the deal and the hands ----------------------------------------------------------
    def read_HandsDealt(self, d: Mapping[str, Any]) -> None:
        sizes, hands = d.get("hand_sizes"), d.get("hands")
        self.players = len(sizes) if isinstance(sizes, list) else len(hands) if isinstance(hands, list) else 0
        self.plays, self.tally = [], [0, 0]
        number, self.deals = d.get("deal"), self.deals + 1
        self.section = None
        self.lines += ["", f"## Deal {number + 1 if _is_int(number) else self.deals}", ""]
        preset = " A preset deal." if d.get("preset") is True else ""
        self.lines.append(f"{_seat(d.get('dealer')).capitalize()} deals; {_seat(d.get('forehand'))} is "
                          f"forehand (bids first and leads the first trick).{preset}")
        self.open("Hands")
        self.lines += ["| seat | side | hand (deck order) |", "|---|---|---|"]
        for seat in range(self.players):
            hand = hands[seat] if isinstance(hands, list) and seat < len(hands) else None
            if isinstance(hand, list):
                shown = _hand(_cards(hand))
            else:
                size = sizes[seat] if isinstance(sizes, list) and _is_int(sizes[seat]) else None
                shown = HIDDEN if size is None else f"{HIDDEN} ({size} cards)"
            self.lines.append(f"| {seat} | {seat % 2} | {shown} |")

    # -- bidding, trumps and the tout round ----------------------------------------------
    def read_BidMade(self, d: Mapping[str, Any]) -> None:
        self.open("Bidding")
        bid = describe(d.get("value"), d.get("besser") is True)
        self.lines.append(f"* {_seat(d.get('seat')).capitalize()} bids {bid}")

    def read_Passed(self, d: Mapping[str, Any]) -> None:
        self.open("Bidding")
        self.lines.append(f"* {_seat(d.get('seat')).capitalize()} passes")

    def read_TrumpsNamed(self, d: Mapping[str, Any]) -> None:
        self.open("Bidding")
        suit, bid = d.get("suit"), d.get("bid")
        if d.get("after_all_passed") is True:
            self.lines.append(f"* All passed: {_suit(suit)} are trumps after all passed.")
        elif isinstance(bid, Mapping) and bid.get("besser") is True:
            self.lines.append(f"* {_seat(d.get('seat')).capitalize()}'s {describe(bid.get('value'), True)}: "
                              f"{_suit(suit)} are trumps.")
        else:
            value = bid.get("value") if isinstance(bid, Mapping) else HIDDEN
            self.lines.append(f"* {_seat(d.get('seat')).capitalize()} names {_suit(suit)} after a bid of {value}.")
        if suit in SUIT_NAMES and self.players:
            self.lines.append(f"* Trumps, best first: {' '.join(trump_order(suit, self.players))}")

    def read_ToutAnnounced(self, d: Mapping[str, Any]) -> None:
        self.open("Tout")
        self.lines.append(f"* {_seat(d.get('seat')).capitalize()} announces tout for {_side(d.get('side'))}")

    def read_ToutDeclined(self, d: Mapping[str, Any]) -> None:
        self.open("Tout")
        # One line for the whole round of refusals, in turn order.
        if self.lines[-1].startswith(NO_TOUT):
            self.lines[-1] += f", {_seat(d.get('seat'))}"
        else:
            self.lines.append(f"{NO_TOUT}{_seat(d.get('seat'))}")

    # -- play ----------------------------------------------------------------------------
    def read_CardPlayed(self, d: Mapping[str, Any]) -> None:
        card = d.get("card")
        self.plays.append((d.get("seat"), HIDDEN if card is None else str(card)))

    def read_TrickTaken(self, d: Mapping[str, Any]) -> None:
        if not self.plays:
            # No CardPlayed before it: the trick's own card list, without seats.
            self.plays = [(None, card) for card in _cards(d.get("cards"))]
        winner = d.get("seat")
        side = d.get("side", winner % 2 if _is_int(winner) else None)
        if side in (0, 1):
            self.tally[side] += 1
        self.write_trick(d.get("trick"), winner)

    def write_trick(self, number: Any, winner: Any) -> None:
        """One row; a trick still in play (``winner`` None) has no winner yet."""
        self.open("Tricks")
        if not _is_int(number):
            number = sum(self.tally) + (1 if winner is None else 0)
        leader = _seat(self.plays[0][0]) if self.plays else HIDDEN
        cells = []
        for seat, card in self.plays:
            cell = f"{seat if _is_int(seat) else '?'}: {card}"
            cells.append(f"**{cell}**" if _is_int(winner) and seat == winner else cell)
        won = f"{_seat(winner)} ({_side(winner % 2)})" if _is_int(winner) else "(in play)"
        self.lines.append(f"| {number} | {leader} | {', '.join(cells)} | {won} | "
                          f"{self.tally[0]}–{self.tally[1]} |")
        self.plays = []

    # -- scoring -------------------------------------------------------------------------
    def read_DealScored(self, d: Mapping[str, Any]) -> None:
        self.open("Result")
        tricks, points, hooks = _pair(d.get("tricks")), _pair(d.get("points")), _pair(d.get("hooks"))
        bock_in, game = _number(d.get("bock_in")), _number(d.get("game"))
        passed = " after all passed" if d.get("after_all_passed") is True else ""
        self.lines.append(f"* Trumps: {_suit(d.get('trumps'))}{passed}; tricks: side 0 {tricks[0]}, "
                          f"side 1 {tricks[1]}.")
        winner, announced = d.get("winner"), d.get("announced_tout")
        won = points[winner] if winner in (0, 1) else 0
        if announced in (0, 1):
            if d.get("tout_made") is True:
                self.lines.append(f"* Side {announced} makes its announced tout: game {game} + Bock {bock_in} "
                                  f"= {won} points and 2 hooks.")
            else:
                bock = f" and the Bock, {bock_in} points" if bock_in else ""
                self.lines.append(f"* Side {announced}'s announced tout fails: side {1 - announced} "
                                  f"gets 4 hooks{bock}.")
        elif d.get("bock") is True:
            self.lines.append(f"* Equal tricks, a Bock: nobody scores; {_number(d.get('bock_out'))} "
                              f"carried to the next deal.")
        elif d.get("tout") is True and winner in (0, 1):
            self.lines.append(f"* Tout, side {winner} takes every trick: game {game} + Bock {bock_in} "
                              f"= {won} points and 1 hook.")
        elif winner in (0, 1):
            parts = [f"game {game}"]
            if _number(d.get("first")):
                parts.append(f"for the first {d['first']}")
            if _number(d.get("matadors")):
                parts.append(f"matadors {d['matadors']} ({' '.join(_cards(d.get('matador_cards')))})")
            if bock_in:
                parts.append(f"Bock {bock_in}")
            self.lines.append(f"* Side {winner} has the majority: {' + '.join(parts)} = {won} points.")
        else:
            self.lines.append("* Nobody scores.")
        self.points = [self.points[s] + points[s] for s in (0, 1)]
        self.hooks = [self.hooks[s] + hooks[s] for s in (0, 1)]
        self.bock = _number(d.get("bock_out"))
        self.sheet_due = True

    def read_ThreadWon(self, d: Mapping[str, Any]) -> None:
        self.open("Result")
        side, count, at = d.get("side"), _number(d.get("threads")), _pair(d.get("points"))
        if side not in (0, 1):
            self.lines.append("* A thread is drawn.")
            return
        what = "a Petersdorfer, two threads" if d.get("petersdorfer") is True else "a thread"
        self.lines.append(f"* Side {side} reaches {at[side]} points to {at[1 - side]}: {what}; "
                          f"both sides restart from 0.")
        self.threads[side] += count
        self.points = [0, 0]

    def write_sheet(self) -> None:
        self.open("Score sheet")
        self.lines += ["| side | seats | points | threads | hooks | total threads |", "|---|---|---|---|---|---|"]
        for side in (0, 1):
            seats = ", ".join(str(s) for s in range(side, self.players, 2))
            self.lines.append(f"| {side} | {seats} | {self.points[side]} | {self.threads[side]} | "
                              f"{self.hooks[side]} | {self.threads[side] + self.hooks[side]} |")
        if self.bock:
            self.lines += ["", f"Bock carried: {self.bock}."]
        self.sheet_due = False

    def read_GameEnded(self, d: Mapping[str, Any]) -> None:
        totals, winner = _pair(d.get("threads")), d.get("winner")
        result = f"side {winner} wins" if winner in (0, 1) else "a tie"
        self.section = None
        self.lines += ["", (f"**Game over** after {_number(d.get('deals'))} deals. Threads (lines + hooks): "
                            f"side 0 {totals[0]}, side 1 {totals[1]}; {result}.")]


# The event types with a reader: each ``_Writer.read_<type>``.
HANDLED = frozenset(name.removeprefix("read_") for name in vars(_Writer) if name.startswith("read_"))
