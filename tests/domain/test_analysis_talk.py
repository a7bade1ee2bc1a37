"""The analysis judges the decisions before the first card and the Stoß too, as the search bots make
them (Schafkopf ``deal_search``, Scharwenzel ``contract``): a finished game's talk has values, a
deliberately bad bid, game or Stoß is marked, and a seat's talk is judged only from what it saw."""
from __future__ import annotations

import pytest

from domain.bots import analysis
from domain.bots.analysis import Budget, analyse, judge, moments
from domain.bots.decision import seat_history
from domain.schafkopf.cards import DECK

from .analysis_games import finished_game

HEAD = "cd" * 32
SMALL = Budget(playouts=24)
TALK = {"schafkopf": ("announce", "name_game"), "scharwenzel": ("bid", "no_tout")}


def _rows(result, kind):
    return [d for d in result["decisions"] if d["played"]["command"]["type"] == kind]


@pytest.mark.parametrize("name", sorted(TALK))
def test_a_finished_games_talk_has_values(name):
    table, events = finished_game(name)
    result = analyse(table, events, HEAD, SMALL)
    for kind in TALK[name]:
        rows = _rows(result, kind)
        assert rows, f"{name}: no {kind} in the game"
        judged = [d for d in rows if d["loss"] is not None]
        assert judged, f"{name}: no {kind} judged"
        for d in judged:
            assert d["best"]["value"] >= d["played"]["value"]
            assert d["best"]["command"]["type"] in TALK[name] + ("pass", "announce", "name_game", "withdraw")


# -- Schafkopf ------------------------------------------------------------------------------

HOPELESS = ["G7", "G8", "G9", "S7", "S8", "S9", "H7", "H8"]  # no Ober, no Unter, no Eichel
SIE = ["EO", "GO", "HO", "SO", "EU", "GU", "HU", "SU"]  # every top trump
BARE = ["E7", "E8", "E9", "EK", "G7", "G8", "G9", "GK"]  # no trump in a Herz-Solo


def _deal(fixed: dict[int, list[str]], rotate: int = 0) -> list[dict]:
    """A preset deal (dealer 3, so seat 0 speaks and leads first): the ``fixed`` hands, the rest of
    the deck dealt to the other seats, ``rotate`` cards moved from each of them to the next."""
    rest = [c for c in DECK if not any(c in hand for hand in fixed.values())]
    others = [s for s in range(4) if s not in fixed]
    size = len(rest) // len(others)
    hands = {s: rest[i * size:(i + 1) * size] for i, s in enumerate(others)}
    for _ in range(rotate):  # a card of each other seat's hand to the next: new hidden hands
        moved = [hands[s].pop(0) for s in others]
        for i, s in enumerate(others):
            hands[s].append(moved[i - 1])
    return [{"hands": [fixed.get(s, hands.get(s)) for s in range(4)], "dealer": 3}]


def _talk(seat: int, intents: dict[int, str], naming: dict | None = None, lead: str | None = None,
          stoss_by: tuple[int, ...] = ()):
    """An override: each seat's announcement as ``intents`` says, ``seat`` names ``naming`` and
    leads ``lead``; the seats ``stoss_by`` give a Stoß when they may (everything else the bots')."""
    def override(decision):
        kinds = {c["type"] for c in decision.legal}
        me = decision.seat
        if "announce" in kinds and me in intents:
            return {"type": "announce", "intent": intents[me]}
        if "name_game" in kinds and me == seat and naming:
            return naming
        if me in stoss_by and {"type": "stoss"} in decision.legal:
            return {"type": "stoss"}
        played = decision.view["game_state"].get("current_trick") or {}
        if me == seat and lead and {"type": "play", "card": lead} in decision.legal and not played.get("plays"):
            return {"type": "play", "card": lead}
        return None
    return override


def _row(result, seat, kind):
    return next(d for d in result["decisions"] if d["seat"] == seat and d["played"]["command"]["type"] == kind)


def test_a_lone_game_with_a_hopeless_hand_is_a_blunder():
    presets = _deal({0: HOPELESS})
    solo = {"type": "name_game", "game": "solo", "suit": "E"}
    table, events = finished_game("schafkopf", presets=presets,
                                  override=_talk(0, {0: "play", 1: "pass", 2: "pass", 3: "pass"}, solo))
    result = analyse(table, events, HEAD, Budget(playouts=24, max_decisions=6))
    named = _row(result, 0, "name_game")
    assert named["played"]["command"] == solo  # a value though the search would not have tried it
    assert named["mark"] == "blunder", named
    assert named["best"]["command"] != solo
    assert _row(result, 0, "announce")["loss"] is not None


