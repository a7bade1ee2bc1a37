"""Uploads (``POST /v1/verify``, ``POST /v1/imports``) cost a bounded amount: the bounds of an
export's lines, each refused at the first line past it as a 400 naming the line and the bound;
an import stored once per head and counted against a storage quota; and body framing errors
from gunicorn answered as 400 problems, not 500s."""
from __future__ import annotations

import io
import json
import random
import time

import pytest
from gunicorn.http.errors import InvalidChunkSize

from .play import new_game, play_to_end
from ..addresses import fresh_address

NDJSON = "application/x-ndjson"
# As openapi.yaml documents them (audit.BOUNDS): lines is the header, the 100,000-event ceiling and one command.
BOUNDS = {"lines": 100_151, "line_chars": 262_144, "depth": 16, "string_chars": 256, "keys": 64}


@pytest.fixture(scope="module")
def export_text(app):
    client = app.test_client()
    game_id, tokens = new_game(client, game="scharfe-schoten", players=3, rules={"rounds": 1})
    play_to_end(client, game_id, tokens, rng=random.Random(5))
    return client.get(f"/v1/games/{game_id}/export").get_data(as_text=True)


def header_of(text: str) -> dict:
    return json.loads(text.split("\n", 1)[0])


@pytest.mark.parametrize("route", ["/v1/verify", "/v1/imports"])
@pytest.mark.parametrize("case", ["deep", "long-string", "long-line", "many-keys", "many-lines"])
def test_an_upload_past_a_bound_is_a_400_naming_the_line_and_the_bound(client, export_text, route, case):
    header = header_of(export_text)
    body, line, bound = {
        # 30,000 nested brackets: json.loads alone raises RecursionError (a 500 before the bounds)
        "deep": (json.dumps(header) + "\n" + "[" * 30_000 + "]" * 30_000 + "\n", 2, "depth"),
        "long-string": (json.dumps({**header, "stich": "x" * 1000}) + "\n", 1, "string_chars"),
        # the reported 7.5 MB `stich` label in the header
        "long-line": (json.dumps({**header, "stich": "x" * 7_500_000}) + "\n", 1, "line_chars"),
        "many-keys": (json.dumps(header) + "\n" + json.dumps({f"k{i}": i for i in range(65)}) + "\n", 2, "keys"),
        "many-lines": (json.dumps(header) + "\n" + "{}\n" * 2_500_000, BOUNDS["lines"] + 1, "lines"),
    }[case]
    problem = client.post(route, data=body, content_type=NDJSON)
    assert problem.status_code == 400, problem.get_data(as_text=True)[:300]
    assert problem.mimetype == "application/problem+json"
    answer = problem.get_json()
    assert (answer["code"], answer["line"], answer["bound"]) == ("export_limit", line, bound)
    assert answer["limit"] == BOUNDS[bound] and f"line {line}:" in answer["detail"]


def stored_games(redis_client) -> int:
    return sum(1 for _ in redis_client.scan_iter("stich:{g:*}:events", count=1000))


def test_an_export_imported_twice_is_stored_once_and_answers_the_first_game(client, export_text, redis_client):
    first = client.post("/v1/imports", data=export_text, content_type=NDJSON)
    assert first.status_code == 201, first.get_json()
    games = stored_games(redis_client)
    for _ in range(3):
        again = client.post("/v1/imports", data=export_text, content_type=NDJSON)
        assert again.status_code == 200, again.get_json()
        assert again.get_json()["id"] == first.get_json()["id"]
        assert again.headers["Content-Location"] == f"/v1/games/{first.get_json()['id']}"
        assert again.get_json()["imported_from"] == header_of(export_text)["game_id"]
    assert stored_games(redis_client) == games  # nothing stored again
    # and the imported copy's own export (the same head) answers the same game
    copy = client.get(f"/v1/games/{first.get_json()['id']}/export").get_data(as_text=True)
    assert client.post("/v1/imports", data=copy, content_type=NDJSON).get_json()["id"] == first.get_json()["id"]


