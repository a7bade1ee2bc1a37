"""/play in headless Chromium: players and quick play.

A person registers in the lobby (the token shown once, in a notice to copy), quick-plays a
Scharfe Schoten pool of three with bots (the e2e server's bots come after 2 s, conftest.py), is
seated, plays the game to the end with the player token (the first moves by keyboard), and finds
the rating and the game in the lobby's profile glance, its link the replay: at a desktop's width
and at 360 px, axe-core finding nothing serious on the new parts. Signing in checks the token
against its handle (a taken handle, a bad one, an unknown player, another player's token are
each said in words); signed in, the lobby's seat is the player's, and a table where the player
sits plays with the player token even when this browser kept no record of the seat; signing out
forgets the token. A wait is cancelled, goes on over a reload, and a wait begun elsewhere
(already_waiting) is resumed or left; a wait seated while away opens its table.
"""
from __future__ import annotations

import json
import random
import re
import secrets
import time
import urllib.error
import urllib.request

import pytest

from .page_checks import AXE, no_script_errors, serious_violations
from .play_page import api, check_the_end, choose, click, create_in_lobby, play_to_the_end, read, wait_for

pytestmark = pytest.mark.e2e

HANDLE_RULE = "3..24 characters of A-Z a-z 0-9 _ -, starting with a letter or digit"

# What the lobby's player and quick-play parts show, read in one script.
READ_LOBBY = """
const text = (sel) => { const e = document.querySelector(sel); return e ? e.textContent : null; };
return {
  signedInAs: text('#signed-in-as'), registerForm: !!document.getElementById('register'),
  notice: text('#token-notice'), newToken: (document.getElementById('new-token') || {}).value || null,
  registerError: text('#register-error'), signInError: text('#sign-in-error'),
  pools: Array.from(document.querySelectorAll('#pools li'), (li) => [li.dataset.pool, li.textContent]),
  playNow: Array.from(document.querySelectorAll('#pools button.play-now'), (b) => b.dataset.pool),
  bots: (document.getElementById('qp-bots') || {}).checked ?? null,
  waiting: text('#qp-waiting'), elapsed: text('#qp-elapsed'), conflict: text('#qp-conflict'),
  ratings: Array.from(document.querySelectorAll('#ratings-table tbody tr'), (r) => [r.dataset.game,
    ...Array.from(r.children, (c) => c.textContent)]),
  recent: Array.from(document.querySelectorAll('#recent-games li'), (li) => [li.dataset.game, li.textContent,
    li.querySelector('a').getAttribute('href')]),
  focusPool: document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.pool || null : null,
  focusId: document.activeElement ? document.activeElement.id : null,
  sideways: document.documentElement.scrollWidth - window.innerWidth,
  words: ['#player', '#quick-play', '#profile'].map((sel) => text(sel) || '').join(' '),
};
"""


def lobby(driver) -> dict:
    state = driver.execute_script(READ_LOBBY)
    assert not re.search(r"\bnull\b|undefined|NaN", state["words"]), state["words"]
    return state


def until(driver, check, timeout=30.0, what="the lobby"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = lobby(driver)
        if check(state):
            return state
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}; the lobby shows {lobby(driver)}")


def kept(driver, key: str):
    return json.loads(driver.execute_script("return localStorage.getItem(arguments[0])", key) or "null")


def new_handle() -> str:
    return f"p{secrets.token_hex(5)}"


@pytest.fixture
def signed_out(browser, server):
    """A lobby nobody is signed in to, left so for the tests after this one (they share the browser)."""
    def forget():
        browser.get(server["url"] + "/play")
        browser.execute_script("localStorage.removeItem('stich.player'); localStorage.removeItem('stich.quickplay')")

    forget()
    browser.get_log("browser")  # start with an empty console
    open_lobby(browser, server)
    yield
    forget()


