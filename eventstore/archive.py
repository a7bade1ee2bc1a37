"""The archive: finished games moved out of Redis into the history's database, read back as if they were there.

Every event of every game would otherwise stay in Redis for good (19–122 KB a finished game). Once a game
has finished and been recorded in the history (``eventstore/history.py``; a duplicate round's tables and a
daily challenge's games once their embargo is over), and ``STICH_ARCHIVE_AFTER`` has passed, the archiver
(``workers/archiver.py``) writes it here — its events exactly as they were stored (each one's canonical JSON
with its hash, so the chain and every export are unchanged), compressed, with what else its keys held
(the secret seed, its seats' token hashes, an import's origin) — and only after that commit deletes its keys
from Redis (``released``). A crash between the two leaves both; the next pass releases it. Nothing is ever
in neither.

Reads do not change: ``EventStore`` asks the archive for a game whose stream is not in Redis (``read``,
``seq``, the secret, the credentials, the origin), and the archive answers from the row, each game's events
parsed once per process and kept for the next reads (``CACHE_GAMES``). A finished game never changes, so
nothing kept can go stale.
"""
from __future__ import annotations

import json
import threading
import zlib
from collections import OrderedDict
from datetime import datetime, timezone

import sqlalchemy as sa

from .codec import StoredEvent, decode
from .history import games, metadata

CACHE_GAMES = 64  # archived games whose events a process keeps parsed

archive = sa.Table(
    "archive", metadata,
    sa.Column("game_id", sa.String(32), primary_key=True),
    sa.Column("events", sa.LargeBinary, nullable=False),  # zlib: the stored payloads, one a line, seq 1 first
    sa.Column("count", sa.Integer, nullable=False),
    sa.Column("head", sa.String(64)),
    sa.Column("secret", sa.String(64)),
    sa.Column("credentials", sa.Text, nullable=False),  # JSON: seat -> its stored token hash(es)
    sa.Column("origin", sa.Text),  # JSON: an imported game's origin
    sa.Column("bytes", sa.Integer, nullable=False),  # the events' size before compression
    sa.Column("archived_at", sa.String(32), nullable=False),
    sa.Column("released", sa.Boolean, nullable=False, default=False),  # its Redis keys are gone
    sa.Index("archive_released", "released"),
)


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Archive:
    def __init__(self, engine: sa.Engine):
        self.engine = engine
        self._cache: OrderedDict[str, list[StoredEvent]] = OrderedDict()
        self._lock = threading.Lock()

    # -- writing (the archiver's) ------------------------------------------------------------------
    def put(self, game_id: str, payloads: list[bytes], head: str | None, secret: str | None,
            credentials: dict[int, str], origin: dict | None) -> bool:
        """Archive a game's stored payloads (in seq order from 1), in one transaction; False if it is
        archived already."""
        raw = b"\n".join(payloads)
        row = {"game_id": game_id, "events": zlib.compress(raw, 6), "count": len(payloads), "head": head,
               "secret": secret, "credentials": json.dumps({str(k): v for k, v in credentials.items()}),
               "origin": json.dumps(origin) if origin is not None else None, "bytes": len(raw),
               "archived_at": now_iso(), "released": False}
        with self.engine.begin() as connection:
            if connection.execute(sa.select(archive.c.game_id).where(archive.c.game_id == game_id)).first():
                return False
            connection.execute(sa.insert(archive).values(**row))
        return True

    def released(self, game_id: str) -> None:
        with self.engine.begin() as connection:
            connection.execute(sa.update(archive).where(archive.c.game_id == game_id).values(released=True))

    def candidates(self, finished_before: str, limit: int) -> list[str]:
        """Recorded games finished before ``finished_before`` that are not archived yet, oldest first. The
        history records a game once it has finished and any embargo on it is over, so each is ready."""
        query = (sa.select(games.c.game_id).select_from(games.outerjoin(archive, archive.c.game_id == games.c.game_id))
                 .where(archive.c.game_id.is_(None) & (games.c.finished_at < finished_before))
                 .order_by(games.c.finished_at, games.c.game_id).limit(limit))
        with self.engine.connect() as connection:
            return [row.game_id for row in connection.execute(query)]

    def backlog(self, finished_before: str) -> tuple[int, str | None]:
        """How many recorded games are due for the archive and not in it, and when the oldest of them
        finished (None when none is due)."""
        query = (sa.select(sa.func.count(), sa.func.min(games.c.finished_at))
                 .select_from(games.outerjoin(archive, archive.c.game_id == games.c.game_id))
                 .where(archive.c.game_id.is_(None) & (games.c.finished_at < finished_before)))
        with self.engine.connect() as connection:
            count, oldest = connection.execute(query).first()
        return int(count), oldest

    def unreleased(self, limit: int) -> list[str]:
        """Archived games whose Redis keys may still be there (the archiver died before deleting them)."""
        with self.engine.connect() as connection:
            return [row.game_id for row in connection.execute(
                sa.select(archive.c.game_id).where(archive.c.released.is_(False)).limit(limit))]

    # -- reading -------------------------------------------------------------------------------------
    def has(self, game_id: str) -> bool:
        with self._lock:
            if game_id in self._cache:
                return True
        with self.engine.connect() as connection:
            return connection.execute(sa.select(archive.c.game_id).where(
                archive.c.game_id == game_id)).first() is not None

    def events(self, game_id: str) -> list[StoredEvent] | None:
        """The archived game's events in order (None when it is not archived)."""
        with self._lock:
            found = self._cache.get(game_id)
            if found is not None:
                self._cache.move_to_end(game_id)
                return found
        with self.engine.connect() as connection:
            blob = connection.execute(sa.select(archive.c.events).where(archive.c.game_id == game_id)).scalar()
        if blob is None:
            return None
        lines = zlib.decompress(blob).split(b"\n")
        found = [decode(seq, line) for seq, line in enumerate(lines, 1)]
        with self._lock:
            self._cache[game_id] = found
            while len(self._cache) > CACHE_GAMES:
                self._cache.popitem(last=False)
        return found

    def row(self, game_id: str) -> dict | None:
        """The archived game's secret, credentials and origin (None when it is not archived)."""
        with self.engine.connect() as connection:
            found = connection.execute(sa.select(archive.c.secret, archive.c.credentials, archive.c.origin).where(
                archive.c.game_id == game_id)).first()
        if found is None:
            return None
        return {"secret": found.secret, "credentials": {int(k): v for k, v in json.loads(found.credentials).items()},
                "origin": json.loads(found.origin) if found.origin else None}

    def sizes(self) -> dict:
        """How much the archive holds: games, their events' bytes before and after compression."""
        with self.engine.connect() as connection:
            games, raw, stored = connection.execute(sa.select(
                sa.func.count(), sa.func.coalesce(sa.func.sum(archive.c.bytes), 0),
                sa.func.coalesce(sa.func.sum(sa.func.length(archive.c.events)), 0))).first()
        return {"games": games, "bytes": int(raw), "stored_bytes": int(stored)}
