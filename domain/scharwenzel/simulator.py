"""A compact Scharwenzel deal for search: integer cards, bitmask hands, no events.

Built from the decider's state at any moment of a deal (``from_state``: bidding, naming
trumps, the tout question or card play), for 4, 6 or 8 players, it plays the rest of the deal
as the decider would: the bids (SW-3: a suit of exactly n cards, besser on clubs, each bid
beating the last), clubs named at once after a besser bid or when all passed, the bidder's
suit otherwise, each seat asked for a tout in turn (with ``announced_tout``), then card play:
must follow (every trump follows as one suit: QC, the Nillje, QS, the Jacks and the trump
suit), the same trick winners and, at the end of the deal, the same score as
``scoring.score_deal`` (SW-4, SW-5, SW-7: game, the first tricks, matadors, tout made or
missed, the Bock carried or cashed), as a dict with the same keys as the ``DealScored``
event's data (without ``deal``, ``named_by`` and ``bid``).

An action is an int: a card is its index in ``cards.deck(players)``; ``PASS``; a bid of n is
``BID + 2 * (n - 3)`` (+ 1 besser); naming suit ``s`` (``cards.SUITS`` order) is ``NAME + s``;
``TOUT`` and ``NO_TOUT``. ``legal()`` is a mask of actions. A hand is an int of card bits;
the trick sides are one int (bit ``i`` set: side 1 took trick ``i``), so ``copy`` copies a
few short lists. ``tests/domain/scharwenzel/test_simulator.py`` checks it against the decider
step by step.
"""
from __future__ import annotations

from functools import lru_cache

from ..bitmask import members
from .bidding import MIN_BID
from .cards import SUITS, Ranking, deck, suit_counts
from .scoring import game_points, majority, matadors, settle, side_of

TRUMP = 4  # the follow key of every trump; plain suits are 0-3 in ``cards.SUITS`` order
PASS = 36  # past the largest deck (6 players: 36 cards)
BID = PASS + 1  # bids of 3..8 cards, plain and besser
NAME = BID + 12
TOUT, NO_TOUT = NAME + 4, NAME + 5
BIDDING, NAMING, TOUT_ASKING, PLAYING = "bidding", "naming", "tout", "playing"  # the decider's phase names


@lru_cache(maxsize=None)
def index(players: int) -> dict[str, int]:
    return {card: i for i, card in enumerate(deck(players))}