def open_lobby(driver, server):
    driver.get(server["url"] + "/play#")
    driver.refresh()  # the same address: load the page again, so it reads what the browser keeps
    until(driver, lambda s: len(s["pools"]) == 4 and (s["registerForm"] or s["signedInAs"]), what="the lobby's pools")


def fill(driver, field_id: str, text: str, enter: bool = False):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    field = driver.find_element(By.ID, field_id)
    field.clear()
    field.send_keys(text + (Keys.ENTER if enter else ""))


def register(driver, handle: str, by_keyboard: bool = False):
    """Type the handle and press Register, or Enter in the field (the form's submit)."""
    fill(driver, "register-handle", handle, enter=by_keyboard)
    if not by_keyboard:
        click(driver, "#register-button")


def sign_in(driver, handle: str, token: str, by_keyboard: bool = False):
    fill(driver, "sign-in-handle", handle)
    fill(driver, "sign-in-token", token, enter=by_keyboard)
    if not by_keyboard:
        click(driver, "#sign-in-button")


def no_serious_violations(driver, what: str):
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing (npm ci --prefix tests/e2e)")
    assert serious_violations(driver) == [], what


@pytest.mark.parametrize("width", [None, 360], ids=["desktop", "phone-360"], indirect=True)
def test_register_quick_play_with_bots_play_to_the_end_and_see_the_rating(browser, server, signed_out, width, tmp_path):
    from selenium.webdriver.common.by import By

    handle = new_handle()
    register(browser, handle, by_keyboard=True)
    state = until(browser, lambda s: s["signedInAs"] == handle, what="the registration")
    token = state["newToken"]
    assert re.fullmatch(r"pt_[A-Za-z0-9_-]+", token), state
    assert kept(browser, "stich.player") == {"handle": handle, "token": token}
    assert "Keep this safe" in state["notice"] and browser.execute_script("return document.activeElement.id") == "token-notice"
    no_serious_violations(browser, ("the lobby with the token notice", width))
    click(browser, "#copy-token")
    wait_for(browser, lambda s: browser.find_element(By.ID, "new-token-copied").text in (
        "Copied.", "Selected: copy it with Ctrl+C (⌘C)."), what="the copy")
    assert browser.execute_script("const f = document.getElementById('new-token');"
                                  "return f.value.slice(f.selectionStart, f.selectionEnd)") == token
    click(browser, "#token-kept")
    state = until(browser, lambda s: s["notice"] is None, what="the notice to go")
    assert state["focusId"] == "sign-out" and token not in browser.page_source
    open_lobby(browser, server)  # the notice is shown once: never after a reload
    state = lobby(browser)
    assert state["signedInAs"] == handle and state["notice"] is None and token not in browser.page_source

    # Quick play: the pools with their game, size and waiting players; bots allowed by default.
    pools = {p["pool"]: p for p in api(server, "/v1/pools")["pools"]}
    assert [pool for pool, _ in state["pools"]] == list(pools)
    assert dict(state["pools"])["scharfe-schoten-3"].startswith(
        f"Scharfe Schoten, 3 players · {pools['scharfe-schoten-3']['waiting']} waiting · rated")
    assert state["playNow"] == list(pools) and state["bots"] is True
    if width:
        assert state["sideways"] <= 0, state["sideways"]
    click(browser, 'button.play-now[data-pool="scharfe-schoten-3"]')
    state = until(browser, lambda s: s["waiting"] or "#game/" in browser.current_url, what="the wait")
    assert state["waiting"] == "Waiting for a table: Scharfe Schoten, 3 players.", state
    assert state["focusId"] == "qp-cancel" and re.fullmatch(r"0:0\d", state["elapsed"]), state
    assert kept(browser, "stich.quickplay")["pool"] == "scharfe-schoten-3"
    no_serious_violations(browser, ("the lobby while waiting", width))

    # Seated once the bots come (2 s here): the table, played with the player token.
    state = wait_for(browser, lambda s: "#game/" in browser.current_url and (s["moves"] or s["legalCards"]),
                     timeout=30, what="the quick-play table")
    game_id = browser.current_url.rsplit("/", 1)[1]
    summary = api(server, f"/v1/games/{game_id}")
    assert summary["rated"] is True and summary["seats"][0]["player"] == handle
    assert [s["kind"] for s in summary["seats"]] == ["human", "bot", "bot"]
    assert state["mySeat"].startswith(f"Seat 0 (you, {handle})"), state
    assert kept(browser, f"stich.seat.{game_id}") == {"seat": 0, "token": None, "player": handle}
    assert kept(browser, "stich.quickplay") is None
    assert browser.execute_script("return window.stichFollower.token") == token
    result = play_to_the_end(browser, server, "scharfe-schoten", game_id, tmp_path / "quick-play.png")
    check_the_end(browser, server, game_id, 3, result)
    assert browser.execute_script("return window.stichFollower.connections") >= 1

    # The profile glance: the rating (provisional after one game) and the game, its link the replay.
    click(browser, ".links a", "Lobby")
    deadline = time.monotonic() + 30
    while not lobby(browser)["ratings"]:
        assert time.monotonic() < deadline, f"no rating in the profile glance: {lobby(browser)}"
        time.sleep(0.5)
        click(browser, "#profile-refresh")  # the history records the game a moment after it ends
    state = until(browser, lambda s: s["recent"], what="the recent games")
    rating = api(server, f"/v1/players/{handle}")["ratings"]["scharfe-schoten"]
    assert rating["provisional"] and rating["matches"] == 1
    assert state["ratings"] == [["scharfe-schoten", "Scharfe Schoten",
                                 f"{rating['ordinal']:.1f} provisionalμ {rating['mu']:.1f} ± {rating['sigma']:.1f}", "1"]]
    places = ["", "1st", "2nd", "3rd"]
    place = api(server, f"/v1/games/{game_id}")["scores"]["ranking"][0]
    (shown_id, text, href), = state["recent"]
    assert shown_id == game_id and href == f"#replay/{game_id}"
    assert text.startswith(f"Scharfe Schoten: {places[place]} of 3, ") and " with heuristic bot, heuristic bot · rated · " in text
    no_serious_violations(browser, ("the lobby with the profile glance", width))
    if width:
        assert lobby(browser)["sideways"] <= 0
    click(browser, f'#recent-games li[data-game="{game_id}"] a')
    # The replay opens at the deal's beginning.
    wait_for(browser, lambda s: browser.find_elements(By.ID, "replay-slider") and s["phase"] == "predicting", what="the replay")
    assert browser.current_url.endswith(f"#replay/{game_id}")
    no_script_errors(browser)


