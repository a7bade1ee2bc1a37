"""The ``search`` bot: determinization and perfect-information Monte Carlo (PIMC) for card play.

For a card to play, it repeatedly samples the hands it cannot see, consistent with all its
seat knows (``determinize``), and in each sampled deal plays every legal card, then the rest
of the deal with a fast rollout policy, through the game's own ``decide`` and ``evolve``. Each
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

from ..cards import SUITS, TRUMP, Ranking, plain_order, trump_order
from ..game import Scharwenzel
from . import heuristic
from .determinize import prefix_state, sample_hands, sampled_state
from .knowledge import read
from .outcome import side_value

GAME = Scharwenzel()
TRICK_WEIGHT = 0.1
MAX_PLAYOUTS = 240
# A few sampled deals are noisy: leave the heuristic's card only for a clear gain, in points a deal.
MARGIN = 1.0
SUITS_AND_TRUMP = frozenset(SUITS + (TRUMP,))


def rollout_heuristic(state, seat: int, cards: list[str], rng) -> str:
    """The heuristic's card, told the sampled deal's true hands (cheap: no history to read)."""
    ranking = Ranking(state.trumps, state.players)
    follow = heuristic.card_tables(state.trumps, state.players)[0]
    unseen = set()
    voids = {}
    for other, hand in enumerate(state.hands):
        if other == seat:
            continue
        unseen.update(hand)
        voids[other] = SUITS_AND_TRUMP.difference(follow[c] for c in hand)
    return heuristic.choose_card(seat, state.players, ranking, cards, state.trick.plays, unseen, voids)


def rollout_random(state, seat: int, cards: list[str], rng) -> str:
    return cards[rng.randrange(len(cards))]


ROLLOUTS = {"heuristic": rollout_heuristic, "random": rollout_random}


def play_out(state, seat: int, command: dict, rollout, rng) -> float:
    """Play ``command`` for ``seat``, then the rest of the deal with ``rollout``; the deal's value
    for ``seat``'s side."""
    actor = seat
    while True:
        for event in GAME.decide(state, actor, command):
            if event.type == "DealScored":
                side = seat % 2
                tricks = event.data["tricks"]
                return side_value(event.data, side) + TRICK_WEIGHT * (tricks[side] - tricks[1 - side])
            state = GAME.evolve(state, event)
        (actor,) = GAME.to_act(state)
        cards = [c["card"] for c in GAME.legal_commands(state, actor)]
        command = {"type": "play", "card": cards[0] if len(cards) == 1 else rollout(state, actor, cards, rng)}


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
            inner = sampled_state(decision, known, prefix, hands).inner
            values = []
            for command in legal:
                if values and decision.out_of_time():
                    break
                values.append(play_out(inner, decision.seat, command, rollout_policy, decision.rng))
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
