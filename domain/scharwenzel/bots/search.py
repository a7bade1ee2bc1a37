"""The ``search`` bot: determinization and perfect-information Monte Carlo (PIMC) for every decision.

For a card to play, it repeatedly samples the hands it cannot see, consistent with all its
seat knows (``determinize``), and in each sampled deal plays every legal card, then the rest
of the deal with a fast rollout policy, through the game's simulator (``simulator``: built from
the sampled state once per deal, copied per card; it agrees with ``decide`` and ``evolve`` card
by card and scores the deal as they do, but builds no events). Each card's score is this
side's value of the deal (``rollout.value``), averaged over the sampled deals. Late in the
deal (``SOLVE_CARDS``) a sampled deal is solved instead (``solver``: both sides playing
perfectly with every card known) when its share of the decision's solver nodes suffices. The
heuristic's own card is played unless another averages more than ``margin`` points better: a
few sampled deals are noisy, and a noisy search that leaves good rules for nothing loses.
Cards of one run (no card someone else may hold between them) take the same tricks, so only
one of each run is tried. The search stops at the end of the deal: the next deal needs the
secret seed, which a bot never has.

The bid, the trump suit and the tout are searched the same way from the deal's start
(``contract``: every seat bids, names and plays as the heuristic in the rollouts, and a tout
only when it is made in nearly every sampled deal). With ``inference``, every sampled deal is
weighted by how likely the other seats' bids, trumps and tout answers are with its hands, and
the cards they have played (``inference``, from the heuristic's own bidding and card play).

The budget is a number of playouts (one candidate played to the end of the deal in one sampled
deal): ``decision.playouts``, else the policy's own, else ``DEFAULT_PLAYOUTS``. Every candidate
is scored on the same sampled deals, only complete rounds count, and with a given
``decision.rng`` a decision is deterministic. ``decision.out_of_time()`` is only a wall-clock
safety net (checked before every rollout). The variants the arena's ladder measures:
``search-cards`` (cards only, the heuristic's bidding, no inference), ``search-deal`` (every
decision, no inference), ``search-rollout`` (every decision, with inference, every sampled deal
played out) and ``search`` (the same, the late sampled deals solved).
"""
from __future__ import annotations

from ..cards import SUITS, TRUMP, plain_order, trump_order
from ..simulator import action_of, from_state
from . import contract, heuristic, inference, solver
from .determinize import prefix_state, sample_hands, sampled_state, starting_hands
from .knowledge import read
from .rollout import ROLLOUTS, play_out

# At most about 150 ms at p50 and 500 ms at p99 a decision on the 2-core VM (docs/bots-and-arena.md).
DEFAULT_PLAYOUTS = 160
# A few sampled deals are noisy: leave the heuristic's card only for a clear gain, in points a deal.
MARGIN = 1.0
# A playout costs about as much time as 25 solver nodes on the 2-core VM; the solver gets four times that.
NODES_PER_PLAYOUT = 100
SOLVE_CARDS = 4  # cards in the seat's hand from which the sampled deals are solved: earlier they rarely are


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


def weigher(decision, known, cards: bool = True):
    """``starting hands -> weight`` from the other seats' public choices in this deal (their bids,
    and with ``cards`` the cards they played); None when they made none (every sampled deal would
    weigh the same)."""
    seen = inference.choices(decision.history, known)
    played = inference.plays(decision.history, known) if cards else ()
    if not seen and not played:
        return None
    return lambda starting: (inference.weight(seen, starting, decision.players) *
                             (inference.play_weight(played, starting, known) if played else 1.0))


def solve(sim, seat: int, legal: list[dict], limit: int) -> list[float] | None:
    """Each card's exact value for ``seat``'s side in the sampled deal ``sim`` (``solver``), or
    None when it is not solved within ``limit`` nodes."""
    if not solver.solvable(sim):
        return None
    players = sim.rules.players
    cards = [action_of(command, players) for command in legal]
    try:
        values = solver.solver_for(sim, seat, limit).values(sim, cards)
    except solver.OutOfNodes:
        return None
    return [values[card] for card in cards]


def choose_card(decision, known, fallback: dict, playouts: int, rollout, margin: float, weigh=None,
                solving: bool = False) -> dict:
    """The card to play: each distinct legal card scored in the same sampled deals, played out,
    or (``solving``, late in the deal: ``SOLVE_CARDS``) solved exactly within each deal's share of
    ``playouts * NODES_PER_PLAYOUT`` solver nodes; once a deal is not, the rest are played out."""
    legal = distinct(decision.legal, fallback, known)
    if len(legal) == 1:
        return fallback
    prefix = prefix_state(decision, known)
    totals = [0.0] * len(legal)
    weights = 0.0
    rounds = done = 0
    solving = solving and len(known.hand) <= SOLVE_CARDS
    limit = playouts * NODES_PER_PLAYOUT // max(1, playouts // len(legal))
    while done + len(legal) <= playouts:
        if decision.out_of_time():
            break
        hands = sample_hands(known, decision.rng)
        w = 1.0 if weigh is None else weigh(starting_hands(known, hands))
        sim = from_state(sampled_state(decision, known, prefix, hands).inner)
        values = solve(sim, decision.seat, legal, limit) if solving else None
        if values is not None:
            done += len(legal)
        else:
            solving = False
            values = []
            for command in legal:
                if values and decision.out_of_time():
                    break
                values.append(play_out(sim, decision.seat, command, rollout, decision.rng))
                done += 1
        if len(values) < len(legal):
            break
        totals = [t + w * v for t, v in zip(totals, values)]
        weights += w
        rounds += 1
    if rounds == 0:
        return fallback
    best = legal.index(fallback)
    bar = totals[best] + margin * weights
    for i, total in enumerate(totals):
        if total > bar:
            best, bar = i, total
    return legal[best]


def make_search(playouts: int | None = None, rollout: str = "heuristic", margin: float = MARGIN,
                deal: bool = True, infer: bool = True, solving: bool = False):
    """A search policy: at most ``playouts`` rollouts a decision (``decision.playouts`` first,
    ``DEFAULT_PLAYOUTS`` when both are None) with the named rollout, leaving the heuristic's card
    only for one better by more than ``margin`` on average; ``deal``: the bid, the trumps and the
    tout by search too; ``infer``: sampled deals weighted by the other seats' bidding and cards."""
    rollout_policy = ROLLOUTS[rollout]

    def policy(decision) -> dict:
        legal = decision.legal
        fallback = heuristic.policy(decision)
        if len(legal) == 1 or decision.out_of_time():
            return fallback
        is_card = legal[0]["type"] == "play"
        if not is_card and not deal:
            return fallback
        budget = decision.playouts if decision.playouts is not None else \
            playouts if playouts is not None else DEFAULT_PLAYOUTS
        known = read(decision)
        weigh = weigher(decision, known) if infer else None
        if is_card:
            return choose_card(decision, known, fallback, budget, rollout_policy, margin, weigh, solving)
        return contract.choose(decision, known, fallback, budget, rollout_policy, weigh)

    policy.playouts, policy.rollout, policy.margin, policy.deal, policy.infer = playouts, rollout, margin, deal, infer
    policy.solving = solving
    return policy


policy = make_search(solving=True)
