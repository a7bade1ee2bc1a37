"""``GET /v1/socket``: one WebSocket per client, carrying many games' pushes and commands.

The socket is a second transport into the routes, not a second API: a ``subscribe`` message is
answered by the SSE stream's own route (``GET /v1/games/{id}/events/stream``, the same checks,
the same quota of streams, the same ``Following`` of the game, api/feed.py), and a ``command``
message by the command route (``POST /v1/games/{id}/commands``, the one command handler), each
called in a request of its own made from the message: the token of the message is its bearer
token, ``expected_seq`` its If-Match, ``idempotency_key`` its Idempotency-Key, and the socket's
client address its address. A command's ``result`` carries the route's answer as it is (its
status and its body: the seq, events and view, or the problem); a subscription sends the
following's pushes as the SSE stream does, one message each. The messages are described in
``asyncapi.yaml`` (served at /v1/asyncapi.yaml) and docs/socket.md.

Tokens travel only in messages (never the URL, which proxies log). A subscription whose token is
superseded or revoked ends with an ``error`` then ``unsubscribed``, as an SSE stream ends with
its ``event: error``. Every subscription ends with exactly one ``unsubscribed``.
"""
from __future__ import annotations

import io
import logging
import sys
import threading
from urllib.parse import urlencode

import orjson
from flask import Blueprint, Response, current_app, request

from domain.table import FINAL_EVENT

from .feed import TRANSPORT_KEY, Following
from .http import GONE_KEY, json_bytes, operator_request, quotas
from .problems import Problem, problem_body
from .quotas import API_KEY_HEADER
from .websocket import HandshakeFailed, MessageRefused, SocketLimits, WebSocket

sockets = Blueprint("sockets", __name__, url_prefix="/v1")
log = logging.getLogger("stich.api")

ID_CHARS = 128  # a client's message id, and an Idempotency-Key, as the HTTP header allows
TOKEN_CHARS = 512
GAME_CHARS = 128
API_KEY_ENVIRON = "HTTP_" + API_KEY_HEADER.upper().replace("-", "_")


class Switched(Response):
    """The answer once the connection has been a WebSocket: gunicorn must write nothing more on
    it (the StopIteration tells its worker the request is handled, and it closes the connection)."""

    def __call__(self, environ, start_response):
        raise StopIteration()


# Two rules, one view: werkzeug routes an upgrade request only to a rule marked ``websocket``, and
# any other request only to one that is not (it answers the other 400 itself); this one answers both.
@sockets.get("/socket", websocket=True)
@sockets.get("/socket")
def socket():
    upgrade = request.headers.get("Upgrade", "").lower()
    connection = {part.strip().lower() for part in request.headers.get("Connection", "").split(",")}
    raw = request.environ.get("gunicorn.socket")
    if upgrade != "websocket" or "upgrade" not in connection or raw is None:
        raise Problem(426, "upgrade_required", "GET /v1/socket is a WebSocket: open it with a WebSocket client "
                      "(Upgrade: websocket), then send JSON messages (see /v1/asyncapi.yaml)",
                      headers={"Upgrade": "websocket", "Connection": "Upgrade"})
    limits = current_app.extensions["stich.socket_limits"]
    with quotas().holding_socket(request.remote_addr, operator_request()):
        try:
            ws = WebSocket(raw, request.environ, limits)
        except HandshakeFailed as exc:
            raise Problem(400, "bad_handshake", f"not a WebSocket handshake of RFC 6455: {exc}")
        Session(current_app._get_current_object(), ws, request.environ, request.remote_addr).run()
    return Switched(status=101)


