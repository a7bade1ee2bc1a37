"""What a seat (or a spectator, seat None) may see of the state.

Public: every colour count (hands, cupboard, collections: the backs are
visible, SS-5), the pairing and ranking, the tricks, the scores. Private: the
values in a hand (only its owner), predictions (only their maker, until all
are revealed). The cupboard's values are shown to nobody until the game ends.
"""
from __future__ import annotations

from .cards import colour_counts, colour_ranking, numbers_dict, super_trumps
from .state import State


def _predictions(state: State, seat: int | None, open_all: bool) -> list[dict]:
    out = []
    for owner, prediction in enumerate(state.predictions):
        entry = {"made": prediction is not None}
        if prediction is not None and (open_all or owner == seat):
            entry.update(prediction.to_json())
        out.append(entry)
    return out


def _trick(trick, winner: int | None = None) -> dict | None:
    if trick is None:
        return None
    out = trick.to_json()
    if winner is not None:
        out["winner"] = winner
    return out


def game_view(state: State, seat: int | None, to_act: frozenset[int], reveal: bool = False) -> dict:
    """``reveal`` (a finished game's past view) shows every hand, the cupboard and the predictions."""
    finished = state.phase == "finished"
    dealt = bool(state.numbers)
    own = seat is not None and 0 <= seat < len(state.hands)
    view = {
        "phase": state.phase,
        "round": state.deal + 1,
        "rounds": state.rounds,
        "deal": state.deal,
        "players": state.players,
        "hand": list(state.hands[seat]) if own else None,
        "hand_sizes": [len(hand) for hand in state.hands],
        "hand_colours": [colour_counts(hand) for hand in state.hands],
        "cupboard_colours": colour_counts(state.cupboard),
        "numbers": numbers_dict(state.numbers) if dealt else None,
        "ranking": list(colour_ranking(state.numbers)) if dealt else None,
        "super_trumps": list(super_trumps(state.numbers)) if dealt else None,
        "starter": state.starter,
        "predictions": _predictions(state, seat, state.revealed or finished or reveal),
        "predictions_revealed": state.revealed,
        "current_trick": _trick(state.trick) if state.phase in ("playing", "taking") else None,
        "last_trick": _trick(state.last_trick, state.last_winner),
        "taker": state.taker,
        "collections": [colour_counts(cards) for cards in state.collections],
        "round_scores": [list(points) for points in state.round_points],
        "totals": list(state.totals),
        "to_act": sorted(to_act),
    }
    if finished or reveal:
        # Nothing is secret any more: every hand, the cupboard and the collections' values.
        view["hands"] = [list(hand) for hand in state.hands] if state.hands else [[] for _ in range(state.players)]
        view["cupboard"] = list(state.cupboard)
        view["collection_cards"] = [list(cards) for cards in state.collections]
        view["ranking_places"] = list(state.ranking) if state.ranking and finished else None
    return view
