"""A Schafkopf session as Markdown for people (``Schafkopf.transcript``): per deal the hands,
the announcement in the table's own words, every trick, the result and the score sheet.

It reads the events as the API serves them, redacted for the reader, so no field is assumed
to be there: a withheld card reads "hidden", and an unknown or unreadable event becomes a
plain line naming it. A stored game outlives this code, so the transcript never raises.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..table import TABLE_EVENTS
from .cards import DECK, PLAYERS
from .game_types import order

HIDDEN = "hidden"
SUITS = {"E": "Eichel", "G": "Gras", "H": "Herz", "S": "Schellen"}
LEGEND = ("Cards are suit + rank: E Eichel, G Gras, H Herz, S Schellen; "
          "A, 10, K König, O Ober, U Unter, 9, 8, 7. Seats are numbered 0 to 3.")
TRICKS_HEAD = ["| trick | leader | cards (seat: card, in play order) | winner | points | notes |",
               "|---|---|---|---|---|---|"]
SEAT_FIELDS = {"seat", "to", "from", "holder", "declarer", "partner", "offered_to"}
CARD_FIELDS = {"card", "cards", "received", "gave"}
DECK_INDEX = {card: i for i, card in enumerate(DECK)}
# A stored event may be malformed for this code (a newer schema, a bad write): name it, go on.
UNREADABLE = (KeyError, TypeError, ValueError, AttributeError, IndexError)


@dataclass
class Deal:
    number: Any
    dealer: Any
    schieberrunde: bool = False
    halves: list = field(default_factory=lambda: [[None] for _ in range(PLAYERS)])  # per seat
    contract: tuple | None = None
    talk: list[str] = field(default_factory=list)
    tricks: list[dict] = field(default_factory=list)
    result: list[str] = field(default_factory=list)
    sheet: list[str] = field(default_factory=list)
    hidden_pair: int | None = None  # the talk line of a swap or push whose cards the giver's event withheld


@dataclass
class Session:
    deals: list[Deal] = field(default_factory=list)
    totals: list = field(default_factory=lambda: [0] * PLAYERS)
    pot: Any = 0
    loose: list[str] = field(default_factory=list)  # lines outside any deal

    @property
    def deal(self) -> Deal:
        return self.deals[-1]


class Fields(dict):
    """An event's data ready for a line template: seats read "seat 2", a withheld card "hidden"."""

    def __missing__(self, key: str) -> str:
        return HIDDEN if key in CARD_FIELDS else "?"


def _fields(data: Mapping) -> Fields:
    out = Fields()
    for key, value in data.items():
        if key in SEAT_FIELDS:
            out[key] = _seat(value)
        elif key == "seats":
            out[key] = ", ".join(map(_seat, value)) if isinstance(value, list) else "?"
        else:
            out[key] = _cards(value) if key in CARD_FIELDS else value
    return out


def _num(value) -> str:
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else "?"


def _seat(value) -> str:
    return f"seat {_num(value)}"


def _cards(value) -> str:
    if isinstance(value, str):
        return value
    if not isinstance(value, (list, tuple)):
        return HIDDEN
    return " ".join(HIDDEN if card is None else str(card) for card in value)


def _game(game, suit) -> str:
    """The game as the table names it: "Herz-Solo", "Wenz Tout", "Rufspiel on Gras"."""
    name = " ".join(word.capitalize() for word in game.split("_")) if isinstance(game, str) else str(game)
    if suit in SUITS:
        return f"{name} on {SUITS[suit]}" if game == "rufspiel" else f"{SUITS[suit]}-{name}"
    return name


def _per_seat(value) -> list:
    """A per-seat list as redacted: a seat's entry, or None where it is withheld."""
    value = value if isinstance(value, list) else []
    return [value[s] if s < len(value) and isinstance(value[s], list) else None for s in range(PLAYERS)]


def _sorted(cards: list, contract) -> list[str]:
    """Trumps of the declared game first, high to low, then suit by suit: as a player sorts."""
    try:
        trumps = order(*contract).trumps if contract else ()
    except UNREADABLE:
        trumps = ()
    cards = [str(card) for card in cards]
    return sorted(cards, key=lambda c: (0, trumps.index(c)) if c in trumps else (1, DECK_INDEX.get(c, 99)))


