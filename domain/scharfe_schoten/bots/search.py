"""The ``search`` bot: determinization and perfect-information Monte Carlo (PIMC).

For a decision with more than one legal command it takes the heuristic's best few commands
(``width``), then repeatedly samples a concrete state
consistent with all the seat knows (``determinize``), and on each sample tries each of
them: the command, then the rest of the current deal played out by the heuristic at every
seat through the game's own ``decide``/``evolve``. A playout scores the seat's points of the
deal (every seat plays for itself). The command with the best mean wins; ties keep the
heuristic's choice. Every command is tried on the same samples, so their means differ by the
command and not by the luck of the draw.

A playout stops at the end of the current deal: the next deal comes from the secret seed,
which no bot has. The search stops when ``decision.out_of_time()`` says so (checked between
playouts) or after ``max_playouts``, so without a clock it ends after the same work every time.
"""
from __future__ import annotations

from ...table import TableState
from . import heuristic
from .determinize import TABLE, Determinizer
from .situation import from_decision, from_state

GAME = TABLE.games["scharfe-schoten"]
MAX_PLAYOUTS = 240  # across all commands; at 150 ms the clock usually stops the search first
WIDTH = 4  # the heuristic's best few commands are searched: the rest are rarely better
SEARCHED_PHASES = ("predicting", "playing", "taking")


def playout(state: TableState, seat: int, command: dict) -> int:
    """``seat``'s points for the current deal after ``command`` and heuristic play to its end."""
    inner = state.inner
    deal = len(inner.round_points)
    actor = seat
    while True:
        for event in GAME.decide(inner, actor, command):
            inner = GAME.evolve(inner, event)
        if len(inner.round_points) > deal:
            return inner.round_points[deal][seat]
        actor = min(GAME.to_act(inner))
        legal = GAME.legal_commands(inner, actor)
        command = legal[0] if len(legal) == 1 else heuristic.choose(from_state(inner, actor), inner.phase, legal)


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
            state = sampler.sample(decision.rng)
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