class Subscription:
    """One game followed for one viewer on a socket, in a thread of its own (a greenlet)."""

    def __init__(self, session: "Session", game: str, response, following: Following, stop: threading.Event):
        self.session, self.game, self.response, self.following = session, game, response, following
        self.seat = following.viewer
        self.stop = stop  # set when unsubscribed or the socket closes: send nothing more (its following ends too)
        head = b'{"game":' + json_bytes(game) + b',"seat":' + json_bytes(self.seat)
        self._event = b'{"type":"event",' + head[1:] + b',"seq":'
        self._view = b'{"type":"view",' + head[1:] + b',"seq":'
        self._head = head[1:]

    @property
    def key(self) -> tuple[str, int | None]:
        return self.game, self.seat

    def start(self) -> None:
        threading.Thread(target=self._run, daemon=True, name=f"socket-{self.game}").start()

    def _run(self) -> None:
        reason = "expired"
        watch, viewer = self.following.watch, self.seat
        try:
            for push in self.following.pushes():
                if self.stop.is_set():
                    return
                texts = [self._event + str(e.seq).encode() + b',"event":' + watch.render(e, viewer, shown).encode()
                         + b"}" for e, shown in zip(push.events, push.reveal)]
                if push.view is not None:  # the seq of the view: the fold's that made it (TurnViews.sent)
                    texts.append(self._view + str(self.following.turns.sent).encode() + b',"view":' + push.view
                                 + b"}")
                if push.problem is not None:
                    texts.append(self.session.error(push.problem.status, push.problem.code, push.problem.detail,
                                                    head=self._head))
                    reason = "error"
                elif push.events and push.events[-1].type == FINAL_EVENT:
                    reason = "finished"
                if texts and not self.session.ws.send(texts, stopped=self.stop.is_set):
                    return
        except Exception:  # a failure ends this subscription, not the socket
            log.exception("socket subscription to %s failed", self.game)
            reason = "error"
            self.session.ws.send([self.session.error(500, "internal_error", "the server failed to follow this "
                                                     "game; subscribe again after the last seq received",
                                                     head=self._head)], stopped=self.stop.is_set)
        finally:
            self.following.release()
            self.response.close()
            self.session.ended(self, reason)


