"""Settlement examples written from the rules (SK-7, SK-8, SK-9) with the default tariffs.

Default tariffs: Rufspiel 10, Solo/Wenz 50, Bettel 30, Schneider 10, Schwarz
10 more, Laufende 10 each (minimum 3, Wenz 2), Tout ×2, Sie ×4.
Seat 3 deals in every example, so seat 0 speaks and leads first.
"""
from __future__ import annotations

from domain.schafkopf.game_types import order

from .helpers import GAME, declared_state, play_out, play_tricks, settled


def test_plain_rufspiel():
    # Seat 0 calls the Schellen Ace, held by seat 2. Defenders hold the Alte
    # (EO), so nobody has Laufende. Declarers take 72: a plain win.
    hands = [
        ["GO", "S9", "E8", "G8", "HK", "EK", "EU", "HO"],
        ["H7", "S7", "E9", "G9", "H10", "SU", "G10", "GU"],
        ["H8", "SA", "EA", "GA", "HA", "GK", "HU", "SO"],
        ["H9", "S8", "E7", "G7", "EO", "E10", "SK", "S10"],
    ]
    state = declared_state(hands, 0, "rufspiel", "S")
    events, state = play_tricks(state, [
        ["GO", "H7", "H8", "H9"],   # seat 0 takes 3
        ["S9", "S7", "SA", "S8"],   # the called suit: seat 2 must play the Ace (11)
        ["EA", "E7", "E8", "E9"],   # seat 2, 11
        ["GA", "G7", "G8", "G9"],   # seat 2, 11
        ["HA", "EO", "HK", "H10"],  # seat 3 takes 28 with the Alte
        ["E10", "EK", "SU", "GK"],  # seat 1 trumps: 20
        ["G10", "HU", "SK", "EU"],  # seat 0 over-trumps: 18
        ["HO", "GU", "SO", "S10"],  # seat 0: 18
    ])
    assert [e.data["seat"] for e in events if e.type == "PartnerRevealed"] == [2]
    result = settled(events)
    assert result["card_points"] == {"declarers": 72, "defenders": 48}
    assert (result["won"], result["schneider"], result["schwarz"], result["laufende"]) == (True, False, False, 0)
    assert result["value"] == 10
    assert result["payments"] == [10, -10, 10, -10]
    # The money list's line: the game, its called suit, who played it with whom, and the end.
    assert GAME.view(state, None)["deal_results"] == [{"game": "rufspiel", "suit": "S", "declarer": 0, "declarers": [0, 2],
                                            "won": True, "schneider": False, "schwarz": False}]


def test_rufspiel_won_schneider_with_laufende():
    # Seat 0 calls the Gras Ace (seat 1). Declarers hold EO GO HO SO EU: five
    # Laufende. They take 101 (Schneider), the defenders take one trick.
    hands = [
        ["EO", "GO", "HO", "EU", "HA", "G7", "E9", "S9"],
        ["SO", "GA", "EA", "E10", "G10", "H10", "SK", "S10"],
        ["GU", "H9", "H8", "G9", "E8", "S8", "GK", "EK"],
        ["HU", "SU", "HK", "H7", "G8", "E7", "S7", "SA"],
    ]
    state = declared_state(hands, 0, "rufspiel", "G")
    events, _ = play_tricks(state, [
        ["EO", "H10", "H8", "H7"],
        ["GO", "SO", "H9", "HK"],
        ["HO", "E10", "GU", "HU"],
        ["EU", "S10", "S8", "SU"],
        ["G7", "GA", "G9", "G8"],
        ["EA", "EK", "E7", "E9"],
        ["SK", "GK", "SA", "S9"],   # the defenders' only trick (19)
        ["S7", "HA", "G10", "E8"],
    ])
    result = settled(events)
    assert result["card_points"] == {"declarers": 101, "defenders": 19}
    assert (result["won"], result["schneider"], result["schwarz"], result["laufende"]) == (True, True, False, 5)
    assert result["value"] == 10 + 10 + 5 * 10
    assert result["payments"] == [70, 70, -70, -70]


def test_solo_lost_schneider():
    # Seat 0 plays a weak Gras-Solo and takes 24: the defenders have 96, so
    # the declarer loses Schneider. The defenders' run EO GO is only 2 (< 3).
    hands = [
        ["HO", "SU", "G9", "G8", "G7", "E7", "H7", "S7"],
        ["EO", "EU", "GA", "EA", "E10", "HA", "SA", "S8"],
        ["GO", "GU", "G10", "EK", "E9", "H10", "HK", "S10"],
        ["SO", "HU", "GK", "E8", "H9", "H8", "SK", "S9"],
    ]
    state = declared_state(hands, 0, "solo", "G")
    events, _ = play_tricks(state, [
        ["HO", "EO", "GU", "HU"],
        ["EA", "E9", "E8", "E7"],
        ["HA", "H10", "H9", "H7"],
        ["SA", "S10", "S9", "S7"],
        ["E10", "EK", "SK", "G7"],  # the declarer trumps
        ["G8", "EU", "GO", "SO"],
        ["HK", "H8", "SU", "S8"],   # and trumps again
        ["G9", "GA", "G10", "GK"],
    ])
    result = settled(events)
    assert result["card_points"] == {"declarers": 24, "defenders": 96}
    assert (result["won"], result["schneider"], result["schwarz"], result["laufende"]) == (False, True, False, 0)
    assert result["value"] == 50 + 10
    assert result["payments"] == [-180, 60, 60, 60]


