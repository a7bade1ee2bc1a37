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
Each whole game runs at a desktop's width and at 360 px (Chromium's device emulation), never
scrolling sideways. Further tests: the focus never rests on a risky call and a Tout asks for a
second Enter; a missing option says why; the seats sit around the felt and the trick is gathered
unless prefers-reduced-motion; a tournament from the lobby to its standings; a finished game's
replay asks for its analysis and marks each seat's mistakes on the slider; and axe-core
(tests/e2e/package.json, `npm ci --prefix tests/e2e`) finds nothing serious or critical at 1280,
420 and 360 px. Screenshots of each table (desktop and phone) and of a tournament's standings go
to the test's temporary folder, and to docs/screenshots/ when STICH_UPDATE_SCREENSHOTS=1.
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
  moves: Array.from(document.querySelectorAll('#moves button.legal'), (e) => e.dataset.words || e.textContent),
  trick: cards('#trick .card'), mySeat: text('.seat.me'),
  log: Array.from(document.querySelectorAll('#log li'), (e) => [Number(e.value), e.textContent]),
  active: document.activeElement ? (document.activeElement.dataset.card || document.activeElement.dataset.words
    || document.activeElement.textContent) : null,
  activeIsMove: !!(document.activeElement && document.activeElement.matches('#moves button, #hand button.legal')),
  activeIsRisky: !!(document.activeElement && document.activeElement.matches('#moves button.risky')),
  armed: text('#moves button.armed'),
  sideways: document.documentElement.scrollWidth - window.innerWidth,
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
const perSeat = (sel) => Array.from(document.querySelectorAll('#seats .seat'))
  .sort((a, b) => Number(a.dataset.seat) - Number(b.dataset.seat)).map((s) => {
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
    """Every card on the table is a face drawn in SVG on the page (no image file), printing its
    rank in the corner, and its label names suit and rank in words for screen readers."""
    faces = driver.execute_script("""return Array.from(document.querySelectorAll('#table-area .card'), (e) => {
      const svg = e.querySelector('svg.face');
      return {card: e.dataset.card, index: svg ? svg.querySelector('.index text').textContent : null,
        hidden: svg ? svg.getAttribute('aria-hidden') : null, shapes: svg ? svg.querySelectorAll('path, circle, ellipse').length : 0,
        images: e.querySelectorAll('img, image, use').length, label: e.getAttribute('aria-label'), title: e.title};});""")
    for shown in faces:
        rank, _, name = face(game, shown["card"])
        assert shown["index"] == rank and shown["hidden"] == "true" and shown["shapes"] >= 2 and not shown["images"], shown
        named = (name, f"{name} (super trump)")
        assert shown["title"] in named and shown["label"] in (
            *named, *(f"Play {n}" for n in named), *(f"{n} (not playable now)" for n in named)), shown
    return len(faces)


def click(driver, selector: str, text: str | None = None) -> str:
    """Click the first element matching ``selector`` (and ``text``); what a person reads on it."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By

    for _ in range(20):
        try:
            for element in driver.find_elements(By.CSS_SELECTOR, selector):
                label = element.get_attribute("data-card") or element.get_attribute("data-words") or element.text
                if text is None or label == text:
                    classes = (element.get_attribute("class") or "").split()
                    element.click()
                    if "risky" in classes and "armed" not in classes:
                        # A Tout or a Solo asks once more: the first click arms it, the second calls it.
                        wait_for(driver, lambda s, label=label: s["armed"] == f"Confirm: {label}?", what=f"{label} to ask again")
                        break
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
    # Bot seats default to the strongest bot, at its default budget.
    assert [s.get_attribute("value") for s in seats] == ["human"] + ["search"] * (players - 1)
    driver.find_element(By.ID, "create-game").click()
    state = wait_for(driver, lambda s: s["phase"] not in (None, "waiting"), what="the table")
    assert "#game/" in driver.current_url
    assert state["mySeat"].startswith("Seat 0 (you)")
    return driver.current_url.rsplit("/", 1)[1]


def choose(state: dict, rng: random.Random) -> tuple[str, str]:
    """The move a simple player makes: in Schafkopf gives a Stoß when it may, says it plays (so a
    deal is played, not thrown in) and names a Rufspiel when it can (so an Ace is called); else a
    legal card if there is one, else any legal move."""
    for start in ("Stoß: ", "Ich spiele (", "Play Rufspiel ", "Bid "):
        for move in state["moves"]:
            if move.startswith(start):
                return "#moves button.legal", move
    if state["legalCards"]:
        return "#hand button.card.legal", rng.choice(state["legalCards"])
    return "#moves button.legal", rng.choice(state["moves"])


def by_keyboard(driver, target: str) -> str:
    """From the focused move, Tab (or Shift+Tab) to ``target`` (a move's words or a card's code),
    then Enter; a risky call takes a second Enter, the first only arms it."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    state = read(driver)
    order = driver.execute_script("return Array.from(document.querySelectorAll('#moves button, #hand button.legal'),"
                                  " (e) => e.dataset.card || e.dataset.words)")
    if driver.execute_script("return document.activeElement.id") == "moves":
        # Every call is risky (a naming with neither Rufspiel nor Weiter): the focus rests on the
        # section itself, so that Enter calls nothing; Tab goes on into the calls.
        assert driver.execute_script("return !document.querySelector('#moves button:not(.risky), #hand button.legal')"), state
        steps = order.index(target) + 1
    else:
        assert state["activeIsMove"] and not state["activeIsRisky"], f"the default focus is not a safe move: {state}"
        steps = order.index(target) - order.index(state["active"])
    for _ in range(abs(steps)):
        chain = ActionChains(driver)
        if steps > 0:
            chain.send_keys(Keys.TAB)
        else:
            chain.key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT)
        chain.perform()
    state = read(driver)
    assert state["active"] == target and state["activeIsMove"], f"Tab did not reach {target}: {state}"
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    if state["activeIsRisky"]:
        armed = wait_for(driver, lambda s: s["armed"] == f"Confirm: {target}?", what=f"{target} to ask again")
        assert armed["seq"] == state["seq"], "a risky call was made by one Enter"
        ActionChains(driver).send_keys(Keys.ENTER).perform()
    return target


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
        assert state["sideways"] <= 0, f"the page scrolls sideways by {state['sideways']} px"
        if state["legalCards"] and len(state["trick"]) >= 2 and not shot.exists():
            driver.execute_script("document.getElementById('table-status').scrollIntoView()")  # the felt in sight
            driver.save_screenshot(str(shot))
        before = state["seq"]
        if moves < 2:
            # The first two moves by keyboard: the page puts the focus on the safest legal move
            # (again after a move), Tab goes on through the legal ones, Enter makes the move.
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
    # The log tells what happened, in words, oldest first, each line numbered by its seq.
    seqs = [seq for seq, _ in state["log"]]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))) and seqs[-1] <= summary["seq"], seqs
    assert any(text == "Game over" for _, text in state["log"])


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
    errors = [entry for entry in driver.get_log("browser")
              if entry["level"] == "SEVERE" and not answered_stale(entry) and not no_analysis_yet(entry)]
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


