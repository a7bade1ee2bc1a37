"""How an upload (an export sent to ``POST /v1/verify`` or ``POST /v1/imports``) is admitted, read
and given its turn at the process's CPU.

An upload's body is held in its HTTP process's memory from the moment it is read until its answer,
and parsing and verifying it cost that process CPU time by its size. Read first and bounded after,
as uploads once were, 120 concurrent 8 MiB uploads from one address added 570 and 718 MB (two
runs) to the HTTP processes though 116 of them were then refused (docs/reliability.md). So
everything that can refuse an upload is decided from its head, before a byte of its body is read,
cheapest first:

1. its length: it must declare it (``Content-Length``; a chunked body is a 411 ``length_required``)
   and be at most ``UPLOAD_MAX_BYTES`` (413 ``body_too_large``);
2. one of the address's slots for uploads at once in this process (429 ``upload_concurrency``,
   ``Quotas.uploads``);
3. its declared bytes against the address's upload quota a minute (429 ``upload_quota``);
4. room for its declared bytes in this process's ``UploadBuffer``, the bytes of uploads it holds at
   once (``STICH_UPLOAD_BUFFER_BYTES``), waited for at most ``WAIT_S``, then a 503 ``verifier_busy``.

Then the body is read into one buffer of its declared length, and the upload waits for the
process's one turn at upload work (``WAIT_S`` again, then the same 503). So a process holds at
most its buffer's bytes of upload bodies however many connections send, plus the working set of
the one upload whose turn it is. The quota counted in 3 is given back when the work never runs
(a 503, a body that ends early): an upload costs quota when it is checked, as before.

A refused upload's body is never read: the connection closes after the answer
(``stich/web_worker.py``: more than 64 KiB of the body unread), rather than gunicorn reading the
rest to discard it.
"""
from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager
from typing import Iterator

from flask import request
from werkzeug.exceptions import ClientDisconnected

from .http import quotas
from .problems import Problem

UPLOAD_MAX_BYTES = 8 * 1024 * 1024  # an export to verify or import: the longest Schafkopf game is 5.4 MB
# Eight uploads of the largest size: the queue for the one turn that its wait admits (verifying the
# longest game takes about 2 s, so eight finish within WAIT_S), and no more than that held.
BUFFER_BYTES = 64 * 1024 * 1024
WAIT_S = 30  # for room in the buffer, and again for the turn: a verification takes seconds at most
# Read from the connection at a time: gunicorn's own largest read of a body, which it copies a few
# times on the way (so a smaller read copies its read-ahead again on every call).
READ_BYTES = 1024 * 1024
# One upload's CPU work at a time per process: two would double every other request's wait at each
# step (``audit.Pacer`` yields every slice). The next waits its turn, then is a 503.
TURN = threading.BoundedSemaphore(1)


class UploadBuffer:
    """The bytes of upload bodies one process holds at once: an upload takes its declared length
    before its body is read and gives it back with its answer."""

    def __init__(self, limit: int):
        self.limit = limit
        self.held = 0
        self._room = threading.Condition()  # gevent's once the worker has patched threading

    @contextmanager
    def holding(self, size: int, wait_s: float) -> Iterator[None]:
        """``size`` bytes of the buffer while the block runs, waited for at most ``wait_s``; 503
        ``verifier_busy`` when they do not come free in time."""
        deadline = time.monotonic() + wait_s
        with self._room:
            while self.held + size > self.limit:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise busy(f"this server process holds {self.held} bytes of other uploads, and at most "
                               f"{self.limit}")
                self._room.wait(left)
            self.held += size
        try:
            yield
        finally:
            with self._room:
                self.held -= size
                self._room.notify_all()


def buffer_bytes() -> int:
    """``STICH_UPLOAD_BUFFER_BYTES``, at least one upload of the largest size."""
    return max(UPLOAD_MAX_BYTES, int(os.environ.get("STICH_UPLOAD_BUFFER_BYTES", BUFFER_BYTES)))


BUFFER = UploadBuffer(buffer_bytes())  # per process, as the memory it bounds


def busy(why: str) -> Problem:
    return Problem(503, "verifier_busy", f"{why}; retry", headers={"Retry-After": "5"})


def declared_length() -> int:
    """The body's declared length: 411 ``length_required`` for a chunked body, whose length is known
    only once it has been read, and 413 past ``UPLOAD_MAX_BYTES``."""
    if "chunked" in request.headers.get("Transfer-Encoding", "").lower():
        raise Problem(411, "length_required", "an upload must declare its length in Content-Length (it is "
                      "checked against the bounds before the body is read); send it unchunked")
    size = request.content_length or 0
    if size > UPLOAD_MAX_BYTES:
        raise Problem(413, "body_too_large", f"an export to upload is at most {UPLOAD_MAX_BYTES} bytes; "
                      "verify larger ones offline with `stich verify`")
    return size


def read_body(size: int) -> bytearray:
    """The body's ``size`` declared bytes, read into one buffer of that size (``request.get_data``
    would gather the chunks and join them into a second copy), from the server's stream itself:
    no more than the declared length is read, so werkzeug's limiting wrapper (a copy of every
    chunk more) has nothing to add."""
    body = bytearray(size)
    stream = request.environ["wsgi.input"]
    got = 0
    with memoryview(body) as view:
        while got < size:
            chunk = stream.read(min(READ_BYTES, size - got))
            if not chunk:
                raise ClientDisconnected(f"the body ended after {got} of its {size} bytes")
            view[got:got + len(chunk)] = chunk
            got += len(chunk)
    return body


@contextmanager
def upload_turn() -> Iterator[None]:
    """This process's one turn at an upload's CPU work, waited for at most ``WAIT_S``."""
    if not TURN.acquire(timeout=WAIT_S):
        raise busy("other uploads are being verified")
    try:
        yield
    finally:
        TURN.release()


@contextmanager
def admitted_upload(operator: bool) -> Iterator[bytearray]:
    """The upload's body, admitted, read and holding the process's turn while the block runs (the
    module's docstring says what refuses it, in order). ``operator``: the request carries an
    operator key, exempt from the address's slots and quota but not from the buffer and the turn."""
    size = declared_length()
    address = None if operator else request.remote_addr
    keeper = quotas()
    with keeper.holding_upload(address):
        reservation = keeper.reserve_upload(address, size)
        working = False
        try:
            with BUFFER.holding(size, WAIT_S):
                body = read_body(size)
                with upload_turn():
                    working = True
                    yield body
        except BaseException:
            if not working:  # refused before any of its work ran: it costs no quota
                reservation.refund()
            raise
