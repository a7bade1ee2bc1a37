"""Determinization: a concrete deal consistent with everything one seat knows.

``World.prepare(decision)`` reads the seat's knowledge once (``knowledge``)
and folds what came before the current deal; ``sample(rng)`` then deals the
unseen cards to the other seats at random, respecting their hand sizes, the
revealed voids, the called-card rules, the Hochzeit's trump and the cards the
seat knows the place of. From the sampled hands now it works back to the
hands as dealt (adding back what each seat played, undoing the Schieberrunde's
passing and the Hochzeit's swap), fills every field the seat's history hides
(``HandsDealt``, the held second half, the swapped and passed cards) and folds
the deal's events through the game's own ``evolve`` (``Table.fold`` over
public events). The result is a ``TableState`` whose view for the seat is the
seat's own view: only the hidden cards differ from the real game.

Earlier deals matter now only through their results (totals, the Stock, the
next dealer, a Schieberrunde due): their public ``HandsDealt`` (with empty
hands) and settlement events are folded, their card events skipped, since the
next ``HandsDealt`` resets everything they touched.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from ...bots.deal_count import count_deals
from ...event import PUBLIC, Event
from ...table import Table, TableState
from ..cards import PLAYERS
from ..game import Schafkopf
from ..hochzeit import TRUMPS as RUFSPIEL_TRUMPS
from ..schieberrunde import OBERS as SCHIEBER_OBERS
from .knowledge import Knowledge, deal_start, read

TABLE = Table({Schafkopf.name: Schafkopf()})
TABLE_EVENTS = ("GameCreated", "SeatTaken", "GameStarted")
RESULTS = ("HandsDealt", "DealSettled", "DealThrownIn", "SchieberrundePaid")
ATTEMPTS = 50
DEAL_HEAD = ("HandsDealt", "SecondHalfHeld")  # the deal's events before anybody speaks


def _event(raw: dict, data: dict | None = None) -> Event:
    return Event(raw["type"], raw["data"] if data is None else data, PUBLIC, raw["v"])


@dataclass
class World:
    seat: int
    know: Knowledge
    before: TableState  # the table folded up to the current deal
    deal: tuple[dict, ...]  # the current deal's events, as the seat saw them
    half: int
    doppeln: bool

    @classmethod
    def prepare(cls, decision, know: Knowledge | None = None) -> World:
        """The world of a decision in the play phase (the only one the search samples)."""
        history = decision.history
        start = deal_start(history)
        events = []
        for raw in history[:start]:
            if raw["type"] in TABLE_EVENTS:
                events.append(_event(raw))
            elif raw["type"] == "HandsDealt":
                events.append(_event(raw, {**raw["data"], "hands": [[] for _ in range(PLAYERS)]}))
            elif raw["type"] in RESULTS:
                events.append(_event(raw))
        before = TABLE.fold(TableState(), events)
        config = before.inner.config
        return cls(decision.seat, know or read(decision), before, tuple(history[start:]), config.half,
                   config.doppeln != "off")

    # -- the hands now ---------------------------------------------------
    def deal_hidden(self, rng: random.Random) -> dict[int, list[str]]:
        """The other seats' hands now: a random fill of the unseen cards that keeps every constraint
        (after ``ATTEMPTS`` failures the hand-count constraints are dropped, then the voids)."""
        for attempt in range(3 * ATTEMPTS):
            hands = self._fill(rng, strict=attempt < 2 * ATTEMPTS)
            if hands is not None and (attempt >= ATTEMPTS or self._counts_hold(hands)):
                return hands
        raise RuntimeError("no deal fits the hand sizes")  # unreachable: sizes always fit unseen cards

    def _fill(self, rng: random.Random, strict: bool) -> dict[int, list[str]] | None:
        know, me = self.know, self.seat
        others = [s for s in range(PLAYERS) if s != me]
        hands: dict[int, list[str]] = {s: [] for s in others}
        for card, seat in know.holds.items():
            hands[seat].append(card)
        room = {s: know.hand_sizes[s] - len(hands[s]) for s in others}
        gone = know.played | set(know.hand) | set(know.holds)
        unseen = [c for c in know.deck if c not in gone]
        allowed = {c: [s for s in others if not strict or c not in know.forbidden.get(s, ())] for c in unseen}
        rng.shuffle(unseen)
        unseen.sort(key=lambda c: len(allowed[c]))
        for card in unseen:
            seats = [s for s in allowed[card] if room[s] > 0]
            if not seats:
                return None
            total = sum(room[s] for s in seats)
            pick = rng.randrange(total)
            for seat in seats:
                pick -= room[seat]
                if pick < 0:
                    break
            hands[seat].append(card)
            room[seat] -= 1
        return hands

    def fixed(self) -> bool:
        """Does what the seat knows fix every hidden card's holder now: is there exactly one way to
        give the unseen cards to the other seats within their hand sizes, their voids and the cards
        placed? (Then every sample is the true deal, as far as the rest of the deal goes.)"""
        know, me = self.know, self.seat
        others = [s for s in range(PLAYERS) if s != me]
        room = {s: know.hand_sizes[s] - sum(1 for seat in know.holds.values() if seat == s) for s in others}
        gone = know.played | set(know.hand) | set(know.holds)
        unseen = [c for c in know.deck if c not in gone]
        allowed = {c: [s for s in others if c not in know.forbidden.get(s, ())] for c in unseen}
        return count_deals(unseen, allowed, room) == 1

    def _counts_hold(self, hands: dict[int, list[str]]) -> bool:
        for seat, count in self.know.trump_count.items():
            if seat == self.seat:
                continue
            dealt = hands[seat] + self.know.played_by(seat)
            if sum(1 for c in dealt if c in RUFSPIEL_TRUMPS) != count:
                return False
        return True

    # -- back to the deal ----------------------------------------------
    def sample(self, rng: random.Random) -> TableState:
        """One concrete state consistent with the seat's knowledge."""
        return self.build(self.draw(rng))

    def draw(self, rng: random.Random) -> Draw:
        """The hidden part of one such state, not folded yet (cheap: inference weighs several draws
        and folds only the one it keeps)."""
        know, me = self.know, self.seat
        for attempt in range(ATTEMPTS):
            hands = self.deal_hidden(rng)
            hands[me] = list(know.hand)
            now = {s: hands[s] + know.played_by(s) for s in range(PLAYERS)}  # after the passing/swap
            fills = self._undo_transfers(now, rng, strict=attempt < ATTEMPTS - 1)
            if fills is not None:
                return Draw(now, fills, self._firsts(now, rng))
        raise RuntimeError("no deal fits the passing")  # unreachable: see _undo_transfers

    def build(self, draw: Draw) -> TableState:
        return TABLE.fold(self.before, self._filled_events(draw.dealt, draw.fills, draw.firsts))

    def start(self, draw: Draw) -> TableState:
        """The state right after the deal, before anything is said, with ``draw``'s hands (a whole-deal
        search or inference replays what was said from there)."""
        events = self._filled_events(draw.dealt, draw.fills, draw.firsts)
        head = 0
        while head < len(events) and events[head].type in DEAL_HEAD:
            head += 1
        return TABLE.fold(self.before, events[:head])

    def draw_before_pickup(self, rng: random.Random) -> Draw:
        """Doppeln: the seat holds only its first half, so its second half is hidden too. Nothing
        constrains the deal yet but the first half (the Doppeln calls weigh it: ``inference``)."""
        mine = list(self.know.hand)
        unseen = [c for c in self.know.deck if c not in mine]
        rng.shuffle(unseen)
        size = len(self.know.deck) // PLAYERS
        dealt, firsts = {}, {}
        for seat in range(PLAYERS):
            if seat == self.seat:
                dealt[seat] = mine + [unseen.pop() for _ in range(size - len(mine))]
                firsts[seat] = mine
            else:
                dealt[seat] = [unseen.pop() for _ in range(size)]
                firsts[seat] = dealt[seat][:self.half]
        return Draw(dealt, {}, firsts)

    def _places(self) -> dict[str, list[tuple[int, int]]]:
        """Where known cards were after an event of the deal: card -> [(event index, seat)]. The
        Schieberrunde deals ``EO`` and ``GO`` to Vorhand; a pass this seat made or received is known."""
        places: dict[str, list[tuple[int, int]]] = {}
        for index, raw in enumerate(self.deal):
            data = raw["data"]
            if raw["type"] == "HandsDealt" and data.get("schieberrunde"):
                for card in SCHIEBER_OBERS:
                    places.setdefault(card, []).append((index, (data["dealer"] + 1) % PLAYERS))
            elif raw["type"] == "CardsPushed":
                for card in data.get("cards") or self._told(index, "cards") or ():
                    places.setdefault(card, []).append((index, data["to"]))
        return places

    def _undo_transfers(self, hands: dict[int, list[str]], rng: random.Random,
                        strict: bool) -> dict[int, dict] | None:
        """Turn ``hands`` (after every passing and swap) back into the hands as dealt, in place;
        returns the hidden data chosen for each transfer event (by its index in the deal), or None
        when the sample cannot have come about. A hidden pass sends back the known cards that
        must have travelled through it (a card this seat passed on and found further on; with
        ``strict``, the Obers Vorhand was dealt), and random others."""
        fills: dict[int, dict] = {}
        places = self._places()
        for index in range(len(self.deal) - 1, -1, -1):
            raw = self.deal[index]
            kind, data = raw["type"], raw["data"]
            if kind == "ObersHandedOver":
                _move(hands, data["to"], data["seat"], data["cards"])
            elif kind == "CardsPushed":
                giver, receiver = data["seat"], data["to"]
                cards = data.get("cards") or self._told(index, "cards")
                if cards is None:
                    where = {c: self._where_before(places, c, index, strict) for c in hands[receiver]}
                    forced = [c for c in hands[receiver] if where[c] not in (None, receiver)]
                    free = [c for c in hands[receiver] if where[c] is None]
                    if len(forced) > 2 or len(forced) + len(free) < 2:
                        return None
                    cards = sorted(forced + rng.sample(free, 2 - len(forced)), key=self.know.deck.index)
                if not set(cards) <= set(hands[receiver]):
                    return None
                _move(hands, receiver, giver, cards)
                fills[index] = {**data, "cards": list(cards)}
            elif kind == "HochzeitCardGiven":
                giver, receiver = data["seat"], data["to"]
                card, trump = data.get("card"), data.get("received")
                if card is None and self._told(index, "card") is not None:  # this seat received it
                    card, trump = self._told(index, "card"), self._told(index, "gave")
                if card is None:
                    plain = [c for c in hands[receiver] if c not in RUFSPIEL_TRUMPS]
                    trumps = [c for c in hands[giver] if c in RUFSPIEL_TRUMPS]
                    if not plain or not trumps:
                        return None
                    card, trump = rng.choice(plain), rng.choice(trumps)
                if card not in hands[receiver] or trump not in hands[giver]:
                    return None
                _move(hands, giver, receiver, [trump])
                _move(hands, receiver, giver, [card])
                fills[index] = {**data, "card": card, "received": trump}
        return fills

    def _where_before(self, places, card: str, index: int, strict: bool) -> int | None:
        """The seat known to hold ``card`` latest before event ``index`` (None: not known)."""
        known = [(i, seat) for i, seat in places.get(card, ()) if i < index
                 and (strict or self.deal[i]["type"] == "CardsPushed")]
        return max(known)[1] if known else None

    def _told(self, index: int, key: str):
        """What the receiver's own event right after a hidden transfer tells it (``CardsReceived``,
        ``HochzeitCardReceived``), if this seat is that receiver."""
        if index + 1 < len(self.deal):
            told = self.deal[index + 1]
            if told["type"] in ("CardsReceived", "HochzeitCardReceived") and told["data"].get("seat") == self.seat:
                return told["data"].get(key)
        return None

    def _firsts(self, dealt: dict[int, list[str]], rng) -> dict[int, list[str]]:
        """Each seat's first half (Doppeln; else the whole hand as dealt)."""
        dealt_event = next((raw for raw in self.deal if raw["type"] == "HandsDealt"), None)
        if dealt_event is None:
            return {seat: list(dealt[seat]) for seat in range(PLAYERS)}
        data = dealt_event["data"]
        firsts = {}
        for seat in range(PLAYERS):
            if seat == self.seat:
                firsts[seat] = list(data["hands"][seat])
            elif self.doppeln and not data.get("schieberrunde"):
                firsts[seat] = rng.sample(dealt[seat], self.half)
            else:
                firsts[seat] = list(dealt[seat])
        return firsts

    def _filled_events(self, dealt: dict[int, list[str]], fills: dict[int, dict],
                       firsts: dict[int, list[str]]) -> list[Event]:
        events = []
        for index, raw in enumerate(self.deal):
            kind, data = raw["type"], raw["data"]
            if kind == "HandsDealt":
                hands = [list(firsts[seat]) for seat in range(PLAYERS)]
                events.append(_event(raw, {**data, "hands": hands}))
            elif kind in ("SecondHalfHeld", "SecondHalfDealt"):
                rest = [[c for c in dealt[seat] if c not in firsts[seat]] for seat in range(PLAYERS)]
                events.append(_event(raw, {**data, "hands": rest}))
            elif index in fills:
                events.append(_event(raw, fills[index]))
            else:
                events.append(_event(raw))
        return events


@dataclass
class Draw:
    """A sampled deal before folding: the hands as dealt, the hidden transfers' data (by event
    index in the deal) and each seat's first half."""
    dealt: dict[int, list[str]]
    fills: dict[int, dict]
    firsts: dict[int, list[str]]


def _move(hands: dict[int, list[str]], giver: int, receiver: int, cards) -> None:
    for card in cards:
        hands[giver].remove(card)
        hands[receiver].append(card)