def _open_trick(deal: Deal) -> dict:
    if not deal.tricks or deal.tricks[-1]["taken"]:
        deal.tricks.append({"plays": [], "notes": [], "taken": False, "winner": None, "points": None,
                            "number": len(deal.tricks) + 1})
    return deal.tricks[-1]


def _aside(s: Session, line: str) -> None:
    """A line for whatever part of the deal is going on."""
    if not s.deals:
        s.loose.append(line)
    elif s.deal.tricks and not s.deal.result:
        s.deal.tricks[-1]["notes"].append(line)
    else:
        (s.deal.result if s.deal.result else s.deal.talk).append(line)


def _say(template: str, in_trick: bool = False):
    """A line from a template over the event's data: in the announcement, or a trick's notes."""
    def handle(s: Session, data: Mapping) -> None:
        lines = _open_trick(s.deal)["notes"] if in_trick else s.deal.talk
        lines.append(template.format_map(_fields(data)))
    return handle


def _pair(template: str, giver_side: bool):
    """A Hochzeit swap or a push is two events, the giver's and the receiver's, each shown only
    to its own seat: the one line shows the cards if either side was shown to the reader."""
    def handle(s: Session, data: Mapping) -> None:
        text, deal = template.format_map(_fields(data)), s.deal
        hint = data.get("hint")
        if isinstance(hint, Mapping):  # the passing round with hinting
            text += f' with the hint "{hint.get("above")} above" {_cards(hint.get("card"))} ({hint.get("suit")})'
        visible = "card" in data or "cards" in data
        if giver_side:
            deal.talk.append(text)
            deal.hidden_pair = None if visible else len(deal.talk) - 1
        elif visible and deal.hidden_pair is not None:
            deal.talk[deal.hidden_pair] = text
            deal.hidden_pair = None
    return handle


def _dealt(s: Session, data: Mapping) -> None:
    number = data["deal"] + 1 if isinstance(data.get("deal"), int) else len(s.deals) + 1
    deal = Deal(number, data.get("dealer"), schieberrunde=bool(data.get("schieberrunde")))
    deal.halves = [[hand] for hand in _per_seat(data.get("hands"))]
    s.deals.append(deal)


def _second_half(picked_up: bool):
    def handle(s: Session, data: Mapping) -> None:
        for seat, half in enumerate(_per_seat(data.get("hands"))):
            if half is not None or picked_up:
                s.deal.halves[seat][1:] = [half]
        if picked_up:
            s.deal.talk.append("The second halves are picked up.")
    return handle


def _named(s: Session, data: Mapping) -> None:
    joins = " (joins the auction)" if data.get("auction") else ""
    s.deal.talk.append(f"{_seat(data.get('seat'))} names {_game(data.get('game'), data.get('suit'))}{joins}")


def _declared(s: Session, data: Mapping) -> None:
    game, suit = data.get("game"), data.get("suit")
    s.deal.contract = (game, suit)
    if game == "ramsch":
        s.deal.talk.append("All passed: **Ramsch**, everyone for himself.")
        return
    parts = [f"**{_game(game, suit)}** by {_seat(data.get('declarer'))}"]
    if data.get("called_ace"):
        parts.append(f"calling {data['called_ace']}" + (" (As-Renonce)" if data.get("renonce") else ""))
    if game == "hochzeit":
        parts.append(f"married to {_seat(data.get('partner'))}, who offered")
    if data.get("target") is not None:
        parts.append(f"target {data['target']}")
    if data.get("schieberrunde"):
        parts.append("the Schieberrunde's Solo")
    s.deal.talk.append("Game: " + ", ".join(parts) + ".")


def _schieber(s: Session, data: Mapping) -> None:
    offered = "; the high trumps are offered to {offered_to}" if "offered_to" in data else ""
    _say('{seat}: "{call}"' + offered)(s, data)


def _played(s: Session, data: Mapping) -> None:
    _open_trick(s.deal)["plays"].append((data.get("seat"), data.get("card")))


def _taken(s: Session, data: Mapping) -> None:
    trick, number = _open_trick(s.deal), data.get("trick")
    if not trick["plays"] and isinstance(data.get("cards"), list):
        trick["plays"] = [(None, card) for card in data["cards"]]
    trick.update(taken=True, winner=data.get("seat"), points=data.get("points"),
                 number=number + 1 if isinstance(number, int) else trick["number"])


