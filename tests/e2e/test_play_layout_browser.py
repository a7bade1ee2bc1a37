"""/play's page and its layout: every file comes from this server (no browser needed); the seats
sit around the felt and the trick is gathered unless prefers-reduced-motion (headless Chromium);
the table fits four screens from a desktop to a small phone in each game's phases, nothing
overlapping (play_layout.py measures it).
"""
from __future__ import annotations

import random
import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from .play_layout import HumanTable, fits
from .page_checks import no_script_errors
from .play_page import ApiTable, api, read, sit_in_browser, wait_for

GAME_NAMES = {"schafkopf": "Schafkopf", "scharwenzel": "Scharwenzel", "scharfe-schoten": "Scharfe Schoten"}

pytestmark = pytest.mark.e2e


CLIENT = Path(__file__).resolve().parents[2] / "api" / "client"


def test_the_page_and_its_files_come_from_this_server_and_nothing_else(server):
    """No browser needed: the page loads only /play/assets files, which exist; other names are 404."""
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


# A table drawn by the page's own renderTable, put on the page, and read as a person sees it.
RENDER_ON_PAGE = """
const [view, done] = arguments;
import('/play/assets/table.js').then(({ renderTable }) => {
  const main = document.getElementById('main');
  document.body.dataset.screen = 'game';  // as at the table: the felt fills the screen
  main.replaceChildren(renderTable(view, {}));
  const side = (seat) => { const e = document.querySelector(`#seats .seat[data-seat="${seat}"]`); return e.parentElement.id || e.parentElement.className; };
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
    """Seat 2 of four sees itself at the bottom (its plate by its hand), seat 3 on the left, 0 across, 1 on the right;
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
    assert shown["sides"] == ["side side-top", "side side-right", "hand", "side side-left"], shown
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


# --------------------------------------------------------------------------- the table on every screen

def choosing_a_call(view) -> bool:
    return bool(view["legal"]) and all(c["type"] != "play" for c in view["legal"])


def naming_a_game(view) -> bool:
    """Schafkopf: seat 0 said "Ich spiele" and chooses among its games (up to sixteen calls)."""
    return any(c["type"] == "name_game" for c in view["legal"])


def playing_into_a_trick(view) -> bool:
    """Seat 0 to play a card onto a trick begun, with a trick taken before it (the last trick's button)."""
    state = view["game_state"] or {}
    return (any(c["type"] == "play" for c in view["legal"]) and bool((state.get("current_trick") or {}).get("plays"))
            and bool((state.get("last_trick") or {}).get("plays")))


def finished(view) -> bool:
    return view["status"] == "finished"


@pytest.mark.parametrize("game, players, rules", [
    ("schafkopf", 4, {"deals": 1}), ("scharwenzel", 4, {"deals": 1}), ("scharwenzel", 8, {"deals": 1}),
    ("scharfe-schoten", 3, {"rounds": 1})])
def test_the_table_fits_every_screen_in_every_phase(browser, server, game, players, rules):
    """Seat 0's table while it chooses a call (announcing, bidding, predicting; in Schafkopf
    also naming its game, the most calls at once), while it plays
    into a trick (and looks at the last one taken again), and at the end (every hand shown), at
    1280×800, 1440×900, 390×844 and 360×640: see ``fits``. Cards are large: a desktop's hand
    card at least 90 px wide, a phone's 50 px."""
    from selenium.webdriver.common.by import By

    browser.get_log("browser")
    rng = random.Random(38)
    table = HumanTable(server, game, players, rules)
    sit_in_browser(browser, server, table.id, 0, table.tokens[0])
    phases = [("choosing a call", choosing_a_call), ("playing into a trick", playing_into_a_trick), ("the end", finished)]
    if game == "schafkopf":
        phases.insert(1, ("naming a game", naming_a_game))
    for what, reached in phases:
        view = table.until(rng, reached)
        wait_for(browser, lambda s, seq=view["seq"]: s["seq"] == f"event {seq}", what=f"{game}: {what}")
        seen = fits(browser, f"{game}, {what}")
        if what != "the end":
            assert seen[(1280, 800)]["cardWidth"] >= 90 and seen[(360, 640)]["cardWidth"] >= 50, seen
            assert seen[(1280, 800)]["hand"] == len(view["game_state"]["hand"])
        if what == "playing into a trick":
            # "Last trick" shows the trick taken before, in place of the one being played, and back.
            last = [p["card"] for p in view["game_state"]["last_trick"]["plays"]]
            now = [p["card"] for p in view["game_state"]["current_trick"]["plays"]]
            browser.find_element(By.CSS_SELECTOR, "#trick button.peek").click()
            peeked = read(browser)
            assert peeked["trick"] == last and browser.find_element(By.ID, "trick-caption").text.startswith("Last trick: "), peeked
            assert fits(browser, f"{game}, the last trick again")
            browser.find_element(By.CSS_SELECTOR, "#trick button.peek").click()
            assert read(browser)["trick"] == now
    if game == "scharwenzel":
        # The sheet as the rulebook draws it, from seat 0's side: "Us" (even seats) and "You".
        sides = view["scores"]["sides"]
        rows = browser.execute_script("""return Array.from(document.querySelectorAll('#side-sheet tr'),
          (r) => Array.from(r.children, (c) => c.textContent));""")
        assert rows[0][1:] == ["Us (side 0, even seats)", "You (side 1, odd seats)"], rows
        assert rows[2][1:] == [f"{'|' * n} {n}" for n in sides["threads"]], rows
        assert rows[3][1:] == [f"{'┐' * n} {n}" for n in sides["hooks"]], rows
        assert rows[4][1:] == [str(n) for n in sides["total_threads"]], rows
    if game == "scharfe-schoten":
        # Each seat's prediction tile beside its collection, the colours in the round's ranking.
        state = view["game_state"]
        rows = browser.execute_script("""return Array.from(document.querySelectorAll('#collection-sheet tr'),
          (r) => Array.from(r.children, (c) => c.textContent));""")
        names = {"R": "Red", "G": "Green", "Y": "Yellow", "B": "Black"}
        assert rows[0] == ["", "Prediction", *(names[c] for c in state["ranking"])], rows
        assert rows[1:] == [[f"Seat {seat}", f"most {names[p['most']]}, fewest {names[p['fewest']]}",
                             *(str(counts.get(c, 0)) for c in state["ranking"])]
                            for seat, (p, counts) in enumerate(zip(state["predictions"], state["collections"]))], rows
    assert browser.title.startswith(GAME_NAMES[game]) and table.id not in browser.title, browser.title
    no_script_errors(browser)
