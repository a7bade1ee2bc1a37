"""The heuristic on the simulator: the rest of a whole deal, talk and Stoß included.

A whole-deal playout (``deal_search``) starts before the first card, so every seat's
announcing, naming, Doppeln, auction raise, Hochzeit card and Schieberrunde call must come
from somewhere: from the heuristic's own rules (``bidding``), asked with the seat's hand in the
sampled world and the simulator's legal actions turned into the decider's commands. Card play
is the search's card rollout (``search.heuristic_rollout``: the heuristic knowing the sampled
hands); before its card a seat gives a Stoß when the heuristic would (``bidding.stoss``).

``talk_action`` is also what inference asks: would the heuristic, with this sampled hand,
have said what the seat said?
"""
from __future__ import annotations

import random
from functools import lru_cache

from ...bitmask import members
from ..cards import PLAYERS
from ..simulator import DECK, INDEX, Simulator, action_of, command_of
from ..state import ANNOUNCE, AUCTION, DOPPELN, EXCHANGE, NAMING, PUSH, SCHIEBER
from . import bidding, cardplay

FOLLOW_KEYS = ("E", "G", "H", "S", "T")  # the simulator's follow keys 0-4 as ``Order.follow_key`` names them
PARTNERSHIPS = ("rufspiel", "hochzeit")
POINT_WEIGHT = 0.02  # a card point against a payment unit: a tie-break, never outweighing a game won


@lru_cache(maxsize=1024)
def _friends(contract, partner: int | None, seat: int) -> frozenset[int]:
    if contract.declarer is None:
        return frozenset()
    others = frozenset(range(PLAYERS)) - {seat}
    if contract.game in PARTNERSHIPS:
        side = {contract.declarer, partner}
        return frozenset(side - {seat}) if seat in side else others - side
    return frozenset() if seat == contract.declarer else others - {contract.declarer}


# A rollout hands the heuristic card codes: the same hands and leads recur in every playout of a world.
@lru_cache(maxsize=1 << 14)
def codes(mask: int) -> tuple[str, ...]:
    return tuple(DECK[card] for card in members(mask))


@lru_cache(maxsize=32)
def _led(mask: int) -> frozenset[str]:
    return frozenset(FOLLOW_KEYS[key] for key in members(mask))


def heuristic_rollout(sim: Simulator, seat: int, legal: tuple[int, ...], rng: random.Random) -> int:
    """The heuristic's card, knowing every hand of the sampled world."""
    rules = sim.rules
    contract = rules.contract
    situation = cardplay.Situation(
        seat=seat, hand=codes(sim.hands[seat]), legal=[DECK[c] for c in legal],
        trick=tuple((who, DECK[c]) for who, c in sim.trick_plays()), game=contract.game,
        suit=contract.suit, declarer=contract.declarer, called_ace=contract.called_ace,
        friends=_friends(contract, None if rules.partner < 0 else rules.partner, seat), played=frozenset(),
        deck=rules.config.cards, led_before=_led(sim.leads),
        hands={s: codes(sim.hands[s]) for s in range(PLAYERS) if s != seat})
    return INDEX[cardplay.choose(situation)]


def random_rollout(sim: Simulator, seat: int, legal: tuple[int, ...], rng: random.Random) -> int:
    return legal[rng.randrange(len(legal))]


def score(settled, seat: int) -> float:
    """A playout's value for ``seat``: its payment of the deal, plus a little for its side's card
    points (Ramsch: minus its own). A deal thrown in has no card points."""
    if settled.game == "ramsch":
        return settled.payments[seat] - POINT_WEIGHT * settled.seat_points[seat]
    side = 0 if seat in settled.declarers else 1
    return settled.payments[seat] + POINT_WEIGHT * settled.card_points[side]


@lru_cache(maxsize=1 << 12)
def _commands(mask: int) -> tuple[dict, ...]:
    return tuple(command_of(action) for action in members(mask))


def talk_action(sim: Simulator, seat: int, legal: int | None = None) -> int:
    """The heuristic's action before the first card for ``seat`` (the seat to move)."""
    talk = sim.talk
    legal = sim.legal() if legal is None else legal
    if legal & (legal - 1) == 0:
        return legal.bit_length() - 1
    hand, phase = talk.hands[seat], talk.phase
    if phase == ANNOUNCE:
        return _said(phase, hand, legal, tuple(talk.config.allowed_games), "play" in talk.announced)
    if phase in (NAMING, DOPPELN):
        return _said(phase, hand, legal)
    if phase == AUCTION:
        named = next(((game, suit) for who, game, suit in talk.naming if who == seat and game), None)
        return _said(phase, hand, legal, named)
    commands = list(_commands(legal))
    cards = codes(hand)
    if phase == SCHIEBER:
        command = bidding.schieber(cards, commands, takes_obers=seat == talk.dealer)
    elif phase == PUSH:
        command = bidding.push(cards, commands, declarer=seat == talk.vorhand)
    elif phase == EXCHANGE:
        command = bidding.give_card(cards, commands)
    else:
        command = commands[0]
    return action_of(command)


# The talk's rules of thumb are pure functions of a few values, asked again for the same hands in
# every candidate's playouts and in inference's replays.
@lru_cache(maxsize=1 << 15)
def _said(phase: str, hand: int, legal: int, *more) -> int:
    commands, cards = list(_commands(legal)), codes(hand)
    if phase == ANNOUNCE:
        allowed, someone_plays = more
        command = bidding.announce(cards, {"allowed_games": allowed}, commands, someone_plays)
    elif phase == NAMING:
        command = bidding.name(cards, commands)
    elif phase == DOPPELN:
        command = bidding.doppeln(cards, commands)
    else:
        command = bidding.bid(cards, commands, more[0])
    return action_of(command)


def wants_stoss(sim: Simulator, seat: int) -> bool:
    """Would the heuristic give the next Stoß now (the simulator allowing it)?"""
    rules = sim.rules
    level = sim.multiplier.bit_length() - rules.doubled
    contract = rules.contract
    return bidding.stoss(codes(sim.hands[seat]), {"game": contract.game, "suit": contract.suit},
                         seat in rules.declarers, level)


def play_out(sim: Simulator, rng, plan: dict | None = None, silent: int = -1, stoss: bool = True) -> None:
    """Play ``sim`` to the end of the deal with the heuristic, in place. ``plan``: seat -> the
    naming action that seat takes when it may (the candidate under test); ``silent``: a seat that
    gives no Stoß (it has just decided about one)."""
    while not sim.is_over():
        legal = sim.legal()
        seat = sim.to_move()
        if sim.talk is not None:
            if legal & (legal - 1) == 0:
                sim.apply(legal.bit_length() - 1)
                continue
            planned = plan.get(seat) if plan else None
            if planned is not None and sim.talk.phase == NAMING and legal >> planned & 1:
                sim.apply(planned)
            else:
                sim.apply(talk_action(sim, seat, legal))
            continue
        if stoss and seat != silent and sim.may_stoss() and wants_stoss(sim, seat):
            sim.stoss()
        if legal & (legal - 1) == 0:
            sim.apply(legal.bit_length() - 1)
        else:
            sim.apply(heuristic_rollout(sim, seat, tuple(members(legal)), rng))
