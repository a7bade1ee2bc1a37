"""A stand-in for the RQ queue in API tests: it keeps the jobs instead of running them."""
from __future__ import annotations


class Recorder:
    """Stands in for the RQ queue: keeps the jobs instead of running them."""
    name = "stich-bots"

    def __init__(self):
        self.jobs = []

    def enqueue(self, func, *args, **options):
        self.jobs.append((func, args, options))
