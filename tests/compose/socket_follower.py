"""A spectator following one game over the WebSocket (``GET /v1/socket``, docs/socket.md) through the
balancer: when its connection is cut (its API container killed), it connects again and subscribes with
``after`` set to the last seq it received, as a client is told to."""
from __future__ import annotations

import queue
import threading
import time

from soak.game_clients import GAME_S
from tests.e2e.socket_client import Refused, SocketClient


class SocketFollower(threading.Thread):
    def __init__(self, port: int, game_id: str):
        super().__init__(daemon=True)
        self.port, self.game_id = port, game_id
        self.seqs: list[int] = []
        self.finished = False
        self.reconnects = 0
        self.problems: list[str] = []
        self.subscribed = threading.Event()

    def run(self) -> None:
        deadline = time.monotonic() + GAME_S
        while not self.finished and time.monotonic() < deadline:
            try:
                client = SocketClient(self.port)
            except (OSError, Refused) as error:
                self.problems.append(f"connect: {error}"[:120])
                time.sleep(0.2)
                continue
            try:
                self.follow(client)
            except queue.Empty:
                self.problems.append("silent for 30 s")
            finally:
                client.close()
            if not self.finished:
                self.reconnects += 1
                time.sleep(0.1)

    def follow(self, client: SocketClient) -> None:
        subscribe = {"type": "subscribe", "id": "follow", "game": self.game_id}
        if self.seqs:
            subscribe["after"] = self.seqs[-1]
        client.send(subscribe)
        while (message := client.receive(timeout=30)) is not None:
            if message["type"] == "subscribed":
                self.subscribed.set()
            elif message["type"] == "event":
                self.seqs.append(message["seq"])
            elif message["type"] == "unsubscribed":
                self.finished = message["reason"] == "finished"
                if not self.finished:
                    self.problems.append(f"unsubscribed: {message}"[:200])
                return
            elif message["type"] == "error":
                self.problems.append(f"error: {message}"[:200])