@lru_cache(maxsize=None)
def tables(trumps: str, players: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """(follow key per card, cards per follow key, strength per led key and card) of a deal."""
    ranking = Ranking(trumps, players)
    cards = deck(players)
    keys = {suit: i for i, suit in enumerate(SUITS)}
    keys["T"] = TRUMP
    follow = tuple(keys[ranking.follow_suit(card)] for card in cards)
    masks = tuple(sum(1 << i for i, key in enumerate(follow) if key == k) for k in range(5))
    power = []
    for led in range(5):
        row = []
        for card in cards:
            kind, rank = ranking.strength(card, "T" if led == TRUMP else SUITS[led])
            row.append(kind * 100 + rank)  # ranks are 0 down to -12: the kind decides first
        power.append(tuple(row))
    return follow, masks, tuple(power)


class Deal:
    """What stays fixed while a deal is played; the trump tables once trumps are named."""

    __slots__ = ("players", "forehand", "starting", "counts", "announced_tout", "total", "bock_in", "bock_value",
                 "trumps", "after_all_passed", "follow", "masks", "power", "game", "runs")

    def __init__(self, state):
        self.players, self.forehand, self.starting = state.players, state.forehand, state.starting
        self.counts = tuple(tuple(suit_counts(hand)[suit] for suit in SUITS) for hand in state.starting)
        self.announced_tout = state.announced_tout
        self.total = sum(len(hand) for hand in state.starting) // state.players
        self.bock_in, self.bock_value = state.sheet.bock, state.bock_value
        self.trumps = None

    def named(self, trumps: str, after_all_passed: bool) -> "Deal":
        """This deal with ``trumps`` named (a new object: copies made before share the old one)."""
        out = Deal.__new__(Deal)
        for name in ("players", "forehand", "starting", "counts", "announced_tout", "total", "bock_in", "bock_value"):
            setattr(out, name, getattr(self, name))
        out.trumps, out.after_all_passed = trumps, after_all_passed
        out.follow, out.masks, out.power = tables(trumps, self.players)
        out.game = game_points(trumps, after_all_passed)
        held = [set(), set()]
        for seat, hand in enumerate(self.starting):
            held[side_of(seat)].update(hand)
        out.runs = (matadors(held[0], trumps), matadors(held[1], trumps))
        return out


class Simulator:
    """One deal. ``legal()`` is a mask of actions for the seat to move; ``apply(action)`` takes
    one and returns the trick's winner when a card completes a trick (else -1)."""

    __slots__ = ("rules", "phase", "bids", "high", "asked", "tout_side", "hands", "leader", "trick", "led", "done",
                 "sides", "taken")

    def copy(self) -> Simulator:
        other = Simulator.__new__(Simulator)
        other.rules, other.phase, other.bids, other.high, other.asked, other.tout_side = (
            self.rules, self.phase, self.bids, self.high, self.asked, self.tout_side)
        other.hands, other.leader, other.trick, other.led = self.hands[:], self.leader, self.trick[:], self.led
        other.done, other.sides, other.taken = self.done, self.sides, self.taken[:]
        return other

    def to_move(self) -> int:
        rules = self.rules
        if self.phase == PLAYING:
            return (self.leader + len(self.trick)) % rules.players
        if self.phase == BIDDING:
            return (rules.forehand + self.bids) % rules.players
        if self.phase == NAMING:
            return self.high[2]
        return (rules.forehand + self.asked) % rules.players

    def is_over(self) -> bool:
        return self.done == self.rules.total

    def legal(self) -> int:
        if self.phase != PLAYING:
            return self._bidding_legal()
        hand = self.hands[(self.leader + len(self.trick)) % self.rules.players]
        if not self.trick:
            return hand
        return (hand & self.rules.masks[self.led]) or hand

    def _bidding_legal(self) -> int:
        counts = self.rules.counts[self.to_move()]
        if self.phase == TOUT_ASKING:
            return (1 << TOUT) | (1 << NO_TOUT)
        if self.phase == NAMING:
            return sum(1 << (NAME + s) for s in range(4) if counts[s] == self.high[0])
        out = 1 << PASS
        standing = self.high[:2] if self.high else (0, 0)
        for value in sorted({n for n in counts if n >= MIN_BID}):
            for besser in (0, 1):
                if (besser and counts[0] != value) or (value, besser) <= standing:
                    continue
                out |= 1 << (BID + 2 * (value - MIN_BID) + besser)
        return out

    def apply(self, action: int) -> int:
        if action >= PASS:
            self._speak(action)
            return -1
        rules = self.rules
        trick = self.trick
        players = rules.players
        if not trick:
            self.led = rules.follow[action]
        self.hands[(self.leader + len(trick)) % players] ^= 1 << action
        trick.append(action)
        if len(trick) < players:
            return -1
        power = rules.power[self.led]
        best, strongest = 0, power[trick[0]]
        for i in range(1, players):
            if power[trick[i]] > strongest:
                best, strongest = i, power[trick[i]]
        winner = (self.leader + best) % players
        side = winner % 2
        self.taken[side] += 1
        self.sides |= side << self.done
        self.done += 1
        self.leader = winner
        self.trick = []
        return winner

    def _speak(self, action: int) -> None:
        """A bid or pass, the trump suit named, or the tout question answered."""
        seat, rules = self.to_move(), self.rules
        if action == TOUT:
            self.tout_side, self.phase = side_of(seat), PLAYING
        elif action == NO_TOUT:
            self.asked += 1
            if self.asked == rules.players:
                self.phase = PLAYING
        elif action >= NAME:
            self._name(SUITS[action - NAME], False)
        else:
            self.bids += 1
            if action > PASS:
                value, besser = divmod(action - BID, 2)
                self.high = (value + MIN_BID, besser, seat)
            if self.bids == rules.players:
                if self.high is None or self.high[1]:  # all passed, or besser: clubs at once
                    self._name("C", self.high is None)
                else:
                    self.phase = NAMING

    def _name(self, trumps: str, after_all_passed: bool) -> None:
        self.rules = self.rules.named(trumps, after_all_passed)
        self.phase = TOUT_ASKING if self.rules.announced_tout else PLAYING
        self.leader, self.trick = self.rules.forehand, []

    def trick_sides(self) -> tuple[int, ...]:
        return tuple((self.sides >> i) & 1 for i in range(self.done))

    def score(self) -> dict:
        """The deal's score once every trick is taken, as ``scoring.score_deal`` gives it."""
        rules = self.rules
        head = (1 << majority(rules.total)) - 1  # the first majority of tricks: side 0 took none, side 1 all
        first = self.sides & head
        return settle(trumps=rules.trumps, after_all_passed=rules.after_all_passed, tricks=list(self.taken),
                      first_side=0 if first == 0 else 1 if first == head else None, runs=rules.runs,
                      tout_side=self.tout_side, bock_in=rules.bock_in, bock_value=rules.bock_value)


def from_state(state) -> Simulator:
    """The simulator of ``state`` (the decider's ``State`` in the bidding, naming, tout or playing phase)."""
    if state.phase not in (BIDDING, NAMING, TOUT_ASKING, PLAYING):
        raise ValueError(f"a simulator starts inside a deal, not in the {state.phase} phase")
    sim = Simulator.__new__(Simulator)
    sim.rules = Deal(state)
    if state.trumps is not None:
        sim.rules = sim.rules.named(state.trumps, state.after_all_passed)
    sim.phase = state.phase
    sim.bids = len(state.bids)
    high = state.high_bid
    sim.high = None if high is None else (high.value, int(high.besser), high.seat)
    sim.asked, sim.tout_side = state.tout_asked, state.tout_side
    where = index(state.players)
    sim.hands = [sum(1 << where[c] for c in hand) for hand in state.hands]
    trick = state.trick
    sim.leader = trick.leader if trick is not None else state.forehand
    sim.trick = [where[c] for _, c in trick.plays] if trick is not None else []
    sim.led = sim.rules.follow[sim.trick[0]] if sim.trick else -1
    sim.done = len(state.trick_sides)
    sim.sides = sum(side << i for i, side in enumerate(state.trick_sides))
    sim.taken = [state.trick_sides.count(0), state.trick_sides.count(1)]
    return sim


def command_of(action: int, players: int) -> dict:
    """The decider's command for an action."""
    if action < PASS:
        return {"type": "play", "card": deck(players)[action]}
    if action == PASS:
        return {"type": "pass"}
    if action < NAME:
        value, besser = divmod(action - BID, 2)
        return {"type": "bid", "value": value + MIN_BID, "besser": True} if besser else \
            {"type": "bid", "value": value + MIN_BID}
    if action < TOUT:
        return {"type": "name_trumps", "suit": SUITS[action - NAME]}
    return {"type": "announce_tout"} if action == TOUT else {"type": "no_tout"}


def action_of(command: dict, players: int) -> int:
    kind = command["type"]
    if kind == "play":
        return index(players)[command["card"]]
    if kind == "bid":
        return BID + 2 * (command["value"] - MIN_BID) + (1 if command.get("besser") else 0)
    if kind == "name_trumps":
        return NAME + SUITS.index(command["suit"])
    return {"pass": PASS, "announce_tout": TOUT, "no_tout": NO_TOUT}[kind]


def cards_of(mask: int, players: int) -> list[str]:
    cards = deck(players)
    return [cards[i] for i in members(mask)]


def mask_of(cards, players: int) -> int:
    where = index(players)
    return sum(1 << where[c] for c in cards)
