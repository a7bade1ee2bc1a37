"""A compact Schafkopf deal for search: integer cards, bitmask hands, no events.

Built from the decider's state at any moment of a deal (``from_state``): from the deal to the
first card (``TALK_PHASES``) or in card play. Before the first card it speaks as the decider
does: Doppeln after the first half (``all`` or ``not_dealer``), the announcement in turn from
Vorhand (pass, play, after an earlier "play" only with a game above the Rufspiel, the Hochzeit
offer that starts the announcement again), the naming round (every game the rules allow and
the hand may name, a later seat only above the standing game, the called Ace's SK-5 legality,
the Hochzeit's marrying, withdrawing where allowed), the auction between band games, the
Hochzeit's card exchange, the all-pass rules (the Renonce round, Muss with As-Renonce, Ramsch,
the deal thrown in: plain, doubling the next game, or paying into the Stock) and the
Schieberrunde (Vorhand's and the dealer's calls, the Obers handed over, the passing, the
Solo's suit). Then it plays the deal as the decider would: the same legal cards (following,
trumps as their own suit, the called Ace's SK-6 binding and running away, Bettel's
Stichzwang), the same trick winners and, once the last trick is taken, the same
``Settlement`` (SK-7 to SK-9, the Stock, Ramsch with Durchmarsch and Jungfrauen) for every
game type: Rufspiel, Hochzeit, Solo, Wenz, Geier, their Farb- and Tout forms, Sie, Bettel and
Ramsch, with the long or the short deck. A deal that ends before play (thrown in, the
Schieberrunde paid) has the decider's ``Settlement`` too. ``phase()`` names the decider's
phase (``dealing`` once the deal is over).

An action is an int. A card is its index in ``cards.DECK`` (0-31, the short deck's cards keep
their index); before the first card: ``PASS`` (32), ``I_PLAY`` (33) and ``OFFER`` (34, the
Hochzeit) announce; ``DOUBLE``/``NO_DOUBLE`` (35, 36) answer Doppeln; ``WITHDRAW`` (37) is
the naming round's "Weiter"; ``SCHIEBER_PLAY``/``SCHIEBER_NO`` (38, 39) the Schieberrunde's
calls; ``BID_PASS`` (40) passes in the auction and ``BID + k`` (41-45) bids the target
71 + 10k; ``NAME + 5 * g + s`` (46-115) names game ``GAMES[g]`` (``PRECEDENCE`` and
``hochzeit``) with suit ``cards.SUITS[s]`` (``s = 4``: none); ``GIVE + card`` (116-147) is the
Hochzeit's card given; ``PASS_ON + 32 * a + b`` (``a < b``, from 148) passes cards ``a`` and
``b`` on in the Schieberrunde. ``action_of`` and ``command_of`` translate to and from the
decider's commands. ``legal()`` is a mask of actions. A Stoß is no action (a search plays
cards only): ``may_stoss()`` says whether the seat to move may give one, ``stoss()`` gives it.

A hand is an int with its cards' bits set. Everything that follows from the contract alone
(who follows what, card strength per led suit) is computed once per contract and shared; the
playing state is a few small lists, so ``copy`` is cheap. Before the first card ``talk`` (a
``talk_simulator.Talk``) holds what was said (``None`` in card play, so that play pays one
attribute test for it). ``leads`` (the follow keys led to the finished tricks, a mask) is kept for the search's
heuristic rollouts, which read it; the rules only need whether the called suit was led.
``tests/domain/schafkopf/test_simulator.py`` checks it against the decider decision by
decision, from the deal to the settlement.
"""
from __future__ import annotations

from functools import lru_cache

