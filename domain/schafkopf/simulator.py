"""A compact Schafkopf deal for search: integer cards, bitmask hands, no events.

Built from the decider's state at any moment of card play (``from_state``), it plays the rest
of the deal as the decider would: the same legal cards (following, trumps as their own suit,
the called Ace's SK-6 binding and running away, Bettel's Stichzwang), the same trick winners
and, once the last trick is taken, the same ``Settlement`` (SK-7 to SK-9, the Stock, Ramsch
with Durchmarsch and Jungfrauen) for every game type: Rufspiel, Hochzeit, Solo, Wenz, Geier,
their Farb- and Tout forms, Sie, Bettel and Ramsch, with the long or the short deck.

A card is its index in ``cards.DECK``; a hand is an int with that bit set. Everything that
follows from the contract alone (who follows what, card strength per led suit) is computed
once per contract and shared; the playing state is a few small lists, so ``copy`` is cheap.
``leads`` (the follow keys led to the finished tricks, a mask) is kept for the search's
heuristic rollouts, which read it; the rules only need whether the called suit was led.
``tests/domain/schafkopf/test_simulator.py`` checks it against the decider card by card.
"""
from __future__ import annotations

from functools import lru_cache

from ..bitmask import members
from .cards import DECK, PLAYERS, points
from .game_types import TARIFF_OF, TOUTS, goal, order
from .ramsch import TOTAL, jungfrau_factor
from .settlement import DECLARER_SCHNEIDER, DEFENDER_SCHNEIDER, laufende, stock_change
from .state import PLAY, WIN, Settlement

INDEX = {card: i for i, card in enumerate(DECK)}
POINTS = tuple(points(card) for card in DECK)
TRUMP = 4  # the follow key of every trump; the plain suits are 0-3 in ``cards.SUITS`` order
SUIT_KEY = {"E": 0, "G": 1, "H": 2, "S": 3, "T": TRUMP}


@lru_cache(maxsize=None)
def tables(game: str, suit: str | None) -> tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """(follow key per card, cards per follow key, strength per led key and card) of a contract.

    Strength as ``Order.strength`` orders it: a trump above the led suit above a discard (0)."""
    rules = order(game, suit)
    follow = tuple(SUIT_KEY[rules.follow_key(card)] for card in DECK)
    masks = tuple(sum(1 << i for i, key in enumerate(follow) if key == k) for k in range(5))
    power = []
    for led in range(5):
        row = []
        for card in DECK:
            if rules.is_trump(card):
                row.append(200 - rules.trumps.index(card))
            elif led != TRUMP and SUIT_KEY[card[0]] == led:
                row.append(100 - rules.plain_ranks.index(card[1:]))
            else:
                row.append(0)
        power.append(tuple(row))
    return follow, masks, tuple(power)


class Deal:
    """What stays fixed while a deal is played: the contract's tables and the settlement's terms."""

    __slots__ = ("game", "follow", "masks", "power", "hand_size", "partner", "ace", "called_key", "called_mask",
                 "stichzwang", "declarers", "kind", "target", "tariff", "runs", "factor", "stock", "config",
                 "contract", "deal", "dealer", "trump_rank")

    def __init__(self, state):
        contract, config = state.contract, state.config
        self.game, self.config, self.contract, self.deal, self.dealer = contract.game, config, contract, state.deal, \
            state.dealer
        self.follow, self.masks, self.power = tables(contract.game, contract.suit)
        self.hand_size = config.hand_size
        self.partner = -1 if state.partner is None else state.partner
        ace = contract.called_ace
        self.ace = 1 << INDEX[ace] if ace else 0
        self.called_key = SUIT_KEY[ace[0]] if ace else -1
        self.called_mask = self.masks[self.called_key] if ace else 0
        self.stichzwang = contract.game == "bettel" and config.bettel_stichzwang
        self.stock = state.stock
        self.trump_rank = {INDEX[c]: i for i, c in enumerate(order(contract.game, contract.suit).trumps)}
        if contract.game == "ramsch":
            self.declarers = ()
            self.kind = "ramsch"
            return
        self.declarers = tuple(sorted({contract.declarer} | ({state.partner} if state.partner is not None else set())))
        self.kind = goal(contract.game)
        self.target = contract.target or WIN
        self.tariff = config.tariff(TARIFF_OF[contract.game])
        self.runs = 0
        if self.kind != "no_tricks":
            runs = laufende(state.dealt, contract, self.declarers, config.deck)
            self.runs = runs if runs >= self.tariff.laufende_min else 0
        self.factor = config.tout_factor if contract.game in TOUTS else config.sie_factor


