"""The search's expected value of each move a seat could make: what the analysis of a finished
game (``domain/bots/analysis.py``) compares the move made with.

The ``search`` bot's own machinery: sampled states (``determinize``) consistent with what the
seat knows, each move then the rest of the round played out by the heuristic at every seat
(``search.playout``), scored as the seat's points of the round. Predictions, cards and takes are
judged; the heuristic's best ``WIDTH`` moves and the move made are played out, all on the same
samples.
"""
from __future__ import annotations

from ...bots.estimate import Estimates
from ..simulator import from_state
from . import heuristic
from .determinize import Determinizer
from .search import SEARCHED_PHASES, playout
from .situation import from_decision

# Least loss in the seat's points of the round for each mark.
THRESHOLDS = {"inaccuracy": 1.0, "mistake": 2.0, "blunder": 4.0}
UNIT = "points of the round for the seat"  # what every value and loss is counted in
WIDTH = 6  # moves played out besides the one made: the heuristic's best few


def values(decision, played: dict, playouts: int) -> Estimates | None:
    """The heuristic's best ``WIDTH`` moves and ``played``, each with its value per sample; None
    when the phase is not one the search plays out. At most ``playouts`` playouts, at least one
    sample."""
    legal = decision.legal
    phase = decision.view["game_state"]["phase"]
    if len(legal) < 2 or phase not in SEARCHED_PHASES or played not in legal:
        return None
    kept = heuristic.ranked(from_decision(decision), phase, legal)[:WIDTH]
    if played not in kept:
        kept.append(played)
    sampler = Determinizer(decision)
    got = Estimates(kept)
    while not got.worlds or (got.worlds + 1) * len(kept) <= playouts:
        state = from_state(sampler.sample(decision.rng).inner)
        got.add([playout(state, decision.seat, command) for command in kept])
    return got
