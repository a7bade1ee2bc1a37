"""/play in headless Chromium: the keyboard, what the page says, and axe-core.

The focus never rests on a risky call and a Tout asks for a second Enter; when every call is
risky the focus rests on the calls' section; a missing option says why; and axe-core
(tests/e2e/package.json, `npm ci --prefix tests/e2e`) finds nothing serious or critical on the
lobby, a table and a replay at 1280, 420 and 360 px, with no sideways scroll at the phone widths.
"""
from __future__ import annotations

import time

import pytest

from .page_checks import AXE, no_script_errors, serious_violations
from .play_page import ApiTable, api, by_keyboard, press, read, sit_in_browser, wait_for
from tests.prerequisites import skip_unless_required

pytestmark = pytest.mark.e2e


def test_the_focus_never_rests_on_a_risky_call_and_a_tout_asks_twice(browser, server):
    """Schafkopf: the default focus is Weiter, not a call; when naming, a Tout or a Solo is only
    called by a second Enter (Escape takes the first back), and nothing is sent before it."""
    from selenium.webdriver.common.keys import Keys

    browser.get_log("browser")
    table = ApiTable(server, {"deals": 1})
    me = table.view()["to_act"][0]
    sit_in_browser(browser, server, table.id, me, table.tokens[me])
    state = wait_for(browser, lambda s: s["moves"] and s["activeIsMove"], what="the announcement")
    assert state["active"] == "Weiter (pass)" and not state["activeIsRisky"], state
    by_keyboard(browser, "Ich spiele (play)")
    deadline = time.monotonic() + 10
    while not any(a["seat"] == me for a in table.view()["game_state"]["announcements"]):  # the browser's move landed
        assert time.monotonic() < deadline, "the announcement made by keyboard never arrived"
        time.sleep(0.05)
    for _ in range(3):
        seat = table.view()["to_act"][0]
        table.send(seat, {"type": "announce", "intent": "pass"})
    state = wait_for(browser, lambda s: s["phase"] == "naming" and any(m.startswith("Play ") for m in s["moves"]),
                     what="the naming")
    wait_for(browser, lambda s: s["active"] is not None and s["activeIsMove"]
             or browser.execute_script("return document.activeElement.id") == "moves", what="the focus")
    state = read(browser)
    assert not state["activeIsRisky"], f"the default focus is a risky call: {state}"
    risky = browser.execute_script("return Array.from(document.querySelectorAll('#moves button.risky'), (e) => e.dataset.words)")
    assert "Play Eichel-Solo Tout" in risky and "Play Eichel-Solo" in risky, risky
    assert not any(m.startswith("Play Rufspiel") for m in risky)
    seq = state["seq"]
    while read(browser)["active"] != "Play Eichel-Solo Tout":
        press(browser, Keys.TAB)
        assert read(browser)["activeIsMove"], read(browser)
    press(browser, Keys.ENTER)
    state = wait_for(browser, lambda s: s["armed"] == "Confirm: Play Eichel-Solo Tout?", what="the confirmation")
    assert "risky call: press it again" in browser.find_element("id", "risky-help").text
    press(browser, Keys.ESCAPE)
    state = wait_for(browser, lambda s: s["armed"] is None, what="Escape to take it back")
    press(browser, Keys.ENTER)
    wait_for(browser, lambda s: s["armed"] == "Confirm: Play Eichel-Solo Tout?", what="the confirmation again")
    assert read(browser)["seq"] == seq and table.view()["seq"] == int(seq.split()[1]), "sent before the confirmation"
    press(browser, Keys.ENTER)
    wait_for(browser, lambda s: s["phase"] == "play", what="the Solo Tout")
    assert table.view()["game_state"]["declared"]["game"] == "solo_tout"
    # Read in one script: the table may be drawn anew between finding the badge and reading it.
    badge = browser.execute_script("return document.getElementById('glance').textContent")
    assert badge.startswith(f"Seat {me}: Eichel-Solo Tout · multiplier ×1"), badge
    no_script_errors(browser)


def test_when_every_call_is_risky_the_focus_rests_on_the_calls_section(browser, server):
    """Schafkopf: seat 0 said "Ich spiele" holding the Eichel-Sau and no Gras or Schellen, so no
    Rufspiel and no Weiter: only Solos and Touts. Enter then calls nothing; Tab reaches them."""
    from selenium.webdriver.common.keys import Keys

    browser.get_log("browser")
    mine = ["EA", "E10", "EO", "E8", "HK", "HO", "HU", "H7"]
    rest = [f"{suit}{rank}" for suit in "EGHS" for rank in ("A", "10", "K", "O", "U", "9", "8", "7")
            if f"{suit}{rank}" not in mine]
    hands = [mine, rest[0:8], rest[8:16], rest[16:24]]
    game_id = api(server, "/v1/games", body={"game": "schafkopf", "players": 4, "rules": {"deals": 1},
                                             "seats": [{"kind": "human"}] * 4,
                                             "preset_deals": [{"hands": hands, "dealer": 3}]})["id"]
    tokens = [api(server, f"/v1/games/{game_id}/seats/{seat}", body={})["token"] for seat in range(4)]
    for seat, intent in ((0, "play"), (1, "pass"), (2, "pass"), (3, "pass")):
        api(server, f"/v1/games/{game_id}/commands", tokens[seat], body={"type": "announce", "intent": intent})
    sit_in_browser(browser, server, game_id, 0, tokens[0])
    state = wait_for(browser, lambda s: s["phase"] == "naming" and s["moves"], what="the naming")
    assert all(m.startswith("Play ") and "Rufspiel" not in m for m in state["moves"]), state["moves"]
    wait_for(browser, lambda s: browser.execute_script("return document.activeElement.id") == "moves", what="the focus")
    press(browser, Keys.ENTER)
    time.sleep(0.3)
    assert api(server, f"/v1/games/{game_id}/view", tokens[0])["game_state"]["phase"] == "naming", "Enter called a Solo"
    assert read(browser)["armed"] is None
    press(browser, Keys.TAB)
    state = read(browser)
    assert state["activeIsRisky"] and state["active"] == state["moves"][0], state
    why = browser.execute_script("return Array.from(document.querySelectorAll('#moves .why'), (e) => e.textContent)")
    assert why == ["No Rufspiel: you hold no Eichel, Gras or Schellen card (other than Obers and Unters) without its Sau to call."]
    no_script_errors(browser)