from ..bitmask import members
from .auction import STEP
from .cards import DECK, INDEX, PLAYERS, SUITS, points
from .doppeln import speakers as doppeln_speakers
from .game_types import TARIFF_OF, TOUTS, goal, order
from .ramsch import TOTAL, ramsch_settlement
from .scoring import DECLARER_SCHNEIDER, DEFENDER_SCHNEIDER, laufende, stock_change
from .state import ANNOUNCE, AUCTION, DEALING, DOPPELN, EXCHANGE, NAMING, PLAY, PUSH, SCHIEBER, WIN, Settlement
from .talk_simulator import (BID, BID_PASS, DOUBLE, GAMES, GIVE, I_PLAY, NAME, NO_DOUBLE, OFFER, PASS, PASS_ON,
                             SCHIEBER_NO, SCHIEBER_PLAY, WITHDRAW, Talk, name_action)

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
                 "contract", "deal", "dealer", "trump_rank", "doubled", "muss")

    def __init__(self, state):
        self._fix(state.contract, state.config, state.partner, state.stock, state.deal, state.dealer, state.dealt,
                  len(state.doublers) + state.bock, state.mode == "muss")

    @classmethod
    def declared(cls, contract, config, partner, stock: int, deal: int, dealer: int, dealt, doubled: int,
                 muss: bool) -> "Deal":
        """The rules of a contract the simulator itself saw declared (``dealt``: hands as card codes)."""
        out = cls.__new__(cls)
        out._fix(contract, config, partner, stock, deal, dealer, dealt, doubled, muss)
        return out

    def _fix(self, contract, config, partner, stock, deal, dealer, dealt, doubled, muss) -> None:
        # ``doubled``: the doublings before play (Doppeln, a thrown-in deal's), so that the
        # multiplier also counts the Stöße given; a Muss-Spiel allows none.
        self.doubled, self.muss = doubled, muss
        self.game, self.config, self.contract, self.deal, self.dealer = contract.game, config, contract, deal, dealer
        self.follow, self.masks, self.power = tables(contract.game, contract.suit)
        self.hand_size = config.hand_size
        self.partner = -1 if partner is None else partner
        ace = contract.called_ace
        self.ace = 1 << INDEX[ace] if ace else 0
        self.called_key = SUIT_KEY[ace[0]] if ace else -1
        self.called_mask = self.masks[self.called_key] if ace else 0
        self.stichzwang = contract.game == "bettel" and config.bettel_stichzwang
        self.stock = stock
        self.trump_rank = {INDEX[c]: i for i, c in enumerate(order(contract.game, contract.suit).trumps)}
        if contract.game == "ramsch":
            self.declarers = ()
            self.kind = "ramsch"
            return
        self.declarers = tuple(sorted({contract.declarer} | ({partner} if partner is not None else set())))
        self.kind = goal(contract.game)
        self.target = contract.target or WIN
        self.tariff = config.tariff(TARIFF_OF[contract.game])
        self.runs = 0
        if self.kind != "no_tricks":
            runs = laufende(dealt, contract, self.declarers, config.deck)
            self.runs = runs if runs >= self.tariff.laufende_min else 0
        self.factor = config.tout_factor if contract.game in TOUTS else config.sie_factor


def _talk_from_state(state) -> Simulator:
    talk = Talk.__new__(Talk)
    talk.phase, talk.config, talk.deal, talk.dealer = state.phase, state.config, state.deal, state.dealer
    talk.stock, talk.bock = state.stock, state.bock
    talk.hands = [mask_of(hand) for hand in state.hands]
    talk.held = [mask_of(hand) for hand in state.held] if state.held else [0] * PLAYERS
    talk.speakers = tuple(doppeln_speakers(state))
    talk.spoken, talk.doublers = len(state.doppeln), len(state.doublers)
    talk.hochzeit = state.hochzeit
    talk.announced = [intent for _, intent in state.announcements]
    talk.namers, talk.naming, talk.best, talk.mode = list(state.namers), list(state.naming), state.best, state.mode
    talk.target, talk.holder, talk.bidders = state.target, state.holder, list(state.bidders)
    talk.calls, talk.pushes = len(state.schieber_calls), len(state.pushes)
    talk.contract, talk.partner, talk.result = state.contract, state.partner, None
    sim = Simulator.__new__(Simulator)
    sim.talk, sim.rules, sim.hands = talk, None, talk.hands
    sim.leader, sim.trick, sim.led, sim.done = (state.dealer + 1) % PLAYERS, [], -1, 0
    sim.points, sim.taken, sim.won = [0] * PLAYERS, [0] * PLAYERS, [0] * PLAYERS
    sim.called_suit_led = sim.ace_free = False
    sim.multiplier, sim.leads = 2 ** (talk.doublers + talk.bock), 0
    return sim


