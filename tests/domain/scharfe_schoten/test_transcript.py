"""The Markdown transcript: every trick, take and score as the events say; read by a seat or a
spectator mid-game, nothing that reader may not see (SS-5, SS-6); and never an exception."""
import random
import re

import pytest

from domain.scharfe_schoten.cards import COLOURS
from domain.scharfe_schoten.scoring import POINTS

from ..harness import by_deal, random_playout, served

from .support import GAME, fill_deal, preset

CARD = re.compile(r"\b[RGYB]\d{1,2}\b")
PLAY = re.compile(r"seat (\d+) (\*\*)?([RGYB]\d{1,2})(\*\*)?")
# (players, rules, presets): both table sizes (with 4 the last two tricks take nothing), more
# and fewer rounds than players, a fixed or drawn starter, and preset deals.
GAMES = [
    (3, {}, None),
    (4, {}, None),
    (3, {"rounds": 1, "first_starter": 2}, None),
    (4, {"rounds": 5, "first_starter": 1}, None),
    (3, {"rounds": 2}, [preset(*fill_deal(3), starter=1)]),
    (4, {"rounds": 2}, [preset(*fill_deal(4)), preset(*fill_deal(4, cupboard=["R1", "G1"]))]),
]


def sections(lines):
    """The lines of each "## Round" section of a transcript."""
    out, inside = [], False
    for line in lines:
        if line.startswith("## "):
            inside = line.startswith("## Round ")
            if inside:
                out.append([])
        if inside:
            out[-1].append(line)
    return out


def table(section, heading):
    """The cells of each row of the Markdown table under ``### heading`` (header and rule skipped)."""
    start = next(i for i, line in enumerate(section) if line.startswith(f"### {heading}"))
    rows = []
    for line in section[start + 1:]:
        if line.startswith("### "):
            break
        if line.startswith("| ") and not line.startswith(("| seat |", "| trick |")):
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def plain(text):
    return text.replace("**", "")


def expected_tricks(group):
    """(leader, [(seat, card)], winner, cupboard card or None) per trick of a round's events."""
    tricks, plays = [], []
    for event in group:
        if event.type == "CardPlayed":
            plays.append((event.data["seat"], event.data["card"]))
        elif event.type == "TrickTaken":
            tricks.append([event.data["leader"], plays, event.data["winner"], None])
            plays = []
        elif event.type == "CupboardCardTaken":
            tricks[-1][3] = event.data["card"]
    return tricks


