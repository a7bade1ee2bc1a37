"""RQ's ``SimpleWorker`` for running a test's queued jobs in the test's own process, without the
command channel RQ opens for every worker (stich sends RQ no commands; ``workers.worker.BotWorker``
has none either). Its thread reads with a 60 s wait, and tearing the worker down closes the
connection that read holds: at random a drain took 60 s (120 + 60 + 60 s of one module in some
runs, 1 s in others)."""
from __future__ import annotations

from rq import SimpleWorker


class BurstWorker(SimpleWorker):
    def subscribe(self):
        pass

    def unsubscribe(self):
        pass
