"""A Scharfe Schoten game as Markdown for people: per round the deal, the predictions, every
trick with its cupboard take, and the score sheet with the running totals.

It reads the event objects the API serves, redacted for the reader, so every field may be
missing (a withheld key) or null (another seat's entry of a per-seat list): what the reader
may not see reads "hidden", and an event it does not know becomes a line naming it, so that
neither a redaction nor a future event type can break a transcript.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from .cards import COLOUR_NAMES, COLOURS
from .scoring import POINTS

HIDDEN = "hidden"
MOST_SEATS = 4  # the game is played by 3 or 4
# The table's own events; the frame around this transcript tells of them.
TABLE_EVENTS = frozenset({"GameCreated", "SeatTaken", "GameStarted", "GameCutShort", "SeedRevealed"})
LEGEND = ("Cards are colour + value (" + ", ".join(f"{c} {name}" for c, name in COLOUR_NAMES.items())
          + "), super trumps in **bold**; a colour count `R:3` is three red cards.")


@dataclass
class Trick:
    leader: Any
    plays: list[tuple[Any, Any]] = field(default_factory=list)
    winner: Any = None
    take: Mapping[str, Any] | None = None


@dataclass
class Round:
    deal: Mapping[str, Any]
    cupboard: Mapping[str, Any] = field(default_factory=dict)
    made: dict[Any, Mapping[str, Any]] = field(default_factory=dict)  # seat -> PredictionMade data
    revealed: list | None = None
    tricks: list[Trick] = field(default_factory=list)
    score: Mapping[str, Any] | None = None
    notes: list[str] = field(default_factory=list)

    def playing(self) -> Trick:
        """The trick cards are being played to; a new one once the last was taken."""
        if not self.tricks or self.tricks[-1].winner is not None:
            leader = self.tricks[-1].winner if self.tricks else self.deal.get("starter")
            self.tricks.append(Trick(leader))
        return self.tricks[-1]


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _items(value: Any) -> list:
    return list(value) if isinstance(value, list | tuple) else []


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _at(items: list, index: int) -> Any:
    return items[index] if index < len(items) else None


def _seat(seat: Any) -> str:
    return f"seat {seat}" if _is_int(seat) else "seat ?"


def _card(card: Any, trumps: Sequence) -> str:
    if card is None:
        return HIDDEN
    return f"**{card}**" if card in trumps else str(card)


def _counts(counts: Any) -> str:
    if not isinstance(counts, Mapping):
        return HIDDEN
    return " ".join(f"{colour}:{counts.get(colour, '?')}" for colour in COLOURS)


def _size(counts: Any) -> int:
    values = _mapping(counts).values()
    return sum(v for v in values if isinstance(v, int))


def _seats(round_: Round) -> list[int]:
    """Every seat of the table: from the deal's public lists, else from the seats seen."""
    known = max(len(_items(round_.deal.get(key))) for key in ("hand_colours", "hands"))
    seen = [s for s in round_.made if _is_int(s)]
    seen += [s for trick in round_.tricks for s, _ in trick.plays if _is_int(s)]
    # Capped, so that a damaged seat number cannot make the transcript endless.
    return list(range(min(known or max(seen, default=-1) + 1, MOST_SEATS)))


def _prediction(round_: Round, seat: int) -> str:
    """"R / G" (most / fewest) once the reader may see it; "hidden" while only its making is known."""
    for source in (_items(_mapping(round_.score).get("predictions")), _items(round_.revealed)):
        entry = _mapping(_at(source, seat))
        if "most" in entry:
            return f"{entry.get('most')} / {entry.get('fewest')}"
    made = round_.made.get(seat)
    if made is None:
        return "not made yet"
    return f"{made.get('most')} / {made.get('fewest')}" if "most" in made else HIDDEN


def _take(round_: Round, index: int) -> str:
    trick = round_.tricks[index]
    take = trick.take
    if trick.winner is None:
        return "—"
    if take is not None:
        card = take.get("card")
        return str(card) if card is not None else f"{take.get('colour', '?')} ({HIDDEN})"
    # The winner takes after each trick while the cupboard lasts (SS-7): after that, nothing.
    size = _size(round_.cupboard.get("colours") or round_.deal.get("cupboard_colours"))
    return "to take" if index < size and round_.score is None else "—"


def _result(result: Mapping[str, Any], kind: str) -> str:
    outcome = result.get(kind)
    return f"{outcome} {POINTS[outcome]}" if isinstance(outcome, str) and outcome in POINTS else HIDDEN


