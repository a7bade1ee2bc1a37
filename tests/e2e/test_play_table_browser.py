"""/play in headless Chromium against a real `stich serve`: playing at the table.

Each whole-game test creates a game in the lobby with the shortest rules, plays the person's seat
to the end by clicking the highlighted legal moves (the first two by keyboard only), and checks
what a person sees: the hand, the trick, the phase, whose turn it is, card faces that name suit
and rank in text, each game's own parts (Scharfe Schoten's cupboard, collections and predictions;
Scharwenzel's bids and trumps; Schafkopf's announcements, declared game, called Ace and Stoß),
compared at every turn with the API's view of the same seat, the final score sheet; then the
replay slider steps through the finished game. Each whole game runs at a desktop's width and at
360 px (Chromium's device emulation), never scrolling sideways; screenshots of each table (desktop
and phone) go to the test's temporary folder, and to docs/screenshots/ when
STICH_UPDATE_SCREENSHOTS=1. Other tests resume a dropped stream and keep the seat over a reload,
take a seat from the lobby's list of open games, watch a running game without a seat (a Schafkopf
auction, tricks, a called Ace and a Stoß, the seats moved through the API), and render the
Schafkopf house rules' state (Hochzeit, swap, Schieberrunde, naming mode) in words.

The browser (one per test session) and what it needs are in conftest.py; the page's helpers in
play_page.py.
"""
from __future__ import annotations

import re

import pytest

from .card_names import SK_SUITS, sk_game
from .page_checks import no_script_errors, only_this_server
from .play_page import (
    READ_PARTS,
    ApiTable,
    api,
    card_faces_name_suit_and_rank,
    check_the_end,
    check_the_replay,
    click,
    create_in_lobby,
    keep,
    play_to_the_end,
    read,
    shows_what_the_api_shows,
    token_of,
    wait_for,
)

pytestmark = pytest.mark.e2e


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
    # Back in the lobby, "Your games" leads back to the table; a game the server does not know
    # (kept in this browser from elsewhere) is forgotten, not shown.
    from selenium.webdriver.common.by import By

    browser.execute_script(FOREIGN_SEAT)
    browser.get(server["url"] + "/play")
    mine = f'#your-games li[data-game="{game_id}"]'
    wait_for(browser, lambda s: browser.execute_script(f"return !!document.querySelector('{mine} a')"), what="your games")
    wait_for(browser, lambda s: browser.execute_script("return !localStorage.getItem('stich.seat.g000000000000000')"),
             what="the unknown game forgotten")
    browser.get_log("browser")  # its 404, which the console notes
    assert browser.find_element(By.CSS_SELECTOR, mine).text == "Scharfe Schoten, 3 players, Seat 1: in play Resume"
    assert not browser.find_elements(By.CSS_SELECTOR, '#your-games li[data-game="g000000000000000"]')
    assert click(browser, f"{mine} a") == "Resume"
    wait_for(browser, lambda s: s["hand"] and browser.current_url.endswith(f"#game/{game_id}"), what="the table again")
    no_script_errors(browser)


FOREIGN_SEAT = """
localStorage.setItem('stich.seat.g000000000000000', JSON.stringify({seat: 0, token: 'x'}));
localStorage.setItem('stich.seats', JSON.stringify([...JSON.parse(localStorage.getItem('stich.seats')), 'g000000000000000']));
"""


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
