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

from ..simulator import action_of, from_state
from .determinize import prefix_state, sample_hands, sampled_state, starting_hands
from .rollout import finish, value

MARGIN = 1.0  # points a deal
TOUT_SURE = 0.95


def choose(decision, known, fallback: dict, playouts: int, rollout, weigh=None) -> dict:
    """The choice for a bidding, naming or tout ``decision`` with at most ``playouts`` rollouts
    (one choice played to the end in one sampled deal); ``fallback`` when not one round fits.
    ``weigh(starting hands) -> weight`` (None: every sampled deal weighs 1)."""
    legal = decision.legal
    players, seat, rng = decision.players, decision.seat, decision.rng
    actions = [action_of(command, players) for command in legal]
    prefix = prefix_state(decision, known)
    totals = [0.0] * len(legal)
    weights = made = missed = 0.0
    rounds, most = 0, playouts // len(legal)
    tout_only = fallback["type"] == "no_tout"  # the one other choice is a tout
    while rounds < most and not decision.out_of_time():
        hands = sample_hands(known, rng)
        w = 1.0 if weigh is None else weigh(starting_hands(known, hands))
        sim = from_state(sampled_state(decision, known, prefix, hands).inner)
        for i, (command, action) in enumerate(zip(legal, actions)):
            played = sim.copy()
            played.apply(action)
            scored = finish(played, rollout, rng)
            totals[i] += w * value(scored, seat)
            if command["type"] == "announce_tout":
                made += w * bool(scored["tout_made"])
                missed += w * (not scored["tout_made"])
        weights += w
        rounds += 1
        if tout_only and missed > (1 - TOUT_SURE) * weights / rounds * most:
            return fallback  # the tout can no longer be sure enough (at the weights seen so far)
    if rounds == 0:
        return fallback
    best = legal.index(fallback)
    bar = totals[best] + MARGIN * weights
    for i, command in enumerate(legal):
        if command["type"] == "announce_tout" and made < TOUT_SURE * weights:
            continue
        if totals[i] > bar:
            best, bar = i, totals[i]
    return legal[best]