def test_a_re_on_a_hopeless_solo_is_a_blunder():
    """Seat 0 plays a Solo with no trump, seat 1 gives Kontra and seat 0 answers Re: its own hand
    tells it the Solo is lost, and Re doubles the loss."""
    table, events = finished_game("schafkopf", presets=_deal({0: HOPELESS}), override=_talk(
        0, {0: "play", 1: "pass", 2: "pass", 3: "pass"}, {"type": "name_game", "game": "solo", "suit": "E"},
        stoss_by=(1, 0)))
    result = analyse(table, events, HEAD, Budget(playouts=24, max_decisions=16))
    kontra, re = [d for d in result["decisions"] if d["played"]["command"] == {"type": "stoss"}][:2]
    assert (kontra["seat"], re["seat"]) == (1, 0)
    assert kontra["loss"] is not None
    assert re["mark"] == "blunder", re
    assert re["best"]["command"]["type"] == "play"  # no Re: a card without it


def _moment(table, events, seat, kind):
    return next(m for m in moments(table, events) if m.seat == seat and m.command["type"] == kind)


def _same_for_the_seat(games, seat, kind):
    """The seat's ``kind`` decision in each game saw the same history, and is judged alike."""
    judged, seen = [], []
    for table, events in games:
        moment = _moment(table, events, seat, kind)
        seen.append(seat_history(events[:moment.seq - 1], seat))
        judged.append(judge(table, events, HEAD, moment, 24, analysis.evaluation_of(moment.state.game.name)))
    assert seen[0] == seen[1], "the test's two games must look alike to the seat"
    assert judged[0] is not None
    assert judged[0] == judged[1]


def test_a_schafkopf_talk_decision_is_judged_from_what_its_seat_saw():
    fixed = {0: ["EO", "GO", "EU", "HU", "HA", "H10", "GK", "G9"]}
    script = _talk(0, {0: "play", 1: "pass", 2: "pass", 3: "pass"})
    games = [finished_game("schafkopf", presets=_deal(fixed, rotate), override=script) for rotate in (0, 3)]
    assert games[0][1] != games[1][1]
    _same_for_the_seat(games, 0, "name_game")


def test_a_schafkopf_stoss_is_judged_from_what_its_seat_saw():
    # Seat 0's hand but its lead, and seats 2 and 3, differ; seat 1 sees the same game.
    lead = "EO"
    strong = ["GO", "HO", "SO", "EU", "GU", "HU", "SU"]
    weaker = ["GO", "HO", "EU", "GU", "HA", "H10", "HK"]
    script = _talk(0, {0: "play", 1: "pass", 2: "pass", 3: "pass"}, {"type": "name_game", "game": "solo", "suit": "H"},
                   lead=lead)
    games = [finished_game("schafkopf", presets=_deal({0: [lead] + hand, 1: BARE}), override=script)
             for hand in (strong, weaker)]
    _same_for_the_seat(games, 1, "play")  # seat 1's first card, a Stoß open to it


# -- Scharwenzel ----------------------------------------------------------------------------

def test_a_tout_without_a_tout_hand_is_a_blunder():
    def first_asked_touts(decision):
        if {"type": "announce_tout"} in decision.legal and not any(
                e["type"] in ("ToutDeclined", "ToutAnnounced") for e in decision.history):
            return {"type": "announce_tout"}
        return None

    table, events = finished_game("scharwenzel", override=first_asked_touts)
    result = analyse(table, events, HEAD, Budget(playouts=24, max_decisions=10))
    tout = _row_of(result, "announce_tout")
    assert tout["mark"] == "blunder", tout
    assert tout["best"]["command"] == {"type": "no_tout"}


def _row_of(result, kind):
    return next(d for d in result["decisions"] if d["played"]["command"]["type"] == kind)


def test_a_scharwenzel_bid_is_judged_from_what_its_seat_saw():
    from domain.scharwenzel.cards import deck
    cards = list(deck(4))
    mine = cards[:8]  # every club: seat 2's hand
    rest = cards[8:]
    deals = []
    for shift in (0, 5):
        others = rest[shift:] + rest[:shift]
        deals.append([{"hands": [others[:8], others[8:16], mine, others[16:]], "dealer": 3}])

    def the_first_two_pass(decision):
        if decision.seat in (0, 1) and {"type": "pass"} in decision.legal:
            return {"type": "pass"}
        return None

    games = [finished_game("scharwenzel", presets=deal, override=the_first_two_pass) for deal in deals]
    assert any(m.seat == 2 and m.command["type"] == "bid" for m in moments(*games[0]))
    _same_for_the_seat(games, 2, "bid")
