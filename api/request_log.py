"""Structured logs and request ids.

Every response carries ``X-Request-Id``: the client's own (when it is 1-64 of
``A-Z a-z 0-9 . _ -``) or a new random one, so a client can quote it and an
operator can find the request. Log records are JSON lines, one per record,
with the request id of the request they belong to; at level INFO
(``STICH_LOG_LEVEL=INFO``) each request also logs one line with its route,
status and duration. Nothing secret is logged: no header values, no bodies
(tokens and seeds travel only there), and a path holds at most a game id.
"""
from __future__ import annotations

import json
import logging
import random
import re
import sys
import time

from flask import Response, g, has_request_context, request

HEADER = "X-Request-Id"
ENVIRON_KEY = "HTTP_X_REQUEST_ID"  # how a WSGI server hands the header over
GIVEN_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
access = logging.getLogger("stich.access")


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {"ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
                "level": record.levelname, "logger": record.name, "msg": record.getMessage()}
        if has_request_context() and "request_id" in g:
            line["request_id"] = g.request_id
        line.update(getattr(record, "fields", {}))
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, separators=(",", ":"))


def configure_logging(level: str) -> None:
    """JSON lines on stderr for the ``stich`` loggers (once per process)."""
    root = logging.getLogger("stich")
    if not any(isinstance(h.formatter, JsonFormatter) for h in root.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonFormatter())
        root.addHandler(handler)
        root.propagate = False
    root.setLevel(level)


def new_id() -> str:
    """16 random hex digits. A request id names a request, it guards nothing: Python's own generator
    (half the cost of ``secrets``, which asks the kernel for every id) is random enough."""
    return "%016x" % random.getrandbits(64)  # the module's generator: reseeded in every forked child


def start(environ: dict) -> None:
    """At the start of every request (``api/app.py``'s one before-request hook), before anything
    can refuse it, so that every answer carries the client's id. Read from the WSGI environ:
    building the request's header view costs more than the check."""
    given = environ.get(ENVIRON_KEY, "")
    g.request_id = given if GIVEN_ID.fullmatch(given) else new_id()
    g.started = time.perf_counter()


def finish(response: Response, rule: str) -> Response:
    """At the end of every request (the one after-request hook): the id header and, at INFO, the line."""
    request_id = g.get("request_id") or new_id()  # a request refused before it started
    response.headers[HEADER] = request_id
    if access.isEnabledFor(logging.INFO):
        took = (time.perf_counter() - g.get("started", time.perf_counter())) * 1000
        access.info("request", extra={"fields": {
            "method": request.method, "route": rule, "status": response.status_code,
            "ms": round(took, 2), "remote": request.remote_addr}})
    return response


def route() -> str:
    """The matched rule (bounded: never a raw path), or ``unmatched``."""
    return request.url_rule.rule if request.url_rule is not None else "unmatched"
