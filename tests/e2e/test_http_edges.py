"""The HTTP edges of a real `stich serve`: bodies over the limit, errors gunicorn answers itself,
and connections that wait (slow headers, streams, long polls) without stalling anyone else."""
from __future__ import annotations

import json
import socket
import threading
import time
from urllib.parse import urlparse

import pytest
import requests

pytestmark = pytest.mark.e2e


def address(server) -> tuple[str, int]:
    url = urlparse(server["url"])
    return url.hostname, url.port


def read_response(sock: socket.socket) -> tuple[int, dict, bytes]:
    """One HTTP/1.1 response with a Content-Length body: (status, headers, body)."""
    buffer = b""
    while b"\r\n\r\n" not in buffer:
        chunk = sock.recv(65536)
        assert chunk, f"connection closed before a response; got {buffer!r}"
        buffer += chunk
    head, _, body = buffer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    length = int(headers.get("content-length", 0))
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk, "connection closed inside a body"
        body += chunk
    return int(lines[0].split()[1]), headers, body[:length]


def health_on(sock: socket.socket) -> int:
    sock.sendall(b"GET /v1/health HTTP/1.1\r\nHost: stich\r\n\r\n")
    return read_response(sock)[0]


@pytest.mark.parametrize("framing", ["content-length", "chunked"])
def test_a_body_over_the_limit_is_413_and_the_connection_stays_usable(server, framing):
    body = json.dumps({"game": "scharfe-schoten", "players": 3, "pad": "x" * 200_000}).encode()
    with socket.create_connection(address(server), timeout=10) as sock:
        if framing == "chunked":
            head = b"POST /v1/games HTTP/1.1\r\nHost: stich\r\nContent-Type: application/json\r\n" \
                   b"Transfer-Encoding: chunked\r\n\r\n"
            sock.sendall(head + b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body))
        else:
            head = b"POST /v1/games HTTP/1.1\r\nHost: stich\r\nContent-Type: application/json\r\n" \
                   b"Content-Length: %d\r\n\r\n" % len(body)
            sock.sendall(head + body)
        status, headers, answer = read_response(sock)
        assert status == 413, answer
        assert headers["content-type"] == "application/problem+json"
        assert json.loads(answer)["code"] == "body_too_large"
        # What the answer promised about the connection holds: closed, or ready for the next request.
        if headers.get("connection", "").lower() == "close":
            assert sock.recv(1) == b""
        else:
            assert health_on(sock) == 200


def test_a_malformed_request_is_a_problem_document(server):
    with socket.create_connection(address(server), timeout=10) as sock:
        sock.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        status, headers, body = read_response(sock)
    assert status == 400 and headers["content-type"] == "application/problem+json"
    problem = json.loads(body)
    assert problem["code"] == "bad_request" and problem["status"] == 400 and problem["detail"]


def test_an_oversized_request_line_is_a_problem_document(server):
    with socket.create_connection(address(server), timeout=10) as sock:
        sock.sendall(b"GET /v1/games?" + b"a" * 9000 + b" HTTP/1.1\r\nHost: stich\r\n\r\n")
        status, headers, body = read_response(sock)
    # 414 since gunicorn 26; older releases call it a bad request line (400).
    assert status in (400, 414) and headers["content-type"] == "application/problem+json"
    assert json.loads(body)["code"] == {400: "bad_request", 414: "uri_too_long"}[status]


def timed_health_checks(server, count: int) -> list[float]:
    took = []
    with requests.Session() as session:
        for _ in range(count):
            started = time.monotonic()
            assert session.get(server["url"] + "/v1/health", timeout=10).status_code == 200
            took.append(time.monotonic() - started)
    return took


