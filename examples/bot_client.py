"""An external bot for stich: plays its seats over the socket (one WebSocket for every table),
or over HTTP and Server-Sent Events where the socket cannot be opened.

Nothing from this repository, and nothing beyond the standard library and ``wsproto`` (which
stich's own install brings; without it the bot plays over HTTP): it knows the server through
``openapi.yaml`` and ``asyncapi.yaml`` alone, as any client in another language would.

Over the socket (``GET /v1/socket``, docs/socket.md) one connection carries every table: the
bot subscribes to each game with its seat's token, the server pushes the events and, at the
seat's turn, its view; the bot answers with a command carrying the view's seq and an
idempotency key. A dropped socket is opened again and each subscription resumes after the last
seq it received; a command whose answer was lost is sent again with the same key, so it lands
once. A socket that cannot be opened (a proxy refusing the upgrade, say) leaves the bot on HTTP:
it follows each game's event stream, sends each command with ``If-Match`` (the view's seq) and
an ``Idempotency-Key``, and resumes a dropped stream with ``Last-Event-ID``.

    python examples/bot_client.py --server http://127.0.0.1:8000 --game GAME_ID --seat 0
    python examples/bot_client.py --game GAME_A --seat 0 --game GAME_B --seat 2   # two tables, one socket

A policy is any function from a view (``GET /v1/games/{id}/view``) to one of its ``legal``
commands; plug in your own:

    from bot_client import SeatClient, play
    client = SeatClient("http://127.0.0.1:8000", game_id)
    client.take_seat(0)
    final = play(client, lambda view: view["legal"][-1])
"""
from __future__ import annotations

import argparse
import http.client
import json
import random
import secrets
import socket
import ssl
import sys
import time
import urllib.parse
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

try:  # the WebSocket protocol (framing, handshake); stich's install brings it
    from wsproto import ConnectionType, WSConnection
    from wsproto.events import AcceptConnection, CloseConnection, Ping, RejectConnection, Request, TextMessage
except ImportError:
    WSConnection = None

FINAL_EVENT = "SeedRevealed"  # every game's last event (openapi.yaml, the event stream)
Policy = Callable[[dict], dict]


class Problem(Exception):
    """An error answer: ``status`` and the problem document (its machine ``code``)."""

    def __init__(self, status: int, body: dict):
        super().__init__(f"{status} {body.get('code')}: {body.get('detail')}")
        self.status = status
        self.body = body


def first_legal(view: dict) -> dict:
    return view["legal"][0]


def random_legal(view: dict) -> dict:
    return random.choice(view["legal"])


