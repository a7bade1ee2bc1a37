"""How the HTTP API is served: gunicorn with gevent workers.

Long polls wait up to a minute and SSE streams stay open for hours. Under a
thread-per-request server each would hold a thread, and a few dozen of them
(or slow clients trickling their headers) would stall every other request.
With gevent a waiting request is a greenlet: it costs memory and a socket,
not a thread. The command path stays plain synchronous code; gevent's
monkey-patching makes its Redis calls yield while they wait.

``gunicorn_argv`` is the one place that spells out the server's settings;
``stich serve`` and the benchmark both use it. ``StreamingWorker`` is
gunicorn's gevent worker with these changes: errors gunicorn answers itself
(a malformed request line, oversized headers) are ``application/problem+json``
like every other error, so are errors in a body's framing (``guard_framing``),
the open-files limit is raised so that thousands of connections fit, large
allocations go back to the system when freed (``return_large_allocations``), a
response's head goes out in the same send as its first body bytes
(``OneSendResponse``), and a connection closes as gunicorn's other workers
close one (``StreamingWorker.handle_request``): a request that leaves most of
its body unread closes its connection after its answer.

This module is imported by gunicorn's master process before workers fork, so
it must not import the application (which would load Redis clients and locks
before gevent patches them).
"""
from __future__ import annotations

import ctypes
import gc
import json
import re
import resource
import sys
from pathlib import Path

from gunicorn import glogging, util
from gunicorn.http import wsgi as gunicorn_wsgi
from gunicorn.http.errors import NoMoreData, ParseException
from gunicorn.workers.ggevent import GeventWorker
from werkzeug.exceptions import BadRequest, ClientDisconnected

CONNECTIONS = 4096  # open connections per HTTP worker process (streams and long polls included)
KEEPALIVE_S = 5
REQUEST_TIMEOUT_S = 30  # a worker whose event loop is stuck this long is restarted
# Young collections as Python does them; the oldest generation only on a schedule (see load_wsgi).
GC_THRESHOLDS = (700, 10, 1_000_000_000)  # Python's defaults are (700, 10, 10)
FULL_GC_EVERY_S = 600

# An answer that leaves more of its request's declared body unread than this (or a chunked body
# before its end) closes the connection instead of keeping it: before the next request gunicorn
# would discard the rest a kilobyte at a time, and with the bytes already waiting that loop never
# yields to the process's other greenlets (a flood of 120 uploads of 8 MiB, 112 of them refused:
# 23.7 s of the HTTP processes' CPU, a health check waiting 12 s; closed instead, 0.6 s). The same
# 64 KiB as gunicorn's cap on the bytes it discards while closing (util.close_graceful).
UNREAD_MAX_BYTES = 64 * 1024

# Allocations this large come straight from the system and go back to it when freed: an upload's
# 8 MiB body and its text. Left to glibc's sliding threshold, every one after the first came from
# the heap, which kept up to 16 MB of them resident after a flood of uploads and lifted its peak
# (120 uploads from one address: +33 to +59 MB over ten runs; with this, +32 to +45 over ten, and
# at most 1.2 MB left after). 4 MiB, not less: at 1 MiB every read of a body (gunicorn's 1 MiB
# recv) was a mapping of its own, and the benchmark's flood of 120 uploads took 5.9-9.2 s, against
# 2.0-2.8 s with glibc's threshold and 2.4-3.0 s with this one.
LARGE_ALLOCATION_BYTES = 4 * 1024 * 1024
M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter

PROBLEM_CODES = {400: "bad_request", 403: "forbidden", 414: "uri_too_long", 417: "expectation_failed",
                 431: "header_fields_too_large", 500: "internal_error", 501: "not_implemented"}


# The directory holding stich's packages (site-packages, or the checkout of an editable install).
PACKAGE_ROOT = str(Path(__file__).resolve().parents[1])


WORKER_CLASS = f"{__name__}.StreamingWorker"


