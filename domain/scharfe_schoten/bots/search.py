"""The ``search`` bot: determinization and perfect-information Monte Carlo (PIMC).

For a decision with more than one legal command it takes the heuristic's best few commands
(``width``), then repeatedly samples a concrete state
consistent with all the seat knows (``determinize``), and on each sample tries each of
them: the command, then the rest of the current deal played out by the heuristic at every
seat, through the game's simulator (``simulator``: built from the sample once, copied per
command; it agrees with ``decide``/``evolve`` on every prediction, card and take and scores
the round as they do, but builds no events). A playout scores the seat's points of the deal
(every seat plays for itself). The command with the best mean wins; ties keep the
heuristic's choice. Every command is tried on the same samples, so their means differ by the
command and not by the luck of the draw.

A playout stops at the end of the current deal: the next deal comes from the secret seed,
which no bot has. The search stops when ``decision.out_of_time()`` says so (checked between
playouts) or after ``max_playouts``, so without a clock it ends after the same work every time.
"""
from __future__ import annotations

from ...bitmask import members
from ..cards import COLOURS, SPICE_DECK
from ..simulator import COLOUR_MASKS, Simulator, action_of, command_of, from_state as simulator_of
from . import heuristic
from .determinize import Determinizer
from .situation import Situation, from_decision

MAX_PLAYOUTS = 240  # across all commands; at 150 ms the clock usually stops the search first
WIDTH = 4  # the heuristic's best few commands are searched: the rest are rarely better
SEARCHED_PHASES = ("predicting", "playing", "taking")


def _codes(mask: int) -> tuple[str, ...]:
    return tuple(SPICE_DECK[card] for card in members(mask))


def _colours(mask: int) -> dict[str, int]:
    return {colour: (mask & COLOUR_MASKS[c]).bit_count() for c, colour in enumerate(COLOURS)}


def situation(sim: Simulator, seat: int) -> Situation:
    """What ``seat`` reckons with in the simulated round: as ``situation.from_state`` reads it."""
    most, fewest = sim.predictions[seat] or (None, None)
    players = sim.players
    return Situation(
        seat=seat, players=players, numbers=sim.numbers, hand=_codes(sim.hands[seat]), leader=sim.leader,
        plays=tuple(((sim.leader + i) % players, SPICE_DECK[card]) for i, card in enumerate(sim.trick)),
        hand_counts=tuple(_colours(hand) for hand in sim.hands), cupboard_counts=_colours(sim.cupboard),
        collections=tuple(dict(zip(COLOURS, sim.collection(other))) for other in range(players)),
        most=None if most is None else COLOURS[most], fewest=None if fewest is None else COLOURS[fewest],
        unseen=frozenset(_codes(sim.unseen(seat))))


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
            sim.apply(action_of(heuristic.choose(situation(sim, sim.to_move()), phase_of(sim), legal)))
        else:
            sim.apply(actions[0])
    return sim.points()[seat]


def make_search(max_playouts: int = MAX_PLAYOUTS, width: int = WIDTH):
    """A search policy trying the heuristic's best ``width`` commands, in at most ``max_playouts``
    playouts per decision."""

    def policy(decision) -> dict:
        legal = decision.legal
        phase = decision.view["game_state"]["phase"]
        if len(legal) == 1 or phase not in SEARCHED_PHASES:
            return legal[0]
        legal = heuristic.ranked(from_decision(decision), phase, legal)[:width]
        fallback = legal[0]
        if len(legal) == 1 or decision.out_of_time():
            return fallback
        sampler = Determinizer(decision)
        totals = [0.0] * len(legal)
        runs = [0] * len(legal)
        done = 0
        while done < max_playouts:
            state = simulator_of(sampler.sample(decision.rng).inner)
            for index, command in enumerate(legal):
                if done >= max_playouts or decision.out_of_time():
                    return _best(legal, totals, runs, fallback)
                totals[index] += playout(state, decision.seat, command)
                runs[index] += 1
                done += 1
        return _best(legal, totals, runs, fallback)

    return policy


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


policy = make_search()
