"""The checks every browser test ends with: nothing loaded from another host, no script error but
the refusals a test provoked, and axe-core's serious or critical findings (pinned in package.json)."""
from __future__ import annotations

from pathlib import Path


def only_this_server(driver, server) -> None:
    """Every file and request the page loaded came from the server itself (no CDN, no font service)."""
    loaded = driver.execute_script("return performance.getEntriesByType('resource').map((e) => e.name)")
    assert loaded and all(url.startswith(server["url"] + "/") for url in loaded), loaded


def no_script_errors(driver, refusals=()) -> None:
    """No error in the console but the refusals a test provoked on purpose: (path, status) pairs,
    for which Chromium logs every 4xx answer (a taken handle's 409, say)."""
    errors = [entry for entry in driver.get_log("browser")
              if entry["level"] == "SEVERE" and not answered_stale(entry) and not refused(entry, refusals)]
    assert not errors, errors


def refused(entry: dict, refusals) -> bool:
    return entry.get("source") == "network" and any(
        f"{path} " in entry["message"] and f"status of {status} " in entry["message"] for path, status in refusals)


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
