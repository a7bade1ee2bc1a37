"""How the HTTP API is served: gunicorn with gevent workers.

Long polls wait up to a minute and SSE streams stay open for hours. Under a
thread-per-request server each would hold a thread, and a few dozen of them
(or slow clients trickling their headers) would stall every other request.
With gevent a waiting request is a greenlet: it costs memory and a socket,
not a thread. The command path stays plain synchronous code; gevent's
monkey-patching makes its Redis calls yield while they wait.

``gunicorn_argv`` is the one place that spells out the server's settings;
``stich serve`` and the benchmark both use it. ``StreamingWorker`` is
gunicorn's gevent worker with four changes: errors gunicorn answers itself
(a malformed request line, oversized headers) are ``application/problem+json``
like every other error, so are errors in a body's framing (``guard_framing``),
the open-files limit is raised so that thousands of connections fit, and a
response's head goes out in the same send as its first body bytes
(``OneSendResponse``).

This module is imported by gunicorn's master process before workers fork, so
it must not import the application (which would load Redis clients and locks
before gevent patches them).
"""
from __future__ import annotations

import gc
import json
import resource
import sys
from pathlib import Path

from gunicorn import util
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

PROBLEM_CODES = {400: "bad_request", 403: "forbidden", 414: "uri_too_long", 417: "expectation_failed",
                 431: "header_fields_too_large", 500: "internal_error", 501: "not_implemented"}


# The directory holding stich's packages (site-packages, or the checkout of an editable install).
PACKAGE_ROOT = str(Path(__file__).resolve().parents[1])


def gunicorn_argv(app: str, host: str, port: int, workers: int, connections: int = CONNECTIONS,
                  log_level: str = "warning") -> list[str]:
    # To be started from any directory: ``python -m`` would put the working directory first on
    # sys.path (``-P`` stops that), and gunicorn puts its --chdir there, so a folder named ``stich``
    # or ``api`` where the user stands would be imported instead of ours. gunicorn also inserts the
    # working directory it started in before it reads --chdir: start it in PACKAGE_ROOT (stich serve
    # does). The package root holds our packages (site-packages or our checkout): it shadows nothing.
    return [
        sys.executable, "-P", "-m", "gunicorn", "--chdir", PACKAGE_ROOT,
        "--bind", f"{host}:{port}", "--workers", str(workers),
        "--worker-class", f"{__name__}.StreamingWorker", "--worker-connections", str(connections),
        "--keep-alive", str(KEEPALIVE_S), "--timeout", str(REQUEST_TIMEOUT_S), "--graceful-timeout", "5",
        # No control socket: its default path is shared by every gunicorn of the user.
        "--no-control-socket", "--log-level", log_level, "--config", "python:stich.gunicorn_hooks", app,
    ]


def write_problem(sock, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's ``util.write_error``, answering RFC 9457 problem+json instead of HTML."""
    code = PROBLEM_CODES.get(status_int, "http_error")
    body = json.dumps({"type": f"https://stich.invalid/problems/{code}", "title": reason, "status": status_int,
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

    def _guarded(self, read, *args):
        try:
            return read(*args)
        except NoMoreData as exc:
            self._close()
            raise ClientDisconnected(f"the request body ended early: {exc}"[:self.DETAIL_CHARS]) from exc
        except ParseException as exc:
            self._close()
            raise BadRequest(f"the request body's framing is malformed: {exc}"[:self.DETAIL_CHARS]) from exc

    def _close(self) -> None:
        if self._response is not None and hasattr(self._response, "force_close"):
            self._response.force_close()

    def read(self, size=None):
        return self._guarded(self._body.read, size)

    def readline(self, size=None):
        return self._guarded(self._body.readline, size)

    def readlines(self, size=None):
        return self._guarded(self._body.readlines, size)

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line


def guard_framing(app):
    """``app`` with its ``wsgi.input`` a ``FramedInput`` (the response it closes is gunicorn's,
    whose ``start_response`` the server passes)."""
    def application(environ, start_response):
        body = environ.get("wsgi.input")
        if body is not None:
            environ["wsgi.input"] = FramedInput(body, getattr(start_response, "__self__", None))
        return app(environ, start_response)
    return application


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
        super().init_process()

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