class Session:
    """One socket's messages: read in the request's thread, answered in order; its subscriptions
    push from their own threads; the socket's writer alone writes (api/websocket.py)."""

    def __init__(self, app, ws: WebSocket, environ: dict, address: str | None):
        self.app, self.ws, self.environ, self.address = app, ws, environ, address
        self.limits: SocketLimits = ws.limits
        self.subscriptions: dict[tuple[str, int | None], Subscription] = {}
        self.closing = False

    def run(self) -> None:
        limits = self.limits
        self.ws.send([json_bytes({"type": "welcome", "limits": {
            "max_message_bytes": limits.max_message_bytes, "messages_per_s": limits.messages_per_s,
            "burst": limits.burst, "subscriptions": limits.subscriptions, "ping_s": limits.ping_s}})])
        try:
            while not self.ws.closed:
                try:
                    text = self.ws.receive()
                except MessageRefused as exc:  # abuse: say why, then close
                    self.ws.send([self.error(exc.status, exc.code, exc.detail)])
                    self.ws.close(exc.close_code, exc.code)
                    break
                if text is None:
                    break
                try:
                    self.handle(text)
                except Exception:  # a failure answers the message, as a route's 500 answers a request
                    log.exception("socket message failed")
                    self.ws.send([self.error(500, "internal_error", "the server failed; the message changed "
                                             "nothing it had not acknowledged")])
        finally:
            self.closing = True
            for subscription in list(self.subscriptions.values()):
                subscription.stop.set()  # each ends at its next wake (within a second)
            self.ws.close(1000, "")
            self.ws.finish()

    # -- messages --------------------------------------------------------------
    def handle(self, text: str) -> None:
        try:
            message = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            self.ws.send([self.error(400, "malformed_json", f"the message is not valid JSON: {exc}")])
            return
        if not isinstance(message, dict):
            self.ws.send([self.error(422, "validation_error", "a message is a JSON object",
                                     errors={"_message": ["not an object"]})])
            return
        handler = {"subscribe": self.subscribe, "unsubscribe": self.unsubscribe,
                   "command": self.command}.get(message.get("type"))
        message_id = None
        try:
            message_id = optional_id(message)
            if handler is None:
                raise Problem(422, "validation_error", "type must be subscribe, unsubscribe or command",
                              errors={"type": ["unknown message type"]})
            handler(message, message_id)
        except Problem as exc:
            head = None if message_id is None else b'"id":' + json_bytes(message_id)
            self.ws.send([self.error(exc.status, exc.code, exc.detail, head=head, **exc.extra)])

    def subscribe(self, message: dict, message_id) -> None:
        expect(message, {"type", "id", "game", "token", "after", "views"})
        game = game_field(message)
        token = token_field(message)
        after = message.get("after")
        if after is not None and (not isinstance(after, int) or isinstance(after, bool) or not 0 <= after <= 2**53):
            raise Problem(422, "validation_error", "after must be a seq (an integer, 0 or more)",
                          errors={"after": ["not a seq"]})
        views = message.get("views", False)
        if not isinstance(views, bool):
            raise Problem(422, "validation_error", "views must be true or false", errors={"views": ["not a boolean"]})
        if len(self.subscriptions) >= self.limits.subscriptions:
            raise Problem(429, "subscription_limit", f"this socket has {self.limits.subscriptions} subscriptions, "
                          "as many as one socket may hold; unsubscribe from one first",
                          limit=self.limits.subscriptions)
        query = {}
        if after is not None:
            query["after"] = str(after)
        if views:
            query["views"] = "true"
        stop = threading.Event()
        # The following wakes every second to look whether its client has gone: this subscription's.
        response = self.dispatch("GET", f"/v1/games/{game}/events/stream", urlencode(query), token,
                                 gone=lambda: stop.is_set() or self.closing or self.ws.closed)
        following = getattr(response, "following", None)
        if following is None:  # refused: the route's problem
            problem = orjson.loads(response.get_data())
            head = b'"id":' + json_bytes(message_id) + b"," if message_id is not None else b""
            self.ws.send([b'{"type":"error",' + head + b'"game":' + json_bytes(game) + b',"problem":'
                          + json_bytes(problem) + b"}"])
            return
        subscription = Subscription(self, game, response, following, stop)
        if subscription.key in self.subscriptions:
            following.release()
            response.close()
            raise Problem(409, "already_subscribed", f"this socket already follows game {game} for seat "
                          f"{subscription.seat}; unsubscribe first to follow it from another seq")
        self.subscriptions[subscription.key] = subscription
        answer = {"type": "subscribed", "game": game, "seat": subscription.seat, "seq": following.seq}
        if message_id is not None:
            answer["id"] = message_id
        self.ws.send([json_bytes(answer)])
        subscription.start()

    def unsubscribe(self, message: dict, message_id) -> None:
        expect(message, {"type", "id", "game", "seat"})
        game = game_field(message)
        seat = message.get("seat")
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
            raise Problem(422, "validation_error", "seat must be an integer", errors={"seat": ["not an integer"]})
        found = [s for key, s in self.subscriptions.items() if key[0] == game and ("seat" not in message
                                                                                    or key[1] == seat)]
        if not found:
            raise Problem(404, "not_subscribed", f"this socket follows game {game} for no such seat")
        for subscription in found:
            subscription.stop.set()
            del self.subscriptions[subscription.key]
            answer = {"type": "unsubscribed", "game": game, "seat": subscription.seat, "reason": "requested"}
            if message_id is not None:
                answer["id"] = message_id
            self.ws.send([json_bytes(answer)])

    def command(self, message: dict, message_id) -> None:
        expect(message, {"type", "id", "game", "token", "command", "expected_seq", "idempotency_key", "view"})
        if message_id is None:
            raise Problem(422, "validation_error", "a command needs an id of the client's choosing: its result "
                          "carries it", errors={"id": ["missing"]})
        game = game_field(message)
        token = token_field(message)  # none: the route's own 401 missing_token
        headers = {}
        expected = message.get("expected_seq")
        if expected is not None:
            if not isinstance(expected, int) or isinstance(expected, bool) or not 0 <= expected <= 2**53:
                raise Problem(422, "validation_error", "expected_seq must be a seq (an integer, 0 or more)",
                              errors={"expected_seq": ["not a seq"]})
            headers["HTTP_IF_MATCH"] = f'"{expected}"'
        key = message.get("idempotency_key")
        if key is not None:
            if not isinstance(key, str):
                raise Problem(422, "validation_error", "idempotency_key must be a string",
                              errors={"idempotency_key": ["not a string"]})
            headers["HTTP_IDEMPOTENCY_KEY"] = key
        view = message.get("view", True)
        if not isinstance(view, bool):
            raise Problem(422, "validation_error", "view must be true or false", errors={"view": ["not a boolean"]})
        if not view:
            headers["HTTP_PREFER"] = "return=minimal"
        if "command" not in message:
            raise Problem(422, "validation_error", "a command message carries the command",
                          errors={"command": ["missing"]})
        response = self.dispatch("POST", f"/v1/games/{game}/commands", "", token, json_bytes(message["command"]),
                                 headers)
        text = b'{"type":"result","id":' + json_bytes(message_id) + b',"status":' + \
            str(response.status_code).encode() + b',"body":' + response.get_data()
        retry = response.headers.get("Retry-After")
        if retry is not None and retry.isdigit():
            text += b',"retry_after":' + retry.encode()
        self.ws.send([text + b"}"])

    # -- the routes, called as HTTP calls them ------------------------------------
    def dispatch(self, method: str, path: str, query: str, token: str | None, body: bytes = b"",
                 headers: dict | None = None, gone=None):
        """The route's answer to the request this message stands for, through the whole application
        (its hooks, limits and error handlers) in an application context of its own."""
        outer = self.environ
        environ = {
            "REQUEST_METHOD": method, "SCRIPT_NAME": "", "PATH_INFO": path, "QUERY_STRING": query,
            "SERVER_NAME": outer.get("SERVER_NAME", "localhost"), "SERVER_PORT": outer.get("SERVER_PORT", "80"),
            "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": self.address or "", "HTTP_HOST": outer.get("HTTP_HOST", ""),
            "wsgi.version": (1, 0), "wsgi.url_scheme": outer.get("wsgi.url_scheme", "http"),
            "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr, "wsgi.multithread": True,
            "wsgi.multiprocess": True, "wsgi.run_once": False,
            "CONTENT_LENGTH": str(len(body)), TRANSPORT_KEY: "socket",
        }
        if gone is not None:
            environ[GONE_KEY] = gone
        if body:
            environ["CONTENT_TYPE"] = "application/json"
        if token is not None:
            environ["HTTP_AUTHORIZATION"] = f"Bearer {token}"
        if API_KEY_ENVIRON in outer:  # an operator's socket: its key, presented at the upgrade, counts as on HTTP
            environ[API_KEY_ENVIRON] = outer[API_KEY_ENVIRON]
        environ.update(headers or {})
        with self.app.app_context(), self.app.request_context(environ):
            return self.app.full_dispatch_request()

    def ended(self, subscription: Subscription, reason: str) -> None:
        """A subscription's thread has ended: unless the client asked for it (answered already) or the
        socket is closing, say so."""
        if self.subscriptions.get(subscription.key) is subscription:
            del self.subscriptions[subscription.key]
            if not subscription.stop.is_set() and not self.closing:
                self.ws.send([b'{"type":"unsubscribed",' + subscription._head + b',"reason":"' + reason.encode()
                              + b'"}'])

    def error(self, status: int, code: str, detail: str, head: bytes | None = None, **extra) -> bytes:
        """An ``error`` message: the problem (as HTTP would answer it), after ``head`` (the message's
        id, or the subscription's game and seat)."""
        problem = json_bytes(problem_body(status, code, detail, **{k: v for k, v in extra.items() if k != "headers"}))
        return b'{"type":"error",' + (head + b"," if head else b"") + b'"problem":' + problem + b"}"


