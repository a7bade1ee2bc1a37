"""The Markdown transcript: every deal, bid, trick and score of real games, and nothing
of another seat's hand while the game runs."""
from __future__ import annotations

import random

import pytest

from domain.scharwenzel.cards import sort_hand
from domain.scharwenzel.scoring import side_of
from domain.scharwenzel.transcript import HANDLED, TABLE_EVENTS

from ..harness import random_playout, served
from tests.domain.scharwenzel.helpers import GAME, SCORING_EXAMPLE, TOUT_8, Driver

# (players, rules): between them every event type and every kind of deal result.
GAMES = [
    (4, {"deals": 12}),
    (4, {"threads": 2, "bock_value": "game_and_matadors"}),
    (6, {"deals": 10, "announced_tout": False}),
    (6, {"threads": 1}),
    (8, {"deals": 12, "bock_value": "game_and_matadors"}),
    (8, {"deals": 8, "announced_tout": False}),
]
SEEDS = range(3)


def choose(rng, seat, legal):
    """Uniform, but a tout is announced now and then, so that some are made and some fail."""
    if legal[0]["type"] == "announce_tout":
        return legal[0] if rng.random() < 0.05 else legal[1]
    return rng.choice(legal)


def play(players, rules, seed):
    return random_playout(GAME, players, seed=seed, rules=rules, choose=choose)


def deals(lines):
    """Per "## Deal" heading: {section title: its lines}."""
    out = []
    for line in lines:
        if line.startswith("## Deal "):
            out.append({})
            section = "head"
        elif line.startswith("### ") and out:
            section = line[4:]
        elif line and out:
            out[-1].setdefault(section, []).append(line)
    return out


def rows(section_lines):
    """A Markdown table's body rows as lists of cells."""
    return [[cell.strip() for cell in line.strip("|").split("|")]
            for line in section_lines if line.startswith("|") and not line.startswith("|---")][1:]


def deal_tricks(events):
    """Per deal: (HandsDealt data, [(trick's plays, TrickTaken data)])."""
    out = []
    for event in events:
        if event.type == "HandsDealt":
            out.append((event.data, []))
            plays = []
        elif event.type == "CardPlayed":
            plays.append((event.data["seat"], event.data["card"]))
        elif event.type == "TrickTaken":
            out[-1][1].append((plays, event.data))
            plays = []
    return out


def check_tricks(section, tricks):
    table = rows(section)
    assert len(table) == len(tricks)
    for row, (plays, taken) in zip(table, tricks):
        number, leader, cards, winner, _ = row
        assert number == str(taken["trick"])
        assert leader == f"seat {plays[0][0]}"
        cells = cards.split(", ")
        assert [c.strip("*") for c in cells] == [f"{seat}: {card}" for seat, card in plays]
        assert [c for c in cells if c.startswith("**")] == [f"**{taken['seat']}: {dict(plays)[taken['seat']]}**"]
        assert winner == f"seat {taken['seat']} (side {taken['side']})"


@pytest.mark.parametrize("players,rules", GAMES)
def test_a_finished_game_reads_deal_by_deal(players, rules):
    for seed in SEEDS:
        table, state, events = play(players, rules, seed)
        lines = GAME.transcript(served(events))
        assert all(isinstance(line, str) and "\n" not in line for line in lines)
        sections, dealt = deals(lines), deal_tricks(events)
        assert len(sections) == len(dealt)
        for section, (hands, tricks) in zip(sections, dealt):
            assert section["head"] == [(f"Seat {hands['dealer']} deals; seat {hands['forehand']} is forehand "
                                        f"(bids first and leads the first trick).")]
            shown = rows(section["Hands"])
            assert [cells[2] for cells in shown] == [" ".join(sort_hand(h, players)) for h in hands["hands"]]
            check_tricks(section["Tricks"], tricks)
        sheet = rows(sections[-1]["Score sheet"])
        totals = {int(cells[0]): int(cells[5]) for cells in sheet}
        assert [totals[side_of(s)] for s in range(players)] == table.summary(state)["scores"]["totals"]
        assert lines[-1].startswith("**Game over**")


