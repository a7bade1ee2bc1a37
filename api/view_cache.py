"""Each seat's view of each moment of a game, made once per process.

A view is the costliest part of answering a move (the game's view, its legal
commands), and the same one is asked for more than once: by the command's
answer, by the seat's SSE stream (``views=true``), by a GET of the view, by a
second tab. A game's state at a seq never changes (the events are its only
input), so the view of (game, seq, viewer) is made once and shared.

Hidden information: the key holds the viewer (a seat, or None for a
spectator) and the generation of the token that asked, so one viewer's view
is never another's, and a seat's new holder never gets what was made for the
old one. Whether the caller may see the seat at all is decided before (the
credential); this only saves the work. A clocked game's view is not kept: it
carries the time left, which changes while the seq does not.

Bounded: ``size`` views, the least recently used go first. A view is a
shared dict: callers copy what they change (``with_time_left`` changes only
clocked views, which are never shared).
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable

from eventstore.handler import Loaded

SIZE = 4096  # about 3 seats' views of the last few moves of a thousand games


class ViewCache:
    def __init__(self, size: int = SIZE):
        self.size = size
        self._views: OrderedDict[tuple, dict] = OrderedDict()
        self._lock = threading.Lock()
        self.made = self.shared = 0  # counts, for tests and profiles

    def view(self, loaded: Loaded, seat: int | None, generation: int | None,
             make: Callable[[], dict]) -> dict:
        """The view of ``loaded`` for ``seat`` (None: a spectator), asked with a token of
        ``generation``; ``make()`` builds it the first time. Do not change the result."""
        if loaded.state.clock is not None:
            self.made += 1
            return make()
        key = (loaded.game_id, loaded.seq, seat, generation)
        with self._lock:
            found = self._views.get(key)
            if found is not None:
                self._views.move_to_end(key)
                self.shared += 1
                return found
        made = make()
        with self._lock:
            self.made += 1
            self._views[key] = made
            while len(self._views) > self.size:
                self._views.popitem(last=False)
        return made
