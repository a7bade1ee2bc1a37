"""/play fits every screen in the phases the house rules add, and the cupboard's: Schafkopf's
Doppeln, the auction, the Hochzeit's exchange, the Schieberrunde's call and its push, and
Scharfe Schoten's taking from the cupboard (``fits``: the hand and every call inside the
viewport, nothing overlapping, at 1280×800, 1440×900, 390×844 and 360×640).

Each table is driven through the API by a script that steers it into the phase (preset deals
where a phase needs particular cards); the browser sits at seat 0, which acts in the phase.
"""
from __future__ import annotations

import random

import pytest

from .page_checks import no_script_errors
from .play_layout import HumanTable, fits
from .play_page import click, sit_in_browser, wait_for

pytestmark = pytest.mark.e2e

DECK = [suit + rank for suit in "EGHS" for rank in ("7", "8", "9", "10", "U", "O", "K", "A")]
BAND = ("solo", "wenz", "farbwenz", "geier", "farbgeier")


def preset(dealer: int, **held: list[str]) -> dict:
    """A deal in which the named seats (``seat0=[...]``) hold these cards and the rest is dealt
    in deck order; the dealer is fixed, so seat 0 is Vorhand when the dealer is seat 3."""
    hands = {int(name[4:]): list(cards) for name, cards in held.items()}
    rest = [c for c in DECK if not any(c in cards for cards in hands.values())]
    for seat in range(4):
        while len(hands.setdefault(seat, [])) < 8:
            hands[seat].append(rest.pop(0))
    return {"hands": [hands[seat] for seat in range(4)], "dealer": dealer}


def phase(name: str):
    """Seat 0 to act in this phase of Schafkopf."""
    return lambda view: (view["game_state"] or {}).get("phase") == name and bool(view["legal"])


def named(seat, view, choose):
    names = [c for c in view["legal"] if c["type"] == "name_game" and choose(c)]
    return names[0] if names else None


def auction_script(seat, view):
    """Seats 0 and 1 both want to play a band game; seat 1 then bids, so seat 0 must answer."""
    legal, kind = view["legal"], (view["game_state"] or {}).get("phase")
    if kind == "announce":
        return {"type": "announce", "intent": "play" if seat in (0, 1) else "pass"}
    if kind == "naming":
        return named(seat, view, lambda c: c["game"] in BAND)
    if kind == "auction" and seat != 0:
        bids = [c for c in legal if c["type"] == "bid"]
        return bids[0] if bids else None
    return None


def hochzeit_script(seat, view):
    """Seat 1 (one trump) offers a Hochzeit and seat 0 takes it, so seat 0 gives a card."""
    kind = (view["game_state"] or {}).get("phase")
    if kind == "announce":
        offer = {"type": "announce", "intent": "hochzeit"}
        if seat == 1 and offer in view["legal"]:
            return offer
        return {"type": "announce", "intent": "play" if seat == 0 else "pass"}
    if kind == "naming" and seat == 0:
        return named(seat, view, lambda c: c["game"] == "hochzeit")
    return None


def schieber_script(seat, view):
    """Seat 0 wins a Herz-Solo with every Ober and Unter (so the next deal is a Schieberrunde),
    then, Vorhand in it, says "Ich spiele" and pushes."""
    kind = (view["game_state"] or {}).get("phase")
    if kind == "naming" and seat == 0:
        return named(seat, view, lambda c: c["game"] == "solo" and c.get("suit") == "H")
    if kind == "schieber" and seat == 0:
        return {"type": "schieber", "play": True}
    return None


ALL_OBERS_AND_UNTERS = ["EO", "GO", "HO", "SO", "EU", "GU", "HU", "SU"]

TABLES = {
    "Doppeln": ({"doppeln": "all", "deals": 1}, None, None, [("doubling", phase("doppeln"))]),
    "the auction": ({"auction": True, "deals": 1}, [preset(3)], auction_script, [("bidding", phase("auction"))]),
    "the Hochzeit": ({"hochzeit": True, "deals": 1},
                     [preset(3, seat1=["H7", "EA", "E10", "EK", "GA", "G10", "SA", "S10"],
                             seat0=["EO", "GO", "HO", "SO", "EU", "E9", "G9", "S9"])],
                     hochzeit_script, [("giving a card", phase("exchange"))]),
    "the Schieberrunde": ({"schieberrunde": True, "deals": 2}, [preset(2, seat0=ALL_OBERS_AND_UNTERS)], schieber_script,
                          [("its call", phase("schieber")), ("pushing two cards", phase("push"))]),
}


