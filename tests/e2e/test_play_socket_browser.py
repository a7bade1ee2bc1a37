"""/play's transports in headless Chromium against a real `stich serve`: a table plays over the
page's one WebSocket (GET /v1/socket), resuming after a dropped socket from the last seq, with no
POST of a command, and a move refused on the socket comes back as the POST's refusal; behind a proxy that refuses the upgrade (refusing_proxy.py) it plays over the
SSE stream and POST, from the start or from the moment the socket is lost for good mid-game.

What the page really sent is recorded by a script the test puts in front of the page's own
(every fetch with its method, every WebSocket opened), not by the page's code; the server's
open-streams gauge says a subscription of the socket follows the game.
"""
from __future__ import annotations

import json
import re
import secrets
import urllib.error
import urllib.request

import pytest

from .page_checks import answered_stale, no_script_errors, only_this_server
from .play_page import api, check_the_end, create_in_lobby, play_to_the_end, read, token_of, wait_for
from .refusing_proxy import RefusingProxy

pytestmark = pytest.mark.e2e

# Runs before the page's scripts on every document: records each fetch (method, path) and each
# WebSocket opened (its URL), so the test sees what went over which transport.
RECORDER = """
window.seen = { fetches: [], sockets: [] };
const pageFetch = window.fetch;
window.fetch = function (input, init) {
  window.seen.fetches.push([((init && init.method) || 'GET').toUpperCase(), new URL(String(input), location.href).pathname]);
  return pageFetch.apply(this, arguments);
};
const PageWebSocket = window.WebSocket;
window.WebSocket = class extends PageWebSocket {
  constructor(url, protocols) { super(url, protocols); window.seen.sockets.push(String(url)); }
};
"""


@pytest.fixture
def recorded(browser):
    """The recorder in front of every page this test opens."""
    added = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORDER})
    yield browser
    browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": added["identifier"]})


@pytest.fixture
def proxy(server):
    """The server behind a proxy that refuses WebSocket upgrades (until told otherwise)."""
    front = RefusingProxy(int(server["url"].rsplit(":", 1)[1]))
    yield front
    front.close()


def seen(browser) -> dict:
    return browser.execute_script("return window.seen")


def transport(browser) -> str | None:
    return browser.execute_script("const e = document.getElementById('connection'); return e && e.dataset.transport")


def commands_posted(browser, game_id: str) -> int:
    return sum(1 for method, path in seen(browser)["fetches"]
               if method == "POST" and path == f"/v1/games/{game_id}/commands")


def open_streams(server, kind: str) -> float:
    with urllib.request.urlopen(server["url"] + "/metrics", timeout=10) as response:
        text = response.read().decode()
    found = re.search(rf'^stich_open_streams\{{kind="{kind}"\}} ([0-9.e+]+)$', text, re.M)
    return float(found.group(1)) if found else 0.0


def log_is_whole(browser, server, game_id: str) -> None:
    """The events in words: every seq from the first shown to the game's last, none twice."""
    seqs = [seq for seq, _ in read(browser)["log"]]
    last = api(server, f"/v1/games/{game_id}")["seq"]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))) and seqs[-1] == last, (seqs, last)


# A move sent the way the table sends it; what came back.
SEND = """
const [seq, command, done] = arguments;
window.stichFollower.send(seq, command).then((body) => done({status: 200, body}),
  (error) => done({status: error.status, code: error.problem.code, detail: error.problem.detail}));
"""


def posted(server, game_id: str, token: str, seq: int, command: dict) -> dict:
    """The same move POSTed: its status, and its problem's code and detail."""
    request = urllib.request.Request(f"{server['url']}/v1/games/{game_id}/commands", method="POST",
                                     data=json.dumps(command).encode(),
                                     headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}",
                                              "If-Match": f'"{seq}"', "Idempotency-Key": secrets.token_hex(16)})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return {"status": response.status, "body": json.load(response)}
    except urllib.error.HTTPError as exc:
        problem = json.load(exc)
        return {"status": exc.code, "code": problem["code"], "detail": problem["detail"]}


def refused_socket_errors(browser) -> list:
    """The console's errors but Chromium's word that the refused socket could not open (and a 412
    of a command, page_checks.answered_stale)."""
    return [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE" and not answered_stale(entry)
            and not ("/v1/socket" in entry["message"] and "403" in entry["message"])]


