"""A proxy in front of the test server that refuses WebSocket upgrades, as a proxy configured without
them does (nginx without ``proxy_set_header Upgrade``, a corporate proxy): each upgrade is answered
403, every other request passes through byte for byte (streams too). Chromium's request blocking
(CDP ``Network.setBlockedURLs``) does not stop a WebSocket, hence this. ``refusing`` may be switched
while it runs: connections already through are left alone."""
from __future__ import annotations

import re
import socket
import threading

UPGRADE = re.compile(rb"^upgrade:[ \t]*websocket[ \t]*\r?$", re.I | re.M)


class RefusingProxy:
    def __init__(self, upstream_port: int, refusing: bool = True):
        self.upstream_port = upstream_port
        self.refusing = refusing
        self.refused = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self.listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        # A browser opens each WebSocket on a connection of its own, so the first request of a
        # connection is the one to look at.
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = client.recv(65536)
            if not chunk or len(head) > 65536:
                client.close()
                return
            head += chunk
        if self.refusing and UPGRADE.search(head.split(b"\r\n\r\n", 1)[0]):
            self.refused += 1
            client.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            client.close()
            return
        upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
        upstream.sendall(head)
        back = threading.Thread(target=pipe, args=(upstream, client), daemon=True)
        back.start()
        pipe(client, upstream)
        back.join()
        client.close()
        upstream.close()


def pipe(source: socket.socket, target: socket.socket) -> None:
    try:
        while chunk := source.recv(65536):
            target.sendall(chunk)
    except OSError:
        pass  # either side gone: the other is told below
    try:
        target.shutdown(socket.SHUT_WR)
    except OSError:
        pass
