"""The search's expected value of each move a seat could make: what the analysis of a finished
game (``domain/bots/analysis.py``) compares the move made with.

The ``search`` bot's own machinery: sampled hands (``determinize``) consistent with what the
seat knows, each move played out by the heuristic to the end of the deal, scored as the deal's
value for the seat's side (``rollout.value``: ``outcome.side_value``, in points, a hook is 24,
plus a little per trick). Each sampled deal is weighted, as the ``search`` bot weighs it, by how
likely the other seats' bids, trumps, tout answers and cards are with its hands (``inference``). Every
decision the search makes is judged:

* a card: one card of each run of equal cards is played out (``search.distinct``), to the end by
  ``rollout.play_out``;
* the bid or pass, the trump suit named and the tout answer: every legal choice, from the
  decision's moment, the rest of the deal's talk and cards the heuristic's (``rollout.finish``),
  as ``contract.choose`` tries them, all on the same sampled deals. A tout counts as the better
  move only where the search would announce it (made in ``contract.TOUT_SURE`` of the sampled
  deals, by weight): a playout sees every hand, which flatters a tout. When the tout was not
  announced and can no longer reach that share, the playouts stop there, as the search's do.

Only forced moves are left unjudged (None).
"""
from __future__ import annotations

from ..simulator import from_state
from .contract import tally
from .determinize import prefix_state, sample_hands, sampled_state, starting_hands
from .knowledge import read
from .rollout import ROLLOUTS, play_out
from .search import distinct, weigher

# Least loss in points of the deal's value for the side (a hook is 24 points) for each mark.
THRESHOLDS = {"inaccuracy": 2.0, "mistake": 6.0, "blunder": 12.0}
UNIT = "points for the seat's side (a hook is 24)"  # what every value and loss is counted in


def values(decision, played: dict, playouts: int) -> list[tuple[dict, float]] | None:
    """(command, expected value) for each move the search weighs, ``played`` among them; None for a
    forced move. At most ``playouts`` playouts, at least one sampled deal."""
    legal = decision.legal
    if len(legal) < 2 or played not in legal:
        return None
    if legal[0]["type"] != "play":
        return _contract(decision, played, playouts)
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


def _contract(decision, played: dict, playouts: int) -> list[tuple[dict, float]]:
    """Every legal bid, trump suit or tout answer, on the same sampled deals (``contract.tally``, as
    ``contract.choose`` samples them)."""
    legal = decision.legal
    known = read(decision)
    tout = next((c for c in legal if c["type"] == "announce_tout"), None)
    # When the seat did not announce the tout, the playouts stop where the search's would: the
    # search answers no tout then, as the seat did.
    got = tally(decision, known, max(1, playouts // len(legal)), ROLLOUTS["heuristic"],
                weigher(decision, known), give_up_tout=tout is not None and tout != played)
    return [(command, total / got.weights) for command, total in zip(legal, got.totals)
            if command != tout or got.tout_sure() or command == played]