def test_a_whole_game_over_the_socket_resuming_after_a_drop(recorded, server, tmp_path):
    browser = recorded
    browser.get_log("browser")
    game_id = create_in_lobby(browser, server, "scharfe-schoten", 3)
    wait_for(browser, lambda s: s["connection"] == " · live", what="the socket's subscription")
    assert transport(browser) == "socket" and browser.execute_script("return window.stichFollower.transport") == "socket"
    assert open_streams(server, "socket") >= 1  # the server follows the game for a socket's subscription
    # The connection dropped as a network failure would: the page opens the socket again and its
    # subscription resumes after the last seq it received.
    browser.execute_script("window.stichFollower.drop()")
    wait_for(browser, lambda s: s["connection"] == " · live"
             and browser.execute_script("return window.stichFollower.connections") == 2, what="the socket to resume")
    result = play_to_the_end(browser, server, "scharfe-schoten", game_id, tmp_path / "socket.png")
    check_the_end(browser, server, game_id, 3, result)
    log_is_whole(browser, server, game_id)
    assert browser.execute_script("return window.stichFollower.transport") == "socket"
    page = seen(browser)
    socket_url = server["url"].replace("http://", "ws://") + "/v1/socket"
    assert page["sockets"] == [socket_url, socket_url], page["sockets"]  # one socket, opened again once
    assert commands_posted(browser, game_id) == 0, page["fetches"]  # every move went on the socket
    assert not any(path.endswith("/events/stream") for _, path in page["fetches"]), page["fetches"]
    # A problem comes back as the POST's would: the same status and problem document, thrown as an ApiError.
    seq = api(server, f"/v1/games/{game_id}")["seq"]
    answered = browser.execute_async_script(SEND, seq, {"type": "play", "card": "R1"})
    assert answered == posted(server, game_id, token_of(browser, game_id), seq, {"type": "play", "card": "R1"})
    assert answered["status"] == 409 and commands_posted(browser, game_id) == 0, answered
    only_this_server(browser, server)
    no_script_errors(browser)


def test_with_the_socket_refused_the_table_plays_over_sse_and_post(recorded, proxy, tmp_path):
    browser = recorded
    front = {"url": proxy.url}
    browser.get_log("browser")
    game_id = create_in_lobby(browser, front, "scharfe-schoten", 3)
    wait_for(browser, lambda s: s["connection"] == " · live", what="the stream")
    assert transport(browser) == "sse"
    result = play_to_the_end(browser, front, "scharfe-schoten", game_id, tmp_path / "sse.png")
    check_the_end(browser, front, game_id, 3, result)
    log_is_whole(browser, front, game_id)
    page = seen(browser)
    assert len(page["sockets"]) == 1 and proxy.refused == 1, page["sockets"]  # tried once, then never again
    assert commands_posted(browser, game_id) >= result["moves"], page["fetches"]
    assert ["GET", f"/v1/games/{game_id}/events/stream"] in page["fetches"]
    assert not refused_socket_errors(browser)


def test_a_socket_lost_for_good_mid_game_hands_over_to_sse(recorded, proxy, tmp_path):
    browser = recorded
    front = {"url": proxy.url}
    proxy.refusing = False
    browser.get_log("browser")
    game_id = create_in_lobby(browser, front, "scharfe-schoten", 3)
    wait_for(browser, lambda s: s["connection"] == " · live", what="the socket's subscription")
    assert transport(browser) == "socket"
    proxy.refusing = True  # from now on the socket cannot be opened again
    browser.execute_script("window.stichFollower.drop()")
    # Three failed opens (after 0.5, 1 and 2 s at most), then the SSE stream after the last seq.
    wait_for(browser, lambda s: transport(browser) == "sse" and s["connection"] == " · live", timeout=20,
             what="the hand-over to SSE")
    assert len(seen(browser)["sockets"]) == 4 and proxy.refused == 3  # the first, then three tries
    result = play_to_the_end(browser, front, "scharfe-schoten", game_id, tmp_path / "handover.png")
    check_the_end(browser, front, game_id, 3, result)
    log_is_whole(browser, front, game_id)
    assert commands_posted(browser, game_id) >= 1
    assert not refused_socket_errors(browser)
