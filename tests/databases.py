"""A real PostgreSQL for the history's tests, beside the SQLite default (``eventstore/history.py``).

``STICH_TEST_POSTGRES_URL`` if set; else the server on 127.0.0.1:5432 as Debian's ``postgresql`` package
runs it (user ``postgres``, trust on loopback; ``.ci/run`` installs and starts it). Each test module gets a
database of its own, made here and dropped after. Without a server the PostgreSQL cases are skipped,
unless ``STICH_REQUIRE_POSTGRES=1`` (CI), where that is a failure.
"""
from __future__ import annotations

import os
import secrets
from contextlib import contextmanager

import pytest
import sqlalchemy as sa

SERVER = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


def server_url() -> str | None:
    url = os.environ.get("STICH_TEST_POSTGRES_URL", SERVER)
    try:
        engine = sa.create_engine(url, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 3})
        with engine.connect() as connection:
            connection.execute(sa.text("select 1"))
        engine.dispose()
        return url
    except Exception as exc:  # noqa: BLE001 - any failure to connect means: no server here
        if os.environ.get("STICH_REQUIRE_POSTGRES") == "1":
            raise AssertionError(f"STICH_REQUIRE_POSTGRES=1 but no PostgreSQL answers at {url}: {exc}")
        return None


@contextmanager
def fresh_database():
    """A new empty database on the server (its URL), dropped afterwards; skips without a server."""
    url = server_url()
    if url is None:
        pytest.skip("no PostgreSQL server (set STICH_TEST_POSTGRES_URL, or run Debian's postgresql)")
    admin = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    name = f"stich_test_{secrets.token_hex(6)}"
    with admin.connect() as connection:
        connection.execute(sa.text(f'create database "{name}"'))
    base = sa.engine.make_url(url)
    try:
        yield base.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(sa.text(f'drop database if exists "{name}" with (force)'))
        admin.dispose()
