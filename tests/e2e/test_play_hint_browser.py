"""/play in headless Chromium: the Hint button of a game created with hints.

A Schafkopf game created in the lobby with "Hints" ticked (the other seats people, moved through
the API by the test, so the game waits for each decision): at the seat's turn a Hint button asks
GET /v1/games/{id}/seats/{seat}/hint, and the page marks the suggested command (a call among the
moves, then a card of the hand), names it in words that describe the marked button and says it
in a live region; the mark is the API's hint for that seat at that seq and one of its legal
commands, and it goes once the view moves on. axe-core finds nothing serious with a card marked.
A game without hints shows no Hint button.
"""
from __future__ import annotations

import json
import secrets
import time

import pytest

from .page_checks import AXE, no_script_errors, serious_violations
from .play_page import ApiTable, api, click, read, sit_in_browser, token_of, wait_for

pytestmark = pytest.mark.e2e


READ_HINT = """
const text = (sel) => { const e = document.querySelector(sel); return e ? e.textContent : null; };
const marked = Array.from(document.querySelectorAll('#table-area .hinted'), (e) => ({
  card: e.dataset.card || null, command: e.dataset.command || null, words: e.dataset.words || null,
  inHand: !!e.closest('#hand'), inMoves: !!e.closest('#moves'), describedBy: e.getAttribute('aria-describedby'),
  disabled: e.disabled}));
const button = document.getElementById('hint-ask');
return {button: button ? button.textContent : null, busy: button ? button.getAttribute('aria-disabled') : null,
  text: text('#hint-text'), said: text('#hint-status'), marked, seq: text('#seq')};
"""


def hint_shown(driver) -> dict:
    return driver.execute_script(READ_HINT)


def send(server, game_id: str, token: str, command: dict) -> int:
    view = api(server, f"/v1/games/{game_id}/view", token)
    assert command in view["legal"], (command, view["legal"])
    return api(server, f"/v1/games/{game_id}/commands", token, body=command,
               headers={"If-Match": f'"{view["seq"]}"', "Idempotency-Key": secrets.token_hex(16)})["seq"]


def create_with_hints(driver, server) -> str:
    """The lobby's form: Schafkopf, one deal, no Stoß (advanced JSON), every seat a person, Hints ticked."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver.get(server["url"] + "/play")
    wait_for(driver, lambda s: driver.find_elements(By.ID, "create-game"), what="the lobby")
    Select(driver.find_element(By.ID, "new-game")).select_by_value("schafkopf")
    Select(driver.find_element(By.ID, "new-rules")).select_by_index(0)  # Short: 1 deal
    for seat in driver.find_elements(By.CSS_SELECTOR, "#new-seats select"):
        Select(seat).select_by_value("human")
    driver.find_element(By.CSS_SELECTOR, "#advanced summary").click()
    driver.find_element(By.ID, "new-custom").send_keys('{"stoss": 0}')
    box = driver.find_element(By.ID, "new-hints")
    assert not box.is_selected()  # hints are asked for, never on by default
    assert driver.find_element(By.CSS_SELECTOR, "label[for=new-hints]").text.strip() == "Hints"
    box.click()
    driver.find_element(By.ID, "create-game").click()
    wait_for(driver, lambda s: "#game/" in driver.current_url and s["mySeat"], what="the table")
    return driver.current_url.rsplit("/", 1)[1]


def ask_for_a_hint(driver, server, game_id: str, token: str) -> tuple[dict, dict, dict]:
    """Press Hint at seat 0's turn; (what the page marks, the API's hint, the seat's view)."""
    view = api(server, f"/v1/games/{game_id}/view", token)
    assert 0 in view["to_act"] and view["legal"], view
    wait_for(driver, lambda s: s["seq"] == f"event {view['seq']}" and hint_shown(driver)["button"] == "Hint",
             what="the Hint button at the seat's turn")
    assert hint_shown(driver)["marked"] == [], "a mark before anyone asked"
    click(driver, "#hint-ask")
    shown = wait_for(driver, lambda s: hint_shown(driver)["marked"] or (hint_shown(driver)["text"] or "").startswith("No hint"),
                     timeout=40, what="the hint")
    shown = hint_shown(driver)
    assert len(shown["marked"]) == 1, shown
    # The page's hint is the API's for this seat at this seq (asked again: the kept answer, no new search).
    hint = api(server, f"/v1/games/{game_id}/seats/0/hint", token)
    assert hint["seq"] == view["seq"] and hint["status"] == "done", hint
    assert hint["command"] in view["legal"], (hint, view["legal"])
    return shown, hint, view


