"""Replays the settled deals of an independent engine (openschafkopf) through our rules.

Each case: preset hands with seat 3 dealing (so seat 0 speaks and leads
first); the case's doublers say "Ich dopple" (Doppeln), the declarer says
"Ich spiele" and names the case's game, everybody else passes (a Ramsch:
everybody passes), the tricks are played as recorded (every card must be
legal here), each Stoß of the case is given at its giver's first chance,
and our payments and the pot's change must equal the case's payouts and
stock payout under the case's tariff. A case with a Stock is preceded by an
all-pass deal whose Stock price fills the pot with exactly the case's
Stock. The reference file's README (beside it) describes its fields.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from domain.schafkopf.game import Schafkopf
from tests.domain.harness import new_table, run_system

REPO = Path(__file__).resolve().parents[3]
CASES_FILE = REPO / ".." / "shared" / "reference" / "openschafkopf-cases.json"


def _load() -> list[dict]:
    if not CASES_FILE.exists():
        return []
    return json.loads(CASES_FILE.read_text())


CASES = _load()

# House rules of openschafkopf that this table does not build; a case needing
# one is skipped with its name.
def missing_option(case: dict) -> str | None:
    if case["game"] == "ramsch" and case["tariff"]["jungfrau"] not in JUNGFRAU:
        return f"Ramsch Jungfrau variant {case['tariff']['jungfrau']!r} is not built"
    return None


# Disagreements that are house-rule differences, with the reason.
KNOWN_DIFFERENCES: dict[str, str] = {
    "test_rulesramsch#8": "Ramsch tie on points (33 each): the rulebook and SK-11 let the one with more "
                          "tricks lose (seat 1, 4 tricks to 2); openschafkopf skips the trick count "
                          "and lets the higher trump decide (seat 0, the Gras Ober)",
}

JUNGFRAU = {None: "off", "double_individually_once": "double_individually",
            "double_individually_multiple": "double_individually_multiple", "double_all": "double_all"}


def game_name(case: dict) -> str:
    return case["game"] + "_tout" if case["payout_kind"] == "tout" else case["game"]


def durchmarsch(tariff: dict) -> str:
    if tariff["durchmarsch"] == "at_least":
        assert tariff["durchmarsch_points"] == 120
        return "all_points"
    return "all_tricks" if tariff["durchmarsch"] == "all" else "off"


def rules_for(case: dict) -> dict:
    game, tariff = case["game"], case["tariff"]
    rules = {"deals": 1, "deck": case["deck"], "doppeln": "all" if case["doublings"] else "off",
             "stoss": case["stoss_max"] or 0}
    if game == "ramsch":
        return dict(rules, all_pass="ramsch", allowed_games=["rufspiel"],
                    tariffs={"ramsch": {"base": tariff["price"]}},
                    ramsch_durchmarsch=durchmarsch(tariff), ramsch_jungfrau=JUNGFRAU[tariff["jungfrau"]])
    if game == "bettel":
        tariffs = {"bettel": {"base": tariff["base"]}}
        rules["bettel_stichzwang"] = tariff["stichzwang"]
    else:
        assert tariff.get("points_to_win", 61) == 61
        tariffs = {game: {"base": tariff["base"], "schneider": tariff["schneider_schwarz"],
                          "schwarz": tariff["schneider_schwarz"], "laufende": tariff["laufende_unit"],
                          "laufende_min": tariff["laufende_min"]}}
    if case["stock"]:
        # An all-pass deal first fills the pot with the case's Stock.
        assert case["stock"] % 4 == 0
        tariffs["stock"] = case["stock"] // 4
        rules.update(deals=2, all_pass="stock")
    return dict(rules, allowed_games=[game_name(case)], tariffs=tariffs)


def replay(case: dict, jungfrau: str | None = None) -> dict:
    """Play the case through a table (``jungfrau``: our Ramsch Jungfrau option instead of the
    case's); return the DealSettled data."""
    game = Schafkopf()
    rules = rules_for(case)
    if jungfrau is not None:
        rules["ramsch_jungfrau"] = jungfrau
    preset = [{"hands": case["hands"], "dealer": 3}]
    if rules.get("all_pass") == "stock":
        preset = preset * 2
    table, state, events = new_table(game, 4, rules, preset_deals=preset)

    def act(seat: int, command: dict):
        nonlocal state, events
        assert command in table.legal_commands(state, seat), (seat, command)
        new = table.decide(state, seat, command)
        events = events + new
        state = table.fold(state, new)
        events, state = run_system(table, state, events, "00" * 32)

    def speak(declarer):
        if rules["doppeln"] != "off":
            for seat in range(4):
                act(seat, {"type": "doppeln", "double": seat in case["doublings"]})
        for seat in range(4):
            act(seat, {"type": "announce", "intent": "play" if seat == declarer else "pass"})

    if rules.get("all_pass") == "stock":
        speak(None)
        assert state.inner.stock == case["stock"]
    speak(case["declarer"])
    if case["declarer"] is not None:
        named = {"type": "name_game", "game": game_name(case)}
        if case["suit"] is not None:
            named["suit"] = case["suit"]
        act(case["declarer"], named)
    stoss = list(case["stoss"])
    for trick in case["tricks"]:
        for offset, card in enumerate(trick["cards"]):
            seat = (trick["leader"] + offset) % 4
            if stoss and stoss[0] == seat and {"type": "stoss"} in table.legal_commands(state, seat):
                act(seat, {"type": "stoss"})  # each Stoß at its giver's first chance
                stoss.pop(0)
            act(seat, {"type": "play", "card": card})
    assert not stoss, f"Stöße never allowed: {stoss}"
    settled = [e for e in events if e.type == "DealSettled"]
    assert len(settled) == 1
    return settled[0].data


@pytest.mark.skipif(not CASES, reason=f"reference cases not found at {CASES_FILE}")
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_openschafkopf_case(case):
    missing = missing_option(case)
    if missing:
        pytest.skip(f"needs house rule: {missing}")
    if case["id"] in KNOWN_DIFFERENCES:
        pytest.skip(f"house-rule difference: {KNOWN_DIFFERENCES[case['id']]}")
    settled = replay(case)
    assert settled["payments"] == case["payouts"], settled
    assert settled["stock"] == case["stock_payout"], settled


def test_ramsch_tie_is_broken_by_tricks_as_the_seed_says():
    case = next((c for c in CASES if c["id"] == "test_rulesramsch#8"), None)
    if case is None:
        pytest.skip("reference case not found")
    settled = replay(case)
    assert settled["seat_points"] == [33, 33, 27, 27]
    assert settled["declarers"] == [1] and settled["tricks"] == {"declarers": 4, "defenders": 4}
    assert settled["payments"] == [10, -30, 10, 10]


# openschafkopf's "0 has 120, but no durchmarsch" (tests.rs, test_rulesramsch; its
# double_individually_once form is test_rulesramsch#6 in the reference file): price 10,
# 40 in the Stock, seat 0 takes all 120 in seven tricks, seat 1 the pointless last
# trick, seats 2 and 3 are Jungfrauen. Held here so that it runs without the file.
TWO_JUNGFRAUEN_CASE = {
    "id": "0 has 120, but no durchmarsch", "game": "ramsch", "declarer": None, "suit": None,
    "payout_kind": "ramsch", "stoss_max": None, "deck": "long", "doublings": [], "stoss": [], "stock": 40,
    "tariff": {"price": 10, "durchmarsch": "all", "durchmarsch_points": None, "jungfrau": "double_all"},
    "hands": [["EO", "EU", "HA", "EA", "GA", "SA", "E8", "H7"], ["GO", "GU", "H10", "E10", "G10", "S10", "E7", "H8"],
              ["HO", "HU", "HK", "EK", "GK", "SK", "G8", "S8"], ["SO", "SU", "H9", "E9", "G9", "S9", "G7", "S7"]],
    "tricks": [{"leader": 0, "cards": cards} for cards in (
        ["EO", "GO", "HO", "SO"], ["EU", "GU", "HU", "SU"], ["HA", "H10", "HK", "H9"], ["EA", "E10", "EK", "E9"],
        ["GA", "G10", "GK", "G9"], ["SA", "S10", "SK", "S9"], ["E8", "E7", "G8", "G7"], ["H7", "H8", "S8", "S7"])],
}


@pytest.mark.parametrize("jungfrau,payouts", [
    ("double_all", [-120, 40, 40, 40]),  # openschafkopf's DoubleAll: doubled once per Jungfrau, x4
    ("double_individually_once", [-50, 10, 20, 20]),  # test_rulesramsch#6
    ("double_individually_multiple", [-90, 10, 40, 40]),
    (None, [-30, 10, 10, 10]),  # test_rulesramsch#4
])
def test_two_jungfrauen_settle_as_openschafkopf(jungfrau, payouts):
    case = dict(TWO_JUNGFRAUEN_CASE, tariff=dict(TWO_JUNGFRAUEN_CASE["tariff"], jungfrau=jungfrau))
    settled = replay(case)
    assert settled["jungfrauen"] == [2, 3] and settled["durchmarsch"] is False
    assert settled["payments"] == payouts and settled["stock"] == 0


def test_two_jungfrauen_double_all_once_doubles_the_loss_once():
    """Our house rule, no openschafkopf variant: the single doubling ``double_all`` had before."""
    settled = replay(TWO_JUNGFRAUEN_CASE, jungfrau="double_all_once")
    assert settled["payments"] == [-60, 20, 20, 20] and settled["stock"] == 0


def test_reference_file_present_or_skipped():
    if not CASES:
        pytest.skip(f"reference cases not found at {CASES_FILE}")
    assert len(CASES) == 103
