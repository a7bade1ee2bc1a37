"""A compact Scharfe Schoten round for search: integer cards, bitmask hands, no events.

Built from the decider's state at any moment after the deal (``from_state``: the
``predicting``, ``playing`` and ``taking`` phases), for 3 or 4 players, it plays the rest of
the round as the decider would: the predictions still to make (any order, as the decider takes
them; ``to_move`` names the lowest seat still to predict), then must follow the led colour (a super trump follows its
own colour, SS-4), the trick to the strongest card (super trumps, then colour rank, then
value; the led colour does not count, SS-3), the winner's take from the cupboard while it
holds cards (SS-7; with 4 players it runs out two tricks early), and at the round's end the
same points per seat as ``scoring.score_prediction`` (SS-8).

An action is an int: a card is its index in ``cards.SPICE_DECK`` (colour * 12 + value - 1);
taking colour ``c`` from the cupboard is ``TAKE + c``; predicting ``most`` and ``fewest`` is
``PREDICT + 4 * most + fewest``. ``legal()`` is a mask of actions.
The cupboard is its cards in take order (shared between copies) and a mask of those still in
it; a take takes the first one left of the colour, as the decider does. A collection is kept as
a count per colour: only its colours score.
``tests/domain/scharfe_schoten/test_simulator.py`` checks it against the decider step by step.
"""
from __future__ import annotations

from functools import lru_cache

from .cards import COLOURS, SPICE_DECK, colour_of, colour_ranking, super_trumps
from .scoring import POINTS

INDEX = {card: i for i, card in enumerate(SPICE_DECK)}
COLOUR = {colour: i for i, colour in enumerate(COLOURS)}
TAKE = len(SPICE_DECK)  # actions TAKE..TAKE+3 take a card of that colour from the cupboard
COLOUR_MASKS = tuple(0xFFF << (12 * c) for c in range(4))
TAKES = tuple((COLOUR_MASKS[c], 1 << (TAKE + c)) for c in range(4))
PREDICT = TAKE + 4  # actions PREDICT + 4 * most + fewest (most != fewest), colours as in COLOURS
PREDICTIONS = sum(1 << (PREDICT + 4 * most + fewest) for most in range(4) for fewest in range(4) if most != fewest)


@lru_cache(maxsize=256)
def strengths(numbers: tuple[int, ...]) -> tuple[int, ...]:
    """Each card's strength under a deal's numbers, as ``cards.card_strength`` orders them."""
    trumps = super_trumps(numbers)
    ranking = colour_ranking(numbers)
    out = []
    for card in SPICE_DECK:
        if card in trumps:
            out.append(1000 + len(trumps) - trumps.index(card))
        else:
            out.append(100 * (len(ranking) - ranking.index(colour_of(card))) + int(card[1:]))
    return tuple(out)


def _result(counts: list[int], colour: int, most: bool) -> int:
    """The points of one half of a prediction: 5 unique, 3 tied, 0 wrong."""
    mine = counts[colour]
    others = [counts[c] for c in range(4) if c != colour]
    if most:
        beaten, unique = any(o > mine for o in others), all(o < mine for o in others)
    else:
        beaten, unique = any(o < mine for o in others), all(o > mine for o in others)
    if beaten:
        return -1
    return POINTS["unique"] if unique else POINTS["tied"]