def no_analysis_yet(entry: dict) -> bool:
    """A replay asks for its finished game's analysis; 404 `analysis_not_found` is the answer
    "nobody has asked for it yet" (the page then offers the button), not an error."""
    return (
        entry.get("source") == "network"
        and "/analysis " in entry["message"]
        and "status of 404 " in entry["message"]
    )


@pytest.fixture
def width(browser, request):
    """The page at a desktop's width, or a phone's (emulated as Chromium's device mode does)."""
    px = request.param
    if px:
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                {"width": px, "height": 780, "deviceScaleFactor": 1, "mobile": True})
    yield px
    if px:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


@pytest.mark.parametrize("width", [None, 360], ids=["desktop", "phone-360"], indirect=True)
@pytest.mark.parametrize("game, players", [("scharfe-schoten", 3), ("schafkopf", 4), ("scharwenzel", 4)])
def test_a_whole_game_in_the_browser(browser, server, tmp_path, game, players, width):
    browser.get_log("browser")  # start with an empty console
    name = f"{game}-phone" if width else game
    shot = tmp_path / f"{name}.png"
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
    if width:
        assert browser.execute_script("return window.innerWidth") == width
    keep(shot, name)
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
    seqs = [seq for seq, _ in read(browser)["log"]]
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


def sit_in_browser(driver, server, game_id: str, seat: int, token: str) -> None:
    """Open the table as the holder of ``seat``, the way the lobby leaves its token behind."""
    driver.get(server["url"] + "/play")
    driver.execute_script("localStorage.setItem(arguments[0], arguments[1])", f"stich.seat.{game_id}",
                          json.dumps({"seat": seat, "token": token}))
    driver.get(f"{server['url']}/play#game/{game_id}")


