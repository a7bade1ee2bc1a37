"""One bot worker of the kill soak: what ``stich worker`` runs, forked from a warm forkserver.

The forkserver imports this module once (``set_forkserver_preload``), so every
worker forked from it starts with the worker's modules and the games already
loaded: a replacement is serving in milliseconds instead of spending the
~0.8 s of CPU a fresh interpreter needs, which over a thousand kills would be
the soak's largest cost. Nothing here connects to Redis: the runtime is built
in the child, after the fork, exactly as ``stich worker`` builds it.
"""
from __future__ import annotations

import os

import domain.registry  # noqa: F401  (loaded before the fork: see above)
import workers.bot_turn  # noqa: F401
from workers.worker import run


def serve(env: dict[str, str]) -> None:
    """``stich worker`` with exactly this environment (the forkserver's own is older than the soak's)."""
    os.environ.clear()
    os.environ.update(env)
    run()