class Simulator:
    """One deal in play. ``legal()`` is a mask of cards; ``apply(card)`` plays one for the seat
    to move and returns the trick's winner when it completes a trick (else -1)."""

    __slots__ = ("rules", "hands", "leader", "trick", "led", "done", "points", "taken", "won",
                 "called_suit_led", "ace_free", "multiplier", "leads", "talk")

    def copy(self) -> "Simulator":
        other = Simulator.__new__(Simulator)
        other.rules, other.hands, other.leader, other.trick, other.led = (
            self.rules, self.hands[:], self.leader, self.trick[:], self.led)
        other.talk = None if self.talk is None else self.talk.copy(other.hands)
        other.done, other.points, other.taken, other.won = self.done, self.points[:], self.taken[:], self.won[:]
        other.called_suit_led, other.ace_free, other.multiplier = self.called_suit_led, self.ace_free, self.multiplier
        other.leads = self.leads
        return other

    def to_move(self) -> int:
        if self.talk is not None:
            return self.talk.seat()
        return (self.leader + len(self.trick)) % PLAYERS

    def is_over(self) -> bool:
        if self.talk is not None:
            return self.talk.result is not None
        return self.done == self.rules.hand_size

    def phase(self) -> str:
        """The decider's phase name: a bidding phase, ``play``, or ``dealing`` once the deal is over."""
        if self.talk is not None:
            return DEALING if self.talk.result is not None else self.talk.phase
        return DEALING if self.done == self.rules.hand_size else PLAY

    def legal(self) -> int:
        if self.talk is not None:
            return self.talk.legal()
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
        if card >= PASS:  # no card: something said before the first card
            if self.talk.apply(card):
                self._begin_play()
            return -1
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

    def _begin_play(self) -> None:
        """The contract is declared (and a Hochzeit's card exchanged): card play from Vorhand."""
        talk = self.talk
        self.rules = Deal.declared(talk.contract, talk.config, talk.partner, talk.stock, talk.deal, talk.dealer,
                                   [cards_of(hand) for hand in talk.hands], talk.doublers + talk.bock,
                                   talk.mode == "muss")
        self.multiplier = 2 ** (talk.doublers + talk.bock)
        self.leader = (talk.dealer + 1) % PLAYERS
        self.talk = None

    def trick_plays(self) -> tuple[tuple[int, int], ...]:
        """The current trick as (seat, card) plays."""
        if self.talk is not None:
            return ()
        return tuple(((self.leader + i) % PLAYERS, card) for i, card in enumerate(self.trick))

    def may_stoss(self) -> bool:
        """May the seat to move give the next Stoß before its card (SK-10, as ``stoss.allowed``)?

        Not an action of ``legal()``, which stays the cards: a search plays cards only."""
        rules = self.rules
        if self.talk is not None or rules.kind == "ramsch" or rules.muss or self.is_over():
            return False
        level = self.multiplier.bit_length() - rules.doubled  # the multiplier is 2 ** (doubled + Stöße)
        if level > rules.config.stoss:
            return False
        seat = self.to_move()
        if (seat in rules.declarers) == (level % 2 == 1):
            return False  # Kontra and Supra are the defenders', Re and Resupra the declarers'
        return rules.hand_size - self.hands[seat].bit_count() < level

    def stoss(self) -> None:
        """A Stoß given during play doubles the deal's price."""
        self.multiplier *= 2

    def settlement(self) -> Settlement:
        """The deal's result once every trick is taken (or the deal ended before play: thrown in, the
        Schieberrunde paid), as the decider settles it."""
        if self.talk is not None:
            return self.talk.result
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
        rules = self.rules
        rank = rules.trump_rank
        vorhand = [(rules.dealer + 1 + i) % PLAYERS for i in range(PLAYERS)]

        def best_trump(seat: int) -> int:
            held = [rank[c] for c in members(self.won[seat]) if c in rank]
            return -min(held) if held else -len(rank)

        def lose() -> int:  # ``ramsch.loser``'s tie-breaks, on the cards won as masks
            return max(vorhand, key=lambda s: (self.points[s], self.taken[s], best_trump(s), -vorhand.index(s)))

        return ramsch_settlement(rules.deal, rules.config, self.multiplier, self.points, self.taken, self.done,
                                 lose)


