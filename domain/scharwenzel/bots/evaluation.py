"""The search's expected value of each card a seat could play: what the analysis of a finished
game (``domain/bots/analysis.py``) compares the card played with.

The ``search`` bot's own machinery: sampled hands (``determinize``) consistent with what the
seat knows, every card played out by the heuristic to the end of the deal (``rollout.play_out``),
scored as the deal's value for the seat's side (``outcome.side_value``, in points; a hook is 24)
plus a little per trick. One card of each run of equal cards is played out (``search.distinct``).
Each sampled deal is weighted, as the ``search`` bot weighs it, by how likely the other seats'
bids, trumps and tout answers are with its hands (``inference``). Only card play is judged:
the search also bids, names trumps and answers the tout, but the analysis does not judge those.
"""
from __future__ import annotations

from ..simulator import from_state
from .determinize import prefix_state, sample_hands, sampled_state, starting_hands
from .knowledge import read
from .rollout import ROLLOUTS, play_out
from .search import distinct, weigher

# Least loss in points of the deal's value for the side (a hook is 24 points) for each mark.
THRESHOLDS = {"inaccuracy": 2.0, "mistake": 6.0, "blunder": 12.0}


def values(decision, played: dict, playouts: int) -> list[tuple[dict, float]] | None:
    """(command, expected value) for each distinct legal card, ``played`` among them; None when the
    decision is not a card to play. At most ``playouts`` playouts, at least one sampled deal."""
    legal = decision.legal
    if played.get("type") != "play" or len(legal) < 2 or legal[0]["type"] != "play":
        return None
    known = read(decision)
    kept = distinct(legal, played, known)
    if played not in kept:
        kept.append(played)
    if len(kept) < 2:
        return None
    rollout = ROLLOUTS["heuristic"]
    prefix = prefix_state(decision, known)
    weigh = weigher(decision, known)
    totals = [0.0] * len(kept)
    rounds, weights = 0, 0.0
    while rounds == 0 or (rounds + 1) * len(kept) <= playouts:
        hands = sample_hands(known, decision.rng)
        w = 1.0 if weigh is None else weigh(starting_hands(known, hands))
        sim = from_state(sampled_state(decision, known, prefix, hands).inner)
        for i, command in enumerate(kept):
            totals[i] += w * play_out(sim, decision.seat, command, rollout, decision.rng)
        rounds += 1
        weights += w
    return [(command, total / weights) for command, total in zip(kept, totals)]

