"""gunicorn server hooks, loaded by ``gunicorn_argv`` (``-c python:stich.gunicorn_hooks``).

Imported by gunicorn's master: like ``web_worker``, it must not import the application.
"""
from __future__ import annotations

import os
import signal

from stich.tether import die_with_parent


def post_fork(server, worker) -> None:
    """In a new worker: end with the master. A worker notices a new parent within a second on its
    own, but the kernel's signal is at once; SIGTERM, so it closes its listener and finishes the
    requests in flight within the graceful timeout."""
    die_with_parent(signal.SIGTERM, server.pid)


def child_exit(server, worker) -> None:
    """A worker process ended: its live gauges (open streams) no longer count."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
