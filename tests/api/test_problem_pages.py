"""Problems you can look up: every code the contract lists has a page on the server, made from the
contract, and the ``type`` of a real error answer leads to its code's page."""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urljoin

import yaml

from api.problem_pages import listed_codes

from .contract.spec import validate_response

ROOT = Path(__file__).resolve().parents[2]
SPEC = yaml.safe_load((ROOT / "openapi.yaml").read_text())
# Where the server answers a problem: Problem(status, "code", ...) and problem_response(status, "code", ...).
RAISED = re.compile(r"(?:Problem|problem_response)\(\s*[0-9]{3},\s*\"([a-z_]+)\"")
# A rule violation's code (domain and eventstore), and the HTTP server's own problems (stich/web_worker.py).
CLASS_CODE = re.compile(r"^\s+code = \"([a-z_]+)\"", re.MULTILINE)
WEB_WORKER_CODE = re.compile(r"[0-9]{3}: \"([a-z_]+)\"")


def codes_in_source() -> set[str]:
    found = {"http_error"}  # the fallback of both error handlers for an HTTP status without a code of its own
    for package in ("api", "domain", "eventstore", "workers", "stich"):
        for path in (ROOT / package).rglob("*.py"):
            text = path.read_text()
            found |= set(RAISED.findall(text)) | set(CLASS_CODE.findall(text))
    found |= set(WEB_WORKER_CODE.findall((ROOT / "stich" / "web_worker.py").read_text()))
    return found


def test_every_listed_code_has_a_page_with_its_meaning_and_what_to_do(client):
    codes = listed_codes(SPEC)
    assert len(codes) > 90  # the whole list, not a bullet of it
    index = client.get("/problems")
    validate_response(index, "/problems", "get")
    linked = set(re.findall(r'href="/problems/([a-z_]+)"', index.get_data(as_text=True)))
    assert linked == set(codes)
    for name, code in codes.items():
        page = client.get(f"/problems/{name}")
        assert page.status_code == 200 and page.mimetype == "text/html", name
        text = page.get_data(as_text=True)
        assert "What it means" in text and "What to do" in text, name
        for status in code.statuses:
            assert str(status) in text, name
    validate_response(client.get("/problems/not_your_turn"), "/problems/{code}", "get")


def test_a_page_says_what_the_contract_says_of_its_code(client):
    text = client.get("/problems/stale_seq").get_data(as_text=True)
    assert "HTTP status 412" in text and "If-Match" in text
    quota = client.get("/problems/create_quota").get_data(as_text=True)
    assert "POST /v1/games" in quota and "Retry-After" in quota  # from createGame's 429 and the status's advice


def test_an_unknown_code_is_a_404_problem(client):
    response = client.get("/problems/no_such_code")
    assert response.status_code == 404 and response.mimetype == "application/problem+json"
    validate_response(response, "/problems/{code}", "get")


def test_every_code_the_server_can_answer_is_listed():
    """So that every ``type`` a real answer carries has its page."""
    assert codes_in_source() - set(listed_codes(SPEC)) == set()


def test_the_type_of_real_error_answers_resolves(client):
    answers = [client.get("/v1/games/0000000000000000"),  # 404 unknown_game
               client.post("/v1/games", data="{", content_type="application/json"),  # 400 malformed_json
               client.post("/v1/games", json={"game": "skat", "players": 3}),  # 404 unknown_game_name or 422
               client.get("/v1/nowhere")]  # 404 not_found
    for answer in answers:
        problem = answer.get_json()
        assert problem["type"] == f"/problems/{problem['code']}"
        # A relative reference resolves against the URL that answered (RFC 9457, section 3.1.1).
        url = urljoin("http://localhost/v1/games/0000000000000000", problem["type"])
        page = client.get(url)
        assert page.status_code == 200, problem["code"]
        assert f"<code>{problem['code']}</code>" in page.get_data(as_text=True)
