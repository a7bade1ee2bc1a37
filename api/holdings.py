"""What one client address holds open in this HTTP process at once: streams and long polls, sockets,
uploads being read (``api/quotas.py`` lists the limits). A waiting request holds memory in the process
that serves it, so these counts are each process's own, not Redis': no round trip, and a process that
dies takes its holdings with it."""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

from .problems import Problem


class Holdings:
    """Per-address slots of this process; ``quotas`` gives the limits (``streams``, ``sockets``, ``uploads``)."""

    def __init__(self, quotas):
        self.quotas = quotas
        self._open: dict[str, int] = {}  # address -> open streams in this process
        self._uploading: dict[str, int] = {}  # address -> uploads held in this process
        self._sockets: dict[str, int] = {}  # address -> open sockets in this process
        self._lock = threading.Lock()

    # -- uploads at once ------------------------------------------------------
    @contextmanager
    def holding_upload(self, address: str | None) -> Iterator[None]:
        """One of the address's ``uploads`` slots in this process while the block runs; 429
        ``upload_concurrency`` when none is free. ``address`` None: exempt."""
        limit = self.quotas.uploads
        if not limit or address is None:
            yield
            return
        if not self._take(self._uploading, address, limit):
            raise Problem(429, "upload_concurrency", f"{limit} uploads from this address are being read or "
                          f"verified by this server process, as many as one address may have at once; retry when "
                          f"one has been answered", headers={"Retry-After": "5"}, limit=limit)
        try:
            yield
        finally:
            self._give_back(self._uploading, address)

    # -- streams ---------------------------------------------------------------
    def stream_slot(self, address: str | None, exempt: bool = False) -> "Slot":
        """Hold one of the address's stream slots until ``release`` (429 when none is free)."""
        if exempt or not self.quotas.streams or address is None:
            return Slot(None, None)
        if not self._take(self._open, address, self.quotas.streams):
            raise Problem(429, "stream_quota", f"{self.quotas.streams} streams and long polls from this address "
                          "are open; close one first", headers={"Retry-After": "5"}, limit=self.quotas.streams)
        return Slot(self, address)

    @contextmanager
    def holding_socket(self, address: str | None, exempt: bool = False) -> Iterator[None]:
        """One of the address's socket slots in this process while the block runs; 429
        ``socket_quota`` when none is free."""
        limit = self.quotas.sockets
        if exempt or not limit or address is None:
            yield
            return
        if not self._take(self._sockets, address, limit):
            raise Problem(429, "socket_quota", f"{limit} sockets from this address are open, as many as one "
                          "address may have at once; one socket carries many games: subscribe to each on it",
                          headers={"Retry-After": "5"}, limit=limit)
        try:
            yield
        finally:
            self._give_back(self._sockets, address)

    @contextmanager
    def holding_stream(self, address: str | None, exempt: bool = False) -> Iterator[None]:
        slot = self.stream_slot(address, exempt)
        try:
            yield
        finally:
            slot.release()

    def _take(self, held: dict[str, int], address: str, limit: int) -> bool:
        """One more of the address's slots in ``held`` (this process's count), unless ``limit`` are taken."""
        with self._lock:
            count = held.get(address, 0)
            if count >= limit:
                return False
            held[address] = count + 1
            return True

    def _give_back(self, held: dict[str, int], address: str) -> None:
        with self._lock:
            left = held.get(address, 0) - 1
            if left > 0:
                held[address] = left
            else:
                held.pop(address, None)  # the map holds only addresses with slots taken


class Slot:
    def __init__(self, keeper: Holdings | None, address: str | None):
        self._keeper, self._address = keeper, address

    def release(self) -> None:
        """Idempotent: the stream's end and the server's close both call it."""
        keeper, self._keeper = self._keeper, None
        if keeper is not None:
            keeper._give_back(keeper._open, self._address)
