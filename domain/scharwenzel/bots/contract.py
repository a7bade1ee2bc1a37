"""The search's decisions before card play: the bid or pass, the trump suit named, the tout.

From the decision's moment (the deal's start for the first bid) it samples the hidden hands
consistently with what the seat knows (``determinize``), tries each legal choice in each
sampled deal and plays the rest of the deal out through the simulator with the heuristic for
every seat: its bids, trumps and tout answers, then its cards (``rollout.finish``). A choice's
score is the deal's value for the seat's side, averaged over the sampled deals (weighted by
``inference`` when the caller weighs them). Every choice is scored on the same sampled deals.

Two guards against perfect-information Monte Carlo's optimism (every rollout plays with the
true hands in view, so a tout looks safer than it is):

* the heuristic's choice stands unless another averages more than ``MARGIN`` points better;
* a tout is announced only when it was made in at least ``TOUT_SURE`` of the sampled deals
  (by weight): a missed tout costs four hooks, about a hundred points. Nearly every hand misses
  it at once, so the tout question stops as soon as the tout can no longer reach that share.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..simulator import action_of, from_state
from .determinize import prefix_state, sample_hands, sampled_state, starting_hands
from .rollout import finish, value

MARGIN = 1.0  # points a deal
TOUT_SURE = 0.95


@dataclass
class Tally:
    """Each legal choice's weighted total over the same sampled deals, and how the tout fared."""
    totals: list[float]
    weights: float = 0.0
    made: float = 0.0  # the weight of the sampled deals in which the tout, announced, was made
    rounds: int = 0
    gave_up: bool = False  # the sampling stopped early: the tout could no longer be sure enough

    def tout_sure(self) -> bool:
        """As sure of the tout as the search must be to announce it."""
        return self.made >= TOUT_SURE * self.weights


def tally(decision, known, most: int, rollout, weigh=None, give_up_tout: bool = False, record=None) -> Tally:
    """Every legal choice of a bidding, naming or tout ``decision`` played to the end in each of at
    most ``most`` sampled deals. ``weigh(starting hands) -> weight`` (None: every deal weighs 1).
    With ``give_up_tout`` the sampling stops once the tout can no longer reach ``TOUT_SURE`` at the
    weights seen so far (nearly every hand misses it at once). ``record(values, weight)`` is told
    each sampled deal's values, in ``legal``'s order, and its weight."""
    legal = decision.legal
    players, seat, rng = decision.players, decision.seat, decision.rng
    actions = [action_of(command, players) for command in legal]
    tout = next((i for i, command in enumerate(legal) if command["type"] == "announce_tout"), None)
    prefix = prefix_state(decision, known)
    result, missed = Tally([0.0] * len(legal)), 0.0
    while result.rounds < most and not decision.out_of_time():
        hands = sample_hands(known, rng)
        w = 1.0 if weigh is None else weigh(starting_hands(known, hands))
        sim = from_state(sampled_state(decision, known, prefix, hands).inner)
        values = []
        for i, action in enumerate(actions):
            played = sim.copy()
            played.apply(action)
            scored = finish(played, rollout, rng)
            values.append(value(scored, seat))
            result.totals[i] += w * values[-1]
            if i == tout:
                result.made += w * bool(scored["tout_made"])
                missed += w * (not scored["tout_made"])
        result.weights += w
        result.rounds += 1
        if record is not None:
            record(values, w)
        if give_up_tout and tout is not None and missed > (1 - TOUT_SURE) * result.weights / result.rounds * most:
            result.gave_up = True
            break
    return result


def choose(decision, known, fallback: dict, playouts: int, rollout, weigh=None) -> dict:
    """The choice for a bidding, naming or tout ``decision`` with at most ``playouts`` rollouts
    (one choice played to the end in one sampled deal); ``fallback`` when not one round fits.
    ``weigh``: as ``tally``'s."""
    legal = decision.legal
    # The tout question stops early only when the heuristic said no tout (the one other choice).
    got = tally(decision, known, playouts // len(legal), rollout, weigh,
                give_up_tout=fallback["type"] == "no_tout")
    if got.gave_up or got.rounds == 0:
        return fallback
    best = legal.index(fallback)
    bar = got.totals[best] + MARGIN * got.weights
    for i, command in enumerate(legal):
        if command["type"] == "announce_tout" and not got.tout_sure():
            continue
        if got.totals[i] > bar:
            best, bar = i, got.totals[i]
    return legal[best]