def scharwenzel_hands_without_a_suit_of_three() -> list[list[str]]:
    """Seat 0 (forehand) holds QC QS JC JS and two hearts and two diamonds: no suit to bid on."""
    mine = ["QC", "QS", "JC", "JS", "7H", "8H", "7D", "8D"]
    rest = [f"{rank}{suit}" for suit in "CSHD" for rank in ("A", "K", "Q", "J", "10", "9", "8", "7")
            if f"{rank}{suit}" not in mine]
    return [mine, rest[0:8], rest[8:16], rest[16:24]]


def test_an_option_that_is_missing_says_why(browser, server):
    browser.get_log("browser")
    bot = {"kind": "bot", "bot": "heuristic"}
    game_id = api(server, "/v1/games", body={"game": "scharwenzel", "players": 4, "rules": {"deals": 1},
                                             "seats": [{"kind": "human"}, bot, bot, bot],
                                             "preset_deals": [{"hands": scharwenzel_hands_without_a_suit_of_three()}]})["id"]
    token = api(server, f"/v1/games/{game_id}/seats/0", body={})["token"]
    sit_in_browser(browser, server, game_id, 0, token)
    state = wait_for(browser, lambda s: s["moves"] == ["Pass"] and s["active"] == "Pass", what="the bidding")
    why = browser.execute_script("return Array.from(document.querySelectorAll('#moves .why'), (e) => e.textContent)")
    assert why == ["You can only pass: no suit of three or more cards (QC, QS and the Jacks do not count)."]
    assert state["phase"] == "bidding"
    by_keyboard(browser, "Pass")
    wait_for(browser, lambda s: s["phase"] != "bidding", what="the pass")
    bids = api(server, f"/v1/games/{game_id}/view", token)["game_state"]["bidding"]
    assert bids[0]["seat"] == 0 and bids[0]["passed"] is True, bids
    # The tout round comes to seat 0 (forehand) first: the default is No tout, never the announcement.
    state = wait_for(browser, lambda s: s["phase"] != "tout" or s["moves"], what="the tout round")
    if state["phase"] == "tout":
        assert state["active"] == "No tout" and state["moves"] == ["No tout", "Announce tout"], state
    no_script_errors(browser)


def test_axe_finds_nothing_serious_and_the_phone_never_scrolls_sideways(browser, server):
    """axe-core (tests/e2e/package.json; `npm ci --prefix tests/e2e`) on the lobby, a table in
    play, and a replay, at a desktop's width and at 420 and 360 px; no serious or critical
    violation, and no sideways scroll at the phone widths."""
    if not AXE.exists():
        skip_unless_required("STICH_REQUIRE_BROWSER", f"axe-core is not installed: {AXE} missing", "npm ci --prefix tests/e2e")
    browser.get_log("browser")
    bot = {"kind": "bot", "bot": "heuristic"}
    game_id = api(server, "/v1/games", body={"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 1},
                                             "seats": [{"kind": "human"}, bot, bot]})["id"]
    token = api(server, f"/v1/games/{game_id}/seats/0", body={})["token"]
    finished = api(server, "/v1/games", body={"game": "scharwenzel", "players": 4, "rules": {"deals": 1},
                                              "seats": [bot] * 4})["id"]
    pages = [("the lobby", "/play", lambda: browser.find_elements("id", "create-game")),
             ("a table", f"/play#game/{game_id}", lambda: read(browser)["moves"] or read(browser)["legalCards"])]
    widths = [None, 420, 360]
    for px in widths:
        if px:
            browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": px, "height": 780, "deviceScaleFactor": 1, "mobile": True})
        try:
            sit_in_browser(browser, server, game_id, 0, token)
            for what, path, ready in pages:
                browser.get(server["url"] + path)
                wait_for(browser, lambda s, ready=ready: ready(), what=what)
                assert serious_violations(browser) == [], (what, px)
                if px:
                    assert read(browser)["sideways"] <= 0, (what, px, read(browser)["sideways"])
            deadline = time.monotonic() + 30
            while api(server, f"/v1/games/{finished}")["status"] != "finished":
                assert time.monotonic() < deadline, "the bots' game did not finish"
                time.sleep(0.2)
            browser.get(f"{server['url']}/play#replay/{finished}")
            wait_for(browser, lambda s: s["phase"], what="the replay")  # at the first deal's beginning
            assert serious_violations(browser) == [], ("the replay", px)
            if px:
                assert read(browser)["sideways"] <= 0, ("the replay", px)
        finally:
            if px:
                browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    no_script_errors(browser)