def gunicorn_argv(app: str, host: str, port: int, workers: int, connections: int = CONNECTIONS,
                  log_level: str = "warning", access_log: str | None = None,
                  worker_class: str = WORKER_CLASS) -> list[str]:
    """``access_log``: a file (absolute: gunicorn changes directory) or ``-`` for stdout, for a line per
    request (``AccessLogger``); None, none. ``worker_class``: another is for the benchmark's
    comparison only (``bench.worker_classes``)."""
    # To be started from any directory: ``python -m`` would put the working directory first on
    # sys.path (``-P`` stops that), and gunicorn puts its --chdir there, so a folder named ``stich``
    # or ``api`` where the user stands would be imported instead of ours. gunicorn also inserts the
    # working directory it started in before it reads --chdir: start it in PACKAGE_ROOT (stich serve
    # does). The package root holds our packages (site-packages or our checkout): it shadows nothing.
    return [
        sys.executable, "-P", "-m", "gunicorn", "--chdir", PACKAGE_ROOT,
        "--bind", f"{host}:{port}", "--workers", str(workers),
        "--worker-class", worker_class, "--worker-connections", str(connections),
        "--keep-alive", str(KEEPALIVE_S), "--timeout", str(REQUEST_TIMEOUT_S), "--graceful-timeout", "5",
        # No control socket: its default path is shared by every gunicorn of the user.
        "--no-control-socket", "--log-level", log_level, "--config", "python:stich.gunicorn_hooks",
        *(("--access-logfile", access_log, "--access-logformat", ACCESS_LOG_FORMAT,
            "--logger-class", f"{__name__}.AccessLogger") if access_log else ()),
        app,
    ]


# The combined log's fields, less the request line's query and the identity fields nobody sends, plus the
# time taken: remote address, time, method and path, status, bytes, milliseconds, referrer, user agent.
ACCESS_LOG_FORMAT = '%(h)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(b)s %(M)sms "%(f)s" "%(a)s"'
# A path that is itself a credential: a bulk pairing's claim is redeemed at /v1/claims/<claim>.
SECRET_PATH = re.compile(r"^(/v1/claims/)[^/]+")


class AccessLogger(glogging.Logger):
    """gunicorn's logger, whose access lines never hold a credential: no header values, no query (none
    carries a secret today, and none is to leak if one ever does), and a claim's path as ``…``."""

    def atoms(self, resp, req, environ, request_time):
        # Without the request's headers and environ ({authorization}i, ...) and Basic auth's user.
        atoms = {name: value for name, value in super().atoms(resp, req, environ, request_time).items()
                 if not name.startswith("{")}
        atoms["U"] = SECRET_PATH.sub(r"\1…", atoms["U"] or "")
        atoms["q"], atoms["u"] = "", "-"
        atoms["r"] = f"{atoms['m']} {atoms['U']} {atoms['H']}"
        return atoms