class Simulator:
    """One deal in play. ``legal()`` is a mask of cards; ``apply(card)`` plays one for the seat
    to move and returns the trick's winner when it completes a trick (else -1)."""

    __slots__ = ("rules", "hands", "leader", "trick", "led", "done", "points", "taken", "won",
                 "called_suit_led", "ace_free", "multiplier", "leads")

    def copy(self) -> "Simulator":
        other = Simulator.__new__(Simulator)
        other.rules, other.hands, other.leader, other.trick, other.led = (
            self.rules, self.hands[:], self.leader, self.trick[:], self.led)
        other.done, other.points, other.taken, other.won = self.done, self.points[:], self.taken[:], self.won[:]
        other.called_suit_led, other.ace_free, other.multiplier = self.called_suit_led, self.ace_free, self.multiplier
        other.leads = self.leads
        return other

    def to_move(self) -> int:
        return (self.leader + len(self.trick)) % PLAYERS

    def is_over(self) -> bool:
        return self.done == self.rules.hand_size

    def legal(self) -> int:
        rules = self.rules
        trick = self.trick
        seat = (self.leader + len(trick)) % PLAYERS
        hand = self.hands[seat]
        ace = rules.ace
        bound = (hand & ace and seat == rules.partner and not self.called_suit_led and not self.ace_free)
        if not trick:
            if bound:
                suit_cards = hand & rules.called_mask
                # Davonlaufen needs the Ace and three more of its suit; else the suit is led by the Ace.
                if (suit_cards.bit_count() - 1) < 3:
                    return hand & ~(suit_cards & ~ace)
            return hand
        led = self.led
        same = hand & rules.masks[led]
        if same:
            if bound and led == rules.called_key:
                return ace
            if rules.stichzwang:
                power = rules.power[led]
                best = max(power[card] for card in trick)
                beating = 0
                for card in members(same):
                    if power[card] > best:
                        beating |= 1 << card
                return beating or same
            return same
        if bound and self.done != rules.hand_size - 1:
            return hand & ~ace
        return hand

    def apply(self, card: int) -> int:
        rules = self.rules
        trick = self.trick
        seat = (self.leader + len(trick)) % PLAYERS
        if not trick:
            self.led = rules.follow[card]
            if (seat == rules.partner and self.led == rules.called_key and (1 << card) != rules.ace
                    and not self.called_suit_led):
                self.ace_free = True  # ran away: the Ace is free from now on
        self.hands[seat] ^= 1 << card
        trick.append(card)
        if len(trick) < PLAYERS:
            return -1
        power = rules.power[self.led]
        best, strongest = 0, power[trick[0]]
        for i in (1, 2, 3):
            if power[trick[i]] > strongest:
                best, strongest = i, power[trick[i]]
        winner = (self.leader + best) % PLAYERS
        self.points[winner] += POINTS[trick[0]] + POINTS[trick[1]] + POINTS[trick[2]] + POINTS[trick[3]]
        self.taken[winner] += 1
        self.won[winner] |= (1 << trick[0]) | (1 << trick[1]) | (1 << trick[2]) | (1 << trick[3])
        if self.led == rules.called_key:
            self.called_suit_led = True
        self.leads |= 1 << self.led
        self.done += 1
        self.leader = winner
        self.trick = []
        return winner

    def trick_plays(self) -> tuple[tuple[int, int], ...]:
        """The current trick as (seat, card) plays."""
        return tuple(((self.leader + i) % PLAYERS, card) for i, card in enumerate(self.trick))

    def stoss(self) -> None:
        """A Stoß given during play doubles the deal's price."""
        self.multiplier *= 2

    def settlement(self) -> Settlement:
        """The deal's result once every trick is taken, as the decider settles it."""
        rules = self.rules
        if rules.kind == "ramsch":
            return self._ramsch()
        declarers = rules.declarers
        taken0 = sum(self.taken[s] for s in declarers)
        points0 = sum(self.points[s] for s in declarers)
        taken = (taken0, rules.hand_size - taken0)
        points_ = (points0, TOTAL - points0)
        tariff = rules.tariff
        schneider = schwarz = False
        runs = rules.runs
        if rules.kind == "no_tricks":
            won = taken[0] == 0
            value = tariff.base
        elif rules.kind == "all_tricks":
            won = taken[1] == 0
            value = (tariff.base + runs * tariff.laufende) * rules.factor
        else:
            won = points_[0] >= rules.target
            schneider = points_[0] >= DECLARER_SCHNEIDER if won else points_[1] >= DEFENDER_SCHNEIDER
            schwarz = taken[1] == 0 if won else taken[0] == 0
            value = (tariff.base + (tariff.schneider if schneider else 0)
                     + (tariff.schwarz if schwarz else 0) + runs * tariff.laufende)
        value *= self.multiplier
        sign = 1 if won else -1
        lone = len(declarers) != 2
        payments = [(sign * (value * (PLAYERS - 1) if lone else value)) if seat in declarers else -sign * value
                    for seat in range(PLAYERS)]
        pot, flows = stock_change(rules.stock, won, declarers, rules.contract, rules.config)
        contract = rules.contract
        return Settlement(deal=rules.deal, game=rules.game, declarers=declarers, card_points=points_, tricks=taken,
                          won=won, schneider=schneider, schwarz=schwarz, laufende=runs, value=value,
                          payments=tuple(p + f for p, f in zip(payments, flows)), multiplier=self.multiplier,
                          stock=pot, target=contract.target, declarer=contract.declarer, suit=contract.suit)

    def _ramsch(self) -> Settlement:
        rules, config = self.rules, self.rules.config
        seat_points, taken = self.points, self.taken
        price = config.tariff("ramsch").base * self.multiplier
        durch = None
        if config.ramsch_durchmarsch == "all_tricks":
            durch = next((s for s in range(PLAYERS) if taken[s] == self.done), None)
        elif config.ramsch_durchmarsch == "all_points":
            durch = next((s for s in range(PLAYERS) if seat_points[s] == TOTAL), None)
        jungfrauen: tuple[int, ...] = ()
        if durch is not None:
            side = durch
            payments = [price * (PLAYERS - 1) if s == durch else -price for s in range(PLAYERS)]
        else:
            rank = rules.trump_rank
            vorhand = [(rules.dealer + 1 + i) % PLAYERS for i in range(PLAYERS)]

            def best_trump(seat: int) -> int:
                held = [rank[c] for c in members(self.won[seat]) if c in rank]
                return -min(held) if held else -len(rank)

            side = max(vorhand, key=lambda s: (seat_points[s], taken[s], best_trump(s), -vorhand.index(s)))
            jungfrauen = tuple(s for s in range(PLAYERS) if taken[s] == 0)
            payments = [0] * PLAYERS
            for seat in range(PLAYERS):
                if seat != side:
                    owed = price * jungfrau_factor(config.ramsch_jungfrau, seat, jungfrauen)
                    payments[seat] += owed
                    payments[side] -= owed
        return Settlement(deal=rules.deal, game="ramsch", declarers=(side,),
                          card_points=(seat_points[side], TOTAL - seat_points[side]),
                          tricks=(taken[side], self.done - taken[side]), won=durch is not None,
                          schneider=False, schwarz=False, laufende=0, value=price, payments=tuple(payments),
                          multiplier=self.multiplier, seat_points=tuple(seat_points),
                          durchmarsch=durch is not None, jungfrauen=jungfrauen)