def press(driver, *keys) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    for key in keys:
        ActionChains(driver).send_keys(key).perform()


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
    assert browser.find_element("id", "glance").text.startswith(f"Seat {me}: Eichel-Solo Tout · multiplier ×1")
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


AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
AXE_RUN = """
const done = arguments[arguments.length - 1];
axe.run(document, {resultTypes: ['violations']}).then((r) => done(r.violations.map((v) => ({
  id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' '))}))),
  (e) => done(String(e)));
"""


def serious_violations(driver) -> list:
    driver.execute_script(AXE.read_text(encoding="utf-8"))
    found = driver.execute_async_script(AXE_RUN)
    assert isinstance(found, list), found
    return [v for v in found if v["impact"] in ("serious", "critical")]


def test_axe_finds_nothing_serious_and_the_phone_never_scrolls_sideways(browser, server):
    """axe-core (tests/e2e/package.json; `npm ci --prefix tests/e2e`) on the lobby, a table in
    play, and a replay, at a desktop's width and at 420 and 360 px; no serious or critical
    violation, and no sideways scroll at the phone widths."""
    if not AXE.exists():
        if os.environ.get("STICH_REQUIRE_BROWSER") == "1":
            pytest.fail(f"STICH_REQUIRE_BROWSER=1 but {AXE} is missing (npm ci --prefix tests/e2e)")
        pytest.skip("axe-core is not installed: npm ci --prefix tests/e2e")
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
            wait_for(browser, lambda s: s["phase"] == "finished", what="the replay")
            assert serious_violations(browser) == [], ("the replay", px)
            if px:
                assert read(browser)["sideways"] <= 0, ("the replay", px)
        finally:
            if px:
                browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    no_script_errors(browser)


