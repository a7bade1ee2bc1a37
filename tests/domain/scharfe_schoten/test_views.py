"""What each seat may see (SS-5): its own hand, every colour count, never another hand's values."""
from domain.scharfe_schoten.cards import SPICE_DECK

from .support import GAME, dealt, default_predictions, fill_deal, play_first_legal, predict_all, preset


def codes_in(value) -> set[str]:
    """Every string anywhere in a JSON-shaped value."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(codes_in(v) for v in value.values())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*(codes_in(v) for v in value)) if value else set()
    return set()


def assert_no_secret_in_view(state, seat):
    """No card of another hand or of the cupboard appears in ``seat``'s view.

    Super trump codes are public facts of the deal, so they may appear anyway.
    """
    view = GAME.view(state, seat)
    public = set(view["super_trumps"] or ())
    secret = {card for other, hand in enumerate(state.hands) if other != seat for card in hand}
    secret |= set(state.cupboard)
    leaked = (codes_in(view) & secret) - public
    assert not leaked, f"seat {seat} sees {leaked}"


def test_view_shows_only_the_viewers_hand():
    hands, cupboard = fill_deal(3)
    state, _ = dealt(3, [preset(hands, cupboard, starter=0)])
    view = GAME.view(state, 1)
    assert view["hand"] == hands[1]
    assert view["phase"] == "predicting" and view["round"] == 1 and view["deal"] == 0
    assert view["hand_colours"] == [{"R": 12, "G": 0, "Y": 0, "B": 0}, {"R": 0, "G": 12, "Y": 0, "B": 0},
                                    {"R": 0, "G": 0, "Y": 12, "B": 0}]
    assert view["cupboard_colours"] == {"R": 0, "G": 0, "Y": 0, "B": 12}
    assert view["numbers"] == {"R": 2, "G": 10, "Y": 1, "B": 9}
    assert view["ranking"] == ["G", "B", "R", "Y"]
    assert view["to_act"] == [0, 1, 2]
    assert "hands" not in view and "cupboard" not in view
    assert GAME.view(state, None)["hand"] is None
    for seat in (0, 1, 2, None):
        assert_no_secret_in_view(state, seat)


def test_view_during_play_and_after_the_game():
    hands, cupboard = fill_deal(4)
    state, _ = dealt(4, [preset(hands, cupboard, starter=0)], rules={"rounds": 1})
    state, _ = predict_all(state, default_predictions(4))
    state, _ = play_first_legal(state, until=lambda s: s.phase == "taking")
    view = GAME.view(state, 2)
    assert view["phase"] == "taking" and view["last_trick"]["winner"] == view["to_act"][0]
    assert sum(sum(c.values()) for c in view["collections"]) == 4
    for seat in (0, 1, 2, 3, None):
        assert_no_secret_in_view(state, seat)
    state, _ = play_first_legal(state)
    final = GAME.view(state, None)
    assert final["phase"] == "finished"
    assert sorted(sum(final["collection_cards"], [])) == sorted(SPICE_DECK)
    assert final["predictions"][3] == {"made": True, "most": "R", "fewest": "G"}
    assert final["round_scores"] == [final["totals"]]