class Simulator:
    """One round in play. ``apply(action)`` returns the trick's winner when a card completes a
    trick (else -1; a take returns -1)."""

    __slots__ = ("players", "numbers", "power", "predictions", "hands", "leader", "trick", "led", "taker", "order",
                 "cupboard", "counts", "left")

    def copy(self) -> "Simulator":
        other = Simulator.__new__(Simulator)
        other.players, other.numbers, other.power, other.predictions = (
            self.players, self.numbers, self.power, self.predictions)
        other.hands, other.leader, other.trick, other.led = self.hands[:], self.leader, self.trick[:], self.led
        other.taker, other.order, other.cupboard, other.counts, other.left = (
            self.taker, self.order, self.cupboard, self.counts[:], self.left)
        return other

    def to_move(self) -> int:
        if self.taker >= 0:
            return self.taker
        if None in self.predictions:
            return self.predictions.index(None)
        return (self.leader + len(self.trick)) % self.players

    def predicting(self) -> bool:
        return None in self.predictions

    def predict(self, seat: int, action: int) -> None:
        """``seat``'s prediction (the decider takes them in any order)."""
        most, fewest = divmod(action - PREDICT, 4)
        predictions = list(self.predictions)
        predictions[seat] = (most, fewest)
        self.predictions = tuple(predictions)

    def taking(self) -> bool:
        return self.taker >= 0

    def is_over(self) -> bool:
        return self.left == 0 and self.taker < 0

    def legal(self) -> int:
        if None in self.predictions:
            return PREDICTIONS
        if self.taker >= 0:
            cupboard, takes = self.cupboard, 0
            for colour, take in TAKES:
                if cupboard & colour:
                    takes |= take
            return takes
        hand = self.hands[(self.leader + len(self.trick)) % self.players]
        if not self.trick:
            return hand
        return (hand & COLOUR_MASKS[self.led]) or hand

    def apply(self, action: int) -> int:
        if action >= PREDICT:
            self.predict(self.predictions.index(None), action)
            return -1
        if action >= TAKE:
            colour = action - TAKE
            self.cupboard ^= 1 << self.next_of(colour)
            self.counts[4 * self.taker + colour] += 1
            self.taker = -1
            return -1
        trick = self.trick
        players = self.players
        if not trick:
            self.led = action // 12
        self.hands[(self.leader + len(trick)) % players] ^= 1 << action
        self.left -= 1
        trick.append(action)
        if len(trick) < players:
            return -1
        power = self.power
        best, strongest = 0, power[trick[0]]
        for i in range(1, players):
            if power[trick[i]] > strongest:
                best, strongest = i, power[trick[i]]
        winner = (self.leader + best) % players
        base = 4 * winner
        for card in trick:
            self.counts[base + card // 12] += 1
        self.leader = winner
        self.trick = []
        if self.cupboard:
            self.taker = winner
        return winner

    def next_of(self, colour: int) -> int:
        """The card a take of ``colour`` takes: the first of that colour left in the cupboard."""
        left = self.cupboard & COLOUR_MASKS[colour]
        for card in self.order:
            if left >> card & 1:
                return card
        raise ValueError(f"the cupboard holds no {COLOURS[colour]} card")

    def unseen(self, seat: int) -> int:
        """The cards ``seat`` cannot see: the other hands and the cupboard."""
        mask = self.cupboard
        for other, hand in enumerate(self.hands):
            if other != seat:
                mask |= hand
        return mask

    def collection(self, seat: int) -> list[int]:
        """The colours ``seat`` has collected: a count per colour in ``COLOURS`` order."""
        return self.counts[4 * seat:4 * seat + 4]

    def points(self) -> list[int]:
        """Each seat's points for the round once it is over (SS-8)."""
        out = []
        for seat, (most, fewest) in enumerate(self.predictions):
            counts = self.counts[4 * seat:4 * seat + 4]
            high, low = _result(counts, most, True), _result(counts, fewest, False)
            if high < 0 or low < 0:
                out.append(max(high, 0) + max(low, 0))
            else:
                out.append(high + low + counts[most] - counts[fewest])
        return out


def from_state(state) -> Simulator:
    """The simulator of ``state`` (the decider's ``State`` in the predicting, playing or taking phase)."""
    if state.phase not in ("predicting", "playing", "taking"):
        raise ValueError(f"a simulator starts in card play, not in the {state.phase} phase")
    sim = Simulator.__new__(Simulator)
    sim.players = state.players
    sim.numbers = tuple(state.numbers)
    sim.power = strengths(sim.numbers)
    sim.predictions = tuple(None if p is None else (COLOUR[p.most], COLOUR[p.fewest]) for p in state.predictions)
    sim.hands = [sum(1 << INDEX[c] for c in hand) for hand in state.hands]
    sim.leader = state.trick.leader
    sim.trick = [INDEX[c] for _, c in state.trick.plays]
    sim.led = sim.trick[0] // 12 if sim.trick else -1
    sim.taker = state.taker if state.phase == "taking" else -1
    sim.order = tuple(INDEX[c] for c in state.cupboard)
    sim.cupboard = sum(1 << card for card in sim.order)
    sim.counts = [0] * (4 * state.players)
    for seat, cards in enumerate(state.collections):
        for card in cards:
            sim.counts[4 * seat + COLOUR[card[0]]] += 1
    sim.left = sum(len(hand) for hand in state.hands)
    return sim


def command_of(action: int) -> dict:
    """The decider's command for an action."""
    if action >= PREDICT:
        most, fewest = divmod(action - PREDICT, 4)
        return {"type": "predict", "most": COLOURS[most], "fewest": COLOURS[fewest]}
    if action >= TAKE:
        return {"type": "take", "colour": COLOURS[action - TAKE]}
    return {"type": "play", "card": SPICE_DECK[action]}


def action_of(command: dict) -> int:
    """The action of a ``predict``, ``play`` or ``take`` command."""
    if command["type"] == "predict":
        return PREDICT + 4 * COLOUR[command["most"]] + COLOUR[command["fewest"]]
    return INDEX[command["card"]] if command["type"] == "play" else TAKE + COLOUR[command["colour"]]