def test_imports_count_against_a_storage_quota_per_address(redis_url):
    from api import create_app
    from api.quotas import Quotas

    app = create_app(redis_url, bots="inline", quotas=Quotas(import_bytes=60_000))
    client = app.test_client()
    address = {"REMOTE_ADDR": fresh_address()}
    texts = []
    for seed in (11, 12, 13):
        game_id, tokens = new_game(client, game="scharfe-schoten", players=3, rules={"rounds": 1})
        play_to_end(client, game_id, tokens, rng=random.Random(seed))
        texts.append(client.get(f"/v1/games/{game_id}/export").get_data(as_text=True))
    assert all(20_000 < len(t.encode()) < 30_000 for t in texts), [len(t) for t in texts]
    forged = texts[2].replace('"complete":true', '"complete":false', 1)
    # an export that does not verify is given back: it stored nothing
    assert client.post("/v1/imports", data=forged, environ_base=address).status_code == 422
    assert client.post("/v1/imports", data=texts[0], environ_base=address).status_code == 201
    assert client.post("/v1/imports", data=texts[0], environ_base=address).status_code == 200  # stored nothing
    assert client.post("/v1/imports", data=texts[1], environ_base=address).status_code == 201
    refused = client.post("/v1/imports", data=texts[2], environ_base=address)
    assert refused.status_code == 429 and refused.get_json()["code"] == "import_quota"
    assert refused.get_json()["limit"] == 60_000 and int(refused.headers["Retry-After"]) > 0
    other = {"REMOTE_ADDR": "10.8.0.1"}
    assert client.post("/v1/imports", data=texts[2], environ_base=other).status_code == 201


class BrokenChunks(io.RawIOBase):
    """A request body as gunicorn reads a chunk size of ``zz``."""

    def read(self, size=-1):
        raise InvalidChunkSize(b"zz")

    readline = read


class Response:
    closed = False

    def force_close(self):
        self.closed = True


@pytest.mark.parametrize("guarded", [True, False])
def test_a_framing_error_while_reading_the_body_is_a_400_problem(app, guarded):
    """gunicorn raises InvalidChunkSize from inside the application's read; unguarded it reached
    the catch-all as a 500."""
    server_response = Response()
    captured = {}

    def start_response(status, headers, exc_info=None):
        captured["status"], captured["headers"] = status, dict(headers)

    environ = {"REQUEST_METHOD": "POST", "PATH_INFO": "/v1/games", "SERVER_NAME": "stich", "SERVER_PORT": "80",
               "wsgi.url_scheme": "http", "wsgi.input": BrokenChunks(), "wsgi.input_terminated": True,
               "CONTENT_TYPE": "application/json", "HTTP_TRANSFER_ENCODING": "chunked", "REMOTE_ADDR": "10.7.0.1",
               "wsgi.errors": io.StringIO()}
    if guarded:
        from stich.web_worker import guard_framing  # inside: the unguarded case runs without it

        wrapped = guard_framing(app)
    else:
        wrapped = app
    body = json.loads(b"".join(wrapped(environ, StartResponse(start_response, server_response))))
    if not guarded:
        assert captured["status"].startswith("500")
        return
    assert captured["status"].startswith("400") and captured["headers"]["Content-Type"] == "application/problem+json"
    assert body["code"] == "bad_request" and "Invalid chunk size" in body["detail"]
    assert server_response.closed  # the connection closes: the next request's start is unknown


class StartResponse:
    """A callable with ``__self__``, like gunicorn's bound ``Response.start_response``."""

    def __init__(self, function, response):
        self.function, self.__self__ = function, response

    def __call__(self, *args):
        return self.function(*args)


def test_uploads_count_their_bytes_a_minute_per_address_and_an_operator_key_is_exempt(redis_url, export_text):
    """Checking an export costs CPU time by its size: past ``upload_bytes`` a minute, an address's
    next upload (to verify or to import) is a 429 before any of that work, whatever it holds."""
    from api import create_app
    from api.quotas import UPLOAD_WINDOW_S, Quotas
    from api.ratelimit import window_now

    size = len(export_text.encode())
    quotas = Quotas(upload_bytes=2 * size + 10)
    client = create_app(redis_url, bots="inline", quotas=quotas).test_client()
    address = {"REMOTE_ADDR": fresh_address()}
    if window_now(UPLOAD_WINDOW_S)[1] < 10:  # so that the uploads fall in one window
        time.sleep(window_now(UPLOAD_WINDOW_S)[1] + 0.1)
    assert client.post("/v1/verify", data=export_text, environ_base=address).status_code == 200
    assert client.post("/v1/imports", data=export_text, environ_base=address).status_code in (200, 201)
    for route in ("/v1/verify", "/v1/imports"):
        refused = client.post(route, data=export_text, environ_base=address)
        assert refused.status_code == 429 and refused.get_json()["code"] == "upload_quota", refused.get_json()
        assert refused.get_json()["limit"] == 2 * size + 10 and 0 < int(refused.headers["Retry-After"]) <= 60
    # another address, and an operator key, are not held up
    assert client.post("/v1/verify", data=export_text, environ_base={"REMOTE_ADDR": "10.6.0.1"}).status_code == 200
    keyed = create_app(redis_url, bots="inline", quotas=Quotas(upload_bytes=quotas.upload_bytes,
                                                               api_keys=frozenset({"k"}))).test_client()
    assert keyed.post("/v1/verify", data=export_text, environ_base=address).status_code == 429
    assert keyed.post("/v1/verify", data=export_text, environ_base=address,
                      headers={"X-API-Key": "k"}).status_code == 200


