"""The search's expected value of each move a seat could make: what the analysis of a finished
game (``domain/bots/analysis.py``) compares the move made with.

The ``search`` bot's own machinery: sampled hands (``determinize``) consistent with what the
seat knows, each move played out by the heuristic to the end of the deal, scored as the deal's
value for the seat's side (``rollout.value``: ``outcome.side_value``, in points, a hook is 24,
plus a little per trick). Each sampled deal is weighted, as the ``search`` bot weighs it, by how
likely the other seats' bids, trumps, tout answers and cards are with its hands (``inference``). Every
decision the search makes is judged:

* a card: one card of each run of equal cards is played out (``search.distinct``), to the end by
  ``rollout.play_out``, or late in the deal solved as the search bot solves its samples
  (``search.solve``); where the seat's knowledge fixes every hidden card's holder
  (``determinize.fixed``), the one deal there is is solved and the values are exact;
* the bid or pass, the trump suit named and the tout answer: every legal choice, from the
  decision's moment, the rest of the deal's talk and cards the heuristic's (``rollout.finish``),
  as ``contract.choose`` tries them, all on the same sampled deals. A tout counts as the better
  move only where the search would announce it (made in ``contract.TOUT_SURE`` of the sampled
  deals, by weight): a playout sees every hand, which flatters a tout. When the tout was not
  announced and can no longer reach that share, the playouts stop there, as the search's do.

Only forced moves are left unjudged (None).
"""
from __future__ import annotations

from ...bots.estimate import Estimates
from ..simulator import from_state
from .contract import tally
from .determinize import fixed, prefix_state, sample_hands, sampled_state, starting_hands
from .knowledge import read
from .rollout import ROLLOUTS, play_out
from .search import NODES_PER_PLAYOUT, SOLVE_CARDS, distinct, solve, weigher

# Least loss in points of the deal's value for the side (a hook is 24 points) for each mark.
THRESHOLDS = {"inaccuracy": 2.0, "mistake": 6.0, "blunder": 12.0}
UNIT = "points for the seat's side (a hook is 24)"  # what every value and loss is counted in
EXACT_NODES = 10  # a fixed deal's solve may take ten times the nodes a sampled deal's may: it is one


def values(decision, played: dict, playouts: int) -> Estimates | None:
    """Each move the search weighs, ``played`` among them, with its value in every sampled deal;
    None for a forced move. At most ``playouts`` playouts, at least one sampled deal."""
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
    got = Estimates(kept)
    if fixed(known) and _exactly(decision, known, prefix, kept, playouts, got):
        return got
    weigh = weigher(decision, known)
    solving = len(known.hand) <= SOLVE_CARDS
    limit = playouts * NODES_PER_PLAYOUT // max(1, playouts // len(kept))
    while not got.worlds or (got.worlds + 1) * len(kept) <= playouts:
        hands = sample_hands(known, decision.rng)
        w = 1.0 if weigh is None else weigh(starting_hands(known, hands))
        sim = from_state(sampled_state(decision, known, prefix, hands).inner)
        # Late in the deal the sampled deal is solved, as the search bot's are; once one is not
        # within its nodes, the rest are played out.
        solved = solve(sim, decision.seat, kept, limit) if solving else None
        solving = solved is not None
        got.add(solved or [play_out(sim, decision.seat, command, rollout, decision.rng) for command in kept], w)
    return got


def _exactly(decision, known, prefix, kept: list[dict], playouts: int, got: Estimates) -> bool:
    """Where the seat's knowledge fixes every hidden card's holder (``determinize.fixed``), the one
    deal there is, solved: each card's exact value for the side, both sides playing perfectly from
    here. False (``got`` untouched) past the solver's nodes."""
    sim = from_state(sampled_state(decision, known, prefix, sample_hands(known, decision.rng)).inner)
    values = solve(sim, decision.seat, kept, playouts * NODES_PER_PLAYOUT * EXACT_NODES)
    if values is None:
        return False
    got.add(values)
    got.exact = True
    return True


def _contract(decision, played: dict, playouts: int) -> Estimates:
    """Every legal bid, trump suit or tout answer, on the same sampled deals (``contract.tally``, as
    ``contract.choose`` samples them)."""
    legal = decision.legal
    known = read(decision)
    tout = next((c for c in legal if c["type"] == "announce_tout"), None)
    got = Estimates(list(legal))
    # When the seat did not announce the tout, the playouts stop where the search's would: the
    # search answers no tout then, as the seat did.
    sure = tally(decision, known, max(1, playouts // len(legal)), ROLLOUTS["heuristic"],
                 weigher(decision, known), give_up_tout=tout is not None and tout != played,
                 record=got.add).tout_sure()
    return got.kept([i for i, command in enumerate(legal) if command != tout or sure or command == played])