@pytest.mark.serial  # health checks under 2 s
def test_slow_clients_streams_and_long_polls_do_not_stall_anyone(server):
    """100 connections trickling their headers, 150 open SSE streams and 150 long polls
    (far more than a thread-per-request server has threads): health checks still answer at once."""
    base = server["url"] + "/v1"
    host, port = address(server)
    game_id = requests.post(base + "/games", json={"game": "scharfe-schoten", "players": 3}).json()["id"]
    slow = []
    for _ in range(100):
        sock = socket.create_connection((host, port), timeout=10)
        sock.sendall(b"GET /v1/health HTTP/1.1\r\nHost: st")  # and never the rest
        slow.append(sock)
    streams = []
    for _ in range(150):
        sock = socket.create_connection((host, port), timeout=10)
        sock.sendall(f"GET /v1/games/{game_id}/events/stream?after=1 HTTP/1.1\r\nHost: stich\r\n\r\n".encode())
        streams.append(sock)
    polls = []
    for _ in range(150):
        sock = socket.create_connection((host, port), timeout=10)
        sock.sendall(f"GET /v1/games/{game_id}/events?after=1&wait=30 HTTP/1.1\r\nHost: stich\r\n\r\n".encode())
        polls.append(sock)
    try:
        time.sleep(0.5)  # let the server take them all in
        took = timed_health_checks(server, 50)
        assert max(took) < 2.0, f"a health check took {max(took):.2f}s with waiting clients open"
        # The waiting clients are still served: one event reaches every stream and every long poll.
        requests.post(f"{base}/games/{game_id}/seats/0")
        for sock in streams:
            sock.settimeout(10)
            received = b""
            while b"id: 2\n" not in received:
                chunk = sock.recv(65536)
                assert chunk, "a stream closed"
                received += chunk
        for sock in polls:
            status, _, body = read_response(sock)
            assert status == 200 and [e["seq"] for e in json.loads(body)["events"]] == [2]
    finally:
        for sock in slow + streams + polls:
            sock.close()


# A chunk size that is not hex; a chunk-size line past gunicorn's 8,190 bytes with no end in sight.
@pytest.mark.parametrize("chunks", [b"zz\r\n{}\r\n0\r\n\r\n", b"1" * 9000], ids=["not-hex", "over-8190-bytes"])
def test_a_malformed_chunk_is_a_400_problem_and_the_connection_closes(server, chunks):
    with socket.create_connection(address(server), timeout=10) as sock:
        sock.sendall(b"POST /v1/games HTTP/1.1\r\nHost: stich\r\nContent-Type: application/json\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n" + chunks)
        status, headers, body = read_response(sock)
        assert status == 400, body
        assert headers["content-type"] == "application/problem+json"
        assert json.loads(body)["code"] == "bad_request" and "chunk" in json.loads(body)["detail"]
        assert headers.get("connection", "").lower() == "close"


@pytest.mark.parametrize("framing", ["chunked", "over-8-MiB"])
def test_an_upload_refused_before_its_body_is_read_is_answered_and_the_connection_closes(server, framing):
    """The 9 MiB body is not read: the answer comes while the client is still sending, the connection
    closes after it (half-closed first, so the answer arrives whole), and nothing is drained."""
    body = b" " * (9 * 1024 * 1024)
    head = b"POST /v1/verify HTTP/1.1\r\nHost: stich\r\nContent-Type: application/x-ndjson\r\n"
    if framing == "chunked":
        request = head + b"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    else:
        request = head + b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    with socket.create_connection(address(server), timeout=10) as sock:
        try:
            sock.sendall(request)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed before it had all of it
        status, headers, answer = read_response(sock)
    code = {"chunked": (411, "length_required"), "over-8-MiB": (413, "body_too_large")}[framing]
    assert (status, json.loads(answer)["code"]) == code and headers["content-type"] == "application/problem+json"
    assert headers["connection"].lower() == "close"


def upload(server, body: bytes, results: list) -> None:
    with requests.Session() as session:
        started = time.process_time(), time.monotonic()
        answer = session.post(server["url"] + "/v1/verify", data=body, timeout=60,
                              headers={"Content-Type": "application/x-ndjson"})
        results.append((answer.status_code, answer.json(), time.monotonic() - started[1]))


@pytest.fixture(scope="module")
def worst_upload():
    """The longest legal game's export (5.4 MB, 20,969 events): the most verifying work a body admits."""
    from tests.long_export import long_export

    return long_export(31_500).encode()