class SeatClient:
    """One seat of one game on one server."""

    def __init__(self, server: str, game_id: str, token: str | None = None, timeout: float = 30.0,
                 log: Callable[[str], None] = lambda line: None):
        url = urllib.parse.urlsplit(server)
        self.https = url.scheme == "https"
        self.host = url.hostname or "127.0.0.1"
        self.port = url.port or (443 if self.https else 80)
        self.server = server
        self.base = url.path.rstrip("/") + f"/v1/games/{game_id}"
        self.game_id = game_id
        self.token = token
        # Longer than the server's 15 s keep-alive comments, so a quiet stream is not taken for a dead one.
        self.timeout = timeout
        self.log = log
        self.retry_s = 2.0
        self.seen: list[int] = []  # every event seq the stream (or the socket) delivered, in order
        self.resumed_from: list[int] = []  # the Last-Event-ID of each stream connection (or each subscribe's after)
        self.finished = False  # the final event was received
        self._stream: http.client.HTTPConnection | None = None

    def _connection(self) -> http.client.HTTPConnection:
        kind = http.client.HTTPSConnection if self.https else http.client.HTTPConnection
        return kind(self.host, self.port, timeout=self.timeout)

    def _headers(self, extra: dict | None = None) -> dict:
        headers = {"Accept": "application/json", **(extra or {})}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    def request(self, method: str, path: str, body: dict | None = None, headers: dict | None = None) -> dict:
        connection = self._connection()
        try:
            sent = self._headers(headers)
            data = None
            if body is not None:
                data = json.dumps(body).encode()
                sent["Content-Type"] = "application/json"
            connection.request(method, self.base + path, body=data, headers=sent)
            response = connection.getresponse()
            text = response.read().decode()
        finally:
            connection.close()
        answer = json.loads(text) if text else {}
        if response.status >= 400:
            raise Problem(response.status, answer)
        return answer

    def take_seat(self, seat: int) -> str:
        self.token = self.request("POST", f"/seats/{seat}")["token"]
        return self.token

    def view(self) -> dict:
        return self.request("GET", "/view")

    def send(self, command: dict, seq: int, key: str | None = None, attempts: int = 5) -> dict:
        """Send ``command`` chosen from the view at ``seq``. A lost answer or a busy server is
        retried with the same Idempotency-Key: if the first try landed, the server answers it
        again (``duplicate: true``) and appends nothing."""
        key = key or secrets.token_hex(16)
        headers = {"If-Match": f'"{seq}"', "Idempotency-Key": key}
        for attempt in range(attempts):
            try:
                return self.request("POST", "/commands", command, headers)
            except Problem as exc:
                if exc.status not in (429, 503) or attempt == attempts - 1:
                    raise
            except (OSError, http.client.HTTPException):
                if attempt == attempts - 1:
                    raise
            time.sleep(0.2 * 2 ** attempt)
        raise AssertionError("unreachable")

    def events(self, after: int) -> Iterator[dict]:
        """The game's events after ``after``, from the SSE stream, until the final one. A stream
        that drops is opened again with ``Last-Event-ID``: the last event received."""
        last = after
        while True:
            connection = self._stream = self._connection()
            try:
                connection.request("GET", self.base + "/events/stream", headers=self._headers(
                    {"Accept": "text/event-stream", "Last-Event-ID": str(last)}))
                response = connection.getresponse()
                if response.status != 200:
                    body = json.loads(response.read() or b"{}")
                    if response.status not in (429, 503):
                        raise Problem(response.status, body)
                else:
                    self.resumed_from.append(last)
                    for event in self._parse(response):
                        last = event["seq"]
                        self.seen.append(last)
                        yield event
                        if event["type"] == FINAL_EVENT:
                            self.finished = True
                            return
                    self.log(f"stream ended after event {last}; resuming")
            except (OSError, http.client.HTTPException) as exc:
                self.log(f"stream dropped after event {last} ({exc.__class__.__name__}); resuming")
            finally:
                connection.close()
            time.sleep(self.retry_s)

    def _parse(self, response) -> Iterator[dict]:
        data: list[str] = []
        while True:
            raw = response.readline()
            if not raw:
                return  # the server closed the stream
            line = raw.decode().rstrip("\r\n")
            if not line:
                if data:
                    yield json.loads("\n".join(data))
                data = []
            elif line.startswith(":"):
                continue  # a comment: the keep-alive
            else:
                field, _, value = line.partition(":")
                value = value.removeprefix(" ")
                if field == "data":
                    data.append(value)
                elif field == "retry" and value.isdigit():
                    self.retry_s = int(value) / 1000

    def drop_stream(self) -> None:
        """Cut the stream's connection as a network failure would (the tests use it)."""
        connection = self._stream
        if connection is not None and connection.sock is not None:
            connection.sock.shutdown(socket.SHUT_RDWR)


def play_over_http(client: SeatClient, policy: Policy = random_legal) -> dict:
    """Play the client's seat to the end of the game over HTTP and SSE; the final view."""
    view = client.view()
    stream = client.events(after=client.seen[-1] if client.seen else view["seq"])
    while view["status"] != "finished":
        if view["legal"]:
            command = policy(view)
            try:
                answer = client.send(command, view["seq"])
            except Problem as exc:
                # 412: the game moved on since this view (another seat acted at the same time);
                # 409: the command is no longer allowed. Either way, look again.
                if exc.status not in (409, 412):
                    raise
                client.log(f"{exc.body.get('code')}: looking again")
                view = client.view()
                continue
            client.log(f"seat {view['viewer']}: {json.dumps(command)}")
            view = {**answer["view"], "id": client.game_id, "seq": answer["seq"]}
            continue
        for event in stream:  # wait for the others: the next event we have not seen in a view
            if event["seq"] > view["seq"]:
                break
        view = client.view()
    for _ in stream:  # read the stream to its final event, so `seen` tells the whole game
        pass
    return view


# --------------------------------------------------------------------------- the socket

class SocketUnavailable(Exception):
    """The socket could not be opened: no wsproto, a proxy refusing the upgrade, no such route."""