def _settled(s: Session, data: Mapping) -> None:
    game, result = data.get("game"), s.deal.result
    if game == "ramsch":
        result.append("Card points: " + ", ".join(f"{_seat(i)} {p}" for i, p in enumerate(data["seat_points"])))
        loser = _seat((data.get("declarers") or [None])[0])
        result.append(f"Durchmarsch by {loser}." if data.get("durchmarsch")
                      else f"{loser} has the most card points and loses.")
        if data.get("jungfrauen"):
            result.append("Jungfrau: " + ", ".join(map(_seat, data["jungfrauen"])) + ".")
    else:
        points, tricks = data.get("card_points") or {}, data.get("tricks") or {}
        side = " and ".join(map(_seat, data.get("declarers") or [data.get("declarer")]))
        outcome = "won" if data.get("won") else "lost"
        result.append(f"**{_game(game, data.get('suit'))}** ({side}) **{outcome}**: "
                      f"{points.get('declarers', '?')} card points to {points.get('defenders', '?')}, "
                      f"{tricks.get('declarers', '?')} tricks to {tricks.get('defenders', '?')}.")
        extras = [name.capitalize() for name in ("schneider", "schwarz") if data.get(name)]
        extras += [f"{data['laufende']} Laufende"] if data.get("laufende") else []
        extras += [f"target {data['target']}"] if data.get("target") is not None else []
        if extras:
            result.append(", ".join(extras) + ".")
    multiplier = data.get("multiplier", 1)
    result.append(f"Value {data.get('value', '?')}" + (f" (multiplier {multiplier})." if multiplier != 1 else "."))
    if data.get("schieberrunde_next"):
        result.append("A won Herz-Solo: the next deal is a Schieberrunde.")
    _score(s, data)


def _thrown_in(s: Session, data: Mapping) -> None:
    s.deal.result.append("All passed: the deal is thrown in.")
    if data.get("stock"):
        s.deal.result.append(f"Everybody pays into the pot ({data['stock']} in all).")
    if data.get("doubles_next"):
        s.deal.result.append("The next game counts double.")
    _score(s, data)


def _schieber_paid(s: Session, data: Mapping) -> None:
    payers = " and ".join(map(_seat, data.get("payers") or []))
    s.deal.result.append(f"Neither Vorhand nor the dealer plays: {payers} each pay each of the other two "
                         f"the Solo price, {data.get('price', '?')}.")
    _score(s, data)


def _score(s: Session, data: Mapping) -> None:
    """The score sheet: this deal's payments and the running totals (the pot where it is used)."""
    raw = data.get("payments") if isinstance(data.get("payments"), list) else []
    pay = [p if isinstance(p, (int, float)) and not isinstance(p, bool) else 0 for p in raw[:PLAYERS]]
    pay += [0] * (PLAYERS - len(pay))
    change = data.get("stock") if isinstance(data.get("stock"), (int, float)) else 0
    s.totals = [t + p for t, p in zip(s.totals, pay)]
    s.pot += change
    pot = bool(s.pot or change)
    s.deal.sheet = ["| | " + " | ".join(map(_seat, range(PLAYERS))) + (" | pot |" if pot else " |"),
                    "|---" * (PLAYERS + 1 + pot) + "|",
                    "| this deal | " + " | ".join(f"{p:+}" for p in pay) + (f" | {change:+} |" if pot else " |"),
                    "| total | " + " | ".join(map(str, s.totals)) + (f" | {s.pot} |" if pot else " |")]


