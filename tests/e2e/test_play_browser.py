"""The browser client at /play, in headless Chromium against a real `stich serve`.

Each test creates a game in the lobby with the shortest rules, plays the person's seat to the
end by clicking the highlighted legal moves (the first by keyboard), and checks what a person
sees: the hand, the trick, the phase, whose turn it is, the final score sheet; then the replay
slider steps through the finished game. Needs Debian's `chromium` and `chromium-driver`;
without them the tests skip, unless STICH_REQUIRE_BROWSER=1 (CI) makes that a failure.
Screenshots of each table go to the test's temporary folder, and to docs/screenshots/ when
STICH_UPDATE_SCREENSHOTS=1.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def _missing() -> str | None:
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not os.access(path, os.X_OK)]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the selenium package")
    return ", ".join(missing) or None


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    missing = _missing()
    if missing:
        if os.environ.get("STICH_REQUIRE_BROWSER") == "1":
            pytest.fail(f"STICH_REQUIRE_BROWSER=1 but {missing} is missing (apt-get install chromium chromium-driver)")
        pytest.skip(f"no browser for the /play tests: {missing} missing (apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    # Without the background-networking switches Chromium waits on services a closed network never answers.
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
                 "--no-first-run", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--window-size=1280,1100",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


# Everything a person sees that the tests check, read in one script so a re-render between
# two reads cannot mix two views.
READ_PAGE = """
const text = (sel) => { const e = document.querySelector(sel); return e ? e.textContent : null; };
const cards = (sel) => Array.from(document.querySelectorAll(sel), (e) => e.dataset.card);
return {
  phase: (document.querySelector('#phase') || {dataset: {}}).dataset.phase || null,
  turn: text('#turn'), seq: text('#seq'), final: text('#final'), connection: text('#connection'),
  hand: cards('#hand .card'), legalCards: cards('#hand button.card.legal'),
  disabledCards: cards('#hand button.card:disabled'),
  moves: Array.from(document.querySelectorAll('#moves button.legal'), (e) => e.textContent),
  trick: cards('#trick .card'), mySeat: text('.seat.me'),
  log: Array.from(document.querySelectorAll('#log li'), (e) => e.textContent),
  active: document.activeElement ? (document.activeElement.dataset.card || document.activeElement.textContent) : null,
  activeIsMove: !!(document.activeElement && document.activeElement.matches('#moves button, #hand button.legal')),
};
"""


def read(driver) -> dict:
    return driver.execute_script(READ_PAGE)


def wait_for(driver, check, timeout=30.0, what="the page"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = read(driver)
        if check(state):
            return state
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}; the page shows {read(driver)}")


def api(server, path):
    with urllib.request.urlopen(server["url"] + path, timeout=10) as response:
        return json.load(response)


def click(driver, selector: str, text: str | None = None) -> str:
    """Click the first element matching ``selector`` (and ``text``); what a person reads on it."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By

    for _ in range(20):
        try:
            for element in driver.find_elements(By.CSS_SELECTOR, selector):
                label = element.get_attribute("data-card") or element.text
                if text is None or label == text:
                    element.click()
                    return label
        except StaleElementReferenceException:
            pass  # the table was drawn again: find it anew
        time.sleep(0.05)
    raise AssertionError(f"nothing to click at {selector} {text or ''}")


def create_in_lobby(driver, server, game: str, players: int) -> str:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver.get(server["url"] + "/play")
    wait_for(driver, lambda s: driver.find_elements(By.ID, "create-game"), what="the lobby")
    Select(driver.find_element(By.ID, "new-game")).select_by_value(game)
    Select(driver.find_element(By.ID, "new-players")).select_by_value(str(players))
    Select(driver.find_element(By.ID, "new-rules")).select_by_index(0)  # the shortest game
    seats = driver.find_elements(By.CSS_SELECTOR, "#new-seats select")
    assert len(seats) == players
    assert [s.get_attribute("value") for s in seats] == ["human"] + ["bot"] * (players - 1)
    driver.find_element(By.ID, "create-game").click()
    state = wait_for(driver, lambda s: s["phase"] not in (None, "waiting"), what="the table")
    assert "#game/" in driver.current_url
    assert state["mySeat"].startswith("Seat 0 (you)")
    return driver.current_url.rsplit("/", 1)[1]