class TableSocket:
    """One WebSocket to the server (``GET /v1/socket``) for every table the bot plays: JSON
    messages, one a frame. ``receive`` answers the server's pings while it waits."""

    def __init__(self, server: str, timeout: float = 60.0):
        url = urllib.parse.urlsplit(server)
        self.https = url.scheme == "https"
        self.host = url.hostname or "127.0.0.1"
        self.port = url.port or (443 if self.https else 80)
        self.path = url.path.rstrip("/") + "/v1/socket"
        # Longer than two of the server's pings (20 s apart): silence this long is a dead connection.
        self.timeout = timeout
        self.opens = 0
        self.sock = self.ws = self.closed = None
        self.inbox: deque[dict] = deque()
        self._partial: list[str] = []

    def open(self) -> None:
        if WSConnection is None:
            raise SocketUnavailable("the wsproto package is not installed")
        self.inbox.clear()
        self._partial.clear()
        try:
            sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
            if self.https:
                sock = ssl.create_default_context().wrap_socket(sock, server_hostname=self.host)
            ws = WSConnection(ConnectionType.CLIENT)
            sock.sendall(ws.send(Request(host=f"{self.host}:{self.port}", target=self.path)))
            while True:
                data = sock.recv(65536)
                if not data:
                    raise SocketUnavailable("the connection closed during the upgrade")
                ws.receive_data(data)
                events = ws.events()
                for event in events:
                    if isinstance(event, RejectConnection):
                        sock.close()
                        raise SocketUnavailable(f"the upgrade was answered {event.status_code}")
                    if isinstance(event, AcceptConnection):
                        self.sock, self.ws, self.closed = sock, ws, None
                        self.opens += 1
                        self._collect(events)  # what came with the 101 (the welcome, perhaps)
                        return
        except OSError as exc:
            raise SocketUnavailable(f"{exc.__class__.__name__}: {exc}") from exc

    def send(self, message: dict) -> None:
        try:
            self.sock.sendall(self.ws.send(TextMessage(data=json.dumps(message))))
        except Exception as exc:  # the connection is gone (or closing): the caller opens it again
            raise ConnectionError(f"the socket is closed ({exc})") from exc

    def receive(self) -> dict:
        """The next message; ConnectionError once the connection has gone."""
        while not self.inbox:
            if self.closed:
                raise ConnectionError(self.closed)
            try:
                data = self.sock.recv(65536)
                if not data:
                    raise ConnectionError("the server closed the connection")
                self.ws.receive_data(data)
                self._collect(self.ws.events())
            except Exception as exc:  # a timeout, a reset, a protocol error: the connection is over
                self.closed = f"{exc.__class__.__name__}: {exc}"
        return self.inbox.popleft()

    def _collect(self, events) -> None:
        for event in events:
            if isinstance(event, TextMessage):
                self._partial.append(event.data)
                if event.message_finished:
                    self.inbox.append(json.loads("".join(self._partial)))
                    self._partial.clear()
            elif isinstance(event, Ping):
                self.sock.sendall(self.ws.send(event.response()))
            elif isinstance(event, CloseConnection):
                self.closed = f"the server closed the socket ({event.code} {event.reason})"

    def close(self) -> None:
        if self.sock is not None:
            try:
                self.sock.sendall(self.ws.send(CloseConnection(code=1000)))
            except Exception:
                pass  # closed already
            self.sock.close()

    def drop(self) -> None:
        """Cut the connection as a network failure would (the tests use it)."""
        self.sock.shutdown(socket.SHUT_RDWR)


class Table:
    """One seat's game as the socket's loop keeps it."""

    def __init__(self, key: str, client: SeatClient):
        self.key, self.client = key, client
        self.seat: int | None = None  # the server names it when the subscription opens
        self.view: dict | None = None  # the latest view pushed (at the seat's turn)
        self.acted_on = -1  # the seq of the view the last command was chosen from
        self.pending: dict | None = None  # the command message awaiting its result
        self.problem: dict | None = None  # the error that ends a subscription, just before its end
        self.finished = False


