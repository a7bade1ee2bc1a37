"""Round scoring (SS-8) with the rulebook's examples, and the final ranking (SS-9)."""
from domain.scharfe_schoten.cards import SPICE_DECK
from domain.scharfe_schoten.scoring import prediction_result, score_prediction
from tests.domain.harness import event_types, given, when

from .support import GAME, dealt, last_trick_state, play_first_legal, predict_all, preset, take_counts

# The last trick: seat 0 leads green 12, the highest super trump, and wins it.
LAST_TRICK = [["G12"], ["G11"], ["G10"], ["G9"]]
NUMBERS = {"R": 11, "G": 12, "Y": 10, "B": 9}


def scored_last_trick(collections_counts, predictions, totals=None):
    """Given the last trick of a 4-player game's final round, seats 1-3 holding the
    counted collections; when it is played, return the RoundScored and GameEnded data."""
    pool = [card for card in SPICE_DECK if card not in {"G12", "G11", "G10", "G9"}]
    collections = [[]] + [take_counts(pool, counts) for counts in collections_counts]
    collections[0] = pool  # seat 0 collected everything else
    state = last_trick_state(4, LAST_TRICK, collections, NUMBERS, predictions, totals=totals)
    events = []
    for seat in range(4):
        new = when(GAME, state, seat, {"type": "play", "card": LAST_TRICK[seat][0]})
        events += new
        state = given(GAME, new, state)
    assert event_types(events)[-2:] == ["RoundScored", "GameEnded"]
    return events[-2].data, events[-1].data, state


def test_rulebook_scoring_example_1():
    # "Most will be black" is right (5); "fewest will be green" is wrong (0).
    counts = {"R": 3, "G": 2, "Y": 1, "B": 5}
    assert score_prediction(counts, "B", "G") == {"most": "unique", "fewest": "wrong", "bonus": 0, "points": 5}
    scored, _, _ = scored_last_trick([counts, {}, {}], [("R", "Y"), ("B", "G"), ("R", "G"), ("R", "G")])
    assert scored["counts"][1] == counts
    assert scored["points"][1] == 5


def test_rulebook_scoring_example_2():
    # "Most will be red" is wrong (0); "fewest will be yellow" is right but tied (3).
    counts = {"R": 2, "G": 4, "Y": 1, "B": 1}
    assert score_prediction(counts, "R", "Y") == {"most": "wrong", "fewest": "tied", "bonus": 0, "points": 3}
    scored, _, _ = scored_last_trick([{}, counts, {}], [("R", "Y"), ("R", "G"), ("R", "Y"), ("R", "G")])
    assert scored["points"][2] == 3


def test_rulebook_scoring_example_3():
    # Red most (5), yellow fewest tied with black at none (3), both right: + 6 - 0.
    counts = {"R": 6, "G": 2, "Y": 0, "B": 0}
    assert score_prediction(counts, "R", "Y") == {"most": "unique", "fewest": "tied", "bonus": 6, "points": 14}
    scored, _, _ = scored_last_trick([{}, {}, counts], [("R", "Y"), ("R", "G"), ("R", "G"), ("R", "Y")])
    assert scored["points"][3] == 14
    assert scored["results"][3] == {"most": "unique", "fewest": "tied", "bonus": 6, "points": 14}


def test_rulebook_no_trick_scores_six():
    # Seat 0 holds every super trump and the top reds (red ranks highest): it wins
    # all 12 tricks, so seats 1 and 2 collect nothing.
    numbers = {"R": 12, "G": 1, "Y": 2, "B": 3}
    top = ["R12", "B3", "Y2", "G1", "R11", "R10", "R9", "R8", "R7", "R6", "R5", "R4"]
    rest = [card for card in SPICE_DECK if card not in top]
    state, _ = dealt(3, [preset([top, rest[:12], rest[12:24]], rest[24:], numbers, starter=0)])
    state, _ = predict_all(state, [("R", "G"), ("B", "Y"), ("Y", "R")])
    state, events = play_first_legal(state)
    scored = next(e.data for e in events if e.type == "RoundScored")
    assert scored["counts"][1] == scored["counts"][2] == {"R": 0, "G": 0, "Y": 0, "B": 0}
    assert scored["points"][1] == scored["points"][2] == 6
    assert score_prediction({"R": 0, "G": 0, "Y": 0, "B": 0}, "G", "B")["points"] == 6


def test_prediction_counting_unique_tied_wrong():
    counts = {"R": 4, "G": 4, "Y": 2, "B": 1}
    assert prediction_result(counts, "R", "most") == "tied"
    assert prediction_result(counts, "Y", "most") == "wrong"
    assert prediction_result(counts, "B", "fewest") == "unique"
    assert prediction_result(counts, "Y", "fewest") == "wrong"
    # Both right with the most tied: 3 + 5 + (4 - 1).
    assert score_prediction(counts, "G", "B")["points"] == 11


def test_final_ranking_ties_share_a_place():
    # Seat 0 (collects everything else: R9 G10 Y11 B7) is wrong twice and scores 0;
    # seat 1 scores 5 (example 1), seats 2 and 3 collect nothing and score 6.
    scored, ended, state = scored_last_trick(
        [{"R": 3, "G": 2, "Y": 1, "B": 5}, {}, {}],
        [("R", "G"), ("B", "G"), ("Y", "R"), ("R", "G")], totals=[20, 15, 17, 20])
    assert scored["counts"][0] == {"R": 9, "G": 10, "Y": 11, "B": 7}
    assert scored["points"] == [0, 5, 6, 6]
    assert ended == {"totals": [20, 20, 23, 26], "ranking": [3, 3, 2, 1]}
    assert GAME.is_finished(state)
    assert GAME.scores(state) == {"totals": [20, 20, 23, 26], "rounds": [[0, 5, 6, 6]], "ranking": [3, 3, 2, 1]}


def test_equal_first_place_is_shared():
    # Seat 0 collects all 48 cards (12 of each colour): every prediction ties, 6 points.
    _, ended, _ = scored_last_trick(
        [{}, {}, {}], [("R", "G"), ("B", "G"), ("Y", "R"), ("G", "B")], totals=[10, 10, 4, 10])
    assert ended == {"totals": [16, 16, 10, 16], "ranking": [1, 1, 4, 1]}