def test_sign_in_checks_the_token_and_sign_out_forgets_it(browser, server, signed_out):
    """Each refusal said in words; signed in, a game created in the lobby is played as the player
    (no seat token kept); a table where the player sits finds its seat by the player's name; signed
    out, the same table is watched."""
    handle, other = new_handle(), new_handle()
    mine = api(server, "/v1/players", body={"handle": handle})
    theirs = api(server, "/v1/players", body={"handle": other})
    nobody = new_handle()

    register(browser, handle.upper())
    state = until(browser, lambda s: s["registerError"], what="the taken handle")
    assert state["registerError"] == f"The handle {handle.upper()} is taken: choose another (or sign in, if it is yours)."
    assert browser.find_element("id", "register-handle").get_attribute("aria-invalid") == "true"
    register(browser, "_x")
    until(browser, lambda s: s["registerError"] == HANDLE_RULE, what="the bad handle")
    sign_in(browser, nobody, mine["token"])
    until(browser, lambda s: s["signInError"] == f"No player {nobody} is registered here.", what="the unknown player")
    sign_in(browser, handle, "st_not-a-player-token")
    until(browser, lambda s: s["signInError"] == "A player token starts with pt_ (the token registration showed you).",
          what="the seat token")
    sign_in(browser, handle, theirs["token"])
    state = until(browser, lambda s: s["signInError"] == f"This is not a player token of {handle}'s (or it was revoked).",
                  what="another player's token")
    assert kept(browser, "stich.player") is None and state["registerForm"] and state["playNow"] == []
    no_serious_violations(browser, "the lobby's forms with their errors")

    sign_in(browser, handle.upper(), mine["token"], by_keyboard=True)  # any case: signed in as registered
    state = until(browser, lambda s: s["signedInAs"] == handle, what="the sign-in")
    assert kept(browser, "stich.player") == {"handle": handle, "token": mine["token"]}
    assert state["notice"] is None and mine["token"] not in browser.page_source

    # Signed in, the lobby's seat is the player's: no seat token, and the moves go with the player token.
    game_id = create_in_lobby(browser, server, "scharfe-schoten", 3)
    assert api(server, f"/v1/games/{game_id}")["seats"][0]["player"] == handle
    assert kept(browser, f"stich.seat.{game_id}") == {"seat": 0, "token": None, "player": handle}
    state = read(browser)
    assert state["mySeat"].startswith(f"Seat 0 (you, {handle})")
    before = state["seq"]
    selector, label = choose(state, random.Random(3))
    click(browser, selector, label)
    wait_for(browser, lambda s: s["seq"] != before, what="the move")
    assert api(server, f"/v1/games/{game_id}")["seq"] > int(before.split()[1])

    # Signed out: the token is forgotten, and the same table is watched.
    click(browser, ".links a", "Lobby")
    until(browser, lambda s: s["signedInAs"] == handle, what="the lobby")
    click(browser, "#sign-out")
    state = until(browser, lambda s: s["registerForm"], what="the signed-out lobby")
    assert kept(browser, "stich.player") is None and state["focusId"] == "sign-in-handle"
    browser.get(f"{server['url']}/play#game/{game_id}")
    state = wait_for(browser, lambda s: s["turn"] and s["seq"], what="the table, watched")
    assert state["hand"] == [] and state["mySeat"] is None

    # Signed in again, in a browser that kept no record of the seat: the view's seats name the player.
    browser.execute_script("localStorage.removeItem(arguments[0])", f"stich.seat.{game_id}")
    open_lobby(browser, server)
    sign_in(browser, handle, mine["token"])
    until(browser, lambda s: s["signedInAs"] == handle, what="the sign-in again")
    browser.get(f"{server['url']}/play#game/{game_id}")
    state = wait_for(browser, lambda s: s["hand"], what="the player's own table")
    assert state["mySeat"].startswith(f"Seat 0 (you, {handle})")
    no_script_errors(browser, refusals=[("/v1/players", 409), ("/v1/players", 422), (f"/v1/players/{nobody}", 404),
                                        (f"/v1/players/{handle}/tokens", 403)])


