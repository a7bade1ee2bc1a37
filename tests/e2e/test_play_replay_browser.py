"""/play in headless Chromium: a finished game's replay asks for its analysis and marks each seat's
mistakes on the slider, at a desktop's width and at 360 px (screenshots as test_play_table_browser.py's).
"""
from __future__ import annotations

import re
import time

import pytest

from .page_checks import AXE, no_script_errors, serious_violations
from .play_page import api, keep, read, wait_for

pytestmark = pytest.mark.e2e


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
    by severity, named in text, and on the list of moves); "Next mark" moves the slider to a mark,
    where the move played and the better one are shown with their card faces and the loss, each
    value with its unit and a line saying what it is; past the last mark it says so. The same at 360 px (the
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
            wait_for(browser, lambda s: s["phase"] and browser.find_elements(By.ID, "analysis-status")
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
                    # The loss with its spread (the standard error over the sampled deals), or "exact".
                    said = re.fullmatch(rf"Seat {d['seat']}: {d['mark']}, a loss of (-?[0-9.]+)"
                                        rf"(?: ± ([0-9.]+) points| points \(exact\))", heading)
                    assert said and abs(float(said.group(1)) - d["loss"]) <= 0.051, heading
                    assert d["exact"] if said.group(2) is None else abs(float(said.group(2)) - d["loss_spread"]) <= 0.051
                    assert d["played"]["command"] != d["best"]["command"]
                    for row, move in (("played", d["played"]), ("better", d["best"])):
                        shown = moment.find_element(By.CSS_SELECTOR, f".{row}")
                        words = " ".join(shown.text.split())
                        value = re.search(r"expected (-?[0-9.]+)(?: ± [0-9.]+)? points(?: \(exact\))?\)", words)  # with its unit
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
            # Every value has its unit and a line saying what it means; the list of moves marks the same moves.
            assert text("#analysis-seats thead").endswith("Average loss (points)"), text("#analysis-seats thead")
            assert "points of the round" in text("#analysis .explain")
            assert all("points" in e.text for e in browser.find_elements(By.CSS_SELECTOR, "#analysis-moment .explain"))
            listed = browser.execute_script("return Array.from(document.querySelectorAll('#replay-moves li.mark'), (e) => Number(e.value))")
            assert listed == sorted({d["seq"] for d in marked}), listed
            # Past the last mark "Next mark" says so, and the slider stays.
            browser.find_element(By.ID, "replay-slider").send_keys(Keys.END)
            wait_for(browser, lambda s: text("#replay-event").startswith(f"Event {latest} of {latest}"), what="the last event")
            browser.find_element(By.ID, "mark-next").send_keys(Keys.ENTER)
            wait_for(browser, lambda s: text("#mark-feedback") == "No later mark: this is the last.", what="the end's feedback")
            assert text("#replay-event").startswith(f"Event {latest} of {latest}")
            if AXE.exists():
                assert serious_violations(browser) == [], ("the replay with marks", px)
            if px:
                assert read(browser)["sideways"] <= 0, read(browser)["sideways"]
                # The marks table fits the phone: its region does not scroll sideways either.
                cut = browser.execute_script("const r = document.getElementById('analysis-seats').parentElement;"
                                             " return r.scrollWidth - r.clientWidth")
                assert cut <= 0, f"the marks table is cut off by {cut} px"
            shot = tmp_path / f"replay-{px or 'desktop'}.png"
            browser.execute_script("document.getElementById('replay').scrollIntoView()")
            browser.save_screenshot(str(shot))
            keep(shot, "replay-analysis-phone" if px else "replay-analysis")
        finally:
            if px:
                browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    no_script_errors(browser)