@pytest.mark.parametrize("players,rules,presets", GAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_the_finished_game_reads_as_it_was_played(players, rules, presets, seed):
    table_, state, events = random_playout(GAME, players, seed, rules=rules, preset_deals=presets)
    lines = GAME.transcript(served(events))
    assert all(isinstance(line, str) for line in lines)
    groups, parts = by_deal(events), sections(lines)
    assert len(parts) == len(groups) == state.inner.rounds
    for number, (group, part) in enumerate(zip(groups, parts), 1):
        dealt = group[0].data
        stocked = next(e.data for e in group if e.type == "CupboardStocked")
        assert part[0] == f"## Round {number}"
        assert part[2] == f"- Seat {dealt['starter']} starts."
        deal = table(part, "Deal")
        assert [plain(row[1]).split() for row in deal[:players]] == dealt["hands"]
        assert plain(deal[players][1]) == " ".join(stocked["cards"]) + " (take order)"

        revealed = next(e.data["predictions"] for e in group if e.type == "PredictionsRevealed")
        assert [row[1] for row in table(part, "Predictions")] == [f"{p['most']} / {p['fewest']}" for p in revealed]

        rows, tricks = table(part, "Tricks"), expected_tricks(group)
        assert len(rows) == len(tricks) == (12 if players == 3 else 10)
        for row, (leader, plays, winner, taken) in zip(rows, tricks):
            assert row[1] == f"seat {leader}"
            assert [(int(seat), card) for seat, _, card, _ in PLAY.findall(row[2])] == plays
            assert row[3] == f"seat {winner}"
            assert row[4] == (taken or "—")
            # Super trumps, and only they, are bold.
            assert {card for _, bold, card, _ in PLAY.findall(row[2]) if bold} == \
                {card for _, card in plays} & set(dealt["super_trumps"])

        scored = next(e.data for e in group if e.type == "RoundScored")
        for seat, row in enumerate(table(part, "Score")):
            result = scored["results"][seat]
            assert row[1] == f"{scored['predictions'][seat]['most']} / {scored['predictions'][seat]['fewest']}"
            assert row[2] == " ".join(f"{c}:{scored['counts'][seat][c]}" for c in COLOURS)
            assert row[3:6] == [f"{result['most']} {POINTS[result['most']]}",
                                f"{result['fewest']} {POINTS[result['fewest']]}", str(result["bonus"])]
            assert row[6:] == [str(scored["points"][seat]), str(scored["totals"][seat])]
    final = table_.summary(state)["scores"]["totals"]
    assert [int(row[7]) for row in table(parts[-1], "Score")] == final
    ranking = table_.summary(state)["scores"]["ranking"]
    assert lines[-2] == "**Game over.** Final totals: " + ", ".join(
        f"seat {seat} {total} (place {place})" for seat, (total, place) in enumerate(zip(final, ranking))) + "."


def leaks(part, group, viewer):
    """The secret card codes that a viewer's section of this round shows (SS-5)."""
    dealt = group[0].data
    played = {e.data["card"] for e in group if e.type == "CardPlayed"}
    cupboard = next((e.data["cards"] for e in group if e.type == "CupboardStocked"), [])
    secret = {card for seat, hand in enumerate(dealt["hands"]) if seat != viewer for card in hand} - played
    secret = (secret | set(cupboard)) - set(dealt["super_trumps"])  # the super trumps' codes are public
    return set(CARD.findall(plain("\n".join(part)))) & secret


@pytest.mark.parametrize("players,rules,presets", [GAMES[0], GAMES[3]])
@pytest.mark.parametrize("viewer", [0, None])
def test_a_reader_mid_game_sees_only_what_it_may(players, rules, presets, viewer):
    _, _, events = random_playout(GAME, players, 7, rules=rules, preset_deals=presets)
    for cut in range(1, len(events)):
        prefix = events[:cut]
        parts, groups = sections(GAME.transcript(served(prefix, viewer, reveal=False))), by_deal(prefix)
        assert len(parts) == len(groups)
        for part, group in zip(parts, groups):
            assert not leaks(part, group, viewer), f"after event {cut}"
            deal = table(part, "Deal")
            for seat, row in enumerate(deal[:players]):
                assert plain(row[1]) == (" ".join(group[0].data["hands"][seat]) if seat == viewer else "hidden")
            assert deal[players][1] == "hidden"
            made = {e.data["seat"]: e.data for e in group if e.type == "PredictionMade"}
            revealed = any(e.type == "PredictionsRevealed" for e in group)
            for seat, row in enumerate(table(part, "Predictions")):
                if seat in made and (revealed or seat == viewer):
                    assert row[1] == f"{made[seat]['most']} / {made[seat]['fewest']}"
                else:
                    assert row[1] == ("hidden" if seat in made else "not made yet")
            for row in table(part, "Tricks"):
                if row[4] not in ("—", "to take"):
                    assert row[4] in {f"{c} (hidden)" for c in COLOURS}, "a taken card's value is no one's"


def test_no_redaction_and_no_damage_makes_it_fail():
    rng = random.Random(11)
    for seed in range(12):
        players, rules, presets = GAMES[seed % len(GAMES)]
        _, _, events = random_playout(GAME, players, 100 + seed, rules=rules, preset_deals=presets)
        cut = rng.randrange(1, len(events) + 1)
        for viewer in [*range(players), None]:
            lines = GAME.transcript(served(events[:cut], viewer, reveal=False))
            assert len(sections(lines)) == len(by_deal(events[:cut]))
        # Damage beyond redaction (a future event's shape, a broken log): keys dropped, values nulled.
        damaged = served(events[:cut])
        for event in damaged:
            for key in list(event["data"]):
                if rng.random() < 0.3:
                    event["data"][key] = rng.choice([None, [], {}, "x", [None], 7])
            if rng.random() < 0.05:
                del event["data"]
            if rng.random() < 0.02:
                event["type"] = rng.choice([None, ["HandsDealt"], "HandsDealt", "TrickTaken"])
        assert all(isinstance(line, str) for line in GAME.transcript(damaged + [None, "junk"]))


def test_table_events_are_left_to_the_frame_and_unknown_events_are_named():
    _, _, events = random_playout(GAME, 3, 5, rules={"rounds": 1})
    served_events = served(events)
    served_events.insert(20, {"seq": 999, "type": "PepperSpilled", "v": 2, "data": {"seat": 1}})
    text = "\n".join(GAME.transcript(served_events))
    assert "Event `PepperSpilled` (seq 999, v 2) is not shown in this transcript." in text
    for table_event in ("GameCreated", "SeatTaken", "GameStarted", "SeedRevealed"):
        assert table_event not in text
    assert len(table(sections(text.splitlines())[0], "Tricks")) == 12
