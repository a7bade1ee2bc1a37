"""The /play page as the browser tests read and drive it: one script reads what a person sees,
another each game's own parts; the API's view of the same seat says what they must be; a person's
moves (clicks and keys), whole games, the score sheet and the replay slider, and the checks every
test ends with (no request to another host, no script error)."""
from __future__ import annotations

import json
import os
import random
import secrets
import shutil
import time
import urllib.request
from pathlib import Path

from .card_names import COLOURS, SW_SUITS, counts, face, sk_game

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


# Everything a person sees that the tests check, read in one script so a re-render between
# two reads cannot mix two views.
READ_PAGE = """
const text = (sel) => { const e = document.querySelector(sel); return e ? e.textContent : null; };
const cards = (sel) => Array.from(document.querySelectorAll(sel), (e) => e.dataset.card);
return {
  phase: (document.querySelector('#phase') || {dataset: {}}).dataset.phase || null,
  turn: text('#turn'), seq: text('#seq'), final: text('#final'), connection: text('#connection'),
  hand: cards('#hand .fan .card'), legalCards: cards('#hand button.card.legal'),
  disabledCards: cards('#hand button.card:disabled'),
  moves: Array.from(document.querySelectorAll('#moves button.legal'), (e) => e.dataset.words || e.textContent),
  trick: cards('#trick .trick-cards:not([hidden]) .card'), mySeat: text('.seat.me'),
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
    """The token the page plays this game with: the seat's own, or for a seat taken as a player
    (which has none), the signed-in player's."""
    kept = json.loads(driver.execute_script(f"return localStorage.getItem('stich.seat.{game_id}')"))
    if kept["token"]:
        return kept["token"]
    return json.loads(driver.execute_script("return localStorage.getItem('stich.player')"))["token"]


# --------------------------------------------------------------------------- what each game shows

# The game's own parts of the table, as text a person reads, in one script.
READ_PARTS = """
const text = (sel) => { const e = document.querySelector(sel); return e ? e.textContent : null; };
const texts = (sel) => Array.from(document.querySelectorAll(sel), (e) => e.textContent);
const perSeat = (sel) => Array.from(document.querySelectorAll('#seats .seat'))
  .sort((a, b) => Number(a.dataset.seat) - Number(b.dataset.seat)).map((s) => {
    const e = s.querySelector(sel); return e ? e.textContent : null; });
const called = document.querySelector('#called-ace .card');
return {
  seq: text('#seq'), hand: Array.from(document.querySelectorAll('#hand .fan .card'), (e) => e.dataset.card),
  legalCards: Array.from(document.querySelectorAll('#hand button.card.legal'), (e) => e.dataset.card),
  cupboard: text('#cupboard'), collections: perSeat('.collection'), predictions: perSeat('.prediction'),
  bids: texts('#bids li'), trumps: text('#trumps'),
  trumpOrder: Array.from(document.querySelectorAll('#trump-order .card'), (e) => e.dataset.card),
  announcements: texts('#announcements li'), naming: texts('#naming li'), declared: text('#declared'),
  calledAce: called ? [called.dataset.card, called.getAttribute('aria-label')] : null,
  stoss: texts('#stoss li'), auction: text('#auction'), auctionBids: texts('#auction-bids li'),
};
"""


def hand_order(game: str, state: dict, cards: list[str]) -> list[str]:
    """The hand as the game ranks it, trumps first, best first, from the domain's own orders
    (the page sorts it itself: this is the check that it sorts as the rules rank)."""
    if game == "schafkopf":
        from domain.schafkopf.game_types import order

        declared = state.get("declared") or {}
        ranked = order(declared.get("game") or "rufspiel", declared.get("suit"))
        key = {card: (0, ranked.trumps.index(card), 0) if ranked.is_trump(card)
               else (1, "EGHS".index(card[0]), ranked.plain_ranks.index(card[1:])) for card in cards}
    elif game == "scharwenzel":
        from domain.scharwenzel.cards import PERMANENT, RANKS, SUITS, deck

        trumps = state["trumps"]["order"] if state.get("trumps") else PERMANENT
        key = {card: (1, SUITS.index(card[-1]), RANKS.index(card[:-1])) for card in deck(6) + deck(4)}
        key.update({card: (0, i, 0) for i, card in enumerate(trumps)})
    else:
        ranking = state.get("ranking") or list("RGYB")
        supers = state.get("super_trumps") or []
        key = {card: (0, ranking.index(card[0]), 0) if card in supers else (1, ranking.index(card[0]), -int(card[1:]))
               for card in cards}
    return sorted(cards, key=key.__getitem__)


