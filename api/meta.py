"""The front door: an index, the health check, the contract itself and its interactive docs.

``openapi.yaml`` ships inside the package (``api/openapi.yaml`` is the
repository's top-level file; ``asyncapi.yaml``, the socket's, alike), so an installed server serves the very contract
it was built with. The docs page is Swagger UI from the ``flask-swagger-ui``
package's bundled files: it works with no internet access.
"""
from __future__ import annotations

import json
import re
from functools import cache
from importlib import metadata, resources
from pathlib import Path

import redis
import yaml
from flask import Blueprint, Response, request, send_from_directory
from werkzeug.exceptions import NotFound

from workers.heartbeat import ANALYSIS_KEY, live_workers

from .http import download, runtime
from .metrics import exposition
from .problems import problem_response

meta = Blueprint("meta", __name__)

LINKS = {
    "self": "/v1",
    "health": "/v1/health",
    "games": "/v1/games",
    "socket": "/v1/socket",
    "openapi_yaml": "/v1/openapi.yaml",
    "openapi_json": "/v1/openapi.json",
    "asyncapi_yaml": "/v1/asyncapi.yaml",
    "docs": "/docs",
    "metrics": "/metrics",
}


# The contract's own version, the first ``version:`` of the document (``info`` comes first in it).
INFO_VERSION = re.compile(r'^(  version: )"[^"\n]*"$', re.MULTILINE)


@cache
def contract_text() -> str:
    """The contract as shipped, its ``info.version`` the running package's: a server never tells a
    client a version other than its own (the repository's file carries the same, tests/api/test_version.py)."""
    text = resources.files("api").joinpath("openapi.yaml").read_text(encoding="utf-8")
    return INFO_VERSION.sub(lambda match: f'{match.group(1)}"{version()}"', text, count=1)


@cache
def contract_json() -> str:
    return json.dumps(yaml.safe_load(contract_text()), separators=(",", ":"))


@cache  # the installed version does not change under a running process; reading it costs ~1 ms
def version() -> str:
    try:
        return metadata.version("stich")
    except metadata.PackageNotFoundError:  # running from a checkout that was never installed
        return "unknown"


def index_body() -> dict:
    return {"name": "stich", "version": version(),
            "description": "Event-sourced REST game server for Schafkopf, Scharwenzel and Scharfe Schoten",
            "games": sorted(runtime().handler.table.games), "links": LINKS}


INDEX_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>stich</title></head>
<body>
<h1>stich {version}</h1>
<p>An event-sourced REST game server for Schafkopf, Scharwenzel and Scharfe Schoten.</p>
<ul>
<li><a href="/docs">Interactive API documentation</a></li>
<li><a href="/v1/openapi.yaml">The contract, <code>openapi.yaml</code></a> (also <a href="/v1/openapi.json">as JSON</a>)</li>
<li><a href="/v1/games">Games</a> and <a href="/v1/health">health</a> (JSON)</li>
</ul>
</body></html>
"""


@meta.get("/")
def root():
    """JSON for programs; a page of links for a browser (which asks for text/html first)."""
    if request.accept_mimetypes.best_match(["application/json", "text/html"]) == "text/html":
        return Response(INDEX_HTML.format(version=version()), mimetype="text/html")
    return index_body()


@meta.get("/v1")
def api_index():
    return index_body()


@meta.get("/v1/health")
def health():
    """Each component's state; 503 while one is down. Without a queue (bots played inline, in
    tests) there is neither queue nor workers to check."""
    rt = runtime()
    components = {"store": {"status": "up" if answers(rt.store.redis) else "down"}}
    if rt.queue is None:
        components["queue"] = components["workers"] = components["analysis"] = {"status": "inline"}
    else:
        queue = rt.queue.connection
        components["queue"] = {"status": "up" if answers(queue) else "down"}
        try:
            count, analysts = live_workers(queue), live_workers(queue, key=ANALYSIS_KEY)
        except redis.RedisError:
            count = analysts = 0
        components["workers"] = {"status": "up" if count else "down", "count": count}
        # Without an analysis worker the games play on and analyses wait in their lane: a server that
        # cannot analyse now is not down, and a balancer must not take it out of rotation for that.
        components["analysis"] = {"status": "up" if analysts else "absent", "count": analysts}
    down = sorted(name for name, c in components.items() if c["status"] == "down")
    if down:  # a problem like every other error, with the components for monitors
        return problem_response(503, "unhealthy", f"not up: {', '.join(down)}", components=components)
    return {"status": "ok", "components": components}


def answers(client) -> bool:
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False


@meta.get("/metrics")
def metrics():
    text, content_type = exposition(runtime().queue, runtime().store)
    return Response(text, mimetype=None, content_type=content_type)


@meta.get("/v1/openapi.yaml")
def openapi_yaml():
    return download(contract_text(), "application/yaml")


@cache
def socket_contract_text() -> str:
    return resources.files("api").joinpath("asyncapi.yaml").read_text(encoding="utf-8")


@meta.get("/v1/asyncapi.yaml")
def asyncapi_yaml():
    return download(socket_contract_text(), "application/yaml")


@meta.get("/v1/openapi.json")
def openapi_json():
    return Response(contract_json(), mimetype="application/json")


DOCS_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>stich API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({url: "/v1/openapi.json", dom_id: "#swagger-ui", deepLinking: true,
                             presets: [SwaggerUIBundle.presets.apis]});
</script></body></html>
"""


@cache
def swagger_ui_dir() -> Path:
    import flask_swagger_ui

    return Path(flask_swagger_ui.__file__).parent / "dist"


@meta.get("/docs")
def docs():
    return Response(DOCS_HTML, mimetype="text/html")


@cache
def favicon_bytes() -> bytes:
    return resources.files("api").joinpath("client", "favicon.ico").read_bytes()


@meta.get("/favicon.ico")
def favicon():
    """The icon every browser asks for (the docs, /play): a card on the table, 32 px, from the package."""
    response = download(favicon_bytes(), "image/x-icon")
    response.cache_control.public, response.cache_control.max_age = True, 86_400
    return response


ASSET_TYPES = {".js": "text/javascript", ".css": "text/css"}  # all the docs page loads


@meta.get("/docs/assets/<path:name>")
def docs_asset(name: str):
    mimetype = ASSET_TYPES.get(Path(name).suffix)
    if mimetype is None:
        raise NotFound(f"no docs asset {name!r}")
    return send_from_directory(swagger_ui_dir(), name, mimetype=mimetype, max_age=86_400)
