"""`stich serve --access-log`: gunicorn's access log, without a credential in it."""
from __future__ import annotations

import datetime
import logging
from types import SimpleNamespace

from gunicorn.config import Config

from stich.cli import build_parser
from stich.web_worker import ACCESS_LOG_FORMAT, AccessLogger, gunicorn_argv


def line(path: str, query: str = "", headers=()) -> str:
    """The access line AccessLogger writes for one request."""
    config = Config()
    config.set("accesslog", "-")
    config.set("access_log_format", ACCESS_LOG_FORMAT)
    logger = AccessLogger(config)
    written = []
    logger.access_log.handlers = [logging.Handler()]
    logger.access_log.handlers[0].emit = lambda record: written.append(record.getMessage())
    environ = {"REQUEST_METHOD": "POST", "RAW_URI": path + (f"?{query}" if query else ""), "PATH_INFO": path,
               "QUERY_STRING": query, "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "10.0.0.7",
               "HTTP_AUTHORIZATION": "Bearer secret-token", "HTTP_USER_AGENT": "curl/8"}
    response = SimpleNamespace(status="200 OK", sent=42, headers=[("Content-Type", "application/json")])
    request = SimpleNamespace(headers=[("AUTHORIZATION", "Bearer secret-token"), *headers])
    logger.access(response, request, environ, datetime.timedelta(milliseconds=12))
    [text] = written
    return text


def test_a_line_names_the_request_and_holds_no_credential():
    text = line("/v1/claims/c_SECRETCLAIM", query="after=3")
    assert text.startswith('10.0.0.7 [') and '"POST /v1/claims/… HTTP/1.1" 200 42 12ms "-" "curl/8"' in text
    assert "SECRET" not in text and "secret-token" not in text and "after=3" not in text
    assert '"POST /v1/games/0123456789abcdef/commands HTTP/1.1"' in line("/v1/games/0123456789abcdef/commands")


def test_serve_passes_the_access_log_to_gunicorn_only_when_asked():
    parser = build_parser()
    assert parser.parse_args(["serve"]).access_log is None
    assert parser.parse_args(["serve", "--access-log"]).access_log == "-"
    assert parser.parse_args(["serve", "--access-log", "access.log"]).access_log == "access.log"
    assert "--access-logfile" not in gunicorn_argv("api.wsgi:app", "127.0.0.1", 8000, 1)
    argv = gunicorn_argv("api.wsgi:app", "127.0.0.1", 8000, 1, access_log="/tmp/a.log")
    assert argv[argv.index("--access-logfile") + 1] == "/tmp/a.log"
    assert argv[argv.index("--logger-class") + 1] == "stich.web_worker.AccessLogger"