def test_the_games_cover_every_event_and_every_kind_of_result():
    """The games above are worth their time only if they reach the rare events; each shows in its terms."""
    seen, types = set(), set()
    for players, rules in GAMES:
        for seed in SEEDS:
            _, _, events = play(players, rules, seed)
            text = "\n".join(GAME.transcript(served(events)))
            for event in events:
                d = event.data
                if event.type == "DealScored":
                    kind = ("tout made" if d["tout_made"] else "tout failed" if d["announced_tout"] is not None
                            else "bock" if d["bock"] else "tout" if d["tout"] else "majority")
                    seen.add(kind)
                    assert {"tout made": "makes its announced tout", "tout failed": "announced tout fails",
                            "bock": "a Bock: nobody scores", "tout": "takes every trick",
                            "majority": "has the majority"}[kind] in text
                elif event.type == "ThreadWon":
                    seen.add("Petersdorfer" if d["petersdorfer"] else "thread")
                    assert f"Side {d['side']} reaches {d['points'][d['side']]} points" in text
                elif event.type == "TrumpsNamed":
                    seen.add("all passed" if d["after_all_passed"] else "besser" if d["bid"]["besser"] else "named")
                types.add(event.type)
    assert {"HandsDealt", "BidMade", "Passed", "TrumpsNamed", "ToutAnnounced", "ToutDeclined", "CardPlayed",
            "TrickTaken", "DealScored", "ThreadWon", "GameEnded"} == types - TABLE_EVENTS
    # Every event type the game emits has its own reader (none falls to the "unknown" line).
    assert types - TABLE_EVENTS == HANDLED
    # A made announced tout is too rare for random play: the scripted test below reads one.
    assert {"tout failed", "bock", "tout", "majority", "thread", "all passed", "besser", "named"} <= seen


def test_the_rulebook_example_reads_as_the_rulebook_scores_it():
    d = Driver(4, rules={"deals": 1}, presets=[{"hands": SCORING_EXAMPLE, "dealer": 3}])
    d.deal()
    d.bids(None, None, None, {"type": "bid", "value": 3, "besser": True})
    d.no_touts()
    d.play_script(SCORING_EXAMPLE)
    lines = GAME.transcript(served(d.events))
    (deal,) = deals(lines)
    assert deal["Bidding"] == ["* Seat 0 passes", "* Seat 1 passes", "* Seat 2 passes", "* Seat 3 bids 3 besser",
                               "* Seat 3's 3 besser: clubs are trumps.",
                               "* Trumps, best first: QC 7C QS JC JS JH JD AC KC 10C 9C 8C"]
    assert deal["Tout"] == ["* No tout: seat 0, seat 1, seat 2, seat 3"]
    assert deal["Result"] == ["* Trumps: clubs; tricks: side 0 5, side 1 3.",
                              ("* Side 0 has the majority: game 4 + for the first 2 + matadors 4 (QC 7C QS JC) "
                               "= 10 points.")]
    assert rows(deal["Score sheet"]) == [["0", "0, 2", "10", "0", "0", "0"], ["1", "1, 3", "0", "0", "0", "0"]]
    assert "A preset deal." in deal["head"][0]


