"""The Flask application factory."""
from __future__ import annotations

import logging
import os
import time

import redis
from flask import Flask, g, request
from flask.sessions import NullSession, SessionInterface
from werkzeug.exceptions import HTTPException, MethodNotAllowed
from werkzeug.middleware.proxy_fix import ProxyFix
from werkzeug.routing import IntegerConverter

from domain.errors import InvalidSetup
from eventstore.connection import connect_blocking
from eventstore.handler import Contention, IdempotencyKeyReused, UnknownGame
from eventstore.watch import BLOCK_S, StreamWatcher, WatchLimit
from workers.context import build_runtime

from . import request_log
from .auth import CredentialCache, PlayerCredentials
from .feed import TRANSPORT_KEY
from .http import refuse_unknown_query
from .metrics import COMMAND_SECONDS, MOVES, REQUESTS, STORE_ERRORS, LabelledChildren
from .problems import Problem, problem_response
from .quotas import QuotaKeeper, Quotas
from .ratelimit import Limits, RateLimiter, standing_fields
from .view_cache import ViewCache
from .websocket import SocketLimits

# The store's answers that mean "not now" rather than "no": a node unreachable or slow, and a
# cluster between a master's death and its replica's promotion (CLUSTERDOWN, TRYAGAIN, a slot no
# node serves yet, a write that reached a demoted master). Each refused the command or never
# answered, so each is a 503 to retry, as a dropped connection is; any other error stays a 500.
STORE_OUTAGES = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, redis.exceptions.ClusterError,
                 redis.exceptions.TryAgainError, redis.exceptions.ReadOnlyError,
                 redis.exceptions.SlotNotCoveredError, redis.exceptions.RedisClusterUnreachableError)

log = logging.getLogger("stich.api")


class AsciiInteger(IntegerConverter):
    """``<int:…>`` in paths: ASCII digits only (werkzeug's ``\\d+`` also matches '١', which int() reads as 1)."""

    regex = r"[0-9]{1,9}"


class NoSessions(SessionInterface):
    """This API keeps no sessions (a token in a header is its only credential). Flask's default
    interface still looks for a session cookie and makes a new null session on every request;
    this one shares one null session, which refuses every change as Flask's does."""

    null = NullSession()

    def open_session(self, app, request):
        return self.null

    def is_null_session(self, obj) -> bool:
        return True

    def save_session(self, app, session, response) -> None:
        return None


class LeanFlask(Flask):
    """Flask, less per-request work that serves no answer of ours: no sessions (``NoSessions``),
    and each function's ``ensure_sync`` check made once, not on every call of every hook and view
    (it asks ``inspect`` whether the function is a coroutine each time)."""

    SYNC_CHECKS = 4096  # views, hooks and error handlers: a bounded set

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.session_interface = NoSessions()
        self._sync_checked: dict = {}

    def ensure_sync(self, func):
        found = self._sync_checked.get(func)
        if found is None:
            found = super().ensure_sync(func)
            if len(self._sync_checked) < self.SYNC_CHECKS:
                self._sync_checked[func] = found
        return found


