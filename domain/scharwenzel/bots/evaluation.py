"""The search's expected value of each card a seat could play: what the analysis of a finished
game (``domain/bots/analysis.py``) compares the card played with.

The ``search`` bot's own machinery: sampled hands (``determinize``) consistent with what the
seat knows, every card played out by the heuristic to the end of the deal (``search.play_out``),
scored as the deal's value for the seat's side (``outcome.side_value``, in points; a hook is 24)
plus a little per trick. One card of each run of equal cards is played out (``search.distinct``).
Only card play is judged: bidding, trumps and the tout are the heuristic's.
"""
from __future__ import annotations

from ..simulator import from_state
from .determinize import prefix_state, sample_hands, sampled_state
from .knowledge import read
from .search import ROLLOUTS, distinct, play_out

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
    totals = [0.0] * len(kept)
    rounds = 0
    while rounds == 0 or (rounds + 1) * len(kept) <= playouts:
        hands = sample_hands(known, decision.rng)
        sim = from_state(sampled_state(decision, known, prefix, hands).inner)
        for i, command in enumerate(kept):
            totals[i] += play_out(sim, decision.seat, command, rollout, decision.rng)
        rounds += 1
    return [(command, total / rounds) for command, total in zip(kept, totals)]

