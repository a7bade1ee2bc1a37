"""Shared fixtures: a real Redis-compatible server for every test that needs one.

``REDIS_URL`` if set, else a private server started for the session, the same
logic ``stich serve`` uses. Tests never flush: every game has a fresh random
id, so a shared server is safe.
"""
from __future__ import annotations

import os

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
