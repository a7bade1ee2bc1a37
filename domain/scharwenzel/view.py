"""What a seat (or a spectator) sees of a Scharwenzel game."""
from __future__ import annotations

from .cards import sort_hand, trump_order
from .scoring import side_of
from .state import State


def render_view(state: State, seat: int | None, reveal: bool = False) -> dict:
    """``reveal`` (a finished game's past view) shows every hand as it is now."""
    n = state.players
    show_all = state.finished or reveal
    hand = None
    if seat is not None and 0 <= seat < n and state.hands:
        hand = list(sort_hand(state.hands[seat], n))
    tricks = [state.trick_sides.count(0), state.trick_sides.count(1)]
    high = state.high_bid
    out = {
        "phase": state.phase,
        "deal": state.deal,
        "dealer": state.dealer,
        "forehand": state.forehand,
        "hand": hand,
        "hand_sizes": [len(h) for h in state.hands] if state.hands else [0] * n,
        "sides": [side_of(s) for s in range(n)],
        "bidding": [b.to_json() for b in state.bids],
        "high_bid": None if high is None else high.to_json(),
        "trumps": None if state.trumps is None else {
            "suit": state.trumps, "named_by": state.named_by, "after_all_passed": state.after_all_passed,
            "order": list(trump_order(state.trumps, n))},
        "tout": None if state.tout_by is None else {"announced_by": state.tout_by, "side": state.tout_side},
        "current_trick": state.trick.to_json() if state.trick is not None else None,
        "last_trick": None if state.last_trick is None else {**state.last_trick.to_json(), "winner": state.last_winner},
        "tricks_taken": tricks,
        "score_sheet": state.sheet.to_json(),
        "last_deal_score": state.last_score,
        "rules": {"deals": state.deals, "threads": state.threads, "announced_tout": state.announced_tout,
                  "bock_value": state.bock_value},
    }
    if show_all:
        out["hands"] = [list(sort_hand(h, n)) for h in state.hands] if state.hands else [[] for _ in range(n)]
        out["starting_hands"] = [list(sort_hand(h, n)) for h in state.starting]
        out["winner"] = state.winner
    return out
