"""The reference browser client: ``/play`` and its files, shipped inside the package.

The client is plain HTML, CSS and JavaScript modules in ``api/client/`` with no
build step, so an installed server serves it as it is in the repository. It
uses only the public API (``openapi.yaml``), which makes it an example too.
"""
from __future__ import annotations

import re
from functools import cache
from importlib import resources
from pathlib import Path

from flask import Blueprint, Response, send_from_directory
from werkzeug.exceptions import NotFound

play = Blueprint("play", __name__)

ASSET_TYPES = {".js": "text/javascript", ".css": "text/css"}
# One plain file name: no folders, no dot files, so nothing outside the client folder can be named.
ASSET_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,60}\.(?:js|css)")


@cache
def client_dir() -> Path:
    return Path(str(resources.files("api").joinpath("client")))


@cache
def page() -> str:
    return (client_dir() / "index.html").read_text(encoding="utf-8")


@play.get("/play")
def play_page():
    # no-cache: the page is small, and a stale page with a new server's scripts would be confusing
    response = Response(page(), mimetype="text/html")
    response.headers["Cache-Control"] = "no-cache"
    return response


@play.get("/play/assets/<path:name>")
def play_asset(name: str):
    if not ASSET_NAME.fullmatch(name):
        raise NotFound(f"no client asset {name!r}")
    return send_from_directory(client_dir(), name, mimetype=ASSET_TYPES[Path(name).suffix], max_age=0)
