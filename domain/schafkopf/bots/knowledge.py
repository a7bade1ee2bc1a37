"""What one seat knows of the current deal, read only from its ``Decision``.

From the seat's own history (the events of the deal, redacted for it) and its
view: its hand, the cards each seat has played, the tricks, and what the play
revealed: a seat that did not follow the led suit (trumps count as one suit)
holds none of it; in a Rufspiel the declarer does not hold the called card,
and when the called suit is first led every seat but the leader that follows
with another card of it does not hold it (the called Ace must fall then); a
Hochzeit's offerer held exactly one trump, and none once it is given away; a card
this seat passed in a Schieberrunde went only down the passing.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..cards import DECKS, PLAYERS
from ..game_types import order
from ..hochzeit import TRUMPS as HOCHZEIT_TRUMPS

DEAL_STARTS = "HandsDealt"


def deal_start(history) -> int:
    """The index of the current deal's first event (its ``HandsDealt``), or len(history)."""
    for index in range(len(history) - 1, -1, -1):
        if history[index]["type"] == DEAL_STARTS:
            return index
    return len(history)


@dataclass
class Knowledge:
    seat: int
    deck: tuple[str, ...]
    hand: tuple[str, ...]
    hand_sizes: list[int]
    contract: dict | None  # the view's ``declared``
    partner: int | None  # as the view shows it (revealed, or this seat itself)
    plays: list[tuple[int, str]] = field(default_factory=list)  # this deal, in order
    tricks: list[list[tuple[int, str]]] = field(default_factory=list)  # complete ones, then the current
    forbidden: dict = field(default_factory=dict)  # seat -> cards it cannot hold now
    trump_count: dict = field(default_factory=dict)  # seat -> exact Rufspiel-trump count of its dealt hand
    holds: dict = field(default_factory=dict)  # card -> seat known to hold it now

    @property
    def played(self) -> frozenset[str]:
        return frozenset(card for _, card in self.plays)

    def played_by(self, seat: int) -> list[str]:
        return [card for s, card in self.plays if s == seat]

    @property
    def current_trick(self) -> list[tuple[int, str]]:
        if self.tricks and len(self.tricks[-1]) < PLAYERS:
            return self.tricks[-1]
        return []

    def friends(self) -> frozenset[int]:
        """Seats known to be on this seat's side."""
        contract = self.contract
        if contract is None or contract["declarer"] is None:
            return frozenset()
        declarer, me = contract["declarer"], self.seat
        others = set(range(PLAYERS)) - {me}
        if contract["game"] in ("rufspiel", "hochzeit"):
            if self.partner is None:  # the called Ace has not fallen: only its holder knows the sides
                return frozenset()
            side = {declarer, self.partner}
            if me in side:
                return frozenset(side - {me})
            return frozenset(others - side)
        if me == declarer:
            return frozenset()
        return frozenset(others - {declarer})


def read(decision) -> Knowledge:
    game_state = decision.view["game_state"]
    deck = DECKS[decision.rules.get("deck", "long")]
    know = Knowledge(seat=decision.seat, deck=deck, hand=tuple(game_state["hand"] or ()),
                     hand_sizes=list(game_state["hand_sizes"]), contract=game_state["declared"],
                     partner=game_state["partner"])
    events = decision.history[deal_start(decision.history):]
    forbidden = {seat: set() for seat in range(PLAYERS)}
    contract = know.contract
    rules_order = order(contract["game"], contract["suit"]) if contract else None
    called = contract["called_ace"] if contract else None
    called_suit_led = False
    offerer, swapped = None, False
    trick: list[tuple[int, str]] = []
    for event in events:
        kind, data = event["type"], event["data"]
        if kind == "HochzeitOffered":
            offerer = data["seat"]
        elif kind == "HochzeitCardGiven":
            swapped = True
        elif kind == "CardPlayed":
            trick.append((data["seat"], data["card"]))
            know.plays.append((data["seat"], data["card"]))
            if len(trick) == 1:
                know.tricks.append(trick)
        elif kind == "TrickTaken":
            led_card = trick[0][1]
            first_call = (called is not None and not called_suit_led
                          and called not in [c for _, c in know.plays[:-PLAYERS]]
                          and rules_order.follow_key(led_card) == rules_order.follow_key(called))
            if first_call:
                for seat, _card in trick[1:]:
                    forbidden[seat].add(called)  # the called card would have had to fall
                called_suit_led = True
            trick = []
    if rules_order is not None:
        by_key: dict[str, set[str]] = {}
        for card in deck:
            by_key.setdefault(rules_order.follow_key(card), set()).add(card)
        for played_trick in know.tricks:
            led = rules_order.follow_key(played_trick[0][1])
            for seat, card in played_trick[1:]:
                if rules_order.follow_key(card) != led:
                    forbidden[seat] |= by_key[led]
        if called is not None and contract["declarer"] is not None:
            forbidden[contract["declarer"]].add(called)
    if offerer is not None:
        if swapped:
            forbidden[offerer] |= HOCHZEIT_TRUMPS  # he gave his only trump away
        else:
            know.trump_count[offerer] = 1
    _passed_on(events, decision.seat, forbidden)
    know.forbidden = forbidden
    know.holds = _known_places(decision, events, know)
    return know


def _passed_on(events, me: int, forbidden: dict) -> None:
    """Schieberrunde: a card this seat passed is with its receiver or further down the passing
    (Vorhand to Mittelhand to Hinterhand to the dealer), never back up."""
    pushes = [(e["data"]["seat"], e["data"]["to"], e["data"].get("cards")) for e in events
              if e["type"] == "CardsPushed"]
    for number, (giver, receiver, cards) in enumerate(pushes):
        if giver != me or not cards:
            continue
        reachable = {receiver} | {to for _, to, _ in pushes[number + 1:]}
        for seat in range(PLAYERS):
            if seat not in reachable:
                forbidden[seat] |= set(cards)


def _known_places(decision, events, know: Knowledge) -> dict[str, int]:
    """Cards this seat knows to be in another hand now: what it gave in a Hochzeit, the Obers
    handed to the dealer in a Schieberrunde (each while not played yet)."""
    places: dict[str, int] = {}
    for event in events:
        kind, data = event["type"], event["data"]
        if kind == "HochzeitCardGiven" and data.get("card") is not None and data["seat"] == decision.seat:
            places[data["card"]] = data["to"]
        elif kind == "HochzeitCardReceived" and data.get("gave") is not None and data["seat"] == decision.seat:
            places[data["gave"]] = data["from"]
        elif kind == "ObersHandedOver":
            for card in data["cards"]:
                places[card] = data["to"]
    gone = know.played | set(know.hand)
    return {card: seat for card, seat in places.items() if card not in gone and seat != decision.seat}