def expected_parts(game: str, view: dict) -> dict:
    """What the page must show of ``view`` (GET /view for the same seat), in the page's words."""
    s = view["game_state"] or {}
    hand = hand_order(game, s, s.get("hand") or [])
    legal = [c["card"] for c in view.get("legal") or [] if c["type"] == "play"]
    legal.sort(key=hand.index)  # highlighted in the hand, in the hand's order
    out = {"seq": f"event {view['seq']}", "hand": hand, "legalCards": legal}
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
    got = {key: shown[key] for key in expected}
    assert got == expected, {key: (got[key], value) for key, value in expected.items() if got[key] != value}
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


# Where an element can be clicked (the page's topmost element there is it, or inside it): an
# offset from its centre, as Selenium's actions take it; null where it is wholly covered.
VISIBLE_POINT = """
const el = arguments[0];
el.scrollIntoView({block: 'nearest'});
const r = el.getBoundingClientRect();
for (const fy of [0.5, 0.35, 0.65]) {
  for (const fx of [0.5, 0.35, 0.2, 0.1, 0.65, 0.8, 0.9]) {
    const x = r.left + r.width * fx, y = r.top + r.height * fy;
    const hit = document.elementFromPoint(x, y);
    if (hit && (hit === el || el.contains(hit))) return [Math.round(x - r.left - r.width / 2), Math.round(y - r.top - r.height / 2)];
  }
}
return null;
"""


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
                    offset = driver.execute_script(VISIBLE_POINT, element) if "card" in classes else None
                    if offset:
                        # A fanned card lies under its right-hand neighbour: a person clicks where it shows.
                        from selenium.webdriver.common.action_chains import ActionChains

                        ActionChains(driver).move_to_element_with_offset(element, *offset).click().perform()
                    else:
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
    assert state["mySeat"].startswith("Seat 0 (you")  # "(you)", or "(you, <handle>)" when signed in as a player
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
        # While a card is to be played only the legal cards are highlighted and enabled, the rest
        # dimmed; in any other call (announcing, bidding, predicting) no card is dimmed.
        assert set(state["legalCards"]) <= set(state["hand"])
        if state["legalCards"]:
            assert set(state["legalCards"]) | set(state["disabledCards"]) == set(state["hand"])
        else:
            assert state["disabledCards"] == [], state
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
            # (or the deal to end with it: the next deal may hand the same card out again)
            wait_for(driver, lambda s: label not in s["hand"] or s["phase"] != state["phase"],
                     what=f"{label} to leave the hand")
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
    if summary["game"] == "schafkopf":
        # The money list: each deal's game in words beside its payments; that column is empty below.
        assert rows["Total"][0] == rows["Place"][0] == "", rows
        rows["Total"].pop(0), rows["Place"].pop(0)
        lines = api(server, f"/v1/games/{game_id}/view")["game_state"]["deal_results"]
        assert len(lines) == len(summary["scores"]["deals"]) >= 1, summary["scores"]
        for i, line in enumerate(lines):
            words, *paid = rows[f"Deal {i + 1}"]
            assert paid == [str(p) for p in summary["scores"]["deals"][i]], (words, paid)
            assert (words == "thrown in") if line["game"] is None else (" won" in words or " lost" in words), (words, line)
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
    # It opens at the first deal's beginning, that event marked in the list of moves beside the slider.
    dealt = next(e["seq"] for e in events if e["type"] == "HandsDealt")
    wait_for(driver, lambda s: caption().startswith(f"Event {dealt} of {latest}: Cards dealt"), what="the deal's beginning")
    current = driver.find_elements(By.CSS_SELECTOR, "#replay-moves li.current button[aria-current=step]")
    assert [c.text for c in current] == ["Cards dealt (deal 1)"], [c.text for c in current]
    assert len(driver.find_elements(By.CSS_SELECTOR, "#replay-moves li")) == len(events)
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
