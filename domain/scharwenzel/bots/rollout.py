"""Playing a sampled deal to its end through the simulator, and what the end is worth to a side.

The searches (``search`` for cards, ``contract`` for the bids, the trumps and the tout) share
this: a rollout policy for the cards (the heuristic's rules, told the sampled deal's true
hands: cheap, no history to read), the heuristic's bidding, naming and tout rules for every
seat when a rollout starts before card play, and the one value a search maximises: the deal's
value for the side (``outcome.side_value``, in points, a hook 24) plus a little per trick, so
that equal results still prefer more tricks.
"""
from __future__ import annotations

from functools import lru_cache

from ...bitmask import members
from ..cards import SUITS, TRUMP, Ranking, deck
from ..simulator import BIDDING, NAMING, PLAYING, Simulator, action_of, cards_of, command_of, index
from . import heuristic
from .outcome import side_value

TRICK_WEIGHT = 0.1
FOLLOW_NAMES = SUITS + (TRUMP,)  # the simulator's follow keys 0-4 by name


@lru_cache(maxsize=16)
def _ranking(trumps: str, players: int) -> Ranking:
    return Ranking(trumps, players)


# A rollout hands the heuristic card codes: the same hands recur in every playout of a deal.
@lru_cache(maxsize=1 << 14)
def _codes(mask: int, players: int) -> tuple[str, ...]:
    cards = deck(players)
    return tuple(cards[card] for card in members(mask))


def rollout_heuristic(sim: Simulator, seat: int, cards: tuple[int, ...], rng) -> int:
    """The heuristic's card, told the sampled deal's true hands (cheap: no history to read)."""
    rules = sim.rules
    players, masks = rules.players, rules.masks
    codes = deck(players)
    unseen = set()
    voids = {}
    for other, hand in enumerate(sim.hands):
        if other == seat:
            continue
        unseen.update(_codes(hand, players))
        voids[other] = frozenset(FOLLOW_NAMES[key] for key in range(5) if not hand & masks[key])
    plays = tuple(((sim.leader + i) % players, codes[card]) for i, card in enumerate(sim.trick))
    card = heuristic.choose_card(seat, players, _ranking(rules.trumps, players), [codes[c] for c in cards],
                                 plays, unseen, voids)
    return index(players)[card]


def rollout_random(sim: Simulator, seat: int, cards: tuple[int, ...], rng) -> int:
    return cards[rng.randrange(len(cards))]


ROLLOUTS = {"heuristic": rollout_heuristic, "random": rollout_random}


def talk(sim: Simulator, moves: tuple[int, ...]) -> int:
    """The heuristic's bid or pass, trump suit or tout answer for the seat to move in ``sim``."""
    players, seat = sim.rules.players, sim.to_move()
    hand = tuple(cards_of(sim.hands[seat], players))
    legal = [command_of(move, players) for move in moves]
    if sim.phase == BIDDING:
        standing = None if sim.high is None else {"seat": sim.high[2]}
        command = heuristic.choose_bid(hand, legal, standing, seat, players)
    elif sim.phase == NAMING:
        command = heuristic.choose_trumps(hand, legal, players)
    else:
        command = {"type": "announce_tout" if heuristic.wants_tout(hand, sim.rules.trumps, players) else "no_tout"}
    return action_of(command, players)


def finish(sim: Simulator, rollout, rng) -> dict:
    """Play ``sim`` (changed in place) to the end of the deal: the heuristic's talk, ``rollout``'s
    cards; the deal's score."""
    while not sim.is_over():
        moves = members(sim.legal())
        if len(moves) == 1:
            sim.apply(moves[0])
        elif sim.phase == PLAYING:
            sim.apply(rollout(sim, sim.to_move(), moves, rng))
        else:
            sim.apply(talk(sim, moves))
    return sim.score()


def value(scored: dict, seat: int) -> float:
    """What the scored deal is worth to ``seat``'s side: the search's measure."""
    side = seat % 2
    tricks = scored["tricks"]
    return side_value(scored, side) + TRICK_WEIGHT * (tricks[side] - tricks[1 - side])


def play_out(sim: Simulator, seat: int, command: dict, rollout, rng) -> float:
    """Play ``command`` for ``seat``, then the rest of the deal; the deal's value for ``seat``'s
    side. ``sim`` is the sampled deal's simulator, left as it was (this plays a copy)."""
    sim = sim.copy()
    sim.apply(action_of(command, sim.rules.players))
    return value(finish(sim, rollout, rng), seat)
