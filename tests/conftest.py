"""Shared fixtures: a real Redis-compatible server for every test that needs one.

``REDIS_URL`` if set, else a private server started for the session, the same
logic ``stich serve`` uses. Tests never flush: every game has a fresh random
id, so a shared server is safe. Below them: how many processes run the suite,
and the lock that lets a `serial` test run alone (docs/testing.md).
"""
from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis



@pytest.fixture(scope="session")
def redis_url():
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    from stich.redis_server import PrivateRedis

    server = PrivateRedis(fsync="everysec").start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def redis_client(redis_url):
    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()


@pytest.fixture(scope="session")
def app(redis_url):
    """The API with bot turns played inline, so a test sees their moves at once."""
    from api import create_app

    return create_app(redis_url, bots="inline")


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture(scope="session")
def cluster_url():
    """A local 3-master Redis Cluster on loopback ports (same server binary)."""
    from stich.cluster import LocalCluster

    cluster = LocalCluster(masters=3).start()
    try:
        yield cluster.url
    finally:
        cluster.stop()


# --------------------------------------------------------------------------- tests that run alone
# The suite runs on pytest-xdist's workers (pyproject.toml's addopts). A test marked `serial` measures
# time (a p99, a recovery within 10 s, a ratio to an idle figure) and so must not share the machine
# with another test: it takes a lock every other test holds shared, through a turnstile so that a
# waiting serial test is not starved by the other worker taking its shared lock again and again.
TURNS = pytest.StashKey[Path]()
WORKERS = 2  # CI's machine has two cores; most of the suite waits on servers rather than computing


def pytest_xdist_auto_num_workers(config):
    """`-n auto` (addopts): the whole suite on WORKERS processes; a run of chosen tests in one, since
    on a shared two-core machine a few files should not take both cores. `-n N` says otherwise."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return int(os.environ["PYTEST_XDIST_AUTO_NUM_WORKERS"])
    return WORKERS if config.args_source == pytest.Config.ArgsSource.TESTPATHS else 0


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """The controller makes the locks' folder once and tells each worker where it is."""
    if TURNS not in node.config.stash:
        node.config.stash[TURNS] = Path(tempfile.mkdtemp(prefix="stich-test-turns-"))
    node.workerinput["stich_turns"] = str(node.config.stash[TURNS])


def pytest_unconfigure(config):
    if TURNS in config.stash:
        shutil.rmtree(config.stash[TURNS], ignore_errors=True)


@contextmanager
def locked(path: Path, mode: int):
    with path.open("a") as handle:
        fcntl.flock(handle, mode)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextmanager
def turn_of(item):
    folder = getattr(item.config, "workerinput", {}).get("stich_turns")
    if folder is None:  # one process: nothing runs beside the test
        yield
        return
    turnstile, lock = Path(folder) / "turnstile", Path(folder) / "lock"
    if item.get_closest_marker("serial"):
        with locked(turnstile, fcntl.LOCK_EX), locked(lock, fcntl.LOCK_EX):
            yield
    else:
        with locked(turnstile, fcntl.LOCK_EX):
            pass
        with locked(lock, fcntl.LOCK_SH):
            yield


@pytest.hookimpl(hookwrapper=True, tryfirst=True)  # outside pytest-timeout's timer: waiting is no test time
def pytest_runtest_protocol(item, nextitem):
    with turn_of(item):  # setup, call and teardown: a module's server starting is load too
        yield
