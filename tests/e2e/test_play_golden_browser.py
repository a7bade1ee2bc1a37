"""/play's table as golden images: each game's table in a call and in the middle of a trick, at a
desktop's and a phone's size, drawn by the page's own renderTable from a recorded view and
compared pixel by pixel with the picture kept in tests/fixtures/golden/, within a tolerance.

The layout tests measure boxes; this catches what boxes do not: a colour, a face, a badge or a
font that changed. A change meant to change the look makes new pictures:

    STICH_UPDATE_GOLDEN=1 python -m pytest -n 0 tests/e2e/test_play_golden_browser.py

which also records the views (tests/fixtures/golden/*.json) where they are missing, from games
played through the API. Look at the new pictures before committing them.
"""
from __future__ import annotations

import io
import json
import os
import random
from pathlib import Path

import pytest

from .page_checks import no_script_errors
from .play_layout import SETTLE, HumanTable

pytestmark = pytest.mark.e2e

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "golden"
UPDATE = os.environ.get("STICH_UPDATE_GOLDEN") == "1"
SIZES = [(1280, 800), (390, 844)]
# A pixel differs where a channel moves by more than this; a picture, where more than this share
# of its pixels differ (a badge in another colour is about 0.1%, a line of text reflowed several
# percent; the same page drawn twice differs by nothing here).
CHANNEL, SHARE = 24, 0.0003

# Which table, and the moment recorded: seat 0 to choose a call, or to play into a trick.
TABLES = {
    "schafkopf": (4, {"deals": 1}), "scharwenzel": (4, {"deals": 1}), "scharfe-schoten": (3, {"rounds": 1})}


def choosing_a_call(view) -> bool:
    return bool(view["legal"]) and all(c["type"] != "play" for c in view["legal"])


def playing_into_a_trick(view) -> bool:
    state = view["game_state"] or {}
    return any(c["type"] == "play" for c in view["legal"]) and bool((state.get("current_trick") or {}).get("plays"))


MOMENTS = {"call": choosing_a_call, "trick": playing_into_a_trick}

# The page's own renderer, as at the table (onCommand given, so the calls and the cards to play
# show as buttons), on the page's own stylesheet; nothing moves (reduced motion).
DRAW = """
const [view, done] = arguments;
import('/play/assets/table.js').then(({ renderTable }) => {
  document.body.dataset.screen = 'game';
  document.title = 'golden';
  document.getElementById('main').replaceChildren(renderTable(view, { onCommand: () => {} }));
  document.activeElement && document.activeElement.blur();
  requestAnimationFrame(() => requestAnimationFrame(() => done(true)));
}, (error) => done(String(error)));
"""


def recorded(server, game: str, moment: str) -> dict:
    path = GOLDEN / f"{game}-{moment}.json"
    if path.exists():
        return json.loads(path.read_text())
    if not UPDATE:
        pytest.fail(f"{path} is missing: make it with STICH_UPDATE_GOLDEN=1 (see this module's docstring)")
    players, rules = TABLES[game]
    view = HumanTable(server, game, players, rules).until(random.Random(41), MOMENTS[moment])
    view.pop("id", None)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(view, indent=1, sort_keys=True) + "\n")
    return view


def steady(browser):
    """The screen once two pictures in a row agree (the card faces are painted, fonts laid out)."""
    from PIL import Image

    last = None
    for _ in range(10):
        browser.execute_async_script(SETTLE)
        shot = browser.get_screenshot_as_png()
        if shot == last:
            break
        last = shot
    return Image.open(io.BytesIO(last))


def differing(expected, actual) -> float:
    """The share of pixels whose colour moved by more than CHANNEL in any channel."""
    from PIL import ImageChops

    if expected.size != actual.size:
        return 1.0
    delta = ImageChops.difference(expected.convert("RGB"), actual.convert("RGB"))
    channels = [band.point(lambda v: 255 if v > CHANNEL else 0) for band in delta.split()]
    mask = ImageChops.lighter(ImageChops.lighter(channels[0], channels[1]), channels[2])
    return mask.histogram()[255] / (mask.size[0] * mask.size[1])


@pytest.mark.parametrize("moment", list(MOMENTS))
@pytest.mark.parametrize("game", list(TABLES))
def test_the_table_looks_as_it_did(browser, server, tmp_path, game, moment):
    from PIL import Image

    view = recorded(server, game, moment)
    browser.get_log("browser")
    browser.get(server["url"] + "/play")
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
    changed = []
    try:
        for width, height in SIZES:
            browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
            assert browser.execute_async_script(DRAW, view) is True
            actual = steady(browser)
            assert actual.size == (width, height), actual.size
            path = GOLDEN / f"{game}-{moment}-{width}x{height}.png"
            if UPDATE:
                actual.save(path, optimize=True)
                continue
            assert path.exists(), f"{path} is missing: make it with STICH_UPDATE_GOLDEN=1"
            share = differing(Image.open(path), actual)
            if share > SHARE:
                kept = tmp_path / path.name
                actual.save(kept)
                changed.append(f"{path.name}: {share:.2%} of the pixels differ (the new picture: {kept})")
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    assert not changed, "the table looks different; if that is meant, STICH_UPDATE_GOLDEN=1 makes new pictures:\n" + "\n".join(changed)
    no_script_errors(browser)
