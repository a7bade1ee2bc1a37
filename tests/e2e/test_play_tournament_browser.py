"""/play in headless Chromium: a tournament from the lobby to its standings (screenshot of the
standings as test_play_table_browser.py's)."""
from __future__ import annotations

import re

import pytest

from .page_checks import no_script_errors
from .play_page import api, click, keep, play_to_the_end, wait_for

pytestmark = pytest.mark.e2e


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
    # The page follows the tournament's stream (its first answer may come after the first fetch's).
    wait_for(browser, lambda s: browser.execute_script("return window.stichTournamentFollower.connections") >= 1,
             what="the tournament's stream")
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
    # The lobby names the tournament, not its id.
    browser.get(server["url"] + "/play")
    entry = f'#tournaments li[data-tournament="{tournament_id}"]'
    wait_for(browser, lambda s: browser.execute_script(f"return !!document.querySelector('{entry} a')"), what="the tournaments")
    listed = browser.find_element(By.CSS_SELECTOR, entry).text
    assert listed == "Schafkopf in the browser: Schafkopf, finished (you play) Standings", listed
    no_script_errors(browser)