@pytest.mark.parametrize("rule", list(TABLES))
def test_schafkopf_fits_every_screen_in_the_house_rules_phases(browser, server, rule):
    rules, presets, script, phases = TABLES[rule]
    browser.get_log("browser")
    rng = random.Random(39)
    table = HumanTable(server, "schafkopf", 4, rules, presets=presets, script=script)
    sit_in_browser(browser, server, table.id, 0, table.tokens[0])
    for what, reached in phases:
        view = table.until(rng, reached)
        wait_for(browser, lambda s, seq=view["seq"]: s["seq"] == f"event {seq}", what=f"{rule}: {what}")
        seen = fits(browser, f"schafkopf with {rule}, {what}")
        assert seen[(1280, 800)]["hand"] == len(view["game_state"]["hand"]), seen
    if rule == "the Schieberrunde":
        push_two_cards(browser, table, view)
    no_script_errors(browser)


def push_two_cards(browser, table, view):
    """Two cards picked in the hand (a third pick replaces the first), the one button passes them
    on, and the push the server records is of those two cards to the next seat."""
    from selenium.webdriver.common.by import By

    pushes = [c for c in view["legal"] if c["type"] == "push"]
    cards = browser.find_elements(By.CSS_SELECTOR, "#hand .fan button.card")
    assert len(cards) == len(view["game_state"]["hand"]) == 10 and len(pushes) == 45, (len(cards), len(pushes))
    assert browser.find_elements(By.CSS_SELECTOR, "#moves button.legal") == []  # nothing to press before the pick
    for element in cards[:3]:
        click(browser, "#hand .fan button.card", element.get_attribute("data-card"))
    picked = [c.get_attribute("data-card") for c in cards if c.get_attribute("aria-pressed") == "true"]
    assert picked == [cards[1].get_attribute("data-card"), cards[2].get_attribute("data-card")], picked
    fits(browser, "schafkopf with the Schieberrunde, two cards picked")
    buttons = browser.find_elements(By.CSS_SELECTOR, "#moves button.legal")
    assert len(buttons) == 1 and buttons[0].text.startswith("Pass on "), [b.text for b in buttons]
    buttons[0].click()
    wait_for(browser, lambda s: s["seq"] != f"event {view['seq']}", what="the push")
    after = table.view(0)
    pushed = after["game_state"]["schieberrunde"]["pushes"][0]
    assert (pushed["from"], pushed["to"], sorted(pushed["cards"])) == (0, 1, sorted(picked)), pushed
    assert not set(picked) & set(after["game_state"]["hand"])


def highest_card_for_seat_0(seat, view):
    """Seat 0 plays its highest card, so that it wins a trick while the cupboard still holds cards."""
    cards = [c for c in view["legal"] if c["type"] == "play"]
    return max(cards, key=lambda c: int(c["card"][1:])) if seat == 0 and cards else None


def test_scharfe_schoten_fits_every_screen_while_a_seat_takes_from_the_cupboard(browser, server):
    """After a trick its winner takes a card of a colour from the cupboard: seat 0 here, whose
    four colours to take stand in one row (on a phone, four rows of words pushed the hand off)."""
    browser.get_log("browser")
    rng = random.Random(40)
    table = HumanTable(server, "scharfe-schoten", 3, {"rounds": 1}, script=highest_card_for_seat_0)
    sit_in_browser(browser, server, table.id, 0, table.tokens[0])
    view = table.until(rng, lambda v: (v["game_state"] or {}).get("phase") == "taking"
                       and any(c["type"] == "take" for c in v["legal"]))
    wait_for(browser, lambda s, seq=view["seq"]: s["seq"] == f"event {seq}", what="the cupboard")
    fits(browser, "scharfe-schoten, taking from the cupboard")
    no_script_errors(browser)