def test_the_hint_button_marks_the_searchs_move_and_the_mark_goes_when_the_view_moves_on(browser, server):
    browser.get_log("browser")
    game_id = create_with_hints(browser, server)
    summary = api(server, f"/v1/games/{game_id}")
    assert summary["hints"] is True and summary["rules"]["stoss"] == 0 and summary["rules"]["deals"] == 1, summary
    tokens = [token_of(browser, game_id)] + [api(server, f"/v1/games/{game_id}/seats/{s}", body={})["token"] for s in (1, 2, 3)]
    wait_for(browser, lambda s: s["phase"] == "announce", what="the announcements")
    assert api(server, f"/v1/games/{game_id}/view", tokens[0])["hints"] is True

    # The announcements: the first other seat to speak plays (so the deal is played), the rest pass,
    # until seat 0's turn, where the hint marks one of the calls.
    someone_plays = False
    while True:
        seat = api(server, f"/v1/games/{game_id}")["to_act"][0]
        if seat == 0:
            break
        send(server, game_id, tokens[seat], {"type": "announce", "intent": "pass" if someone_plays else "play"})
        someone_plays = True
    shown, hint, view = ask_for_a_hint(browser, server, game_id, tokens[0])
    mark = shown["marked"][0]
    assert mark["inMoves"] and json.loads(mark["command"]) == hint["command"], (mark, hint)
    assert shown["text"] == f"Hint: {mark['words']}" and shown["said"] == shown["text"], shown
    assert "hint-text" in mark["describedBy"].split(), mark
    click(browser, "#moves button.hinted")  # take the hint
    state = wait_for(browser, lambda s: s["seq"] != f"event {view['seq']}", what="the call to be answered")
    assert not hint_shown(browser)["marked"], "the mark outlived its seq"

    # Until seat 0's first card: the others say "Ich spiele" while nobody has (seat 0 may have been
    # first and passed), name a game (a Wenz if they may) or pass, and play.
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline, f"seat 0 never had a card to play: {read(browser)}"
        summary = api(server, f"/v1/games/{game_id}")
        assert summary["status"] != "finished", "the deal ended before seat 0 played a card"
        seat = summary["to_act"][0]
        view = api(server, f"/v1/games/{game_id}/view", tokens[seat])
        legal = view["legal"]
        if seat == 0 and any(c["type"] == "play" for c in legal):
            break
        playing = any(a["intent"] == "play" for a in view["game_state"].get("announcements") or [])
        command = next((c for c in legal if c == {"type": "announce", "intent": "play"} and not playing), None) or next(
            (c for c in legal if c.get("game") == "wenz"), None) or next((c for c in legal if c["type"] == "play"), legal[0])
        send(server, game_id, tokens[seat], command)
    shown, hint, view = ask_for_a_hint(browser, server, game_id, tokens[0])
    mark = shown["marked"][0]
    assert mark["inHand"] and not mark["disabled"] and hint["command"] == {"type": "play", "card": mark["card"]}, (mark, hint)
    assert mark["card"] in read(browser)["legalCards"]
    label = browser.execute_script("return document.querySelector('#hand button.hinted').getAttribute('aria-label')")
    assert shown["text"] == f"Hint: {label}" and shown["said"] == shown["text"], (shown, label)  # "Hint: Play Eichel Sau"
    assert mark["describedBy"] == "hint-text"
    if AXE.exists():
        assert serious_violations(browser) == [], "the table with a hinted card"
    # The view moves on (seat 0 plays another card, if it has one): the mark goes, and no stale words stay.
    other = next((c for c in view["legal"] if c != hint["command"]), hint["command"])
    send(server, game_id, tokens[0], other)
    wait_for(browser, lambda s: s["seq"] != f"event {view['seq']}", what="the view to move on")
    after = wait_for(browser, lambda s: not hint_shown(browser)["marked"], what="the mark to go")
    assert hint_shown(browser)["text"] in (None, ""), hint_shown(browser)
    assert after["hand"] and other["card"] not in after["hand"]
    no_script_errors(browser)


def test_a_game_without_hints_shows_no_hint_button(browser, server):
    browser.get_log("browser")
    table = ApiTable(server, {"deals": 1})
    me = table.view()["to_act"][0]
    sit_in_browser(browser, server, table.id, me, table.tokens[me])
    state = wait_for(browser, lambda s: s["moves"], what="the seat's announcement")
    assert state["turn"] == "Your turn"
    assert "hints" not in api(server, f"/v1/games/{table.id}")
    shown = hint_shown(browser)
    assert shown["button"] is None and shown["text"] is None and shown["marked"] == [], shown
    no_script_errors(browser)