def write_problem(sock, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's ``util.write_error``, answering RFC 9457 problem+json instead of HTML."""
    code = PROBLEM_CODES.get(status_int, "http_error")
    body = json.dumps({"type": f"/problems/{code}", "title": reason, "status": status_int,
                       "code": code, "detail": mesg or reason}).encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/problem+json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode("latin-1")
    util.write_nonblock(sock, head + body)


class FramedInput:
    """A request body whose framing errors are werkzeug's 400s. gunicorn raises its own
    exceptions while the application reads a body (a chunk size that is not hex or whose line
    runs past 8,190 bytes, a chunk without its CRLF, a body cut short), and the application's
    catch-all would answer them 500; a ``BadRequest`` it answers as a 400 problem. The
    connection closes after such an answer: where the next request would start is unknown."""

    DETAIL_CHARS = 200

    def __init__(self, body, response=None):
        self._body, self._response = body, response
        self.consumed = 0  # bytes the application has read
        self.ended = False  # whether it has read to the body's end

    def _guarded(self, read, *args):
        try:
            return read(*args)
        except NoMoreData as exc:
            self.close_connection()
            raise ClientDisconnected(f"the request body ended early: {exc}"[:self.DETAIL_CHARS]) from exc
        except ParseException as exc:
            self.close_connection()
            raise BadRequest(f"the request body's framing is malformed: {exc}"[:self.DETAIL_CHARS]) from exc

    def close_connection(self) -> None:
        """The connection closes after this request's answer."""
        if self._response is not None and hasattr(self._response, "force_close"):
            self._response.force_close()

    def read(self, size=None):
        data = self._guarded(self._body.read, size)
        self.consumed += len(data)
        self.ended |= not data or size is None or size < 0
        return data

    def readline(self, size=None):
        data = self._guarded(self._body.readline, size)
        self.consumed += len(data)
        self.ended |= not data
        return data

    def readlines(self, size=None):
        lines = self._guarded(self._body.readlines, size)
        self.consumed += sum(len(line) for line in lines)
        self.ended |= size is None or size < 0
        return lines

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line


def guard_framing(app):
    """``app`` with its ``wsgi.input`` a ``FramedInput`` (the response it closes is gunicorn's,
    whose ``start_response`` the server passes), closing the connection after an answer that left
    more than ``UNREAD_MAX_BYTES`` of the declared body unread (a refused upload's 8 MiB), or a
    chunked body before its end (its length unknown, it may be any size)."""
    def application(environ, start_response):
        body = environ.get("wsgi.input")
        if body is None:
            return app(environ, start_response)
        framed = environ["wsgi.input"] = FramedInput(body, getattr(start_response, "__self__", None))
        answer = app(environ, start_response)  # the head is sent with the first body bytes, after this
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        if declared_length(environ) - framed.consumed > UNREAD_MAX_BYTES or chunked and not framed.ended:
            framed.close_connection()
        return answer
    return application


def declared_length(environ) -> int:
    """The request's Content-Length (0 for a chunked body, whose length is not known)."""
    try:
        return int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def return_large_allocations(threshold: int = LARGE_ALLOCATION_BYTES) -> bool:
    """Serve allocations of ``threshold`` bytes or more with their own mappings (glibc's
    ``mallopt``), fixed rather than sliding up after the first is freed; False where the C library
    has no such setting."""
    try:
        return bool(ctypes.CDLL(None).mallopt(M_MMAP_THRESHOLD, threshold))
    except (OSError, AttributeError):
        return False


def raise_open_files_limit(wanted: int) -> None:
    """Lift the soft limit of open files towards ``wanted`` (never above the hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


class OneSendResponse(gunicorn_wsgi.Response):
    """gunicorn's HTTP/1 response, its head sent together with the first body bytes.

    gunicorn sends the head (status line and headers) on its own, then each body item: two
    sends, two syscalls and usually two TCP segments for every JSON answer, whose body is one
    item (a py-spy profile under the SSE cycle had 7% of the API workers' samples in the head's
    own send). Here ``write`` keeps the head it formats and puts it in front of the body it is
    writing; when that write sends no bytes (an empty item, a HEAD answer) the head goes alone,
    at once, as before, so a stream's head is never held back. Everything else (length
    bookkeeping, chunking, no-body statuses, sendfile) is gunicorn's.
    """

    _head: bytes | None = None
    _joining = False  # only inside ``write``: sendfile and close send the head as gunicorn does

    def send_headers(self):
        if self.headers_sent or not self._joining:
            return super().send_headers()
        # As gunicorn 27's send_headers formats the head, kept instead of sent.
        lines = self.default_headers()
        lines.extend(["%s: %s\r\n" % (k, v) for k, v in self.headers])
        self._head = util.to_bytestring("%s\r\n" % "".join(lines), "latin-1")
        self.headers_sent = True

    def write(self, arg):
        self._joining = True
        try:
            super().write(arg)
        finally:
            self._joining = False
            self._flush_head()

    def _emit_body(self, data):
        head, self._head = self._head, None
        if head is None:
            return super()._emit_body(data)
        if self.chunked:
            data = b"%X\r\n%s\r\n" % (len(data), data)
        self.sock.sendall(head + data)

    def _flush_head(self) -> None:
        head, self._head = self._head, None
        if head is not None:
            self.sock.sendall(head)


class StreamingWorker(GeventWorker):
    def init_process(self):
        util.write_error = write_problem  # gunicorn's own error answers, in this worker process only
        # gunicorn builds each HTTP/1 response with the module's Response (HTTP/2 passes its own).
        gunicorn_wsgi.Response = OneSendResponse
        raise_open_files_limit(self.worker_connections + 1024)
        return_large_allocations()
        super().init_process()

    def handle_request(self, listener_name, req, sock, addr):
        try:
            return super().handle_request(listener_name, req, sock, addr)
        except StopIteration:
            # The connection closes after this answer. Closed at once, as gunicorn's gevent worker
            # closes it, a request's unread bytes make the kernel reset the connection, and a client
            # still sending its body may lose the answer: half-close and read a little first (RFC
            # 9112 9.6), as gunicorn's sync and threaded workers close theirs.
            util.close_graceful(sock)
            raise

    def load_wsgi(self):
        super().load_wsgi()
        self.wsgi = guard_framing(self.wsgi)
        # A full garbage collection stops the whole event loop for as long as it scans the oldest
        # generation. With 2,000 open requests per process that is about 175,000 objects (their
        # requests, frames and buffers) and 130 ms measured, and Python starts one whenever enough
        # objects have grown old, which under steady load was every minute or so. So: the
        # application's own objects, which never become garbage, are frozen out of every
        # collection; young generations are collected as usual (most garbage cycles die there);
        # and the oldest generation is collected every FULL_GC_EVERY_S, so a long-lived cycle
        # costs memory for at most that long and the pause comes at a known rate.
        gc.collect()
        gc.freeze()
        gc.set_threshold(*GC_THRESHOLDS)
        import gevent  # the worker has patched the process by now

        gevent.spawn(collect_periodically, FULL_GC_EVERY_S)


def collect_periodically(every_s: float) -> None:
    import gevent

    while True:
        gevent.sleep(every_s)
        gc.collect()