TALK_PHASES = (DOPPELN, ANNOUNCE, NAMING, AUCTION, EXCHANGE, SCHIEBER, PUSH)


def from_state(state) -> Simulator:
    """The simulator of ``state``: the decider's ``State`` in card play with a trick open, or in
    any phase between the deal and the first card (``TALK_PHASES``)."""
    if state.phase in TALK_PHASES:
        return _talk_from_state(state)
    if state.phase != PLAY or state.trick is None:
        raise ValueError(f"a simulator starts inside a deal, not in the {state.phase} phase")
    sim = Simulator.__new__(Simulator)
    sim.talk = None
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


def action_of(command: dict) -> int:
    """The action of one of the decider's commands (not ``stoss``: see ``Simulator.stoss``)."""
    kind = command["type"]
    if kind == "play":
        return INDEX[command["card"]]
    if kind == "announce":
        return {"pass": PASS, "play": I_PLAY, "hochzeit": OFFER}[command["intent"]]
    if kind == "doppeln":
        return DOUBLE if command["double"] else NO_DOUBLE
    if kind == "withdraw":
        return WITHDRAW
    if kind == "schieber":
        return SCHIEBER_PLAY if command["play"] else SCHIEBER_NO
    if kind == "pass":
        return BID_PASS
    if kind == "bid":
        return BID + (command["target"] - WIN) // STEP - 1
    if kind == "name_game":
        return name_action(command["game"], command.get("suit"))
    if kind == "give_card":
        return GIVE + INDEX[command["card"]]
    if kind == "push":
        a, b = sorted(INDEX[c] for c in command["cards"])
        return PASS_ON + len(DECK) * a + b
    raise ValueError(f"no action for a {kind!r} command")


def command_of(action: int) -> dict:
    """The decider's command for an action."""
    if action < PASS:
        return {"type": "play", "card": DECK[action]}
    if action >= PASS_ON:
        a, b = divmod(action - PASS_ON, len(DECK))
        return {"type": "push", "cards": [DECK[a], DECK[b]]}
    if action >= GIVE:
        return {"type": "give_card", "card": DECK[action - GIVE]}
    if action >= NAME:
        g, s = divmod(action - NAME, 5)
        command = {"type": "name_game", "game": GAMES[g]}
        if s < 4:
            command["suit"] = SUITS[s]
        return command
    if action >= BID:
        return {"type": "bid", "target": WIN + STEP * (action - BID + 1)}
    return {PASS: {"type": "announce", "intent": "pass"}, I_PLAY: {"type": "announce", "intent": "play"},
            OFFER: {"type": "announce", "intent": "hochzeit"}, DOUBLE: {"type": "doppeln", "double": True},
            NO_DOUBLE: {"type": "doppeln", "double": False}, WITHDRAW: {"type": "withdraw"},
            SCHIEBER_PLAY: {"type": "schieber", "play": True}, SCHIEBER_NO: {"type": "schieber", "play": False},
            BID_PASS: {"type": "pass"}}[action]


__all__ = ["DECK", "INDEX", "Simulator", "action_of", "cards_of", "command_of", "from_state", "mask_of"]