@pytest.mark.parametrize("announcer,result,sheet", [
    (0, "* Side 0 makes its announced tout: game 2 + Bock 0 = 2 points and 2 hooks.",
     [["0", "0, 2, 4, 6", "2", "0", "2", "2"], ["1", "1, 3, 5, 7", "0", "0", "0", "0"]]),
    (1, "* Side 1's announced tout fails: side 0 gets 4 hooks.",
     [["0", "0, 2, 4, 6", "0", "0", "4", "4"], ["1", "1, 3, 5, 7", "0", "0", "0", "0"]]),
])
def test_an_announced_tout_reads_made_or_failed(announcer, result, sheet):
    # Eight players, all pass; side 0 takes all four tricks of TOUT_8.
    d = Driver(8, rules={"deals": 1}, presets=[{"hands": TOUT_8, "dealer": 7}])
    d.deal()
    d.bids(*[None] * 8)
    for seat in range(announcer):
        d.do(seat, {"type": "no_tout"})
    d.do(announcer, {"type": "announce_tout"})
    d.play_script(TOUT_8)
    (deal,) = deals(GAME.transcript(served(d.events)))
    assert deal["Bidding"][-2] == "* All passed: clubs are trumps after all passed."
    expected = ["* No tout: seat 0"] if announcer else []
    assert deal["Tout"] == [*expected, f"* Seat {announcer} announces tout for side {announcer}"]
    assert deal["Result"] == ["* Trumps: clubs after all passed; tricks: side 0 4, side 1 0.", result]
    assert rows(deal["Score sheet"]) == sheet


@pytest.mark.parametrize("players", [4, 6, 8])
@pytest.mark.parametrize("viewer", [0, None])
def test_mid_game_a_reader_sees_only_the_own_hand(players, viewer):
    _, _, events = play(players, {"deals": 4}, seed=players)
    third = [i for i, e in enumerate(events) if e.type == "HandsDealt"][2]
    cards = [i for i, e in enumerate(events) if e.type == "CardPlayed" and i > third]
    cut = cards[2 * players] + 1  # deal 3: two tricks taken, the third led
    lines = GAME.transcript(served(events[:cut], viewer, reveal=False))
    sections, truth = deals(lines), deal_tricks(events[:cut])
    assert len(sections) == 3
    for section, (hands, tricks) in zip(sections, truth):
        shown = rows(section["Hands"])
        for seat, cells in enumerate(shown):
            if seat == viewer:
                assert cells[2] == " ".join(sort_hand(hands["hands"][seat], players))
            else:
                assert cells[2] == f"hidden ({len(hands['hands'][seat])} cards)"
        hands_text = "\n".join(section["Hands"])
        others = {c for seat, hand in enumerate(hands["hands"]) if seat != viewer for c in hand}
        assert not any(f" {card} " in hands_text.replace("|", " ") for card in others)
        # What was played is public: every trick so far, and the one in play.
        done = rows(section["Tricks"])
        assert len(done) >= len(tricks)
    assert rows(sections[-1]["Tricks"])[-1][3] == "(in play)"


def test_redacted_games_never_fail_to_read():
    rng = random.Random(7)
    for game_no in range(24):
        players = (4, 6, 8)[game_no % 3]
        rules = {"deals": 3, "announced_tout": game_no % 2 == 0}
        _, _, events = play(players, rules, seed=100 + game_no)
        for _ in range(4):
            cut = rng.randrange(1, len(events) + 1)
            viewer = rng.choice([None, *range(players)])
            lines = GAME.transcript(served(events[:cut], viewer, reveal=False))
            assert all(isinstance(line, str) for line in lines)
            dealt = sum(1 for e in events[:cut] if e.type == "HandsDealt")
            assert sum(1 for line in lines if line.startswith("## Deal ")) == dealt


def test_unknown_and_malformed_events_become_plain_lines():
    _, _, events = play(4, {"deals": 1}, seed=1)
    served_events = served(events)
    future = {"seq": 0, "type": "SideBetPlaced", "v": 3, "data": {"seat": 1}, "actor": 1, "redacted": False}
    lines = GAME.transcript([*served_events[:-3], future, *served_events[-3:]])
    assert "* Event `SideBetPlaced` (v3): not known to this transcript." in lines
    assert lines[-1].startswith("**Game over**")
    # Every known event with its data stripped, or with data that is not an object at all.
    for event in served_events:
        for data in ({}, None, {k: None for k in event["data"]}):
            lines = GAME.transcript([*served_events, {**event, "data": data}])
            assert all(isinstance(line, str) for line in lines)
    assert GAME.transcript([None, {"type": ["odd"]}])[-1].startswith("* ")
