"""The ``search`` Schafkopf bot: determinization and perfect-information Monte Carlo (PIMC).

For a card to play it repeatedly samples a world consistent with what the
seat knows (``determinize``), and in that world plays each legal card and
the rest of the *current deal* with a fast rollout policy (the heuristic's
card play, which sees the sampled hands; or uniform random) through the
game's simulator (``simulator``: built from the sampled state once per world,
copied per card; it agrees with ``decide``/``evolve`` card by card and settles
the deal as they do, but builds no events). A playout scores this seat's payment of the
deal (plus a little for its side's card points, which breaks ties between
cards that win or lose alike). Late in the deal (``SOLVE_CARDS``) a sampled world is solved
instead (``solver``: both parties playing perfectly with every card known, the payment alone)
when its share of the decision's solver nodes suffices; the first world that does not ends the
solving for that decision. Every card is tried in the same worlds; the best average wins. The
search stops at the end of the deal: the next deal comes from the secret seed, which no bot has.

It stops when ``decision.out_of_time()`` says so (checked before every
playout) or after ``max_playouts`` (the solver after its nodes), so without a clock it is deterministic
for a given ``decision.rng``. Everything but the choice of a card (announcing,
Stoß, Doppeln...) and a card with no alternative is the heuristic's, decided
at once; so is any card when time is already up.
"""
from __future__ import annotations

import random

from ...bitmask import members
from ..cards import points
from ..game_types import order
from ..simulator import INDEX, Simulator, from_state
from . import cardplay, heuristic, solver
from . import deal_search
from .determinize import World
from .inference import Prior, pick
from .knowledge import read
from .rollout import heuristic_rollout, random_rollout, score


ROLLOUTS = {"heuristic": heuristic_rollout, "random": random_rollout}


def playout(sim: Simulator, seat: int, card: str, rng: random.Random, rollout) -> float:
    """Play ``card``, then the rest of the deal with ``rollout``; this seat's score of the deal.
    ``sim`` is the sampled world's simulator, left as it was (the playout plays a copy)."""
    sim = sim.copy()
    sim.apply(INDEX[card])
    while not sim.is_over():
        legal = members(sim.legal())
        sim.apply(legal[0] if len(legal) == 1 else rollout(sim, sim.to_move(), legal, rng))
    return score(sim.settlement(), seat)


def make_search(max_playouts: int | None = None, rollout: str = "heuristic", whole_deal: bool = True,
                inference: bool = True, solving: bool = False):
    """A search policy: ``max_playouts`` playouts a decision (None: ``decision.playouts``, else
    ``DEFAULT_PLAYOUTS``), rolled out by ``rollout`` ("heuristic" or "random"). ``whole_deal``:
    the decisions before the first card and the Stoß by search too (``deal_search``), else the
    heuristic's; ``inference``: sampled worlds weighed by what the others said (``inference``)."""
    roll = ROLLOUTS[rollout]

    def policy(decision) -> dict:
        legal = decision.legal
        game_state = decision.view["game_state"]
        budget = max_playouts or decision.playouts or DEFAULT_PLAYOUTS
        if len(legal) == 1:
            return legal[0]
        if game_state["phase"] != "play":
            if whole_deal and not decision.out_of_time() and deal_search.is_talk(decision):
                return deal_search.decide_talk(decision, budget, inference)
            return heuristic.policy(decision)
        know = read(decision)
        sampler = _sampler(decision, know, inference)
        if {"type": "stoss"} in legal:
            if whole_deal and not decision.out_of_time():
                budget //= 2  # the other half for the card, when no Stoß is given
                if deal_search.decide_stoss(decision, know, budget, sampler):
                    return {"type": "stoss"}
            elif heuristic.stoss_wanted(decision, know):
                return {"type": "stoss"}
        cards = [c["card"] for c in legal if c["type"] == "play"]
        fallback = {"type": "play", "card": cardplay.choose(heuristic.situation(decision, know))}
        if len(cards) == 1 or decision.out_of_time():
            return fallback
        cards = distinct(cards, know, prefer=fallback["card"])
        if len(cards) == 1:
            return {"type": "play", "card": cards[0]}
        try:
            averages = search(decision, know, cards, budget, roll, sampler, solving)
        except RuntimeError:  # no world fits what the seat saw (never seen): the rules of thumb
            return fallback
        if not averages:
            return fallback
        # The heuristic's card wins ties: equal worlds give no reason to leave the rules of thumb.
        best = max(cards, key=lambda c: (averages[c], c == fallback["card"]))
        return {"type": "play", "card": best}

    return policy


def _sampler(decision, know, inference: bool, world: World | None = None):
    """A function giving one sampled state of the deal now: uniform over what fits the seat's
    knowledge, or (``inference``) drawn by its likelihood (``inference.pick``). ``world``: the seat's
    ``World`` when the caller has prepared it already (the analysis, for its fixed-deal check)."""
    cache: dict = {} if world is None else {"world": world}

    def world() -> World:
        if "world" not in cache:
            cache["world"] = World.prepare(decision, know)
        return cache["world"]

    def uniform():
        return world().sample(decision.rng)

    if not inference:
        return uniform

    def weighed():
        if "prior" not in cache:
            cache["prior"] = Prior(world(), decision.seat, decision.rng)
        got = pick(cache["prior"], decision.rng, play=True)
        return world().build(got[0]) if got is not None else uniform()

    return weighed


