"""A small keep-alive HTTP/1.1 JSON client for the load generator (one per thread)."""
from __future__ import annotations

import http.client
import json
import time

HOST = "127.0.0.1"  # the benchmark's server listens on loopback


class Client:
    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.conn = http.client.HTTPConnection(host, port, timeout=30)

    def request(self, method: str, path: str, body=None, headers=None, retry: bool = True):
        """(status, parsed JSON or None, seconds taken). On a connection error the request is sent once
        more on a new connection (the server may have closed an idle keep-alive one), unless ``retry``
        is false: then the error is raised (the connection is renewed for the next request)."""
        payload = json.dumps(body) if body is not None else None
        all_headers = {"Content-Type": "application/json"} if payload is not None else {}
        all_headers.update(headers or {})
        for attempt in range(2):
            start = time.perf_counter()
            try:
                self.conn.request(method, path, body=payload, headers=all_headers)
                response = self.conn.getresponse()
                raw = response.read()
                elapsed = time.perf_counter() - start
                return response.status, (json.loads(raw) if raw else None), elapsed
            except (http.client.HTTPException, ConnectionError, OSError):
                self.conn.close()
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
                if attempt or not retry:
                    raise
        raise AssertionError("unreachable")
