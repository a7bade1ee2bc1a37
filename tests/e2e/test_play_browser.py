"""The browser client at /play, in headless Chromium against a real `stich serve`.

Each whole-game test creates a game in the lobby with the shortest rules, plays the person's seat
to the end by clicking the highlighted legal moves (the first two by keyboard only), and checks
what a person sees: the hand, the trick, the phase, whose turn it is, card faces that name suit
and rank in text, each game's own parts (Scharfe Schoten's cupboard, collections and predictions;
Scharwenzel's bids and trumps; Schafkopf's announcements, declared game, called Ace and Stoß),
compared at every turn with the API's view of the same seat, the final score sheet; then the
replay slider steps through the finished game. Other tests take a seat from the lobby's list of
open games, watch a running game without a seat (a Schafkopf auction, tricks, a called Ace and a
Stoß, the seats moved through the API), and render the Schafkopf house rules' state (Hochzeit,
swap, Schieberrunde, naming mode) in words. Needs Debian's `chromium` and `chromium-driver` (or
any Chromium and its driver on the PATH, or named by STICH_CHROMIUM and STICH_CHROMEDRIVER);
without them the tests skip, unless STICH_REQUIRE_BROWSER=1 (CI) makes that a failure.
Screenshots of each table go to the test's temporary folder, and to docs/screenshots/ when
STICH_UPDATE_SCREENSHOTS=1.
"""
from __future__ import annotations

import json
import os
import random
import re
import secrets
import shutil
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