def test_an_upload_refused_while_the_process_is_busy_costs_no_upload_quota(redis_url, export_text, monkeypatch):
    """Counted once its work runs: a 503 ``verifier_busy`` leaves the address's minute untouched."""
    import api.uploads
    from api import create_app
    from api.quotas import Quotas

    size = len(export_text.encode())
    client = create_app(redis_url, bots="inline", quotas=Quotas(upload_bytes=size + 10)).test_client()
    address = {"REMOTE_ADDR": fresh_address()}
    monkeypatch.setattr(api.uploads, "WAIT_S", 0.05)
    assert api.uploads.TURN.acquire(timeout=5)
    try:
        for _ in range(3):
            busy = client.post("/v1/verify", data=export_text, environ_base=address)
            assert busy.status_code == 503 and busy.get_json()["code"] == "verifier_busy"
    finally:
        api.uploads.TURN.release()
    assert client.post("/v1/verify", data=export_text, environ_base=address).status_code == 200


# --------------------------------------------------------------------------- bounded before read

class CountedBody(io.BytesIO):
    """A request body that counts the reads of it: a refusal before the body is read makes none."""

    reads = 0

    def read(self, size=-1):
        self.reads += 1
        return super().read(size)

    def readline(self, size=-1):
        self.reads += 1
        return super().readline(size)

    def readinto(self, buffer):
        self.reads += 1
        return super().readinto(buffer)


def upload_app(redis_url, **quotas):
    from api import create_app
    from api.quotas import Quotas

    return create_app(redis_url, bots="inline", quotas=Quotas(**quotas))


def an_address() -> dict:
    return {"REMOTE_ADDR": fresh_address()}


def post_unread(client, route: str, length: int, address: dict, headers: dict | None = None):
    """An upload declaring ``length`` bytes whose body must not be read: (answer, the body)."""
    body = CountedBody(b" " * 16)
    # The declared length as the environ's own: the test client would measure the stream instead.
    answer = client.post(route, input_stream=body, content_type=NDJSON, environ_base=address,
                         environ_overrides={"CONTENT_LENGTH": str(length)}, headers=headers or {})
    return answer, body


@pytest.mark.parametrize("route", ["/v1/verify", "/v1/imports"])
def test_a_chunked_or_oversized_upload_is_refused_before_its_body_is_read(client, route):
    """A chunked body's length is known only once it has been read: 411. A declared length over
    8 MiB: 413."""
    from api.uploads import UPLOAD_MAX_BYTES

    chunked, body = post_unread(client, route, 0, an_address(), {"Transfer-Encoding": "chunked"})
    assert (chunked.status_code, chunked.get_json()["code"], body.reads) == (411, "length_required", 0)
    assert chunked.mimetype == "application/problem+json" and "Content-Length" in chunked.get_json()["detail"]
    large, body = post_unread(client, route, UPLOAD_MAX_BYTES + 1, an_address())
    assert (large.status_code, large.get_json()["code"], body.reads) == (413, "body_too_large", 0)


def test_an_upload_past_the_quota_is_refused_before_its_body_is_read(redis_url, export_text):
    """The declared length is counted before the body is read; an upload refused counts nothing."""
    size = len(export_text.encode())
    client = upload_app(redis_url, upload_bytes=size + 10).test_client()
    address = an_address()
    refused, body = post_unread(client, "/v1/verify", size + 11, address)
    assert (refused.status_code, refused.get_json()["code"], body.reads) == (429, "upload_quota", 0)
    assert int(refused.headers["Retry-After"]) > 0 and refused.get_json()["limit"] == size + 10
    # The refusal counted nothing: the whole quota is still there.
    assert client.post("/v1/verify", data=export_text, environ_base=address).status_code == 200
    again, body = post_unread(client, "/v1/verify", 11, address)
    assert (again.status_code, again.get_json()["code"], body.reads) == (429, "upload_quota", 0)


def test_an_address_has_two_uploads_at_once_per_process(redis_url, export_text):
    """A third upload while two of the address's are in flight is a 429 before its body is read,
    counting no quota; another address, and an operator key, are not held up."""
    size = len(export_text.encode())
    app = upload_app(redis_url, upload_bytes=size + 10, uploads=2)
    client, keeper = app.test_client(), app.extensions["stich.quotas"]
    address = an_address()
    with keeper.holding_upload(address["REMOTE_ADDR"]), keeper.holding_upload(address["REMOTE_ADDR"]):
        for route in ("/v1/verify", "/v1/imports"):
            refused, body = post_unread(client, route, size, address)
            assert (refused.status_code, refused.get_json()["code"], body.reads) == (429, "upload_concurrency", 0)
            assert refused.get_json()["limit"] == 2 and int(refused.headers["Retry-After"]) > 0
        assert client.post("/v1/verify", data=export_text, environ_base=an_address()).status_code == 200
    assert keeper._uploading == {}  # every slot given back
    # The refusals counted no quota: the address's whole minute is still there.
    assert client.post("/v1/verify", data=export_text, environ_base=address).status_code == 200
    assert keeper._uploading == {}
    keyed = upload_app(redis_url, uploads=1, api_keys=frozenset({"k"}))
    with keyed.extensions["stich.quotas"].holding_upload(address["REMOTE_ADDR"]):
        assert keyed.test_client().post("/v1/verify", data=export_text, environ_base=address,
                                        headers={"X-API-Key": "k"}).status_code == 200