def test_wenz_with_two_laufende():
    # Seat 0 holds EU GU but not HU: two Laufende, the Wenz minimum.
    hands = [
        ["EU", "GU", "EA", "E10", "GA", "G10", "S7", "H7"],
        ["HU", "EK", "E9", "GK", "HA", "H10", "SA", "S10"],
        ["SU", "EO", "E8", "GO", "G9", "HK", "HO", "SK"],
        ["E7", "G8", "G7", "H9", "H8", "SO", "S9", "S8"],
    ]
    state = declared_state(hands, 0, "wenz")
    events, _ = play_tricks(state, [
        ["EU", "HU", "SU", "S8"],
        ["GU", "E9", "E8", "S9"],
        ["EA", "EK", "EO", "E7"],   # the Ober is a plain Eichel card in the Wenz
        ["E10", "GK", "HK", "H8"],
        ["GA", "H10", "GO", "G8"],
        ["G10", "S10", "G9", "G7"],
        ["H7", "HA", "HO", "H9"],
        ["SA", "SK", "SO", "S7"],
    ])
    result = settled(events)
    assert result["card_points"] == {"declarers": 88, "defenders": 32}
    assert (result["won"], result["schneider"], result["laufende"]) == (True, False, 2)
    assert result["value"] == 50 + 2 * 10
    assert result["payments"] == [210, -70, -70, -70]


def _highest_trump_first(declarer, game, suit):
    trumps = order(game, suit).trumps

    def policy(state, seat, cards):
        if seat != declarer:
            return cards[0]
        return min(cards, key=lambda c: trumps.index(c) if c in trumps else 99)
    return policy


def test_solo_tout_won():
    # Herz-Solo Tout with seven top trumps: seven Laufende; (50 + 70) × 2.
    hands = [
        ["EO", "GO", "HO", "SO", "EU", "GU", "HU", "EA"],
        ["SU", "HA", "H10", "E10", "EK", "GA", "G10", "SA"],
        ["HK", "H9", "E9", "E8", "GK", "G9", "S10", "SK"],
        ["H8", "H7", "E7", "G8", "G7", "S9", "S8", "S7"],
    ]
    state = declared_state(hands, 0, "solo_tout", "H")
    events, _ = play_out(state, _highest_trump_first(0, "solo_tout", "H"))
    result = settled(events)
    assert result["tricks"] == {"declarers": 8, "defenders": 0}
    assert (result["won"], result["schneider"], result["schwarz"], result["laufende"]) == (True, False, False, 7)
    assert result["value"] == (50 + 7 * 10) * 2
    assert result["payments"] == [720, -240, -240, -240]


def test_solo_tout_lost_by_one_trick():
    # One trick given away loses the Tout: the declarer pays (50 + 70) × 2 to each.
    hands = [
        ["EO", "GO", "HO", "SO", "EU", "GU", "HU", "E7"],
        ["SU", "HA", "H10", "E10", "EK", "GA", "G10", "SA"],
        ["HK", "H9", "EA", "E8", "GK", "G9", "S10", "SK"],
        ["H8", "H7", "E9", "G8", "G7", "S9", "S8", "S7"],
    ]
    state = declared_state(hands, 0, "solo_tout", "H")
    _, state = play_tricks(state, [["E7", "EK", "EA", "E9"]])  # seat 2 takes a trick
    events, _ = play_out(state)
    result = settled(events)
    assert result["won"] is False
    assert result["payments"] == [-720, 240, 240, 240]


def test_sie():
    # Seat 1 holds all four Obers and Unters: Solo price × 4 with 8 Laufende.
    hands = [
        ["HA", "H10", "HK", "H9", "EA", "E10", "EK", "E9"],
        ["EO", "GO", "HO", "SO", "EU", "GU", "HU", "SU"],
        ["H8", "H7", "E8", "E7", "GA", "G10", "GK", "G9"],
        ["G8", "G7", "SA", "S10", "SK", "S9", "S8", "S7"],
    ]
    state = declared_state(hands, 1, "sie")
    events, _ = play_out(state)
    result = settled(events)
    assert result["tricks"] == {"declarers": 8, "defenders": 0}
    assert result["laufende"] == 8
    assert result["value"] == (50 + 8 * 10) * 4
    assert result["payments"] == [-520, 1560, -520, -520]


LOW_HAND = ["E7", "E8", "G7", "G8", "H7", "H8", "S7", "S8"]
OTHERS = [
    ["EA", "E10", "EK", "GA", "G10", "GK", "HA", "H10"],
    ["EO", "EU", "E9", "GO", "GU", "G9", "HK", "HO"],
    ["HU", "H9", "SA", "S10", "SK", "SO", "SU", "S9"],
]


def test_bettel_won():
    # Holding every Seven and Eight, the declarer can never take a trick.
    state = declared_state([LOW_HAND] + OTHERS, 0, "bettel")
    events, _ = play_out(state)
    result = settled(events)
    assert result["tricks"]["declarers"] == 0
    assert (result["won"], result["laufende"], result["value"]) == (True, 0, 30)
    assert result["payments"] == [90, -30, -30, -30]


def test_bettel_lost():
    # With an Ace led, the Bettel player takes the first trick and has lost.
    hands = [["EA", "E8", "G7", "G8", "H7", "H8", "S7", "S8"],
             ["E7", "E10", "EK", "GA", "G10", "GK", "HA", "H10"], OTHERS[1], OTHERS[2]]
    state = declared_state(hands, 0, "bettel")
    events, state = play_tricks(state, [["EA", "E7", "EO", "HU"]])
    assert [e.data["seat"] for e in events if e.type == "TrickTaken"] == [0]
    rest, _ = play_out(state)
    result = settled(rest)
    assert (result["won"], result["value"]) == (False, 30)
    assert result["payments"] == [-90, 30, 30, 30]
