"""An external bot for stich: plays one seat over HTTP and Server-Sent Events only.

Standard library only, and nothing from this repository: it knows the server through
``openapi.yaml`` alone, as any client in another language would. It takes a seat (or uses
a token it was given), follows the game's event stream, and when its seat has legal
commands asks a policy for one and sends it with ``If-Match`` (the view's seq) and an
``Idempotency-Key`` (reused when a lost answer is retried, so a move lands once). A dropped
stream is resumed with ``Last-Event-ID``, so no event is missed.

    python examples/bot_client.py --server http://127.0.0.1:8000 --game GAME_ID --seat 0

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
import sys
import time
import urllib.parse
from collections.abc import Callable, Iterator

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
        self.base = url.path.rstrip("/") + f"/v1/games/{game_id}"
        self.game_id = game_id
        self.token = token
        # Longer than the server's 15 s keep-alive comments, so a quiet stream is not taken for a dead one.
        self.timeout = timeout
        self.log = log
        self.retry_s = 2.0
        self.seen: list[int] = []  # every event seq the stream delivered, in order
        self.resumed_from: list[int] = []  # the Last-Event-ID of each stream connection
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
            import socket

            connection.sock.shutdown(socket.SHUT_RDWR)


def play(client: SeatClient, policy: Policy = random_legal) -> dict:
    """Play the client's seat to the end of the game; the final view."""
    view = client.view()
    stream = client.events(after=view["seq"])
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", default="http://127.0.0.1:8000", help="the server, without /v1")
    parser.add_argument("--game", required=True, help="the game id")
    parser.add_argument("--seat", type=int, required=True, help="the seat to play")
    parser.add_argument("--token", help="the seat's token, if it was taken already")
    parser.add_argument("--policy", choices=("random", "first"), default="random")
    args = parser.parse_args(argv)
    client = SeatClient(args.server, args.game, token=args.token, log=print)
    if not args.token:
        client.take_seat(args.seat)
        print(f"took seat {args.seat} of game {args.game}")
    final = play(client, random_legal if args.policy == "random" else first_legal)
    scores = final.get("scores") or {}
    print(f"game over: totals {scores.get('totals')}, places {scores.get('ranking')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