@pytest.fixture
def player(server):
    """A registered player, that waits in no pool once the test is over, whatever became of it: a
    wait left behind would seat the next test's players (or the players walkthrough's) with it."""
    handle = new_handle()
    token = api(server, "/v1/players", body={"handle": handle})["token"]
    yield handle, token
    for pool in api(server, "/v1/pools")["pools"]:
        request = urllib.request.Request(f"{server['url']}/v1/pools/{pool['pool']}/entry", method="DELETE",
                                         headers={"Authorization": f"Bearer {token}"})
        try:
            urllib.request.urlopen(request, timeout=10).close()
        except urllib.error.HTTPError:
            pass  # not waiting there (404), or seated (409)


def test_a_wait_is_cancelled_kept_over_a_reload_and_one_begun_elsewhere_resumed_or_left(browser, server, signed_out,
                                                                                       player):
    """Waits without bots in pools the other tests leave alone (schafkopf, scharwenzel), so that
    nobody else is seated with this player."""
    handle, token = player
    sign_in(browser, handle, token)
    until(browser, lambda s: s["signedInAs"] == handle and s["playNow"], what="the sign-in")
    entry = "/v1/pools/schafkopf/entry"

    # Without bots nobody else comes: the wait lasts until Cancel, over a reload too.
    click(browser, "#qp-bots")
    click(browser, 'button.play-now[data-pool="schafkopf"]')
    until(browser, lambda s: s["waiting"] == "Waiting for a table: Schafkopf, 4 players."
          and s["elapsed"] not in ("0:00", None), what="a second of waiting")
    assert api(server, entry, token)["status"] == "waiting" and api(server, entry, token)["bots"] is False
    browser.refresh()
    state = until(browser, lambda s: s["waiting"] and s["elapsed"] not in ("0:00", "0:01"), what="the wait after a reload")
    assert state["waiting"] == "Waiting for a table: Schafkopf, 4 players."
    no_serious_violations(browser, "the lobby while waiting, after a reload")
    click(browser, "#qp-cancel")
    state = until(browser, lambda s: s["playNow"], what="the pools again")
    assert state["focusPool"] == "schafkopf" and kept(browser, "stich.quickplay") is None
    assert api(server, entry, token)["status"] == "left"

    # Waiting in another pool already (another tab, say): the lobby counts it, and offers to resume...
    api(server, "/v1/pools/scharwenzel/entry", token, body={"bots": False})
    time.sleep(1.5)
    open_lobby(browser, server)
    assert dict(lobby(browser)["pools"])["scharwenzel"].startswith("Scharwenzel, 4 players · 1 waiting")
    click(browser, 'button.play-now[data-pool="schafkopf"]')
    state = until(browser, lambda s: s["conflict"], what="already waiting")
    assert state["conflict"] == "You already wait in another pool: Scharwenzel, 4 players." and state["focusId"] == "qp-resume"
    no_serious_violations(browser, "the lobby's already-waiting choice")
    click(browser, "#qp-resume")
    state = until(browser, lambda s: s["waiting"], what="the resumed wait")
    assert state["waiting"] == "Waiting for a table: Scharwenzel, 4 players."
    assert int(state["elapsed"].split(":")[1]) >= 1, state  # timed from when it began, not from the click
    click(browser, "#qp-cancel")
    until(browser, lambda s: s["playNow"], what="the pools again")
    assert api(server, "/v1/pools/scharwenzel/entry", token)["status"] == "left"

    # ... or to leave it.
    api(server, "/v1/pools/scharwenzel/entry", token, body={"bots": False})
    click(browser, 'button.play-now[data-pool="schafkopf"]')
    until(browser, lambda s: s["conflict"], what="already waiting again")
    click(browser, "#qp-leave")
    until(browser, lambda s: s["playNow"], what="the pools after leaving")
    assert api(server, "/v1/pools/scharwenzel/entry", token)["status"] == "left"

    # Seated while away from the lobby: coming back opens the table.
    api(server, "/v1/pools/scharfe-schoten-3/entry", token, body={"bots": True})
    seated = api(server, "/v1/pools/scharfe-schoten-3/entry?wait=20", token)
    assert seated["status"] == "seated", seated
    browser.execute_script("localStorage.setItem('stich.quickplay', arguments[0])",
                           json.dumps({"pool": "scharfe-schoten-3", "handle": handle, "since": time.time() * 1000 - 5000}))
    browser.get(f"{server['url']}/play#")
    browser.refresh()
    state = wait_for(browser, lambda s: "#game/" in browser.current_url and s["hand"], what="the table seated while away")
    assert browser.current_url.endswith(f"#game/{seated['game_id']}")
    assert state["mySeat"].startswith(f"Seat 0 (you, {handle})")
    no_script_errors(browser, refusals=[("/v1/pools/schafkopf/entry", 409)])