@pytest.mark.serial  # a health p99 under 100 ms
@pytest.mark.parametrize("kind", ["longest-game", "empty-objects"])
def test_two_uploads_at_once_keep_health_checks_fast(server, worst_upload, kind):
    """Two connections upload the worst body at once; a third client's health checks stay fast,
    since the upload's parse and verification yield every few milliseconds."""
    header = worst_upload.split(b"\n", 1)[0]
    body = worst_upload if kind == "longest-game" else header + b"\n" + b"{}\n" * 2_500_000
    results: list = []
    uploads = [threading.Thread(target=upload, args=(server, body, results)) for _ in range(2)]
    took = []
    with requests.Session() as session:
        session.get(server["url"] + "/v1/health", timeout=10)
        for thread in uploads:
            thread.start()
        while any(t.is_alive() for t in uploads) and len(took) < 5000:
            started = time.monotonic()
            assert session.get(server["url"] + "/v1/health", timeout=10).status_code == 200
            took.append(time.monotonic() - started)
            time.sleep(0.005)
    for thread in uploads:
        thread.join(60)
    took.sort()
    p99 = took[int(len(took) * 0.99)] if took else 0.0
    print(f"{kind}: {len(took)} health checks, p50 {took[len(took) // 2] * 1000:.1f} ms, "
          f"p99 {p99 * 1000:.1f} ms, max {took[-1] * 1000:.1f} ms; uploads {[round(r[2], 2) for r in results]} s")
    if kind == "longest-game":
        assert [(status, body["verified"]) for status, body, _ in results] == [(200, True)] * 2
    else:
        assert [(status, body["code"], body["line"]) for status, body, _ in results] == \
            [(400, "export_limit", 100_152)] * 2
    assert len(took) >= 10 and p99 < 0.1


class MinuteOfSilence:
    """The idle stream and the long poll of the minute test, opened when this file's first test starts
    (the fixture below), so that the minute passes while the file's other tests run: each of them works
    on a game of its own, and this game stays silent. Run alone, the test waits the whole minute."""

    def __init__(self, server):
        self.base = server["url"] + "/v1"
        self.game_id = requests.post(self.base + "/games", json={"game": "scharfe-schoten", "players": 3}).json()["id"]
        self.poll: dict = {}
        self.keepalives: list[float] = []
        self.broken: list[str] = []  # an event line before the minute is up, or the stream's end: neither may come
        self.poller = threading.Thread(target=self.long_poll, daemon=True)
        self.poller.start()
        self.stream = requests.get(f"{self.base}/games/{self.game_id}/events/stream", params={"after": 1},
                                   stream=True, timeout=30)
        self.lines = self.stream.iter_lines(decode_unicode=True)
        self.listener = threading.Thread(target=self.listen, daemon=True)
        self.listener.start()

    def long_poll(self) -> None:
        started = time.monotonic()
        try:
            response = requests.get(f"{self.base}/games/{self.game_id}/events", params={"after": 1, "wait": 60},
                                    timeout=90)
            self.poll.update(status=response.status_code, body=response.json(), took=time.monotonic() - started)
        except Exception as error:  # noqa: BLE001 - the test reports it
            self.poll.update(error=repr(error))

    def listen(self) -> None:
        started = time.monotonic()
        try:
            while len(self.keepalives) < 4:  # a minute of silence but for the comments
                line = next(self.lines)
                if line.startswith("id: "):
                    self.broken.append(line)
                    return
                if line == ": keep-alive":
                    self.keepalives.append(time.monotonic() - started)
        except Exception as error:  # noqa: BLE001 - the test reports it
            self.broken.append(repr(error))


@pytest.fixture(scope="module", autouse=True)
def minute_of_silence(request):
    """Started with the file, but only when the minute's test is to run (a long poll left waiting
    would hold up the server's shutdown at the end of the session)."""
    if not any(item.name == "test_an_idle_stream_and_a_long_poll_stay_open_for_a_minute"
               for item in request.session.items):
        yield None
        return
    silence = MinuteOfSilence(request.getfixturevalue("server"))
    yield silence
    silence.stream.close()


@pytest.mark.slow
def test_an_idle_stream_and_a_long_poll_stay_open_for_a_minute(minute_of_silence):
    """A stream idle for 60 s is still open (kept alive by comments) and then delivers the next
    event; a long poll with wait=60 waits the whole minute and answers an empty page. Last in the
    file: the minute began with the file (MinuteOfSilence), and ~60 s alone became ~20 s of waiting."""
    silence = minute_of_silence
    silence.listener.join(90)
    assert not silence.listener.is_alive() and not silence.broken, silence.broken
    keepalives = silence.keepalives
    assert keepalives[-1] > 59 and all(b - a <= 16 for a, b in zip([0] + keepalives, keepalives)), keepalives
    silence.poller.join(30)
    poll = silence.poll
    assert poll["status"] == 200 and poll["body"]["events"] == [] and 59.5 < poll["took"] < 70, poll
    requests.post(f"{silence.base}/games/{silence.game_id}/seats/2")
    for line in silence.lines:  # the keep-alives sent since, then the event
        if line.startswith("id: "):
            assert line == "id: 2"
            break
