"""gunicorn server hooks, loaded by ``gunicorn_argv`` (``-c python:stich.gunicorn_hooks``).

Imported by gunicorn's master: like ``web_worker``, it must not import the application.
"""
from __future__ import annotations

import os


def child_exit(server, worker) -> None:
    """A worker process ended: its live gauges (open streams) no longer count."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
