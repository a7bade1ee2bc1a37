"""The ``search`` bot: determinization and perfect-information Monte Carlo (PIMC), with inference.

For a decision with more than one legal command (a prediction, a card or a cupboard take) it
takes the heuristic's best few commands (``width``), then repeatedly samples a concrete state
consistent with all the seat knows (``determinize``), and on each sample tries each of
them: the command, then the rest of the current deal played out by the heuristic at every
seat, through the game's simulator (``simulator``: built from the sample once, copied per
command; it agrees with ``decide``/``evolve`` on every prediction, card and take and scores
the round as they do, but builds no events). A playout scores the seat's points of the deal
(every seat plays for itself). The command with the best mean wins; ties keep the
heuristic's choice. Every command is tried on the same samples, so their means differ by the
command and not by the luck of the draw. With inference, once the predictions are revealed,
each sample is picked from ``CANDIDATES`` drawn deals by how likely each makes the other seats'
predictions and the cards they have played (``inference``).

The budget is playouts: one playout is one command played out to the deal's end on one sample,
``decision.playouts`` of them a decision (None: ``DEFAULT_PLAYOUTS``). ``DEFAULT_PLAYOUTS`` keeps
a decision within p50 150 ms and p99 500 ms on the 2-core VM (docs/bots-and-arena.md). A playout
stops at the end of the current deal: the next deal comes from the secret seed, which no bot
has. ``decision.out_of_time()`` is only a safety net (checked between playouts); without a
clock a decision ends after the same work every time, so with a seeded ``decision.rng`` it is
deterministic and its strength does not depend on the machine's load.

The arena's rungs: ``infer_policy`` ("search-infer": with inference from the predictions and
the cards), ``deal_policy`` ("search" and "search-deal": the same without inference, which
measured stronger, so it is the seats' ``policy``) and ``cards_policy`` ("search-cards": no inference, and the heuristic predicts;
cards and takes are searched, both being card-play decisions). ``paranoid_policy``
("search-paranoid") and ``maxn_policy`` ("search-maxn") solve the sampled deals once the seat
holds ``SOLVE_CARDS`` cards (``solver``: every other seat against the seat, or each for itself),
within ``playouts * NODES_PER_PLAYOUT`` solver nodes a decision, each deal at most a
``SOLVED_SAMPLES``-th of them; when the first deal is not solved in its share, the decision
plays out as before. Neither measured better than playing out (docs/bots-and-arena.md), so
neither is ``policy``.
"""
from __future__ import annotations

import math

from ...bitmask import members
from ..simulator import Simulator, action_of, command_of, from_state as simulator_of
from . import heuristic, solver
from .determinize import Determinizer
from .inference import Inference, PlayInference
from .situation import from_decision, from_simulator

DEFAULT_PLAYOUTS = 24  # a decision's budget, across all commands (the p50/p99 in the module's doc)
WIDTH = 4  # the heuristic's best few commands are searched: the rest are rarely better
CANDIDATES = 4  # drawn deals weighed per sample with inference
SEARCHED_PHASES = ("predicting", "playing", "taking")
# A solver node costs about a 500th of a playout from the round's start (the 2-core VM: 3 µs
# against 1.7 ms), so a decision's solver nodes are its playouts times that. A sampled deal's
# fold is not counted: late, where a deal takes a few dozen nodes, it is most of the time.
NODES_PER_PLAYOUT = 500
SOLVE_CARDS = 3  # cards in the seat's hand from which the sampled deals are solved: earlier a solve costs more than the budget
SOLVED_SAMPLES = 6  # a sampled deal gets at most 1/6 of the nodes: a decision solves 6 deals or more, or none
SOLVERS = {"paranoid": solver.paranoid_solver, "max-n": solver.MaxN}


def phase_of(sim: Simulator) -> str:
    return "predicting" if sim.predicting() else "taking" if sim.taking() else "playing"


def playout(start: Simulator, seat: int, command: dict) -> int:
    """``seat``'s points for the current deal after ``command`` and heuristic play to its end.
    ``start`` is the sample's simulator, left as it was (this plays a copy)."""
    sim = start.copy()
    if sim.predicting():
        sim.predict(seat, action_of(command))
    else:
        sim.apply(action_of(command))
    while not sim.is_over():
        actions = members(sim.legal())
        if len(actions) > 1:
            legal = [command_of(action) for action in actions]
            sim.apply(action_of(heuristic.choose(from_simulator(sim, sim.to_move()), phase_of(sim), legal)))
        else:
            sim.apply(actions[0])
    return sim.points()[seat]


def solve(search, state: Simulator, actions: list[int]) -> list[float] | None:
    """Each of ``actions``' exact value in the sampled deal ``state`` by ``search`` (a solver of
    ``SOLVERS``, for the deciding seat, within its node limit), or None when it runs out."""
    try:
        values = search.values(state, actions)
    except solver.OutOfNodes:
        return None
    return [values[action] for action in actions]