def _render(number: int, round_: Round) -> list[str]:
    deal, seats = round_.deal, _seats(round_)
    trumps = [t for t in _items(deal.get("super_trumps")) if isinstance(t, str)]
    numbers = _mapping(deal.get("numbers"))
    lines = [f"## Round {deal.get('round', number)}", "",
             f"- {_seat(deal.get('starter')).capitalize()} starts.",
             "- Numbers: " + ", ".join(f"{c} {numbers.get(c, '?')}" for c in COLOURS)
             + " (ranking " + " > ".join(map(str, _items(deal.get("ranking")))) + ")",
             "- Super trumps: " + " > ".join(_card(t, trumps) for t in trumps), ""]

    hands, colours = _items(deal.get("hands")), _items(deal.get("hand_colours"))
    lines += ["### Deal", "", "| seat | hand | colours |", "|---|---|---|"]
    for seat in seats:
        hand = _items(_at(hands, seat))
        cards = " ".join(_card(card, trumps) for card in hand) if hand else HIDDEN
        lines.append(f"| {seat} | {cards} | {_counts(_at(colours, seat))} |")
    cupboard = _items(round_.cupboard.get("cards"))
    cards = " ".join(_card(card, trumps) for card in cupboard) + " (take order)" if cupboard else HIDDEN
    lines += [f"| cupboard | {cards} | {_counts(round_.cupboard.get('colours') or deal.get('cupboard_colours'))} |",
              ""]

    shown = "revealed" if round_.revealed is not None or round_.score is not None else "not revealed yet"
    lines += [f"### Predictions ({shown})", "", "| seat | most / fewest |", "|---|---|"]
    lines += [f"| {seat} | {_prediction(round_, seat)} |" for seat in seats] + [""]

    lines += ["### Tricks", ""]
    if round_.tricks:
        lines += ["| trick | leader | cards in play order | taken by | from the cupboard |", "|---|---|---|---|---|"]
    for index, trick in enumerate(round_.tricks):
        plays = ", ".join(f"{_seat(seat)} {_card(card, trumps)}" for seat, card in trick.plays) or "—"
        taker = _seat(trick.winner) if trick.winner is not None else "in play"
        lines.append(f"| {index + 1} | {_seat(trick.leader)} | {plays} | {taker} | {_take(round_, index)} |")
    if not round_.tricks:
        lines.append("No card played yet.")
    lines += [""] + round_.notes + ([""] if round_.notes else [])
    return lines + _score_sheet(round_.score, seats)


def _score_sheet(score: Mapping[str, Any] | None, seats: list[int]) -> list[str]:
    if score is None:
        return ["### Score", "", "Not scored yet.", ""]
    counts, predictions = _items(score.get("counts")), _items(score.get("predictions"))
    results, points, totals = (_items(score.get(key)) for key in ("results", "points", "totals"))
    lines = ["### Score", "", "| seat | predicted | collected | most | fewest | bonus | points | total |",
             "|---|---|---|---|---|---|---|---|"]
    for seat in seats:
        said, result = _mapping(_at(predictions, seat)), _mapping(_at(results, seat))
        guess = f"{said.get('most')} / {said.get('fewest')}" if said else HIDDEN
        gained, total = (_at(items, seat) for items in (points, totals))
        lines.append(f"| {seat} | {guess} | {_counts(_at(counts, seat))} | {_result(result, 'most')} | "
                     f"{_result(result, 'fewest')} | {result.get('bonus', HIDDEN)} | "
                     f"{HIDDEN if gained is None else gained} | {HIDDEN if total is None else total} |")
    return lines + [""]


def transcript(events: Sequence[Mapping[str, Any]]) -> list[str]:
    """The game's rounds as Markdown lines (see the module's doc): pure, and never raises."""
    rounds: list[Round] = []
    ended: list[str] = []
    for event in events:
        event = _mapping(event)
        kind, data = str(event.get("type")), _mapping(event.get("data"))
        if kind in TABLE_EVENTS:
            continue
        if kind == "HandsDealt":
            rounds.append(Round(data))
            continue
        if kind == "GameEnded":
            places = ", ".join(f"{_seat(s)} {t} (place {p})" for s, (t, p) in
                               enumerate(zip(_items(data.get("totals")), _items(data.get("ranking")))))
            ended = [f"**Game over.** Final totals: {places or HIDDEN}.", ""]
            continue
        if not rounds:  # a round event before any deal: only a damaged log has one
            rounds.append(Round({}))
        round_ = rounds[-1]
        if kind == "CupboardStocked":
            round_.cupboard = data
        elif kind == "PredictionMade" and _is_int(data.get("seat")):
            round_.made[data["seat"]] = data
        elif kind == "PredictionsRevealed":
            round_.revealed = _items(data.get("predictions"))
        elif kind == "CardPlayed":
            round_.playing().plays.append((data.get("seat"), data.get("card")))
        elif kind == "TrickTaken":
            trick = round_.playing()
            trick.leader = data.get("leader", trick.leader)
            trick.winner = data.get("winner", HIDDEN)
            if not trick.plays:  # the plays were not in the events given: the trick still names its cards
                trick.plays = [(None, card) for card in _items(data.get("cards"))]
        elif kind == "CupboardCardTaken" and round_.tricks and round_.tricks[-1].take is None:
            round_.tricks[-1].take = data
        elif kind == "RoundScored":
            round_.score = data
        else:
            round_.notes.append(f"- Event `{kind}` (seq {event.get('seq', '?')}, v {event.get('v', '?')}) "
                                "is not shown in this transcript.")
    lines = [LEGEND, ""]
    for number, round_ in enumerate(rounds, 1):
        lines += _render(number, round_)
    return lines + ended
