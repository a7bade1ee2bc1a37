"""A small WebSocket client for the socket's tests, on wsproto: a reader thread answers pings and
queues every message, so a client that waits on something else is not taken for a dead one.
Every message sent and received is recorded in ``TRAFFIC`` (direction, message), which
test_socket.py checks against asyncapi.yaml at its end. ``handshake`` is the raw upgrade, for a
client that then reads nothing (the slow and the dead ones)."""
from __future__ import annotations

import json
import queue
import socket
import threading

from wsproto import ConnectionType, WSConnection
from wsproto.utilities import LocalProtocolError
from wsproto.events import (AcceptConnection, CloseConnection, Ping, RejectConnection, RejectData, Request,
                            TextMessage)

TRAFFIC: list[tuple[str, dict]] = []  # ("in" | "out", message)


class Refused(Exception):
    def __init__(self, status: int, body: bytes):
        super().__init__(f"{status}: {body[:300]!r}")
        self.status, self.body = status, body


def handshake(port: int, headers: dict | None = None, rcvbuf: int | None = None) -> tuple[socket.socket, WSConnection,
                                                                                            bytes]:
    """An open socket after the 101, its protocol, and the bytes that came after the 101; ``Refused``
    with the status and body of any other answer."""
    sock = socket.socket()
    if rcvbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.connect(("127.0.0.1", port))
    sock.settimeout(10)
    ws = WSConnection(ConnectionType.CLIENT)
    sock.sendall(ws.send(Request(host="127.0.0.1", target="/v1/socket",
                                 extra_headers=list((headers or {}).items()))))
    body = b""
    while True:
        data = sock.recv(65536)
        if not data:
            raise Refused(0, body)
        ws.receive_data(data)
        for event in ws.events():
            if isinstance(event, AcceptConnection):
                return sock, ws, b""
            if isinstance(event, RejectConnection):
                status = event.status_code
            if isinstance(event, RejectData):
                body += event.data
                if event.body_finished:
                    raise Refused(status, body)


class SocketClient:
    def __init__(self, port: int, headers: dict | None = None):
        self.sock, self.ws, _ = handshake(port, headers)
        self.sock.settimeout(None)
        self.messages: queue.Queue = queue.Queue()
        self.close_code: int | None = None
        self._lock = threading.Lock()
        self._partial: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        data = b""  # first the events already read with the 101 (the welcome may have come with it)
        try:
            while True:
                with self._lock:
                    if data:
                        self.ws.receive_data(data)
                    events = list(self.ws.events())
                for event in events:
                    if isinstance(event, TextMessage):
                        self._partial.append(event.data)
                        if event.message_finished:
                            message = json.loads("".join(self._partial))
                            self._partial.clear()
                            TRAFFIC.append(("in", message))
                            self.messages.put(message)
                    elif isinstance(event, Ping):
                        self._write(event.response())
                    elif isinstance(event, CloseConnection):
                        self.close_code = event.code
                        self._write(event.response())
                        return
                data = self.sock.recv(65536)
                if not data:
                    break
        except OSError:
            pass
        finally:
            self.messages.put(None)

    def _write(self, event) -> None:
        with self._lock:
            try:
                data = self.ws.send(event)
            except LocalProtocolError:  # closed already (by the other side, or by this one)
                return
        try:
            self.sock.sendall(data)
        except OSError:
            pass

    def send(self, message: dict) -> None:
        TRAFFIC.append(("out", message))
        self.send_text(json.dumps(message))

    def send_text(self, text: str) -> None:
        self._write(TextMessage(data=text))

    def receive(self, timeout: float = 10.0) -> dict | None:
        """The next message; None once the server has closed."""
        return self.messages.get(timeout=timeout)

    def until(self, wanted, timeout: float = 10.0) -> dict:
        """Messages up to the first for which ``wanted(message)`` holds; that one."""
        while True:
            message = self.receive(timeout)
            assert message is not None, f"the socket closed (code {self.close_code})"
            if wanted(message):
                return message

    def close(self) -> None:
        try:
            self._write(CloseConnection(code=1000))
        except Exception:
            pass
        try:
            self.sock.close()
        except OSError:
            pass

