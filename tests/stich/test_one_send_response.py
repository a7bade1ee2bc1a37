"""A response's head goes out in the same send as its first body bytes (stich/web_worker.py), and
never waits for them when a write has none to send."""
from __future__ import annotations

from types import SimpleNamespace

from stich.web_worker import OneSendResponse


class Socket:
    def __init__(self):
        self.sends: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        self.sends.append(bytes(data))


def response(method: str = "GET", version=(1, 1)):
    request = SimpleNamespace(method=method, version=version, should_close=lambda: False)
    sock = Socket()
    return OneSendResponse(request, sock, SimpleNamespace(sendfile=False, is_ssl=False)), sock


def test_a_json_answer_is_one_send_of_head_and_body():
    resp, sock = response()
    resp.start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", "11")])
    resp.write(b'{"seq": 12}')
    resp.close()
    [sent] = sock.sends
    head, _, body = sent.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK\r\n") and b"Content-Length: 11" in head
    assert b"Connection: keep-alive" in head
    assert body == b'{"seq": 12}'


def test_a_stream_sends_its_head_with_the_first_chunk_and_chunks_after_it_alone():
    resp, sock = response()
    resp.start_response("200 OK", [("Content-Type", "text/event-stream")])
    resp.write(b"id: 1\n\n")
    resp.write(b"id: 2\n\n")
    resp.close()
    first, second, end = sock.sends
    head, _, chunk = first.partition(b"\r\n\r\n")
    assert b"Transfer-Encoding: chunked" in head
    assert chunk == b"7\r\nid: 1\n\n\r\n"
    assert second == b"7\r\nid: 2\n\n\r\n"
    assert end == b"0\r\n\r\n"


def test_a_write_with_nothing_to_send_sends_the_head_at_once():
    resp, sock = response()
    resp.start_response("200 OK", [("Content-Type", "text/event-stream")])
    resp.write(b"")  # a stream that has no event yet: its client still gets the head now
    [head] = sock.sends
    assert head.startswith(b"HTTP/1.1 200 OK\r\n") and head.endswith(b"\r\n\r\n")


def test_a_head_request_gets_its_head_alone_and_no_body():
    resp, sock = response("HEAD")
    resp.start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", "11")])
    resp.write(b'{"seq": 12}')
    resp.close()
    [head] = sock.sends
    assert head.endswith(b"\r\n\r\n") and b'{"seq"' not in head


def test_an_empty_answer_sends_its_head_on_close():
    resp, sock = response()
    resp.start_response("204 No Content", [])
    resp.close()
    [head] = sock.sends
    assert head.startswith(b"HTTP/1.1 204 No Content\r\n")
