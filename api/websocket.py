"""A WebSocket (RFC 6455) on the connection gunicorn hands a request, framed by wsproto.

flask-sock's route builds simple-websocket's ``Server``, whose defaults the issue's experiment
found unsafe here: it accepts permessage-deflate whenever a client offers it, pings nobody, sends
a frame with one ``send`` whose count it ignores (a slow reader under gevent could get a cut
frame, and every frame after it would be garbage), lets its reader thread and the application
write the connection at once, and buffers whatever a client sends without bound. This is the
same protocol engine (wsproto, which simple-websocket wraps) with those parts done otherwise:

* no extension is ever negotiated (the client's offer is not shown to wsproto): a message costs
  no compression, and the measured cost of permessage-deflate bought nothing for our small JSON;
* one writer thread per socket (a greenlet under gevent) writes every frame, whole
  (``sendall``), from a send queue bounded in bytes: a message waits at most ``slow_s`` for
  room, and a socket whose queue stays full that long is dropped (its connection shut down):
  a slow reader never holds up a game's other clients, who are served by their own writers;
* the writer pings every ``ping_s``; a client heard from neither then nor since (no pong, no
  message) for two periods is gone, and its socket is closed;
* a message larger than ``max_message_bytes`` or a client past ``messages_per_s`` (a token
  bucket of ``burst``) is refused (``MessageRefused``): the caller says why, then closes.
"""
from __future__ import annotations

import fcntl
import os
import socket
import struct
import sys
import termios
import threading
import time
from collections import deque
from dataclasses import dataclass

from wsproto import ConnectionType, WSConnection
from wsproto.events import (AcceptConnection, BytesMessage, CloseConnection, Ping, Pong, Request,
                            TextMessage)
from wsproto.utilities import LocalProtocolError, RemoteProtocolError

RECEIVE_BYTES = 65536
SEND_BUFFER_BYTES = 128 * 1024  # the kernel's send buffer of a socket (Linux doubles it for its bookkeeping)
ROOM_POLL_S = 0.02  # how often a writer whose client reads slowly looks for room in the kernel's buffer
OUTQ = getattr(termios, "TIOCOUTQ", None) if sys.platform.startswith("linux") else None  # unsent bytes held

# RFC 6455 7.4.1 close codes
NORMAL = 1000
GOING_AWAY = 1001
POLICY = 1008
TOO_BIG = 1009


@dataclass(frozen=True)
class SocketLimits:
    max_message_bytes: int = 64 * 1024  # as a request body (api/app.py)
    messages_per_s: float = 50.0  # sustained, per socket
    burst: int = 200  # messages at once before the rate applies
    queue_bytes: int = 1024 * 1024  # bytes waiting to be written to one socket
    slow_s: float = 10.0  # how long a message may wait for room in a full send queue before the socket is dropped
    ping_s: float = 20.0
    subscriptions: int = 256  # per socket (each one also a stream of its address: STICH_STREAMS_LIMIT)

    @classmethod
    def from_env(cls) -> "SocketLimits":
        def read(name: str, default):
            raw = os.environ.get(name)
            return default if raw is None else type(default)(raw)

        base = cls()
        return cls(max_message_bytes=read("STICH_SOCKET_MESSAGE_BYTES", base.max_message_bytes),
                   messages_per_s=read("STICH_SOCKET_MESSAGES_PER_S", base.messages_per_s),
                   burst=read("STICH_SOCKET_BURST", base.burst),
                   queue_bytes=read("STICH_SOCKET_QUEUE_BYTES", base.queue_bytes),
                   slow_s=read("STICH_SOCKET_SLOW_S", base.slow_s),
                   ping_s=read("STICH_SOCKET_PING_S", base.ping_s),
                   subscriptions=read("STICH_SOCKET_SUBSCRIPTIONS", base.subscriptions))


class HandshakeFailed(Exception):
    """The upgrade request is not a valid WebSocket handshake; nothing has been written."""


class MessageRefused(Exception):
    """A message over a bound: the problem's ``status``, ``code`` and ``detail`` for the client,
    ``close_code`` to close with."""

    def __init__(self, status: int, code: str, detail: str, close_code: int):
        super().__init__(detail)
        self.status, self.code, self.detail, self.close_code = status, code, detail, close_code


