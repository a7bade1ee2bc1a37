"""Prometheus metrics, served at ``GET /metrics``.

Under ``stich serve`` every process (HTTP workers and bot workers) writes its
samples to the directory named by ``PROMETHEUS_MULTIPROC_DIR``, and a scrape
of any HTTP process adds them all up (prometheus_client's multiprocess mode);
gunicorn's ``child_exit`` hook (``stich.gunicorn_hooks``) drops the open-stream
gauge of a worker that died. Without that variable (one process, as in tests)
the default registry is served.

Labels are bounded: a route is its rule (``/v1/games/<game_id>/commands``, or
``unmatched``), never a raw path, and a game is one of the game names.
"""
from __future__ import annotations

import os

from prometheus_client import (CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Counter, Gauge, Histogram,
                               generate_latest, multiprocess)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from workers.archiver import status_key
from workers.dispatch import LANES, lane_queues

from workers.metrics import BOT_TURN_SECONDS, BUCKETS, MOVES  # noqa: F401  (written by the bot workers too)

# A socket message stands for the request it would be on HTTP (``api/sockets.py``: one command path),
# so it is counted here too, told apart by ``transport`` ("http" or "socket").
REQUESTS = Counter("stich_http_requests", "Requests answered, by route, method, status and transport",
                   ["route", "method", "status", "transport"])
COMMAND_SECONDS = Histogram("stich_command_seconds", "Posted commands, from request to answer, by game",
                            ["game"], buckets=BUCKETS)
OPEN_STREAMS = Gauge("stich_open_streams", "Open SSE streams and waiting long polls", ["kind"],
                     multiprocess_mode="livesum")
STORE_ERRORS = Counter("stich_store_errors", "Requests answered 503 because the event store did not answer")


class LabelledChildren:
    """A metric's child per label values, looked up once: ``labels()`` costs four times the
    ``inc()`` it serves (it checks and joins the values, under the metric's lock) and runs on
    every request. The labels are bounded (routes, methods, statuses, game names), and so is this."""

    LIMIT = 4096

    def __init__(self):
        self._children: dict[tuple, object] = {}

    def get(self, metric, *values: str):
        key = (id(metric), *values)
        child = self._children.get(key)
        if child is None:
            child = metric.labels(*values)
            if len(self._children) < self.LIMIT:
                self._children[key] = child
        return child


class QueueDepth:
    """Read at scrape time: bot jobs waiting in each lane's queue (not a sample any process writes)."""

    def __init__(self, queue):
        self.queue = queue

    def collect(self):
        family = GaugeMetricFamily("stich_bot_queue_depth", "Jobs waiting in the RQ queues (bot turns, hints, "
                                   "tournament passes, analyses), by lane", labels=["lane"])
        try:
            for lane, queue in zip(LANES, lane_queues(self.queue, LANES)):
                family.add_metric([lane], queue.count)
        except Exception:  # the queue's Redis is down: health says so; the scrape still answers
            return
        yield family


class ArchiveStatus:
    """Read at scrape time: the archiver's account of its last pass (``workers/archiver.py``), which
    whichever worker made it left in Redis."""

    def __init__(self, client, prefix: str):
        self.client, self.key = client, status_key(prefix)

    def collect(self):
        try:
            found = self.client.hgetall(self.key)
        except Exception:  # the store is down: health says so; the scrape still answers
            return
        status = {key.decode() if isinstance(key, bytes) else key: float(value) for key, value in found.items()}
        archived = CounterMetricFamily("stich_archived_games", "Finished games moved from Redis into the archive")
        archived.add_metric([], status.get("archived", 0.0))
        yield archived
        yield GaugeMetricFamily("stich_archive_backlog", "Finished games due for the archive and not in it yet",
                                value=status.get("backlog", 0.0))
        yield GaugeMetricFamily("stich_archive_oldest_due_seconds", "How long the oldest game due for the archive "
                                "has waited past STICH_ARCHIVE_AFTER", value=status.get("oldest_due_s", 0.0))
        if "passed_at" in status:
            yield GaugeMetricFamily("stich_archive_pass_timestamp_seconds", "When the archiver last made a pass "
                                    "(Unix time)", value=status["passed_at"])


def exposition(queue, store=None) -> tuple[bytes, str]:
    """The metrics text and its content type."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    else:
        registry = CollectorRegistry()
        registry.register(_Everything())
    if queue is not None:
        registry.register(QueueDepth(queue))
    if store is not None:
        registry.register(ArchiveStatus(store.redis, store.prefix))
    return generate_latest(registry), CONTENT_TYPE_LATEST


class _Everything:
    """The process's default registry, re-exposed so the queue depth can be added per scrape."""

    def collect(self):
        yield from REGISTRY.collect()
