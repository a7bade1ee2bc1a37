"""/play's page and its layout: every file comes from this server (no browser needed); the seats
sit around the felt and the trick is gathered unless prefers-reduced-motion (headless Chromium).
"""
from __future__ import annotations

import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from .play_page import ApiTable

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