HANDLERS = {
    "HandsDealt": _dealt,
    "SecondHalfHeld": _second_half(picked_up=False),
    "SecondHalfDealt": _second_half(picked_up=True),
    "DoppelnDeclared": _say('{seat}: "{call}"'),
    "HochzeitOffered": _say('{seat}: "{call}" (one trump, face down; the announcement starts again)'),
    "HochzeitSpoken": _say('{seat}: "{call}"'),
    "AnnouncementMade": _say('{seat}: "{call}"'),
    "GameNamed": _named,
    "PlayWithdrawn": _say('{seat} withdraws ("Weiter")'),
    "AuctionOpened": _say("Auction between {seats}: {holder} holds {target}"),
    "BidMade": _say('{seat} bids "{call}" (target {target})'),
    "BidPassed": _say("{seat} passes"),
    "RenonceRound": _say("All passed: Renonce round, asking {seats}"),
    "MussSpiel": _say("All passed: Muss-Spiel, {seat} holds the Eichel-Ober and must play"),
    "GameDeclared": _declared,
    "HochzeitCardGiven": _pair("Hochzeit swap: {seat} gives {to} {card} for the trump {received}", True),
    "HochzeitCardReceived": _pair("Hochzeit swap: {from} gives {seat} {card} for the trump {gave}", False),
    "SchieberSpoken": _schieber,
    "ObersHandedOver": _say("{seat} hands {cards} to {to}"),
    "CardsPushed": _pair("{seat} pushes {cards} to {to}", True),
    "CardsReceived": _pair("{from} pushes {cards} to {seat}", False),
    "SchieberrundePaid": _schieber_paid,
    "DealThrownIn": _thrown_in,
    "StossGiven": _say('{seat}: "{call}"', in_trick=True),
    "CardPlayed": _played,
    "PartnerRevealed": _say("{seat} plays the called {card}: partner", in_trick=True),
    "TrickTaken": _taken,
    "DealSettled": _settled,
    "GameEnded": lambda s, d: s.loose.append("The session is over."),
}


def transcript(events: Sequence[Mapping[str, Any]]) -> list[str]:
    """The session's deals as Markdown lines (the table's frame adds title, seats and standings)."""
    s = Session()
    for event in events:
        event = event if isinstance(event, Mapping) else {}
        kind = event.get("type")
        if kind in TABLE_EVENTS:
            continue
        data = event.get("data") if isinstance(event.get("data"), Mapping) else {}
        handler = HANDLERS.get(kind) if isinstance(kind, str) else None
        name = f"`{kind}` (v{event.get('v', '?')})"
        if handler is None:
            _aside(s, f"{name}: an event this transcript does not know")
        elif not s.deals and kind != "HandsDealt":
            _aside(s, f"{name}: before the first deal")
        else:
            try:
                handler(s, data)
            except UNREADABLE:
                _aside(s, f"{name}: data this transcript cannot read")
    lines = [LEGEND]
    for deal in s.deals:
        lines += [""] + _render(deal)
    return lines + ([""] + s.loose if s.loose else [])


def _render(deal: Deal) -> list[str]:
    vorhand = (deal.dealer + 1) % PLAYERS if isinstance(deal.dealer, int) else None
    head = f"Dealer: {_seat(deal.dealer)}. Vorhand, who leads: {_seat(vorhand)}."
    if deal.schieberrunde:
        head += " A Schieberrunde: Vorhand got EO and GO before the deal."
    out = [f"## Deal {deal.number}", "", head, "", "### Hands", "", "| seat | hand |", "|---|---|"]
    for seat, halves in enumerate(deal.halves):
        shown = [_cards(_sorted(h, deal.contract)) if isinstance(h, list) else HIDDEN for h in halves]
        out.append(f"| {seat} | {HIDDEN if set(shown) == {HIDDEN} else ' / '.join(shown)} |")
    if deal.contract:
        halves = "; first half / second half" if any(len(h) > 1 for h in deal.halves) else ""
        out += ["", f"Trumps of the game first, high to low{halves}."]
    if deal.talk:
        out += ["", "### Announcement", ""] + [f"- {line}" for line in deal.talk]
    if deal.tricks:
        out += ["", "### Tricks", ""] + TRICKS_HEAD
    for trick in deal.tricks:
        plays = trick["plays"]
        cards = ", ".join(f"{_num(seat)}: {HIDDEN if card is None else _cards(card)}" for seat, card in plays)
        winner, points = (_num(trick["winner"]), trick["points"]) if trick["taken"] else ("in play", "–")
        out.append(f"| {trick['number']} | {_num(plays[0][0]) if plays else '–'} | {cards} | {winner} "
                   f"| {points} | {'; '.join(trick['notes'])} |")
    out += ["", "### Result", ""] + ([f"- {line}" for line in deal.result] or ["Not settled."])
    return out + ([""] + deal.sheet if deal.sheet else [])