def choose_solved(decision, sampler: Determinizer, legal: list[dict], budget: int, solving: str) -> dict | None:
    """The best of ``legal`` by its mean exact value over sampled deals, within ``budget``
    playouts' worth of solver nodes, each deal given at most ``1 / SOLVED_SAMPLES`` of them;
    None when the first deal is not solved within that share (the caller plays out instead)."""
    total = budget * NODES_PER_PLAYOUT
    share = total // SOLVED_SAMPLES
    actions = [action_of(command) for command in legal]
    totals, rounds, used = [0.0] * len(legal), 0, 0
    while total - used >= share // 2 and not decision.out_of_time():
        state = simulator_of(sampler.state_of(sampler.draw(decision.rng)).inner)
        if not solver.solvable(state):
            return None
        search = SOLVERS[solving](decision.seat, min(share, total - used))
        values = solve(search, state, actions)
        used += search.nodes
        if values is None:
            break
        totals = [sum_ + value for sum_, value in zip(totals, values)]
        rounds += 1
    if rounds == 0:
        return None
    return _best(legal, totals, [rounds] * len(legal), legal[0])


def make_search(playouts: int | None = None, width: int = WIDTH, predictions: bool = True,
                infer: bool = True, infer_cards: bool = False, candidates: int = CANDIDATES,
                solving: str | None = None):
    """A search policy trying the heuristic's best ``width`` commands in ``decision.playouts``
    playouts a decision (None: ``playouts``, and if that is None too, ``DEFAULT_PLAYOUTS``).
    ``predictions``: search the predictions too (else the heuristic predicts); ``infer`` and
    ``infer_cards``: draw each sample from ``candidates`` deals by their ``inference`` weight
    from the revealed predictions and from the cards played (neither: the first drawn).
    ``solving`` (a name in ``SOLVERS``): from ``SOLVE_CARDS`` cards in the seat's hand, the
    sampled deals are solved exactly instead of played out (no inference there)."""

    def policy(decision) -> dict:
        legal = decision.legal
        phase = decision.view["game_state"]["phase"]
        if len(legal) == 1 or phase not in SEARCHED_PHASES:
            return legal[0]
        legal = heuristic.ranked(from_decision(decision), phase, legal)
        if phase == "predicting" and not predictions:
            return legal[0]
        legal = legal[:width]
        fallback = legal[0]
        if len(legal) == 1 or decision.out_of_time():
            return fallback
        budget = decision.playouts if decision.playouts is not None else playouts or DEFAULT_PLAYOUTS
        sampler = Determinizer(decision)
        if solving and phase != "predicting" and len(decision.view["game_state"]["hand"]) <= SOLVE_CARDS:
            solved = choose_solved(decision, sampler, legal, budget, solving)
            if solved is not None:
                return solved
        weighers = [w for w in ([Inference(sampler.deal, decision.players)] if infer else []) +
                    ([PlayInference(sampler)] if infer_cards else []) if w.informed]
        totals = [0.0] * len(legal)
        runs = [0] * len(legal)
        done = 0
        while done < budget:
            state = simulator_of(sampler.state_of(draw(sampler, weighers, candidates, decision.rng)).inner)
            for index, command in enumerate(legal):
                # The clock is only a safety net: without it the budget alone ends the search.
                if done >= budget or decision.out_of_time():
                    return _best(legal, totals, runs, fallback)
                totals[index] += playout(state, decision.seat, command)
                runs[index] += 1
                done += 1
        return _best(legal, totals, runs, fallback)

    return policy


def draw(sampler: Determinizer, weighers: list, candidates: int, rng):
    """One deal of hidden cards: with inference (``weighers``, each with ``of(drawn) -> weight``),
    one of ``candidates`` drawn deals, picked with chance proportional to the product of its
    weights (sampling-importance-resampling), so every playout is spent on a deal as likely as
    the other seats' public choices make it."""
    if not weighers or candidates < 2:
        return sampler.draw(rng)
    drawn = [sampler.draw(rng) for _ in range(candidates)]
    weights = [math.prod(weigher.of(deal) for weigher in weighers) for deal in drawn]
    if not any(weights):
        return drawn[0]
    return drawn[rng.choices(range(candidates), weights=weights)[0]]


def _best(legal: list[dict], totals: list[float], runs: list[int], fallback: dict) -> dict:
    # Only commands tried as often as the most-tried one compete, so a sample cut short by the
    # clock does not favour the commands it happened to reach.
    most = max(runs)
    if most == 0:
        return fallback
    means = {index: totals[index] / runs[index] for index in range(len(legal)) if runs[index] == most}
    top = max(means.values())
    best = [legal[index] for index, mean in means.items() if mean == top]
    return fallback if fallback in best else best[0]


infer_policy = make_search(infer_cards=True)  # "search-infer": every decision searched, with inference
deal_policy = make_search(infer=False)  # "search" and "search-deal": every decision searched, no inference
policy = deal_policy
cards_policy = make_search(predictions=False, infer=False)  # "search-cards": the heuristic predicts
paranoid_policy = make_search(infer=False, solving="paranoid")  # "search-paranoid": the late deals solved, paranoid
maxn_policy = make_search(infer=False, solving="max-n")  # "search-maxn": the late deals solved by max-n