def optional_id(message: dict):
    value = message.get("id")
    if value is None:
        return None
    if not isinstance(value, str) or not 1 <= len(value) <= ID_CHARS:
        raise Problem(422, "validation_error", f"id must be a string of 1..{ID_CHARS} characters",
                      errors={"id": ["not a string of 1..128 characters"]})
    return value


def expect(message: dict, fields: set[str]) -> None:
    unknown = sorted(set(message) - fields)
    if unknown:
        raise Problem(422, "validation_error", f"unknown fields {unknown}; this message takes {sorted(fields)}",
                      errors={name: ["unknown field"] for name in unknown})


def game_field(message: dict) -> str:
    game = message.get("game")
    if not isinstance(game, str) or not 1 <= len(game) <= GAME_CHARS or not game.isprintable() \
            or any(c in game for c in "/?#%"):
        raise Problem(422, "validation_error", "game must be a game's id", errors={"game": ["not a game id"]})
    return game


def token_field(message: dict) -> str | None:
    token = message.get("token")
    if token is None:
        return None
    if not isinstance(token, str) or not 1 <= len(token) <= TOKEN_CHARS or not token.isprintable():
        raise Problem(422, "validation_error", "token must be a seat token or a player token",
                      errors={"token": ["not a token"]})
    return token