def test_an_upload_that_finds_no_room_is_a_503_before_its_body_is_read(redis_url, export_text, monkeypatch):
    """The process's buffer of upload bytes is full: the upload waits ``WAIT_S``, then is a 503 that
    read nothing and costs no quota; once there is room it is verified."""
    import api.uploads
    from api.uploads import UploadBuffer

    size = len(export_text.encode())
    client = upload_app(redis_url, upload_bytes=size + 10).test_client()
    address = an_address()
    monkeypatch.setattr(api.uploads, "BUFFER", UploadBuffer(size + 10))
    monkeypatch.setattr(api.uploads, "WAIT_S", 0.05)
    with api.uploads.BUFFER.holding(11, 0):
        busy, body = post_unread(client, "/v1/verify", size, address)
        assert (busy.status_code, busy.get_json()["code"], body.reads) == (503, "verifier_busy", 0)
        assert busy.headers["Retry-After"] == "5" and f"at most {size + 10}" in busy.get_json()["detail"]
        # Smaller ones fit beside what is held.
        small = client.post("/v1/verify", data=export_text[:size - 11], environ_base=an_address())
        assert small.status_code in (200, 400, 422) and small.get_json().get("code") != "verifier_busy"
    assert api.uploads.BUFFER.held == 0
    assert client.post("/v1/verify", data=export_text, environ_base=address).status_code == 200


def test_an_upload_whose_body_ends_early_is_a_400_and_costs_no_quota(redis_url, export_text):
    size = len(export_text.encode())
    client = upload_app(redis_url, upload_bytes=size + 10).test_client()
    address = an_address()
    short = client.post("/v1/verify", input_stream=io.BytesIO(export_text.encode()), content_type=NDJSON,
                        environ_base=address, environ_overrides={"CONTENT_LENGTH": str(size + 10)})
    assert short.status_code == 400 and short.mimetype == "application/problem+json"
    assert client.post("/v1/verify", data=export_text, environ_base=address).status_code == 200


def test_the_buffer_lets_an_upload_in_once_room_is_given_back():
    import threading

    from api.problems import Problem
    from api.uploads import UploadBuffer

    buffer = UploadBuffer(10)
    entered = threading.Event()

    def second():
        with buffer.holding(6, 5):
            entered.set()

    with buffer.holding(6, 0):
        waiting = threading.Thread(target=second)
        waiting.start()
        assert not entered.wait(0.1) and buffer.held == 6  # 6 + 6 does not fit in 10
        with buffer.holding(4, 0):  # 6 + 4 does
            assert buffer.held == 10
    waiting.join(5)
    assert entered.is_set() and buffer.held == 0
    with buffer.holding(10, 0), pytest.raises(Problem) as refused:
        with buffer.holding(1, 0.01):
            pass
    assert refused.value.status == 503 and refused.value.code == "verifier_busy"
    assert buffer.held == 0


@pytest.mark.parametrize("framing, read, closes", [
    ("length", 0, True), ("length", 120_000, True), ("length", 140_000, False), ("length", None, False),
    ("chunked", 0, True), ("chunked", 140_000, True), ("chunked", None, False)])
def test_an_answer_that_leaves_most_of_the_body_unread_closes_the_connection(framing, read, closes):
    """gunicorn would discard an unread body a kilobyte at a time before the connection's next
    request, never yielding while its bytes wait: past 64 KiB unread, or a chunked body (of a
    length unknown) before its end, the connection closes."""
    from stich.web_worker import guard_framing

    server_response = Response()

    def app(environ, start_response):
        body = environ["wsgi.input"]
        if read is None:  # to the end, as a JSON route reads its body
            while body.read(65536):
                pass
        elif read:
            body.read(read)
        start_response("429 Too Many Requests", [("Content-Type", "application/problem+json")])
        return [b"{}"]

    environ = {"REQUEST_METHOD": "POST", "wsgi.input": io.BytesIO(b" " * 200_000)}
    environ.update({"CONTENT_LENGTH": "200000"} if framing == "length" else {"HTTP_TRANSFER_ENCODING": "chunked"})
    guard_framing(app)(environ, StartResponse(lambda *args: None, server_response))
    assert server_response.closed is closes