def create_app(redis_url: str | None = None, bots: str = "rq", queue_url: str | None = None,
               max_body_bytes: int = 64 * 1024, limits: Limits | None = None,
               max_watched_games: int | None = None, quotas: Quotas | None = None,
               trusted_proxies: int | None = None, database_url: str | None = None,
               socket_limits: SocketLimits | None = None) -> Flask:
    """``bots='inline'`` plays bot turns inside the request (tests, single process);
    ``'rq'`` queues them for ``stich worker`` processes. ``limits`` are the write
    rate limits and ``quotas`` the per-address quotas and operator keys (None:
    none, as in tests; the WSGI entry point reads both from the environment). ``max_watched_games``: how many games this process follows
    for long polls and streams at once (``STICH_MAX_WATCHED_GAMES``, default 1024).
    ``socket_limits``: the WebSocket's bounds (``STICH_SOCKET_*``, api/websocket.py).
    ``trusted_proxies``: how many reverse proxies in front set ``X-Forwarded-For`` and
    ``-Proto`` (``STICH_TRUSTED_PROXIES``, default 0), so the per-address limits see the client."""
    redis_url = redis_url or os.environ.get("REDIS_URL")
    if not redis_url:
        raise RuntimeError("create_app needs a Redis URL (REDIS_URL); `stich serve` starts a private one")
    app = LeanFlask("stich", static_folder=None)  # no /static route: every route is in openapi.yaml
    app.config["MAX_CONTENT_LENGTH"] = max_body_bytes + 1  # one byte past the limit tells a chunked body is too large
    app.json.sort_keys = False
    app.url_map.converters["int"] = AsciiInteger
    proxies = trusted_proxies if trusted_proxies is not None else int(os.environ.get("STICH_TRUSTED_PROXIES", "0"))
    if proxies:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies)
    runtime = build_runtime(redis_url, bots=bots, queue_url=queue_url or os.environ.get("QUEUE_URL"),
                            database_url=database_url)
    app.extensions["stich"] = runtime
    runtime.index.backfill()
    app.extensions["stich.limiter"] = RateLimiter(runtime.store.redis, limits or Limits())
    app.extensions["stich.quotas"] = QuotaKeeper(runtime.store.redis, quotas or Quotas())
    app.extensions["stich.credentials"] = CredentialCache(runtime.store.seat_credentials)
    app.extensions["stich.player_credentials"] = PlayerCredentials(runtime.players)
    app.extensions["stich.socket_limits"] = socket_limits or SocketLimits.from_env()
    app.extensions["stich.views"] = ViewCache()  # each (game, seq, seat) view made once: api/view_cache.py
    max_watched = max_watched_games or int(os.environ.get("STICH_MAX_WATCHED_GAMES", "1024"))
    app.extensions["stich.watcher"] = StreamWatcher(
        runtime.store, connect_blocking(redis_url, BLOCK_S, max_connections=max_watched), max_games=max_watched,
        on_batch=runtime.handler.advance)

    from .analysis import analysis
    from .audit import exports
    from .bulk import bulk
    from .feed import feed
    from .games import games
    from .hints import hints
    from .meta import meta
    from .play import play
    from .sockets import sockets
    from .players import players
    from .problem_pages import problem_pages
    from .pools import pools
    from .challenges import challenges
    from .exports import exports_at_scale
    from .embargo import Embargo
    from .tournaments import install as install_tournaments

    app.register_blueprint(meta)
    app.register_blueprint(problem_pages)
    app.register_blueprint(play)
    app.register_blueprint(bulk)  # before games: /v1/games/bulk is no game id
    app.register_blueprint(games)
    app.register_blueprint(feed)
    app.register_blueprint(sockets)
    app.register_blueprint(exports)
    app.register_blueprint(analysis)
    app.register_blueprint(hints)
    app.register_blueprint(players)
    app.register_blueprint(pools)
    app.register_blueprint(challenges)
    app.register_blueprint(exports_at_scale)
    install_tournaments(app, redis_url, max_watched)
    embargo = app.extensions["stich.embargo"] = Embargo()
    counted = LabelledChildren()

    # One hook before and one after every request, not five: each hook Flask calls costs it a lookup
    # per blueprint and an ``ensure_sync``, more than most of the hooks' own work.
    @app.before_request
    def _before() -> None:
        request_log.start(request.environ)  # first: an answer refused by the checks below carries its id too
        refuse_unknown_query()
        embargo.check()  # a duplicate round's tables: only their seats read them while it runs

    @app.after_request
    def _after(response):
        rule = request_log.route()
        status = response.status_code
        transport = "socket" if request.environ.get(TRANSPORT_KEY) == "socket" else "http"
        counted.get(REQUESTS, rule, request.method, str(status), transport).inc()
        if status == 200 and request.endpoint == "games.post_command" and "game" in g:
            counted.get(COMMAND_SECONDS, g.game).observe(time.perf_counter() - g.started)
            counted.get(MOVES, g.game).inc()
        return request_log.finish(standing_fields(response), rule)

    @app.errorhandler(Problem)
    def _problem(exc: Problem):
        headers = exc.extra.pop("headers", None)
        return problem_response(exc.status, exc.code, exc.detail, headers=headers, **exc.extra)

    @app.errorhandler(UnknownGame)
    def _unknown_game(exc: UnknownGame):
        return problem_response(404, "unknown_game", str(exc))

    @app.errorhandler(InvalidSetup)
    def _invalid_setup(exc: InvalidSetup):
        return problem_response(422, "invalid_setup", str(exc), errors=exc.errors)

    @app.errorhandler(Contention)
    def _contention(exc: Contention):
        return problem_response(503, "contention", str(exc), headers={"Retry-After": "1"})

    @app.errorhandler(WatchLimit)
    def _watch_limit(exc: WatchLimit):
        return problem_response(503, "too_many_streams", f"{exc}; retry later", headers={"Retry-After": "5"})

    @app.errorhandler(IdempotencyKeyReused)
    def _key_reused(exc: IdempotencyKeyReused):
        return problem_response(422, "idempotency_key_reused", str(exc),
                                errors={"Idempotency-Key": ["already used for another command"]})

    def _storage_down(exc: Exception):
        # Nothing was acknowledged: a command whose append did not answer may
        # or may not have landed, which a retry with the same Idempotency-Key settles.
        log.warning("storage unavailable: %s", exc)
        STORE_ERRORS.inc()
        return problem_response(503, "storage_unavailable", "the event store is unavailable; retry with the same "
                                "Idempotency-Key", headers={"Retry-After": "1"})

    for outage in STORE_OUTAGES:
        app.register_error_handler(outage, _storage_down)

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException):
        codes = {404: "not_found", 405: "method_not_allowed", 413: "body_too_large",
                 400: "bad_request", 415: "unsupported_media_type"}
        code = codes.get(exc.code, "http_error")
        headers = None
        if isinstance(exc, MethodNotAllowed) and exc.valid_methods:
            headers = {"Allow": ", ".join(sorted(exc.valid_methods))}  # RFC 9110: 405 lists the methods
        return problem_response(exc.code or 500, code, exc.description or code, headers=headers)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        log.exception("unhandled error")
        return problem_response(500, "internal_error", "the server failed; the request changed nothing it had not acknowledged")

    return app