def choose(state: dict, rng: random.Random) -> tuple[str, str]:
    """The move a simple player makes: says it plays in Schafkopf (so a deal is played, not
    thrown in), else a legal card if there is one, else any legal move."""
    for move in state["moves"]:
        if move.startswith("Ich spiele ("):
            return "#moves button.legal", move
    if state["legalCards"]:
        return "#hand button.card.legal", rng.choice(state["legalCards"])
    return "#moves button.legal", rng.choice(state["moves"])


def play_to_the_end(driver, game: str, game_id: str, shot: Path) -> dict:
    """Play seat 0 by clicking until the game is over; check each view a person acts on."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    rng = random.Random(7)
    moves = cards_played = 0
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        state = wait_for(driver, lambda s: s["final"] or s["moves"] or s["legalCards"], what="a move or the end")
        if state["final"]:
            return {"state": state, "moves": moves, "cards": cards_played}
        assert state["turn"].startswith("Your turn"), state
        # Only the legal cards are highlighted and enabled; the rest of the hand is shown, disabled.
        assert set(state["legalCards"]) <= set(state["hand"])
        assert set(state["legalCards"]) | set(state["disabledCards"]) == set(state["hand"])
        assert f"{len(state['hand'])} card" in state["mySeat"]
        if state["legalCards"] and len(state["trick"]) >= 2 and not shot.exists():
            driver.save_screenshot(str(shot))
        before = state["seq"]
        if moves == 0:
            # The first move by keyboard: the page puts the focus on the first legal move.
            assert state["activeIsMove"], state
            label = state["active"]
            ActionChains(driver).send_keys(Keys.ENTER).perform()
        else:
            selector, label = choose(state, rng)
            click(driver, selector, label)
        moves += 1
        if label in state["legalCards"]:
            cards_played += 1
            wait_for(driver, lambda s: label not in s["hand"], what=f"{label} to leave the hand")
        wait_for(driver, lambda s: s["seq"] != before or s["final"], what="the move to be answered")
    raise AssertionError(f"{game} {game_id} did not finish in time: {read(driver)}")


def check_the_end(driver, server, game_id: str, players: int, result: dict) -> None:
    from selenium.webdriver.common.by import By

    state = result["state"]
    assert result["moves"] > 0 and result["cards"] > 0
    assert state["phase"] == "finished" and state["turn"] == "The game is over"
    assert state["final"].startswith("Game over: you finished")
    summary = api(server, f"/v1/games/{game_id}")
    assert summary["status"] == "finished"
    sheet = driver.find_element(By.ID, "score-sheet")
    rows = {row.find_element(By.TAG_NAME, "th").text: [c.text for c in row.find_elements(By.TAG_NAME, "td")]
            for row in sheet.find_elements(By.CSS_SELECTOR, "tbody tr")}
    assert rows["Total"] == [str(t) for t in summary["scores"]["totals"]]
    places = ["", "1st", "2nd", "3rd", "4th"]
    assert rows["Place"] == [places[p] for p in summary["scores"]["ranking"]]
    me = summary["scores"]["ranking"][0]
    assert state["final"] == f"Game over: you finished {places[me]} with {summary['scores']['totals'][0]}"
    # The log tells what happened, in words.
    assert any(line.endswith(". Game over") for line in state["log"])


def check_the_replay(driver, server, game_id: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    events = api(server, f"/v1/games/{game_id}/events")["events"]
    latest = events[-1]["seq"]
    played = next(e for e in events if e["type"] == "CardPlayed")
    driver.get(f"{server['url']}/play#replay/{game_id}")
    slider = None
    deadline = time.monotonic() + 20
    while slider is None and time.monotonic() < deadline:
        found = driver.find_elements(By.ID, "replay-slider")
        slider = found[0] if found else time.sleep(0.1)
    assert slider is not None, "no replay slider"
    assert slider.get_attribute("min") == "1" and slider.get_attribute("max") == str(latest)
    caption = lambda: driver.find_element(By.ID, "replay-event").text  # noqa: E731
    wait_for(driver, lambda s: caption().startswith(f"Event {latest} of {latest}"), what="the last event")
    slider.send_keys(Keys.HOME)  # the slider is a plain range input: keys move it
    wait_for(driver, lambda s: caption() == f"Event 1 of {latest}: Game created", what="the first event")
    # Forward, event by event, to the first card played: every hand is shown, and the trick.
    for seq in range(2, played["seq"] + 1):
        driver.find_element(By.ID, "replay-forward").click()
        wait_for(driver, lambda s, seq=seq: caption().startswith(f"Event {seq} of {latest}"), what=f"event {seq}")
        assert "cannot be shown" not in caption(), caption()
    assert f": Seat {played['data']['seat']} played " in caption()
    state = wait_for(driver, lambda s: played["data"]["card"] in s["trick"], what="the played card in the trick")
    assert state["phase"] and state["seq"] == f"event {played['seq']}"
    shown = driver.find_elements(By.CSS_SELECTOR, ".shown-hand")
    assert len(shown) == len(api(server, f"/v1/games/{game_id}")["seats"])
    assert all(hand.find_elements(By.CSS_SELECTOR, ".card") for hand in shown)


def keep(shot: Path, name: str) -> None:
    assert shot.exists() and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", "no screenshot of the table in play"
    if os.environ.get("STICH_UPDATE_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(exist_ok=True)
        shutil.copy(shot, SCREENSHOTS / f"{name}.png")


def no_script_errors(driver) -> None:
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE" and not answered_stale(entry)]
    assert not errors, errors


def answered_stale(entry: dict) -> bool:
    """A command refused with 412 because another seat moved first is the protocol at work, not an error.

    Chromium logs every 4xx response as a SEVERE network entry. The client answers a 412 by
    fetching the view and sending the move again if it is still legal (Scharfe Schoten's
    predictions are simultaneous, so this happens in real play); the game reaching its end
    is what shows that the answer worked.
    """
    return (
        entry.get("source") == "network"
        and "/commands " in entry["message"]
        and "status of 412 " in entry["message"]
    )


@pytest.mark.parametrize("game, players", [("scharfe-schoten", 3), ("schafkopf", 4), ("scharwenzel", 4)])
def test_a_whole_game_in_the_browser(browser, server, tmp_path, game, players):
    browser.get_log("browser")  # start with an empty console
    shot = tmp_path / f"{game}.png"
    for _ in range(5):
        game_id = create_in_lobby(browser, server, game, players)
        result = play_to_the_end(browser, game, game_id, shot)
        if result["cards"]:
            break
        # A Schafkopf deal where every seat passed is thrown in, and with one deal the game ends
        # before a card is played: a real outcome, with nothing to check here. Deal again.
        summary = api(server, f"/v1/games/{game_id}")
        assert game == "schafkopf" and summary["scores"]["deals"] == [[0, 0, 0, 0]], summary
    check_the_end(browser, server, game_id, players, result)
    keep(shot, game)
    check_the_replay(browser, server, game_id)
    no_script_errors(browser)


def test_the_page_resumes_a_dropped_stream_and_a_reload_keeps_the_seat(browser, server):
    game_id = create_in_lobby(browser, server, "scharfe-schoten", 3)
    wait_for(browser, lambda s: s["connection"] == " · live", what="the stream")
    assert browser.execute_script("return window.stichFollower.connections") == 1
    browser.execute_script("window.stichFollower.drop()")
    wait_for(browser, lambda s: s["connection"] == " · live"
             and browser.execute_script("return window.stichFollower.connections") == 2, what="the stream to resume")
    # Nothing missed: the log holds every event from the first it showed up to the game's seq.
    seqs = sorted(int(line.split(".", 1)[0]) for line in read(browser)["log"])
    assert seqs == list(range(seqs[0], api(server, f"/v1/games/{game_id}")["seq"] + 1))
    hand = read(browser)["hand"]
    browser.refresh()
    state = wait_for(browser, lambda s: s["hand"], what="the table after a reload")
    assert state["hand"] == hand and state["mySeat"].startswith("Seat 0 (you)")
    no_script_errors(browser)


def test_the_page_and_its_files_come_from_this_server_and_nothing_else(server):
    """No browser needed: the page loads only /play/assets files, which exist; other names are 404."""
    import re
    import urllib.error

    with urllib.request.urlopen(server["url"] + "/play", timeout=10) as response:
        assert response.headers.get_content_type() == "text/html"
        html = response.read().decode()
    assert "://" not in html  # no CDN
    assets = re.findall(r'(?:src|href)="(/play/assets/[^"]+)"', html)
    assert sorted(assets) == ["/play/assets/play.css", "/play/assets/play.js"]
    for name, kind in (("play.js", "text/javascript"), ("api.js", "text/javascript"), ("play.css", "text/css")):
        with urllib.request.urlopen(f"{server['url']}/play/assets/{name}", timeout=10) as response:
            assert response.headers.get_content_type() == kind and len(response.read()) > 500, name
    for name in ("index.html", "..%2Fplay.py", "..%2F..%2Fpyproject.toml", ".hidden.js", "nope.js"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{server['url']}/play/assets/{name}", timeout=10)
        assert refused.value.code == 404, name