# Debian's packages (the README's install line); elsewhere whatever the PATH or these variables name.
CHROMIUM = os.environ.get("STICH_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = os.environ.get("STICH_CHROMEDRIVER") or shutil.which("chromedriver") or "/usr/bin/chromedriver"
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
CLIENT = Path(__file__).resolve().parents[2] / "api" / "client"


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


def api(server, path, token=None, body=None, headers=None):
    sent = {"Accept": "application/json", **(headers or {})}
    if token:
        sent["Authorization"] = f"Bearer {token}"
    if body is not None:
        sent["Content-Type"] = "application/json"
    request = urllib.request.Request(server["url"] + path, method="GET" if body is None else "POST",
                                     data=None if body is None else json.dumps(body).encode(), headers=sent)
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def token_of(driver, game_id: str) -> str:
    """The seat's token the page keeps for this game."""
    return json.loads(driver.execute_script(f"return localStorage.getItem('stich.seat.{game_id}')"))["token"]


# --------------------------------------------------------------------------- what each game shows

COLOURS = {"R": "Red", "G": "Green", "Y": "Yellow", "B": "Black"}
SK_SUITS = {"E": "Eichel", "G": "Gras", "H": "Herz", "S": "Schellen"}
SK_RANKS = {"A": "Sau", "10": "Zehn", "K": "König", "O": "Ober", "U": "Unter", "9": "Neun", "8": "Acht", "7": "Sieben"}
SW_SUITS = {"C": ("♣", "clubs"), "S": ("♠", "spades"), "H": ("♥", "hearts"), "D": ("♦", "diamonds")}
SK_GAMES = {"rufspiel": "Rufspiel", "solo": "Solo", "wenz": "Wenz", "solo_tout": "Solo Tout", "wenz_tout": "Wenz Tout",
            "sie": "Sie", "farbwenz": "Farbwenz", "geier": "Geier", "farbgeier": "Farbgeier", "bettel": "Bettel",
            "hochzeit": "Hochzeit", "ramsch": "Ramsch"}


def face(game: str, code: str) -> tuple[str, str, str]:
    """(rank, suit as printed on the face, the card's name) of a card code, as a person reads them."""
    if game == "scharfe-schoten":
        return code[1:], code[0], f"{COLOURS[code[0]]} {code[1:]}"
    if game == "schafkopf":
        return code[1:], code[0], f"{SK_SUITS[code[0]]} {SK_RANKS[code[1:]]}"
    symbol, name = SW_SUITS[code[-1]]
    return code[:-1], symbol, f"{code[:-1]} of {name}"


def sk_game(game: str, suit: str | None) -> str:
    name = SK_GAMES[game]
    if not suit:
        return name
    return f"{name} auf die {SK_SUITS[suit]}-Sau" if game == "rufspiel" else f"{SK_SUITS[suit]}-{name}"


def counts(colours: dict) -> str:
    return " · ".join(f"{COLOURS[c]} {colours.get(c, 0)}" for c in "RGYB")


# The game's own parts of the table, as text a person reads, in one script.
READ_PARTS = """
const text = (sel) => { const e = document.querySelector(sel); return e ? e.textContent : null; };
const texts = (sel) => Array.from(document.querySelectorAll(sel), (e) => e.textContent);
const perSeat = (sel) => Array.from(document.querySelectorAll('#seats .seat'), (s) => {
  const e = s.querySelector(sel); return e ? e.textContent : null; });
const called = document.querySelector('#called-ace .card');
return {
  seq: text('#seq'), hand: Array.from(document.querySelectorAll('#hand .card'), (e) => e.dataset.card),
  legalCards: Array.from(document.querySelectorAll('#hand button.card.legal'), (e) => e.dataset.card),
  cupboard: text('#cupboard'), collections: perSeat('.collection'), predictions: perSeat('.prediction'),
  bids: texts('#bids li'), trumps: text('#trumps'),
  trumpOrder: Array.from(document.querySelectorAll('#trump-order .card'), (e) => e.dataset.card),
  announcements: texts('#announcements li'), naming: texts('#naming li'), declared: text('#declared'),
  calledAce: called ? [called.dataset.card, called.getAttribute('aria-label')] : null,
  stoss: texts('#stoss li'), auction: text('#auction'), auctionBids: texts('#auction-bids li'),
};
"""


def expected_parts(game: str, view: dict) -> dict:
    """What the page must show of ``view`` (GET /view for the same seat), in the page's words."""
    s = view["game_state"] or {}
    legal = [c["card"] for c in view.get("legal") or [] if c["type"] == "play"]
    legal.sort(key=(s.get("hand") or []).index)  # highlighted in the hand, in the hand's order
    out = {"seq": f"event {view['seq']}", "hand": s.get("hand") or [], "legalCards": legal}
    if game == "scharfe-schoten":
        taker = s.get("taker")
        out["cupboard"] = f"Cupboard: {counts(s['cupboard_colours'])}" + (f" · Seat {taker} takes next" if taker is not None else "")
        out["collections"] = [f"Collection: {counts(c)}" for c in s["collections"]]
        out["predictions"] = [None if not p else
                              f"Prediction: most {COLOURS[p['most']]}, fewest {COLOURS[p['fewest']]}" if p.get("most")
                              else "Prediction: made (hidden)" if p.get("made") else "Prediction: not yet"
                              for p in s["predictions"]]
    elif game == "scharwenzel":
        out["bids"] = [f"Seat {b['seat']}: " + ("pass" if b["passed"] else f"{b['value']}{' besser' if b.get('besser') else ''}")
                       for b in s["bidding"]]
        trumps = s.get("trumps")
        out["trumps"] = None if not trumps else (
            f"Trumps: {' '.join(SW_SUITS[trumps['suit']])}"
            + (" (all passed)" if trumps["after_all_passed"] else f", named by Seat {trumps['named_by']}"
               if trumps["named_by"] is not None else ""))
        out["trumpOrder"] = trumps["order"] if trumps else []
    elif game == "schafkopf":
        out["announcements"] = [f"Seat {a['seat']}: " + {"pass": "Weiter", "play": "Ich spiele"}[a["intent"]]
                                for a in s["announcements"]]
        out["naming"] = [f"Seat {n['seat']}: " + (sk_game(n["game"], n["suit"]) if n.get("game") else "Weiter")
                         for n in s["naming"]]
        d = s.get("declared")
        out["declared"] = None if not d else (
            (sk_game(d["game"], d["suit"]) if d["declarer"] is None else f"Seat {d['declarer']} plays {sk_game(d['game'], d['suit'])}")
            + (" (As-Renonce)" if d.get("renonce") else "") + (f", needs {d['target']}" if d.get("target", 61) != 61 else ""))
        out["calledAce"] = [d["called_ace"], face(game, d["called_ace"])[2]] if d and d.get("called_ace") else None
        out["stoss"] = [f"Seat {x['seat']}: {x['call']}" for x in s["stoss"]]
        a = s.get("auction")
        out["auctionBids"] = [f"Seat {b['seat']} " + ("passes" if b.get("passed") else f"bids {b['target'] - 1}")
                              for b in (a["bids"] if a else [])]
        if not a:
            out["auction"] = None
        else:
            named = [n for n in s["naming"] if n["seat"] == a["holder"] and n.get("game")]
            with_game = f" with {sk_game(named[-1]['game'], named[-1]['suit'])}" if named else ""
            bid = f"the bid {a['target'] - 1}{with_game} (needs {a['target']})" if a["target"] > 61 else f"61{with_game}"
            out["auction"] = (f"Seat {a['holder']} holds {bid} · to answer: " + ", ".join(f"Seat {b}" for b in a["bidders"])
                              if a["bidders"] else f"Seat {a['holder']} won the auction with {bid}")
    return out


def shows_what_the_api_shows(driver, server, game: str, game_id: str, token: str | None) -> dict:
    """The page's game parts equal the API's view for the same seat (or a spectator), at one seq."""
    deadline = time.monotonic() + 10
    while True:
        shown = driver.execute_script(READ_PARTS)
        view = api(server, f"/v1/games/{game_id}/view", token)
        again = driver.execute_script(READ_PARTS)
        if shown == again and shown["seq"] == f"event {view['seq']}":
            break
        assert time.monotonic() < deadline, f"the page never showed event {view['seq']}: {again}"
        time.sleep(0.05)
    expected = expected_parts(game, view)
    assert {key: shown[key] for key in expected} == expected
    return view


def card_faces_name_suit_and_rank(driver, game: str) -> int:
    """Every card on the table shows rank and suit as text, and its label names both in words."""
    faces = driver.execute_script("""return Array.from(document.querySelectorAll('#table-area .card'), (e) => ({
      card: e.dataset.card, text: e.innerText, label: e.getAttribute('aria-label'), title: e.title}));""")
    for shown in faces:
        rank, suit, name = face(game, shown["card"])
        assert shown["text"].split() == [rank, suit], shown
        assert shown["title"] == name and shown["label"] in (name, f"Play {name}", f"{name} (not playable now)"), shown
    return len(faces)


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
    """The move a simple player makes: in Schafkopf gives a Stoß when it may, says it plays (so a
    deal is played, not thrown in) and names a Rufspiel when it can (so an Ace is called); else a
    legal card if there is one, else any legal move."""
    for start in ("Stoß: ", "Ich spiele (", "Play Rufspiel "):
        for move in state["moves"]:
            if move.startswith(start):
                return "#moves button.legal", move
    if state["legalCards"]:
        return "#hand button.card.legal", rng.choice(state["legalCards"])
    return "#moves button.legal", rng.choice(state["moves"])


def by_keyboard(driver, target: str) -> str:
    """Tab from the focused move to ``target`` (a move's words or a card's code), then Enter."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    for _ in range(40):
        state = read(driver)
        assert state["activeIsMove"], f"the focus left the moves before reaching {target}: {state}"
        if state["active"] == target:
            ActionChains(driver).send_keys(Keys.ENTER).perform()
            return target
        ActionChains(driver).send_keys(Keys.TAB).perform()
    raise AssertionError(f"{target} was never reached by Tab")


def play_to_the_end(driver, server, game: str, game_id: str, shot: Path) -> dict:
    """Play seat 0 until the game is over, the first two moves by keyboard only, the rest by
    clicking; check each view a person acts on against the API's view of the seat."""
    rng = random.Random(7)
    token = token_of(driver, game_id)
    moves = cards_played = 0
    faces = 0
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        state = wait_for(driver, lambda s: s["final"] or s["moves"] or s["legalCards"], what="a move or the end")
        shows_what_the_api_shows(driver, server, game, game_id, token)
        if state["final"]:
            return {"state": state, "moves": moves, "cards": cards_played, "faces": faces}
        faces = max(faces, card_faces_name_suit_and_rank(driver, game))
        assert state["turn"].startswith("Your turn"), state
        # Only the legal cards are highlighted and enabled; the rest of the hand is shown, disabled.
        assert set(state["legalCards"]) <= set(state["hand"])
        assert set(state["legalCards"]) | set(state["disabledCards"]) == set(state["hand"])
        assert f"{len(state['hand'])} card" in state["mySeat"]
        if state["legalCards"] and len(state["trick"]) >= 2 and not shot.exists():
            driver.save_screenshot(str(shot))
        before = state["seq"]
        if moves < 2:
            # The first two moves by keyboard: the page puts the focus on the first legal move
            # (again after a move), Tab goes on through the legal ones, Enter makes the move.
            assert state["activeIsMove"], state
            label = by_keyboard(driver, choose(state, rng)[1])
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


def only_this_server(driver, server) -> None:
    """Every file and request the page loaded came from the server itself (no CDN, no font service)."""
    loaded = driver.execute_script("return performance.getEntriesByType('resource').map((e) => e.name)")
    assert loaded and all(url.startswith(server["url"] + "/") for url in loaded), loaded


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
        result = play_to_the_end(browser, server, game, game_id, shot)
        if result["cards"]:
            break
        # A Schafkopf deal where every seat passed is thrown in, and with one deal the game ends
        # before a card is played: a real outcome, with nothing to check here. Deal again.
        summary = api(server, f"/v1/games/{game_id}")
        assert game == "schafkopf" and summary["scores"]["deals"] == [[0, 0, 0, 0]], summary
    check_the_end(browser, server, game_id, players, result)
    assert result["moves"] >= 2 and result["faces"] > 0, result
    only_this_server(browser, server)
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
    # Each file the page loads, and each module those import: served here, naming no other host.
    loaded, todo = set(), [name.rsplit("/", 1)[1] for name in assets]
    while todo:
        name = todo.pop()
        if name in loaded:
            continue
        loaded.add(name)
        with urllib.request.urlopen(f"{server['url']}/play/assets/{name}", timeout=10) as response:
            kind = "text/css" if name.endswith(".css") else "text/javascript"
            assert response.headers.get_content_type() == kind, name
            text = response.read().decode()
        assert len(text) > 300 and "://" not in text and "@import" not in text, name
        if name.endswith(".js"):
            imports = re.findall(r"""(?:\bfrom|\bimport)\s*\(?\s*["']([^"']+)["']""", text)
            assert all(re.fullmatch(r"\./[a-z]+\.js", i) for i in imports), (name, imports)  # only files beside it
            todo += [i[2:] for i in imports]
        else:
            assert all(url.startswith(("data:", "/play/assets/")) for url in re.findall(r"url\(\s*[\"']?([^)\"']*)", text)), name
    assert loaded == {path.name for path in CLIENT.iterdir() if path.suffix in (".js", ".css")}
    for name in ("index.html", "..%2Fplay.py", "..%2F..%2Fpyproject.toml", ".hidden.js", "nope.js"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{server['url']}/play/assets/{name}", timeout=10)
        assert refused.value.code == 404, name


class ApiTable:
    """A Schafkopf game whose four seats are people, each moved through the API by the test."""

    def __init__(self, server, rules: dict):
        self.server = server
        self.id = api(server, "/v1/games", body={"game": "schafkopf", "players": 4, "rules": rules,
                                                 "seats": [{"kind": "human"}] * 4})["id"]
        self.tokens = [api(server, f"/v1/games/{self.id}/seats/{seat}", body={})["token"] for seat in range(4)]

    def view(self, seat: int | None = None) -> dict:
        return api(self.server, f"/v1/games/{self.id}/view", None if seat is None else self.tokens[seat])

    def to_act(self) -> tuple[int, dict]:
        seat = self.view()["to_act"][0]
        return seat, self.view(seat)

    def send(self, seat: int, command: dict) -> int:
        view = self.view(seat)
        assert command in view["legal"], (command, view["legal"])
        seq = view["seq"]
        return api(self.server, f"/v1/games/{self.id}/commands", self.tokens[seat], body=command,
                   headers={"If-Match": f'"{seq}"', "Idempotency-Key": secrets.token_hex(16)})["seq"]

    def play_a_card(self) -> tuple[int, str, int]:
        seat, view = self.to_act()
        command = next(c for c in view["legal"] if c["type"] == "play")
        return seat, command["card"], self.send(seat, command)


def watching(driver) -> dict:
    """A spectator's table: no hand, no moves, nothing to click, no seat of one's own."""
    state = read(driver)
    assert state["hand"] == [] and state["moves"] == [] and state["mySeat"] is None, state
    assert not driver.execute_script("return document.querySelectorAll('#hand, #moves, button.card').length")
    assert state["turn"].startswith("Waiting for Seat "), state
    return state


def can_call_an_ace(hand: list[str]) -> bool:
    """SK-5: a plain card (no Ober, Unter or Herz) of E, G or S without that suit's Ace."""
    return any(suit + "A" not in hand and any(c[0] == suit and c[1:] not in ("O", "U") for c in hand) for suit in "EGS")


def test_a_spectator_watches_an_auction_the_tricks_and_a_called_ace(browser, server):
    """Without a seat the table shows no hand and no moves, and follows the game as the seats move."""
    browser.get_log("browser")
    table = ApiTable(server, {"deals": 2, "auction": True})
    browser.get(f"{server['url']}/play#game/{table.id}")
    wait_for(browser, lambda s: s["phase"] == "announce" and s["connection"] == " · live", what="the table")
    watching(browser)
    shows_what_the_api_shows(browser, server, "schafkopf", table.id, None)

    # Deal 1: the first two to speak say "Ich spiele" and name band games; the later bids 70.
    players = []
    for _ in range(4):
        seat = table.view()["to_act"][0]
        intent = "play" if len(players) < 2 else "pass"
        table.send(seat, {"type": "announce", "intent": intent})
        players += [seat] if intent == "play" else []
    first, second = players
    table.send(first, {"type": "name_game", "game": "wenz"})
    solo = next(c for c in table.view(second)["legal"] if c.get("game") == "solo")
    table.send(second, solo)
    solo_name = sk_game("solo", solo["suit"])
    table.send(second, {"type": "bid", "target": 71})
    wait_for(browser, lambda s: s["phase"] == "auction", what="the auction")
    view = shows_what_the_api_shows(browser, server, "schafkopf", table.id, None)
    shown = browser.execute_script(READ_PARTS)
    assert shown["auction"] == f"Seat {second} holds the bid 70 with {solo_name} (needs 71) · to answer: Seat {first}"
    assert shown["auctionBids"] == [f"Seat {second} bids 70"]
    assert view["game_state"]["auction"]["target"] == 71
    watching(browser)
    table.send(first, {"type": "pass"})
    wait_for(browser, lambda s: s["phase"] == "play", what="the play")
    shown = browser.execute_script(READ_PARTS)
    assert shown["declared"] == f"Seat {second} plays {solo_name}, needs 71"
    assert shown["auction"] == f"Seat {second} won the auction with the bid 70 with {solo_name} (needs 71)"
    assert shown["auctionBids"] == [f"Seat {second} bids 70", f"Seat {first} passes"]

    # The tricks: each card played shows up on the spectator's table.
    for _ in range(5):
        _, played, seq = table.play_a_card()
        wait_for(browser, lambda s, seq=seq: int(s["seq"].split()[1]) >= seq, what=f"event {seq}")
        view = shows_what_the_api_shows(browser, server, "schafkopf", table.id, None)
        shown_trick = view["game_state"]["current_trick"] or {}
        trick = shown_trick.get("plays") or (view["game_state"]["last_trick"] or {}).get("plays") or []
        assert played in [p["card"] for p in trick] and read(browser)["trick"] == [p["card"] for p in trick]
        assert card_faces_name_suit_and_rank(browser, "schafkopf") >= 1
    watching(browser)
    while table.view()["game_state"]["deal"] == 0:
        table.play_a_card()

    # Deal 2: a seat that can call an Ace plays a Rufspiel; the called Ace is shown as a card.
    wait_for(browser, lambda s: s["phase"] == "announce", what="the second deal")
    order = [(table.view()["to_act"][0] + i) % 4 for i in range(4)]
    caller = next(seat for seat in order if can_call_an_ace(table.view(seat)["game_state"]["hand"]))
    for seat in order:
        table.send(seat, {"type": "announce", "intent": "play" if seat == caller else "pass"})
    call = next(c for c in table.view(caller)["legal"] if c.get("game") == "rufspiel")
    table.send(caller, call)
    wait_for(browser, lambda s: s["phase"] == "play", what="the Rufspiel")
    shows_what_the_api_shows(browser, server, "schafkopf", table.id, None)
    shown = browser.execute_script(READ_PARTS)
    ace = f"{call['suit']}A"
    assert shown["declared"] == f"Seat {caller} plays {sk_game('rufspiel', call['suit'])}"
    assert shown["calledAce"] == [ace, f"{SK_SUITS[call['suit']]} Sau"]
    # A defender gives Kontra before his first card (there are two, so one does in the first trick).
    for _ in range(4):
        seat, view = table.to_act()
        if {"type": "stoss"} in view["legal"]:
            table.send(seat, {"type": "stoss"})
            break
        table.play_a_card()
    else:
        raise AssertionError("no defender was offered Kontra in the first trick")
    wait_for(browser, lambda s: browser.execute_script(READ_PARTS)["stoss"], what="the Stoß")
    shows_what_the_api_shows(browser, server, "schafkopf", table.id, None)
    assert browser.execute_script(READ_PARTS)["stoss"] == [f"Seat {seat}: Kontra"]
    watching(browser)
    no_script_errors(browser)


def test_a_seat_taken_from_the_lobby_shows_that_seats_hand(browser, server):
    bot = {"kind": "bot", "bot": "random"}
    game_id = api(server, "/v1/games", body={"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 1},
                                             "seats": [bot, {"kind": "human"}, bot]})["id"]
    browser.get(server["url"] + "/play")
    button = f'#open-games li[data-game="{game_id}"] button'
    wait_for(browser, lambda s: browser.execute_script(f"return !!document.querySelector('{button}')"),
             what="the game in the open games")
    assert click(browser, button, "Take Seat 1") == "Take Seat 1"
    state = wait_for(browser, lambda s: s["hand"], what="the seat's hand")
    assert browser.current_url.endswith(f"#game/{game_id}")
    assert state["mySeat"].startswith("Seat 1 (you)")
    view = shows_what_the_api_shows(browser, server, "scharfe-schoten", game_id, token_of(browser, game_id))
    assert view["viewer"] == 1 and len(view["game_state"]["hand"]) == 12
    no_script_errors(browser)


# The Schafkopf house rules' state, drawn by the page's own renderTable from views as the API gives them.
RENDER = """
const [views, done] = arguments;
import('/play/assets/table.js').then(({ renderTable }) => done(views.map((view) => {
  const table = renderTable(view, {});
  const text = (sel) => { const e = table.querySelector(sel); return e ? e.textContent : null; };
  return { mode: text('#mode'), hochzeit: text('#hochzeit'), swap: text('#swap'), schieber: text('#schieberrunde'),
    calls: Array.from(table.querySelectorAll('#schieberrunde-calls li'), (e) => e.textContent),
    next: text('#schieberrunde-next'), phase: text('#phase'), info: text('#game-info') };
})), (error) => done(String(error)));
"""


def test_the_schafkopf_house_rules_are_told_in_words(browser, server):
    table = ApiTable(server, {"deals": 1})
    base = table.view()  # a real view, with the house rules' fields set as they would be
    state = base["game_state"]

    def variant(viewer=None, **fields):
        return {**base, "viewer": viewer, "game_state": {**state, **fields}}

    swap = {"from": 1, "to": 0}
    views = [
        variant(phase="exchange", hochzeit=0, swap=swap),  # a spectator: the cards are not told
        variant(0, phase="exchange", hochzeit=0, swap={**swap, "gave": "HO", "received": "GK"}),  # the receiver's side
        variant(1, phase="exchange", hochzeit=0, swap={**swap, "gave": "GK", "received": "HO"}),  # the giver's side
        variant(phase="push", mode="schieber", schieberrunde={
            "vorhand": 1, "calls": [{"seat": 1, "play": True}],
            "pushes": [{"from": 1, "to": 2, "cards": ["E7", "G8"]}, {"from": 2, "to": 3}]}),
        variant(mode="muss", schieberrunde_next=True),
        variant(mode="renonce"),
    ]
    browser.get(server["url"] + "/play")
    shown = browser.execute_async_script(RENDER, views)
    assert isinstance(shown, list), shown
    assert shown[0]["hochzeit"] == "Hochzeit offered by Seat 0" and shown[0]["phase"] == "Phase: Hochzeit exchange"
    assert shown[0]["swap"] == "Hochzeit swap: Seat 1 gave Seat 0 a card for the trump"
    assert shown[1]["swap"] == shown[2]["swap"] == "Hochzeit swap: Seat 1 gave Gras König to Seat 0 for Herz Ober"
    assert shown[3]["mode"] == "Schieberrunde (passing round)" and shown[3]["schieber"] == "Vorhand: Seat 1"
    assert shown[3]["calls"] == ["Seat 1: Ich spiele", "Seat 1 pushed Eichel Sieben and Gras Acht to Seat 2",
                                 "Seat 2 pushed two cards to Seat 3"]
    assert shown[4]["mode"].startswith("Muss-Spiel") and shown[4]["next"].startswith("The next deal is a Schieberrunde")
    assert shown[5]["mode"].startswith("Renonce round")
    for one in shown:  # no raw values: no JSON, no undefined
        assert not re.search(r"[{}\[\]\"]|undefined|null|NaN", one["info"]), one["info"]
    no_script_errors(browser)
