"""``stich verify`` and ``stich import``: an export checked offline, or loaded into a server.

``verify`` needs no server and no Redis: it reads the export from a file (``-``
for stdin) or a URL and checks it with the rules in ``domain`` alone.
"""
from __future__ import annotations

import http.client
import json
import re
import sys
import urllib.error
import urllib.request
from typing import TextIO

from domain import audit
from domain.registry import all_games
from domain.table import Table
from domain.tournament import bundle

GAME_URL = re.compile(r"^(https?://.+/v1/games/[0-9a-f]{16})/?$")
EXPORT_URL = re.compile(r"^https?://.+/v1/games/([0-9a-f]{16})(?:/export)?/?(?:\?.*)?$")
TOURNAMENT_URL = re.compile(r"^(https?://.+/v1/tournaments/t[0-9a-f]{15})/?$")
PROGRESS_FROM = 5_000  # events; smaller exports verify in well under a second
TIMEOUT_S = 60


class AuditError(Exception):
    """The export could not be read or sent (as opposed to read and found wrong)."""


class AnswerBeforeBody:
    """An HTTP connection that reads the server's answer when the server gave it and closed before
    it had the whole body, as curl and urllib3 do (http.client raises the broken pipe instead). A
    server refuses an upload before reading it (a quota, the uploads at once: api/uploads.py) and
    closes the connection after its answer, so ``stich import`` would say it cannot reach the server
    rather than why it refused."""

    _answered = False

    def send(self, data):
        if self._answered:
            return
        try:
            super().send(data)
        except (BrokenPipeError, ConnectionResetError):
            self._answered = True  # the answer, if it came, is read next, as any other


class HTTPAnswerBeforeBody(AnswerBeforeBody, http.client.HTTPConnection):
    pass


class HTTPSAnswerBeforeBody(AnswerBeforeBody, http.client.HTTPSConnection):
    pass


class UploadHandler(urllib.request.HTTPHandler):
    def http_open(self, req):
        return self.do_open(HTTPAnswerBeforeBody, req)


class SecureUploadHandler(urllib.request.HTTPSHandler):
    def https_open(self, req):
        return self.do_open(HTTPSAnswerBeforeBody, req, context=self._context)


def read_export(source: str) -> str:
    """The export's text from a file, ``-`` (stdin) or a URL (a game's URL means its export)."""
    if source == "-":
        return sys.stdin.read()
    if source.startswith(("http://", "https://")):
        game = GAME_URL.match(source) or TOURNAMENT_URL.match(source)
        url = game.group(1) + "/export" if game else source
        try:
            with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response:
                return response.read().decode("utf-8")
        except (urllib.error.URLError, OSError, UnicodeDecodeError) as exc:
            raise AuditError(f"cannot fetch {url}: {exc}") from exc
    try:
        with open(source, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise AuditError(f"cannot read {source}: {exc}") from exc


def progress_printer(stream: TextIO):
    """Prints how far the replay is, for exports large enough to take a while."""
    def progress(done: int, total: int) -> None:
        if total >= PROGRESS_FROM and (done % 1000 < 5 or done == total):
            stream.write(f"\rreplaying: {done}/{total} events")
            if done == total:
                stream.write("\n")
            stream.flush()
    return progress


def url_game_id(source: str) -> str | None:
    """The game id a game's URL (or its export's) names: the export's header must name the same.
    No event holds the id, so this is the only check of it beyond its form (docs/events.md)."""
    game = EXPORT_URL.match(source)
    return game.group(1) if game else None


def verify_export(source: str, head: str | None, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """0 when the export verifies, 1 when it does not (the report names the first wrong event),
    2 when the input is no export at all (not JSON lines, or no export header)."""
    text = read_export(source)
    if bundle.is_bundle(text):  # a tournament's: its events, every table, from its revealed seed
        found = bundle.verify_text(all_games(), text)
        out.write("\n".join(found.lines()) + "\n")
        return 0 if found.ok else 1
    report = audit.verify_text(Table(all_games()), text, head=head, progress=progress_printer(err),
                               game_id=url_game_id(source))
    out.write("\n".join(report.lines()) + "\n")
    return 0 if report.ok else 1 if report.readable else 2


def import_export(source: str, server: str, api_key: str | None, out: TextIO = sys.stdout,
                  err: TextIO = sys.stderr) -> int:
    """Verify locally first (a file that does not verify is never sent), then POST it to the server."""
    # Say which server: the default (port 8000 on this machine) is easy to hit by mistake.
    err.write(f"stich import: into {server.rstrip('/')} (choose another with --server or STICH_SERVER)\n")
    text = read_export(source)
    report = audit.verify_text(Table(all_games()), text, game_id=url_game_id(source))
    if not report.ok:
        out.write("\n".join(report.lines()) + "\nnot imported: the export does not verify\n")
        return 1
    request = urllib.request.Request(server.rstrip("/") + "/v1/imports", data=text.encode("utf-8"), method="POST",
                                     headers={"Content-Type": "application/x-ndjson",
                                              **({"X-API-Key": api_key} if api_key else {})})
    try:
        opener = urllib.request.build_opener(UploadHandler, SecureUploadHandler)
        with opener.open(request, timeout=TIMEOUT_S) as response:
            body, before = json.load(response), response.status == 200  # 200: this history was imported before
    except urllib.error.HTTPError as answer:
        detail = answer.read().decode("utf-8", "replace")
        raise AuditError(f"the server refused the import ({answer.code}): {detail}") from answer
    except (urllib.error.URLError, OSError) as exc:
        raise AuditError(f"cannot reach {server}: {exc}") from exc
    out.write(f"{'already ' if before else ''}imported game {body['imported_from']} as {body['id']}: "
              f"{server.rstrip('/')}/v1/games/{body['id']}\n")
    return 0