def test_a_tournament_from_the_lobby_to_the_standings(browser, server, tmp_path):
    """One person and three bots: created in the lobby, the seat taken with "Take my seat", the
    game played at the table, and the final standings on the tournament's page."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get_log("browser")
    browser.get(server["url"] + "/play")
    wait_for(browser, lambda s: browser.find_elements(By.ID, "create-tournament-button"), what="the lobby")
    Select(browser.find_element(By.ID, "t-game")).select_by_value("schafkopf")
    assert Select(browser.find_element(By.ID, "t-bot")).first_selected_option.get_attribute("value") == "search"
    Select(browser.find_element(By.ID, "t-bot")).select_by_value("heuristic")
    browser.find_element(By.ID, "create-tournament-button").click()
    wait_for(browser, lambda s: "#tournament/" in browser.current_url, what="the tournament")
    tournament_id = browser.current_url.rsplit("/", 1)[1]
    wait_for(browser, lambda s: browser.execute_script(
        "const b = document.getElementById('take-my-seat'); return b && b.textContent === 'Take my seat: round 1'"),
        what="round 1's table")
    assert browser.execute_script("return window.stichTournamentFollower.connections") >= 1
    click(browser, "#take-my-seat")
    wait_for(browser, lambda s: "#game/" in browser.current_url and (s["moves"] or s["legalCards"] or s["final"]), what="the table")
    game_id = browser.current_url.rsplit("/", 1)[1]
    tournament = api(server, f"/v1/tournaments/{tournament_id}")
    assert tournament["schedule"][0]["tables"][0]["game_id"] == game_id
    play_to_the_end(browser, server, "schafkopf", game_id, tmp_path / "tournament.png")
    click(browser, "#back-to-tournament")
    wait_for(browser, lambda s: browser.execute_script(
        "const c = document.querySelector('#standings caption'); return c && c.textContent === 'Final standings'"),
        what="the final standings")
    rows = browser.execute_script("""return Array.from(document.querySelectorAll('#standings tbody tr'),
      (r) => Array.from(r.children, (c) => c.textContent));""")
    standings = api(server, f"/v1/tournaments/{tournament_id}/standings")["standings"]
    assert [[int(r[0]), r[1].split(" ")[1], int(r[2])] for r in rows] == [
        [s["place"], str(s["participant"]), s["points"]] for s in standings]
    assert sum("(you)" in r[1] for r in rows) == 1
    page = browser.find_element(By.ID, "tournament").text
    assert not re.search(r"null|undefined|NaN", page), page
    assert "Round 1 (finished): table 1 replay" in page, page
    shot = tmp_path / "tournament-standings.png"
    browser.save_screenshot(str(shot))
    keep(shot, "tournament")
    no_script_errors(browser)


# A table drawn by the page's own renderTable, put on the page, and read as a person sees it.
RENDER_ON_PAGE = """
const [view, done] = arguments;
import('/play/assets/table.js').then(({ renderTable }) => {
  const main = document.getElementById('main');
  main.replaceChildren(renderTable(view, {}));
  const side = (seat) => { const e = document.querySelector(`#seats .seat[data-seat="${seat}"]`); return e.parentElement.className; };
  const played = Array.from(document.querySelectorAll('#trick li'), (li) => {
    const box = li.getBoundingClientRect(), trick = document.getElementById('trick').getBoundingClientRect();
    return {seat: Number(li.dataset.seat), x: (box.left + box.width / 2 - trick.left) / trick.width,
      y: (box.top + box.height / 2 - trick.top) / trick.height, winner: li.classList.contains('winner'),
      animation: getComputedStyle(li).animationName};
  });
  done({sides: view.seats.map((_, seat) => side(seat)), played, caption: document.getElementById('trick-caption').textContent,
    gathering: document.querySelector('#trick ol').className});
}, (error) => done(String(error)));
"""


def test_the_seats_sit_around_the_table_and_the_trick_is_gathered_unless_motion_is_reduced(browser, server):
    """Seat 2 of four sees itself at the bottom, seat 3 on the left, 0 across, 1 on the right;
    each card of the last trick lies in front of its player, the winner marked; the trick is
    gathered by an animation, and with prefers-reduced-motion it is not."""
    table = ApiTable(server, {"deals": 1})
    base = table.view(2)
    plays = [{"seat": 3, "card": "EA"}, {"seat": 0, "card": "E10"}, {"seat": 1, "card": "EK"}, {"seat": 2, "card": "E9"}]
    view = {**base, "game_state": {**base["game_state"], "phase": "play", "current_trick": {"leader": 3, "plays": []},
                                   "last_trick": {"leader": 3, "plays": plays, "winner": 3}}}
    browser.get(server["url"] + "/play")
    shown = browser.execute_async_script(RENDER_ON_PAGE, view)
    assert isinstance(shown, dict), shown
    assert shown["sides"] == ["side side-top", "side side-right", "side side-bottom", "side side-left"], shown
    at = {p["seat"]: p for p in shown["played"]}
    assert at[2]["y"] > .6 and at[0]["y"] < .4 and at[3]["x"] < .4 and at[1]["x"] > .6, at  # in front of each player
    assert [seat for seat, p in at.items() if p["winner"]] == [3] and shown["caption"].startswith("Seat 3 takes the trick")
    assert shown["gathering"] == "trick-cards gathering" and all(p["animation"] == "gather" for p in shown["played"]), shown
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
    try:
        browser.get(server["url"] + "/play")
        still = browser.execute_async_script(RENDER_ON_PAGE, view)
        assert all(p["animation"] == "none" for p in still["played"]), still
        assert {p["seat"]: (round(p["x"], 2), round(p["y"], 2)) for p in still["played"]} == {
            seat: (round(p["x"], 2), round(p["y"], 2)) for seat, p in at.items()}, "with reduced motion nothing moves"
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


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


# --------------------------------------------------------------------------- analysis in the replay

# Each text #analysis-status shows, recorded as it changes, so a short-lived progress is seen.
WATCH_ANALYSIS = """
window.analysisSeen = [];
const status = document.getElementById('analysis-status');
new MutationObserver(() => {
  const bar = document.getElementById('analysis-progress');
  window.analysisSeen.push([status.textContent, !!bar]);
}).observe(document.getElementById('analysis'), {subtree: true, childList: true, characterData: true});
"""

READ_MARKS = """
return Array.from(document.querySelectorAll('#replay-marks li'), (e) => ({
  seq: Number(e.dataset.seq), seat: Number(e.dataset.seat), mark: e.dataset.mark, label: e.textContent,
  at: Number(getComputedStyle(e).getPropertyValue('--at')), colour: getComputedStyle(e).backgroundColor,
  visible: e.getBoundingClientRect().width > 0}));