def distinct(cards: list[str], know, prefer: str | None = None) -> list[str]:
    """One card of each set of equivalent ones: of the same suit (trumps one suit) and worth the
    same points, with no card between them that another seat could still hold or that lies on
    the table (the Nine and the Eight with the Seven gone, two Unters next to each other). Playing
    either comes to the same, so the playouts go to the choices that differ. ``prefer`` stands for its set when it is in one."""
    contract = know.contract
    rules_order = order(contract["game"], contract["suit"])
    out: list[str] = []
    # A card on the table counts as much as one still out: it may lie between the two.
    between = [c for c in know.deck if c not in know.played and c not in know.hand]
    between += [c for _, c in know.current_trick]
    for card in sorted(cards, key=lambda c: (rules_order.follow_key(c), _power(rules_order, c))):
        if out and _same(rules_order, out[-1], card, between):
            if card == prefer:
                out[-1] = card
            continue
        out.append(card)
    return out


def _power(rules_order, card: str):
    return rules_order.strength(card, rules_order.follow_key(card))


def _same(rules_order, low: str, high: str, between: list[str]) -> bool:
    key = rules_order.follow_key(low)
    if key != rules_order.follow_key(high) or points(low) != points(high):
        return False
    lo, hi = _power(rules_order, low), _power(rules_order, high)
    return not any(rules_order.follow_key(c) == key and lo < _power(rules_order, c) < hi for c in between)


def solve(sim: Simulator, seat: int, cards: list[str], limit: int) -> dict[str, float] | None:
    """Each card's exact payment for ``seat`` in the sampled world ``sim`` (``solver``), or None
    when the world has no two parties (Ramsch) or is not solved within ``limit`` nodes."""
    if not solver.solvable(sim):
        return None
    try:
        values = solver.solver_for(sim, seat, limit).values(sim, [INDEX[card] for card in cards])
    except solver.OutOfNodes:
        return None
    return {card: values[INDEX[card]] for card in cards}


def search(decision, know, cards: list[str], max_playouts: int, rollout, sampler=None,
           solving: bool = False, record=None) -> dict[str, float]:
    """Average score per card over whole sampled worlds (a world cut short by the clock is dropped).
    ``sampler``: one sampled state a call (default: uniform over what fits the seat's knowledge).
    ``solving``: late in the deal (``SOLVE_CARDS``) each world is solved exactly within its share
    of ``max_playouts * NODES_PER_PLAYOUT`` solver nodes; once a world is not, the rest are
    played out as before (an early deal would only spend the budget on failing). ``record(scores)``
    is told each whole world's scores by card (the analysis keeps them for their spread)."""
    if sampler is None:
        world = World.prepare(decision, know)
        sampler = lambda: world.sample(decision.rng)  # noqa: E731
    rng = decision.rng
    totals = dict.fromkeys(cards, 0.0)
    worlds = 0
    solving = solving and len(know.hand) <= SOLVE_CARDS
    limit = max_playouts * NODES_PER_PLAYOUT // max(1, max_playouts // len(cards))
    while (worlds + 1) * len(cards) <= max_playouts and not decision.out_of_time():
        # Rollouts give no Stoß (the heuristic gives one only before its first card): the simulator
        # plays cards only, at the price the sampled world has now.
        sim = from_state(sampler().inner)
        scores = solve(sim, decision.seat, cards, limit) if solving else None
        if scores is None:
            solving = False
            scores = {}
            for card in cards:
                if decision.out_of_time():
                    break
                scores[card] = playout(sim, decision.seat, card, rng, rollout)
        if len(scores) < len(cards):
            break
        for card, score_ in scores.items():
            totals[card] += score_
        if record is not None:
            record(scores)
        worlds += 1
    return {card: total / worlds for card, total in totals.items()} if worlds else {}


DEFAULT_PLAYOUTS = 100  # measured: 400 gave p50 584 ms (cards) and 1.0-1.3 s (talk) CPU per decision with inference
# A playout of the rest of a deal costs about as much time as 25 solver nodes (0.2 ms against 8.5 us on
# the 2-core VM); the solver gets four times that, since its worlds need no playout noise averaged away.
NODES_PER_PLAYOUT = 100
SOLVE_CARDS = 5  # cards in the seat's hand from which the sampled worlds are solved: earlier they rarely are
policy = make_search(solving=True)
rollout_policy = make_search()  # "search-rollout": every world played out with the heuristic
cards_policy = make_search(whole_deal=False, inference=False)  # "search-cards": the card play alone
deal_policy = make_search(inference=False)  # "search-deal": whole-deal decisions, no inference
solving_policy = make_search(inference=False, solving=True)  # "search-solving": ``policy`` without inference