def from_state(state) -> Simulator:
    """The simulator of ``state`` (the decider's ``State``, in the play phase with a trick open)."""
    if state.phase != PLAY or state.trick is None:
        raise ValueError(f"a simulator starts in card play, not in the {state.phase} phase")
    sim = Simulator.__new__(Simulator)
    sim.rules = Deal(state)
    sim.hands = [sum(1 << INDEX[c] for c in hand) for hand in state.hands]
    sim.leader = state.trick.leader
    sim.trick = [INDEX[c] for _, c in state.trick.plays]
    sim.led = sim.rules.follow[sim.trick[0]] if sim.trick else -1
    sim.done = len(state.tricks)
    sim.points, sim.taken, sim.won = [0] * PLAYERS, [0] * PLAYERS, [0] * PLAYERS
    for winner, trick in state.tricks:
        sim.points[winner] += sum(POINTS[INDEX[c]] for c in trick.cards)
        sim.taken[winner] += 1
        sim.won[winner] |= sum(1 << INDEX[c] for c in trick.cards)
    sim.called_suit_led, sim.ace_free, sim.multiplier = state.called_suit_led, state.ace_free, state.multiplier
    sim.leads = 0
    for _, trick in state.tricks:
        sim.leads |= 1 << sim.rules.follow[INDEX[trick.plays[0][1]]]
    return sim


def cards_of(mask: int) -> list[str]:
    """The card codes of a mask, in deck order."""
    return [DECK[i] for i in members(mask)]


def mask_of(cards) -> int:
    return sum(1 << INDEX[c] for c in cards)


__all__ = ["DECK", "INDEX", "Simulator", "cards_of", "from_state", "mask_of"]