"""


def test_the_replay_asks_for_the_analysis_and_marks_the_mistakes(browser, server, tmp_path):
    """A random-bots' Scharfe Schoten round, finished: its replay offers "Analyse this game" (no analysis
    yet), shows the job's progress, then each seat's marked moves on the slider's track (coloured
    by severity, named in text); "Next mark" moves the slider to a mark, where the move played
    and the better one are shown with their card faces and the loss. The same at 360 px (the
    analysis now cached), with no sideways scroll; axe-core finds nothing serious at both."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get_log("browser")
    bot = {"kind": "bot", "bot": "random"}
    # Scharfe Schoten: its random bots always earn marks (their predictions); Schafkopf's and
    # Scharwenzel's random deals are often judged clean.
    game_id = api(server, "/v1/games", body={"game": "scharfe-schoten", "players": 3, "rules": {"rounds": 1},
                                             "seats": [bot] * 3})["id"]
    deadline = time.monotonic() + 30
    while api(server, f"/v1/games/{game_id}")["status"] != "finished":
        assert time.monotonic() < deadline, "the bots' game did not finish"
        time.sleep(0.2)
    latest = api(server, f"/v1/games/{game_id}/events")["events"][-1]["seq"]
    text = lambda selector: browser.find_element(By.CSS_SELECTOR, selector).text  # noqa: E731
    for px in (None, 360):
        if px:
            browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": px, "height": 780, "deviceScaleFactor": 1, "mobile": True})
        try:
            browser.get(f"{server['url']}/play")  # from the lobby, so the second round loads the replay anew
            browser.get(f"{server['url']}/play#replay/{game_id}")
            wait_for(browser, lambda s: s["phase"] == "finished" and browser.find_elements(By.ID, "analysis-status")
                     and text("#analysis-status"), what="the replay and its analysis line")
            if px is None:
                assert text("#analysis-status") == "Nobody has asked for this game's analysis yet."
                assert not browser.find_elements(By.CSS_SELECTOR, "#replay-marks li")
                browser.execute_script(WATCH_ANALYSIS)
                browser.find_element(By.ID, "analysis-ask").send_keys(Keys.ENTER)  # by keyboard
            wait_for(browser, lambda s: text("#analysis-status").startswith("Analysis done"), timeout=60,
                     what="the analysis to be done")
            if px is None:
                seen = browser.execute_script("return window.analysisSeen")
                assert any(bar and (words.startswith("Analysing") or words.startswith("Waiting"))
                           for words, bar in seen), seen
            analysis = api(server, f"/v1/games/{game_id}/analysis")
            marked = sorted((d for d in analysis["decisions"] if d["mark"]), key=lambda d: d["seq"])
            assert marked, "a random bots' deal with no mistake: the test needs one"
            marks = browser.execute_script(READ_MARKS)
            assert [(m["seq"], m["seat"], m["mark"]) for m in marks] == [(d["seq"], d["seat"], d["mark"]) for d in marked]
            assert all(m["visible"] and m["label"] == f"Event {m['seq']}: Seat {m['seat']}, {m['mark']}" for m in marks)
            assert all(abs(m["at"] - (m["seq"] - 1) / (latest - 1)) < 1e-3 for m in marks), marks
            colours = {m["mark"]: m["colour"] for m in marks}
            assert len(set(colours.values())) == len(colours), colours  # one colour per severity
            summary = browser.find_elements(By.CSS_SELECTOR, "#analysis-seats tbody tr")
            assert len(summary) == 3
            # Home, then "Next mark": the slider stands at the first mark, which tells its move.
            browser.find_element(By.ID, "replay-slider").send_keys(Keys.HOME)
            wait_for(browser, lambda s: text("#replay-event").startswith(f"Event 1 of {latest}"), what="the first event")
            # "Next mark", mark by mark, until one whose moves are cards (its faces shown).
            card_marked = any(d["played"]["command"]["type"] == "play" for d in marked)
            for seq in sorted({d["seq"] for d in marked}):
                browser.find_element(By.ID, "mark-next").send_keys(Keys.ENTER)
                wait_for(browser, lambda s, seq=seq: text("#replay-event").startswith(f"Event {seq} of {latest}")
                         and s["seq"] == f"event {seq}", what=f"the mark at {seq}")
                here = [d for d in marked if d["seq"] == seq]
                moments = browser.find_elements(By.CSS_SELECTOR, "#analysis-moment .moment")
                assert len(moments) == len(here)
                for moment, d in zip(moments, here):
                    heading = moment.find_element(By.TAG_NAME, "h3").text
                    # One decimal, as the page rounds (JavaScript's toFixed need not round a half as Python does)
                    said = re.fullmatch(rf"Seat {d['seat']}: {d['mark']}, a loss of (-?[0-9.]+)", heading)
                    assert said and abs(float(said.group(1)) - d["loss"]) <= 0.051, heading
                    assert d["played"]["command"] != d["best"]["command"]
                    for row, move in (("played", d["played"]), ("better", d["best"])):
                        shown = moment.find_element(By.CSS_SELECTOR, f".{row}")
                        words = " ".join(shown.text.split())
                        value = re.search(r"expected (-?[0-9.]+)\)", words)
                        assert value and abs(float(value.group(1)) - move["value"]) <= 0.051, (row, words)
                        faces = shown.find_elements(By.CSS_SELECTOR, ".card[role=img]")
                        if move["command"]["type"] == "play":
                            assert [f.get_attribute("data-card") for f in faces] == [move["command"]["card"]], row
                            label = faces[0].get_attribute("aria-label")  # the face's own letters are decoration
                            assert words.startswith(f"{row.capitalize()}:") and f"Play {label} (expected" in words, words
                        else:
                            assert not faces and words.startswith(f"{row.capitalize()}: "), words
                assert "current" in browser.find_element(By.CSS_SELECTOR, f"#replay-marks li[data-seq='{seq}']").get_attribute("class")
                if any(d["played"]["command"]["type"] == "play" for d in here):
                    card_marked = False  # seen
                    break
            assert not card_marked, "a marked card was not reached"
            if AXE.exists():
                assert serious_violations(browser) == [], ("the replay with marks", px)
            if px:
                assert read(browser)["sideways"] <= 0, read(browser)["sideways"]
            shot = tmp_path / f"replay-{px or 'desktop'}.png"
            browser.execute_script("document.getElementById('replay').scrollIntoView()")
            browser.save_screenshot(str(shot))
            keep(shot, "replay-analysis-phone" if px else "replay-analysis")
        finally:
            if px:
                browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    no_script_errors(browser)