def play_on_socket(clients: list[SeatClient], policy: Policy, line: TableSocket, reopen_tries: int = 3) -> None:
    """Play every client's seat to the end on one socket. SocketUnavailable when the socket cannot
    be opened, or opened again ``reopen_tries`` times running after a drop."""
    tables = {f"t{i}": Table(f"t{i}", client) for i, client in enumerate(clients)}
    seats: dict[tuple[str, int], Table] = {}

    def subscribe(table: Table) -> None:
        client = table.client
        after = client.seen[-1] if client.seen else 0  # resume after the last event received
        client.resumed_from.append(after)
        line.send({"type": "subscribe", "id": table.key, "game": client.game_id, "token": client.token,
                   "after": after, "views": True})
        if table.pending:  # its answer may have been lost with the connection: the same key lands once
            line.send(table.pending)

    def act(table: Table) -> None:
        view = table.view
        if table.pending or view is None or view["seq"] <= table.acted_on or not view["legal"]:
            return
        command = policy(view)
        table.acted_on = view["seq"]
        table.pending = {"type": "command", "id": f"{table.key}-{view['seq']}", "game": table.client.game_id,
                         "token": table.client.token, "command": command, "expected_seq": view["seq"],
                         "idempotency_key": secrets.token_hex(16), "view": False}
        line.send(table.pending)
        table.client.log(f"seat {view['viewer']}: {json.dumps(command)}")

    def answered(table: Table, status: int, body: dict, retry_after: int | None = None) -> None:
        if status in (409, 412):  # the game moved on: act on the newer view, pushed or to come
            table.client.log(f"{body.get('code')}: waiting for the next view")
        if status < 400 or status in (409, 412):
            table.pending = None
            act(table)  # the view of the seat's next turn may have come before this answer
        elif status in (429, 503):  # busy: the same command, with the same key, a moment later
            time.sleep(retry_after or 1)  # (every table waits: a busy server is better left alone)
            line.send(table.pending)
        else:
            raise Problem(status, body)

    def ended(table: Table, reason: str) -> None:
        problem, table.problem = table.problem, None
        if reason == "finished":
            table.finished = True
        elif problem and problem.get("status", 500) < 500 and problem.get("status") != 429:
            raise Problem(problem["status"], problem)  # a refused or superseded token: nothing to retry
        else:  # expired, or the server failed: subscribe again
            time.sleep(1)
            subscribe(table)

    def handle(message: dict) -> None:
        kind = message["type"]
        table = tables.get(message.get("id", "").split("-")[0]) if "id" in message else \
            seats.get((message.get("game"), message.get("seat")))
        if kind == "subscribed":
            table.seat = message["seat"]
            seats[(message["game"], table.seat)] = table
        elif kind == "event":
            table.client.seen.append(message["seq"])
            if message["event"]["type"] == FINAL_EVENT:
                table.finished = table.client.finished = True
        elif kind == "view":
            table.view = message["view"]
            act(table)
        elif kind == "result":
            answered(table, message["status"], message["body"], message.get("retry_after"))
        elif kind == "error" and table is None:
            raise Problem(message["problem"]["status"], message["problem"])  # the socket's own
        elif kind == "error" and "-" in message.get("id", ""):  # a command's problem
            answered(table, message["problem"]["status"], message["problem"])
        elif kind == "error":  # the subscription's: it ends
            table.problem = message["problem"]
            if "id" in message:  # the subscribe was refused: no "unsubscribed" follows
                ended(table, "error")
        elif kind == "unsubscribed" and table is not None:
            ended(table, message["reason"])

    line.open()
    try:
        for table in tables.values():
            subscribe(table)
        failures = 0
        while not all(table.finished for table in tables.values()):
            try:
                handle(line.receive())
            except ConnectionError as exc:
                clients[0].log(f"socket dropped ({exc}); opening it again")
                while True:  # after 0.5, 1, 2 ... s
                    time.sleep(min(15.0, 0.5 * 2 ** failures))
                    try:
                        line.open()
                        break
                    except SocketUnavailable:
                        failures += 1
                        if failures >= reopen_tries:
                            raise
                failures = 0
                seats.clear()
                for table in tables.values():
                    if not table.finished:
                        subscribe(table)
    finally:
        line.close()


# --------------------------------------------------------------------------- either way

def play_tables(clients: list[SeatClient], policy: Policy = random_legal, server: str | None = None) -> list[dict]:
    """Play every client's seat to the end, all on one socket where it opens, else each over HTTP
    (a thread a table, so no table waits for another); the final views, in the clients' order."""
    line = TableSocket(server or clients[0].server)
    try:
        play_on_socket(clients, policy, line)
        clients[0].log(f"played over the socket ({len(clients)} table(s) on one connection)")
    except SocketUnavailable as exc:
        clients[0].log(f"the socket could not be opened ({exc}); playing over SSE and POST")
        unfinished = [client for client in clients if not client.finished]  # from the last event received
        with ThreadPoolExecutor(max_workers=len(unfinished) or 1) as pool:
            list(pool.map(lambda client: play_over_http(client, policy), unfinished))
    return [client.view() for client in clients]


def play(client: SeatClient, policy: Policy = random_legal) -> dict:
    """Play one seat to the end (on the socket, else over HTTP); the final view."""
    return play_tables([client], policy)[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", default="http://127.0.0.1:8000", help="the server, without /v1")
    parser.add_argument("--game", action="append", required=True, help="the game id (again for each table)")
    parser.add_argument("--seat", type=int, action="append", required=True, help="the seat to play, one a --game")
    parser.add_argument("--token", action="append", help="the seat's token, if it was taken already (one a --game)")
    parser.add_argument("--policy", choices=("random", "first"), default="random")
    args = parser.parse_args(argv)
    tokens = args.token or [None] * len(args.game)
    if not len(args.game) == len(args.seat) == len(tokens):
        parser.error("give a --seat (and a --token, if any) for each --game")
    clients = []
    for game, seat, token in zip(args.game, args.seat, tokens):
        client = SeatClient(args.server, game, token=token, log=print)
        if not token:
            client.take_seat(seat)
            print(f"took seat {seat} of game {game}")
        clients.append(client)
    finals = play_tables(clients, random_legal if args.policy == "random" else first_legal, args.server)
    for client, final in zip(clients, finals):
        scores = final.get("scores") or {}
        print(f"game over: {client.game_id}: totals {scores.get('totals')}, places {scores.get('ranking')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
