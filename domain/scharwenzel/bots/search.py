"""The ``search`` bot: determinization and perfect-information Monte Carlo (PIMC) for card play.

For a card to play, it repeatedly samples the hands it cannot see, consistent with all its
seat knows (``determinize``), and in each sampled deal plays every legal card, then the rest
of the deal with a fast rollout policy, through the game's simulator (``simulator``: built from
the sampled state once per deal, copied per card; it agrees with ``decide`` and ``evolve`` card
by card and scores the deal as they do, but builds no events). Each
card's score is this side's value of the deal (``outcome.side_value``, plus a little per trick
so that equal results still prefer more tricks), averaged over the sampled deals. The
heuristic's own card is played unless another averages more than ``margin`` points better: a
few sampled deals are noisy, and a noisy search that leaves good rules for nothing loses.
Cards of one run (no card someone else may hold between them) take the same tricks, so only
one of each run is tried. The search stops at the end of the
deal: the next deal needs the secret seed, which a bot never has.

Every card is scored on the same sampled deals (only complete rounds count), so the
comparison is fair even when the time runs out in the middle of a round. The work stops at
``max_playouts`` rollouts, or earlier when ``decision.out_of_time()`` says the caller's
budget is spent (checked before every rollout). Bidding, naming trumps and the tout are the
heuristic's: a sampled deal with clairvoyant rollouts overrates a tout, and a wrong one costs
four hooks.
"""
from __future__ import annotations

from functools import lru_cache

from ...bitmask import members
from ..cards import SUITS, TRUMP, Ranking, deck, plain_order, trump_order
from ..simulator import Simulator, from_state, index
from . import heuristic
from .determinize import prefix_state, sample_hands, sampled_state
from .knowledge import read
from .outcome import side_value

TRICK_WEIGHT = 0.1
MAX_PLAYOUTS = 240
# A few sampled deals are noisy: leave the heuristic's card only for a clear gain, in points a deal.
MARGIN = 1.0
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


def play_out(sim: Simulator, seat: int, command: dict, rollout, rng) -> float:
    """Play ``command`` for ``seat``, then the rest of the deal with ``rollout``; the deal's value
    for ``seat``'s side. ``sim`` is the sampled deal's simulator, left as it was (this plays a copy)."""
    sim = sim.copy()
    sim.apply(index(sim.rules.players)[command["card"]])
    while not sim.is_over():
        cards = members(sim.legal())
        sim.apply(cards[0] if len(cards) == 1 else rollout(sim, sim.to_move(), cards, rng))
    scored = sim.score()
    side = seat % 2
    tricks = scored["tricks"]
    return side_value(scored, side) + TRICK_WEIGHT * (tricks[side] - tricks[1 - side])


def distinct(legal: list[dict], preferred: dict, known) -> list[dict]:
    """One card of each run of equal cards: two cards of one follow suit with nothing between
    them that another seat may still hold take the same tricks, so only one needs rollouts.
    The heuristic's card stands for its run."""
    ranking = known.ranking
    unseen = known.unseen()
    order = {}
    for suit in SUITS:
        order[suit] = plain_order(suit, ranking.trumps, ranking.players)
    order[TRUMP] = trump_order(ranking.trumps, ranking.players)
    chosen = {c["card"] for c in legal}
    keep, seen_runs = [], {}
    for suit, cards in order.items():
        run = 0
        for card in cards:
            if card in unseen:
                run += 1  # a card someone else may hold splits the run
            elif card in chosen:
                seen_runs.setdefault((suit, run), []).append(card)
    for cards in seen_runs.values():
        keep.append(preferred["card"] if preferred["card"] in cards else cards[0])
    return [c for c in legal if c["card"] in keep]


def make_search(max_playouts: int = MAX_PLAYOUTS, rollout: str = "heuristic", margin: float = MARGIN):
    """A search policy doing at most ``max_playouts`` rollouts a decision with the named rollout,
    leaving the heuristic's card only for one better by more than ``margin`` on average."""
    rollout_policy = ROLLOUTS[rollout]

    def policy(decision) -> dict:
        legal = decision.legal
        fallback = heuristic.policy(decision)
        if len(legal) == 1 or legal[0]["type"] != "play" or decision.out_of_time():
            return fallback
        known = read(decision)
        legal = distinct(legal, fallback, known)
        if len(legal) == 1:
            return fallback
        prefix = prefix_state(decision, known)
        totals = [0.0] * len(legal)
        rounds = playouts = 0
        while playouts + len(legal) <= max_playouts:
            if decision.out_of_time():
                break
            hands = sample_hands(known, decision.rng)
            sim = from_state(sampled_state(decision, known, prefix, hands).inner)
            values = []
            for command in legal:
                if values and decision.out_of_time():
                    break
                values.append(play_out(sim, decision.seat, command, rollout_policy, decision.rng))
                playouts += 1
            if len(values) < len(legal):
                break
            totals = [t + v for t, v in zip(totals, values)]
            rounds += 1
        if rounds == 0:
            return fallback
        best = legal.index(fallback)
        for i, total in enumerate(totals):
            if total > totals[best] + (margin * rounds if best == legal.index(fallback) else 0):
                best = i
        return legal[best]

    policy.max_playouts = max_playouts
    policy.rollout = rollout
    policy.margin = margin
    return policy


policy = make_search()
