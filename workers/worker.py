"""The RQ worker entry point (``stich worker``).

A ``SimpleWorker`` runs jobs in its own process instead of forking one per job:
a bot turn is a few milliseconds of work, and a fork would cost more than the
turn. Job functions re-read the game, so nothing is lost if a worker dies
mid-job; a later append or the sweeper queues the turn again.
"""
from __future__ import annotations

import logging
import os

import redis
from rq import SimpleWorker

from .dispatch import QUEUE_NAME


def run(burst: bool = False) -> None:
    logging.basicConfig(level=os.environ.get("STICH_LOG_LEVEL", "WARNING"))
    url = os.environ.get("QUEUE_URL") or os.environ["REDIS_URL"]
    connection = redis.Redis.from_url(url)
    worker = SimpleWorker([os.environ.get("STICH_QUEUE", QUEUE_NAME)], connection=connection)
    worker.work(burst=burst, logging_level=os.environ.get("STICH_LOG_LEVEL", "WARNING"), with_scheduler=False)