class WebSocket:
    """The server's side of one accepted WebSocket. ``receive`` (the request's own thread) reads;
    ``send`` queues a text message for the writer thread, which alone writes the connection."""

    def __init__(self, sock, environ: dict, limits: SocketLimits):
        self.sock, self.limits = sock, limits
        # The kernel's share of a slow reader's backlog is bounded too (left to autotuning it grew past
        # a megabyte on loopback, all of it invisible to the send queue's bound).
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)
        except OSError:
            pass
        self.protocol = WSConnection(ConnectionType.SERVER)
        self._protocol_lock = threading.Lock()  # wsproto is not thread-safe; both threads frame messages
        self._handshake(environ)
        self.closed = False  # no more frames go out (a close frame queued, or the connection dropped)
        self.dropped: str | None = None  # why the connection was shut down without a close, if it was
        self.heard = time.monotonic()  # the last time the client sent anything (a pong counts)
        self._queue: deque[bytes] = deque()
        self._queued = 0  # bytes in the queue
        self._ready = threading.Event()  # the writer has something to write
        self._room = threading.Event()  # the writer made room in the queue
        self._messages: deque[str] = deque()  # received, not yet handed to ``receive``'s caller
        self._partial: list[str] = []
        self._partial_bytes = 0
        self._tokens = float(limits.burst)
        self._refilled = time.monotonic()
        self._writer = threading.Thread(target=self._write, daemon=True, name="socket-writer")
        self._writer.start()

    # -- the handshake ---------------------------------------------------------
    def _handshake(self, environ: dict) -> None:
        """Answer the upgrade with 101; ``HandshakeFailed`` (nothing written) when wsproto refuses
        the request. The request is shown to wsproto as the client sent it, without
        ``Sec-WebSocket-Extensions``: nothing is negotiated, permessage-deflate included."""
        lines = [f"GET {environ.get('PATH_INFO') or '/'} HTTP/1.1"]
        for key, value in environ.items():
            if key.startswith("HTTP_") and key != "HTTP_SEC_WEBSOCKET_EXTENSIONS":
                lines.append(f"{key[5:].replace('_', '-')}: {value}")
        try:
            self.protocol.receive_data(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
            accepted = None
            for event in self.protocol.events():
                if isinstance(event, Request):
                    accepted = self.protocol.send(AcceptConnection())
        except (RemoteProtocolError, LocalProtocolError, UnicodeEncodeError) as exc:
            raise HandshakeFailed(str(exc)) from exc
        if accepted is None:
            raise HandshakeFailed("the upgrade request is incomplete")
        self.sock.sendall(accepted)

    # -- reading ---------------------------------------------------------------
    def receive(self) -> str | None:
        """The client's next text message; None once the connection has closed. Raises
        ``MessageRefused`` for a message over the size bound, a client over the rate, or a binary
        message."""
        while not self._messages:
            if self.closed and self.dropped is not None:
                return None
            try:
                data = self.sock.recv(RECEIVE_BYTES)
            except OSError:
                data = b""
            if not data:
                self._mark_closed()
                return None
            self.heard = time.monotonic()
            if not self._take_in(data):
                return None
        self._count_message()
        return self._messages.popleft()

    def _take_in(self, data: bytes) -> bool:
        """Feed bytes to wsproto; False once the client has closed (or broken) the protocol."""
        with self._protocol_lock:
            try:
                self.protocol.receive_data(data)
                events = list(self.protocol.events())
            except (RemoteProtocolError, LocalProtocolError):
                events = None
        if events is None:
            self.close(1002, "protocol error")
            return False
        for event in events:
            if isinstance(event, TextMessage):
                self._partial_bytes += len(event.data.encode())
                if self._partial_bytes > self.limits.max_message_bytes:
                    raise MessageRefused(413, "message_too_large", f"a message may be at most "
                                         f"{self.limits.max_message_bytes} bytes", TOO_BIG)
                self._partial.append(event.data)
                if event.message_finished:
                    self._messages.append("".join(self._partial))
                    self._partial.clear()
                    self._partial_bytes = 0
            elif isinstance(event, BytesMessage):
                raise MessageRefused(400, "binary_message", "send JSON messages as text frames", 1003)
            elif isinstance(event, Ping):
                self._control(event.response())
            elif isinstance(event, Pong):
                pass  # ``heard`` is set already
            elif isinstance(event, CloseConnection):
                # The client closes: answer with its code (RFC 6455 5.5.1), and send nothing more.
                self._control(event.response())
                self._mark_closed()
                return False
        return True

    def _count_message(self) -> None:
        now = time.monotonic()
        self._tokens = min(self.limits.burst, self._tokens + (now - self._refilled) * self.limits.messages_per_s)
        self._refilled = now
        if self._tokens < 1:
            raise MessageRefused(429, "too_many_messages", f"more than {self.limits.messages_per_s:g} messages "
                                 f"a second (after a burst of {self.limits.burst}) on one socket", POLICY)
        self._tokens -= 1

    # -- writing ---------------------------------------------------------------
    def send(self, texts: list[bytes], stopped=None) -> bool:
        """Queue ``texts`` (each one message, UTF-8 JSON) for the writer, in order, together. Waits
        up to ``slow_s`` for room; a queue that stays full that long drops the socket. False when
        the socket no longer sends (closed, dropped, or ``stopped()`` became true while waiting)."""
        with self._protocol_lock:
            if self.closed:
                return False
            frames = [self.protocol.send(TextMessage(data=text.decode())) for text in texts]
        size = sum(len(frame) for frame in frames)
        deadline = None
        while self._queued and self._queued + size > self.limits.queue_bytes:
            now = time.monotonic()
            deadline = deadline or now + self.limits.slow_s
            if now >= deadline:
                self.drop(f"the send queue stayed full for {self.limits.slow_s:g}s: the client reads too slowly")
                return False
            self._room.clear()
            if self._queued and self._queued + size > self.limits.queue_bytes:
                self._room.wait(min(deadline - now, 1.0))
            if self.closed or (stopped is not None and stopped()):
                return False
        self._queue.extend(frames)
        self._queued += size
        self._ready.set()
        return True

    def _control(self, event) -> None:
        with self._protocol_lock:
            try:
                frame = self.protocol.send(event)
            except LocalProtocolError:
                return
        self._queue.append(frame)
        self._queued += len(frame)
        self._ready.set()

    def close(self, code: int = NORMAL, reason: str = "") -> None:
        """Queue a close frame after whatever is queued; nothing is sent after it."""
        with self._protocol_lock:
            if self.closed:
                return
            self.closed = True
            try:
                frame = self.protocol.send(CloseConnection(code=code, reason=reason[:120]))
            except LocalProtocolError:  # the client's close came first
                frame = b""
        if frame:
            self._queue.append(frame)
            self._queued += len(frame)
        self._ready.set()

    def _mark_closed(self) -> None:
        self.closed = True
        self._ready.set()

    def drop(self, why: str) -> None:
        """Shut the connection down at once, whatever is queued or half written: for a client that
        does not read (its writer is stuck) or does not answer (dead)."""
        if self.dropped is None:
            self.dropped = why
        self.closed = True
        self._queue.clear()
        self._queued = 0
        self._ready.set()
        self._room.set()
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def finish(self) -> None:
        """Wait (at most ``slow_s``) for the writer to write what is queued, the close frame last."""
        self._mark_closed()
        self._writer.join(self.limits.slow_s)
        if self._writer.is_alive():
            self.drop("the close did not go out")
            self._writer.join(1.0)

    def _wait_for_room(self, size: int) -> None:
        """Hand the kernel a frame only when its send buffer has room for all of it, so that
        ``sendall`` never stops inside a frame: when a client that has stopped reading is dropped,
        the connection ends between two frames (the kernel delivers the whole ones it holds, then
        the end), and the client is never left with part of one. Where the kernel cannot say how
        much it holds (``TIOCOUTQ``, Linux), the frame goes as it would anyway."""
        if OUTQ is None:
            return
        while self.dropped is None:
            try:
                held = struct.unpack("i", fcntl.ioctl(self.sock.fileno(), OUTQ, b"\0\0\0\0"))[0]
            except OSError:
                return
            if held == 0 or held + size <= SEND_BUFFER_BYTES:
                return
            time.sleep(ROOM_POLL_S)

    def _write(self) -> None:
        """The socket's one writer: each frame whole, in order; a ping every ``ping_s``; the
        connection dropped when the client has not been heard from for two pings."""
        ping_s = self.limits.ping_s
        next_ping = time.monotonic() + ping_s
        try:
            while True:
                if self._queue:
                    frame = self._queue.popleft()
                    self._queued -= len(frame)
                    self._room.set()
                    self._wait_for_room(len(frame))
                    self.sock.sendall(frame)
                    continue
                if self.closed:
                    return  # everything queued before the close (its frame last) is out
                now = time.monotonic()
                if now >= next_ping:
                    if now - self.heard > 2 * ping_s:
                        self.drop(f"no answer to pings for {2 * ping_s:g}s")
                        return
                    self._control(Ping())
                    next_ping = now + ping_s
                    continue
                self._ready.clear()
                if not self._queue and not self.closed:
                    self._ready.wait(next_ping - now)
        except OSError:
            self.drop("the connection failed")
