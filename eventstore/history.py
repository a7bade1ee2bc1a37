"""The history: finished games in a database, queryable by player, and the ratings derived from them.

Redis holds the games while they are played; what a player looks back on — its games filtered by
game, game type, role, result, rated, tournament and date, its statistics, its ratings and the
leaderboards — needs a store made for queries. This one is SQL through SQLAlchemy Core: a SQLite
file in the data directory by default (no set-up; ``stich serve`` puts it beside the private
Redis's), PostgreSQL at scale (``STICH_DATABASE_URL=postgresql+psycopg://…``, the ``postgres``
extra). A finished game moves into it whole later (issue 41's archive uses the same database).

Everything here is derived from finished games' public events (``workers/recorder.py`` writes it),
so it can be rebuilt from them at any time, and it reveals nothing of a running game: a game is
recorded once it has finished, a duplicate round's tables once their round has.

Tables:

* ``games``: one row per recorded game (its summary: game, players, rules, rated, tournament, seats
  with their players, scores, times, head).
* ``seats``: one row per seat and game: who sat there (``identity``: a player's handle, ``bot:<kind>``
  for a bot seat, null for an anonymous one), its total and place.
* ``deals``: one row per seat and settled deal: the game type, the seat's role, result and outcome.
* ``rating_units``: what moves ratings, one row per rated game (or duplicate round), keyed by when it
  finished: its matches with each seat's identity (``domain/record.py``'s ``Match``).
* ``ratings`` and ``rating_changes``: each identity's rating per game (openskill's Plackett–Luce ``mu``
  and ``sigma``), and every change with the unit it came from. ``workers/rater.py`` writes them, in
  the units' order, and can recompute them all from the units.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Iterator

import sqlalchemy as sa
from sqlalchemy.pool import StaticPool

SCHEMA_VERSION = 1
metadata = sa.MetaData()

games = sa.Table(
    "games", metadata,
    sa.Column("game_id", sa.String(32), primary_key=True),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("players", sa.Integer, nullable=False),
    sa.Column("rules", sa.Text, nullable=False),  # JSON
    sa.Column("rated", sa.Boolean, nullable=False, default=False),
    sa.Column("tournament_id", sa.String(32)),
    sa.Column("origin", sa.String(32)),  # what made it: "pool:<id>", "challenge:<game>:<day>", or null
    sa.Column("seats", sa.Text, nullable=False),  # JSON: [{seat, kind, bot, player}]
    sa.Column("scores", sa.Text, nullable=False),  # JSON: the summary's scores
    sa.Column("cut_short", sa.String(32)),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Column("finished_at", sa.String(32), nullable=False),
    sa.Column("head", sa.String(64)),
    sa.Index("games_finished", "finished_at", "game_id"),
    sa.Index("games_tournament", "tournament_id"),
)

seats = sa.Table(
    "seats", metadata,
    sa.Column("game_id", sa.String(32), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("identity", sa.String(48)),  # a handle, "bot:<kind>", or null (anonymous)
    sa.Column("identity_key", sa.String(48)),  # the identity in lower case: handles are unique whatever the case
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("total", sa.Integer),
    sa.Column("place", sa.Integer),
    sa.Column("outcome", sa.String(8)),  # won (place 1), lost, even (everyone place 1)
    sa.Column("rated", sa.Boolean, nullable=False, default=False),
    sa.Column("tournament_id", sa.String(32)),
    sa.Column("finished_at", sa.String(32), nullable=False),
    sa.Index("seats_identity", "identity_key", "finished_at", "game_id"),
)

deals = sa.Table(
    "deals", metadata,
    sa.Column("game_id", sa.String(32), primary_key=True),
    sa.Column("deal", sa.Integer, primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("identity_key", sa.String(48)),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("game_type", sa.String(32), nullable=False),
    sa.Column("role", sa.String(16), nullable=False),
    sa.Column("result", sa.Integer, nullable=False),
    sa.Column("outcome", sa.String(8), nullable=False),
    sa.Column("margin", sa.Float),  # a duplicate round's: the result less the mean of those with the same cards
    sa.Column("details", sa.Text),  # JSON
    sa.Column("finished_at", sa.String(32), nullable=False),
    sa.Index("deals_identity", "identity_key", "game", "game_type", "role"),
)

rating_units = sa.Table(
    "rating_units", metadata,
    sa.Column("key", sa.String(96), primary_key=True),  # "<finished_at>|<ref>": the order ratings apply in
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),  # game | duplicate
    sa.Column("ref", sa.String(64), nullable=False),  # the game id, or "<tournament>/<round>"
    sa.Column("matches", sa.Text, nullable=False),  # JSON: [{teams: [[identity, …], …], ranks, game_id, deal}]
    sa.Column("applied", sa.Boolean, nullable=False, default=False),
    sa.Index("rating_units_pending", "applied", "key"),
)

ratings = sa.Table(
    "ratings", metadata,
    sa.Column("identity", sa.String(48), primary_key=True),
    sa.Column("game", sa.String(32), primary_key=True),
    sa.Column("identity_key", sa.String(48), nullable=False),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("ordinal", sa.Float, nullable=False),  # mu - 3 sigma: the leaderboards' order
    sa.Column("matches", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.String(32), nullable=False),
    sa.Index("ratings_board", "game", "ordinal"),
    sa.Index("ratings_identity", "identity_key"),
)

rating_changes = sa.Table(
    "rating_changes", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("identity", sa.String(48), nullable=False),
    sa.Column("identity_key", sa.String(48), nullable=False),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("unit", sa.String(96), nullable=False),  # rating_units.key
    sa.Column("game_id", sa.String(32), nullable=False),
    sa.Column("deal", sa.Integer),
    sa.Column("mu_before", sa.Float, nullable=False),
    sa.Column("sigma_before", sa.Float, nullable=False),
    sa.Column("mu_after", sa.Float, nullable=False),
    sa.Column("sigma_after", sa.Float, nullable=False),
    sa.Index("rating_changes_identity", "identity_key", "game", "id"),
    sa.Index("rating_changes_unit", "unit"),
)

meta = sa.Table(
    "stich_meta", metadata,
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)


def default_url(data_dir: str | None = None) -> str:
    """``STICH_DATABASE_URL``, else a SQLite file in ``data_dir`` (``STICH_DATA_DIR``); else in memory."""
    url = os.environ.get("STICH_DATABASE_URL")
    if url:
        return url
    data_dir = data_dir or os.environ.get("STICH_DATA_DIR")
    if data_dir:
        os.makedirs(data_dir, exist_ok=True)
        return f"sqlite:///{os.path.abspath(os.path.join(data_dir, 'stich.sqlite3'))}"
    return "sqlite://"


def connect(url: str) -> sa.Engine:
    """An engine for ``url``, its schema made if it is new. SQLite is opened for several processes
    (write-ahead log, a busy wait of 10 s); in memory it is one connection shared by the process."""
    if url.startswith("sqlite"):
        memory = url in ("sqlite://", "sqlite:///:memory:")
        if not memory:
            private_file(sa.engine.make_url(url).database)
        engine = sa.create_engine(url, poolclass=StaticPool if memory else None,
                                  connect_args={"check_same_thread": False, "timeout": 10})

        @sa.event.listens_for(engine, "connect")
        def _pragmas(connection, _record):
            cursor = connection.cursor()
            if not memory:
                cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA busy_timeout=10000")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()
    else:
        engine = sa.create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=5)
    metadata.create_all(engine, checkfirst=True)
    with engine.begin() as connection:
        found = connection.execute(sa.select(meta.c.value).where(meta.c.name == "schema")).scalar()
        if found is None:
            connection.execute(sa.insert(meta).values(name="schema", value=str(SCHEMA_VERSION)))
        elif int(found) > SCHEMA_VERSION:
            raise RuntimeError(f"the history database has schema {found}; this stich knows {SCHEMA_VERSION}: "
                               "upgrade stich")
    return engine


def private_file(path: str) -> None:
    """The database file made readable by its owner alone, before SQLite opens it (its journal and
    write-ahead log take the file's mode): it holds every player's history, as the data directory's
    other files hold every game."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_RDWR, 0o600))
        os.chmod(path, 0o600)
    except OSError:
        pass  # a read-only or missing directory: SQLite itself says so when it opens it


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


@dataclass(frozen=True)
class Filters:
    """What ``History.games_of`` selects (None: any)."""
    game: str | None = None
    game_type: str | None = None
    role: str | None = None
    result: str | None = None  # won | lost | even (the seat's outcome in the game)
    rated: bool | None = None
    tournament: str | None = None
    since: str | None = None  # finished at or after (ISO 8601)
    until: str | None = None  # finished before


class History:
    """Queries and writes over the history database."""

    def __init__(self, engine: sa.Engine):
        self.engine = engine

    @classmethod
    def open(cls, url: str) -> "History":
        return cls(connect(url))

    # -- recording a finished game ------------------------------------------------------------
    def has_game(self, game_id: str) -> bool:
        with self.engine.connect() as connection:
            return connection.execute(sa.select(games.c.game_id).where(games.c.game_id == game_id)).first() is not None

    def record(self, game: dict, seat_rows: list[dict], deal_rows: list[dict], unit: dict | None) -> bool:
        """Write a finished game (its row, its seats, its deals) and its rating unit, in one transaction;
        a game recorded already is left as it is (False)."""
        with self.engine.begin() as connection:
            if connection.execute(sa.select(games.c.game_id).where(games.c.game_id == game["game_id"])).first():
                return False
            connection.execute(sa.insert(games).values(**{**game, "rules": _json(game["rules"]),
                                                           "seats": _json(game["seats"]),
                                                           "scores": _json(game["scores"])}))
            if seat_rows:
                connection.execute(sa.insert(seats), seat_rows)
            if deal_rows:
                connection.execute(sa.insert(deals), [{**row, "details": _json(row.get("details") or {})}
                                                      for row in deal_rows])
            if unit is not None:
                self._add_unit(connection, unit)
            return True

    def add_unit(self, unit: dict) -> bool:
        """A rating unit on its own (a duplicate round's, once the round has finished); False if known."""
        with self.engine.begin() as connection:
            return self._add_unit(connection, unit)

    def set_margins(self, margins: list[tuple[str, int, int, float]]) -> None:
        """(game_id, deal, seat, margin) of a duplicate round's tables."""
        if not margins:
            return
        with self.engine.begin() as connection:
            for game_id, deal, seat, margin in margins:
                connection.execute(sa.update(deals).where(
                    (deals.c.game_id == game_id) & (deals.c.deal == deal) & (deals.c.seat == seat)).values(
                    margin=margin))

    @staticmethod
    def _add_unit(connection, unit: dict) -> bool:
        if connection.execute(sa.select(rating_units.c.key).where(rating_units.c.key == unit["key"])).first():
            return False
        connection.execute(sa.insert(rating_units).values(**{**unit, "matches": _json(unit["matches"]),
                                                             "applied": False}))
        return True

    # -- reading ---------------------------------------------------------------------------
    def games_of(self, identity: str, filters: Filters, limit: int, after: tuple[str, str] | None = None
                 ) -> list[dict]:
        """The identity's recorded games, newest first, after the keyset cursor ``after`` ((finished_at,
        game_id) of the last entry of the previous page)."""
        key = identity.lower()
        query = (sa.select(games, seats.c.seat, seats.c.total, seats.c.place, seats.c.outcome)
                 .join(seats, seats.c.game_id == games.c.game_id)
                 .where(seats.c.identity_key == key))
        if filters.game:
            query = query.where(games.c.game == filters.game)
        if filters.rated is not None:
            query = query.where(games.c.rated == filters.rated)
        if filters.tournament:
            query = query.where(games.c.tournament_id == filters.tournament)
        if filters.result:
            query = query.where(seats.c.outcome == filters.result)
        if filters.since:
            query = query.where(games.c.finished_at >= filters.since)
        if filters.until:
            query = query.where(games.c.finished_at < filters.until)
        if filters.game_type or filters.role:
            matching = sa.select(deals.c.game_id).where(deals.c.identity_key == key)
            if filters.game_type:
                matching = matching.where(deals.c.game_type == filters.game_type)
            if filters.role:
                matching = matching.where(deals.c.role == filters.role)
            query = query.where(games.c.game_id.in_(matching))
        if after is not None:
            query = query.where(sa.tuple_(games.c.finished_at, games.c.game_id) < sa.tuple_(*after))
        query = query.order_by(games.c.finished_at.desc(), games.c.game_id.desc()).limit(limit)
        with self.engine.connect() as connection:
            rows = [dict(row._mapping) for row in connection.execute(query)]
            found = self._deals_of(connection, key, [row["game_id"] for row in rows], filters)
        return [self._entry(row, found.get(row["game_id"], [])) for row in rows]

    def _deals_of(self, connection, key: str, game_ids: list[str], filters: Filters) -> dict[str, list[dict]]:
        if not game_ids:
            return {}
        query = sa.select(deals).where((deals.c.identity_key == key) & deals.c.game_id.in_(game_ids))
        if filters.game_type:
            query = query.where(deals.c.game_type == filters.game_type)
        if filters.role:
            query = query.where(deals.c.role == filters.role)
        out: dict[str, list[dict]] = {}
        for row in connection.execute(query.order_by(deals.c.game_id, deals.c.deal)):
            out.setdefault(row.game_id, []).append({
                "deal": row.deal, "game_type": row.game_type, "role": row.role, "result": row.result,
                "outcome": row.outcome, "margin": row.margin, "details": json.loads(row.details or "{}")})
        return out

    @staticmethod
    def _entry(row: dict, deal_list: list[dict]) -> dict:
        return {"game_id": row["game_id"], "game": row["game"], "players": row["players"],
                "rated": bool(row["rated"]), "tournament_id": row["tournament_id"], "origin": row["origin"],
                "seat": row["seat"], "total": row["total"], "place": row["place"], "outcome": row["outcome"],
                "seats": json.loads(row["seats"]), "scores": json.loads(row["scores"]),
                "cut_short": row["cut_short"], "created_at": row["created_at"], "finished_at": row["finished_at"],
                "url": f"/v1/games/{row['game_id']}", "deals": deal_list}

    def statistics(self, identity: str) -> dict:
        """Per game and game type: deals, won, lost, even, as each role, and the results summed."""
        key = identity.lower()
        query = (sa.select(deals.c.game, deals.c.game_type, deals.c.role, deals.c.outcome,
                           sa.func.count().label("n"), sa.func.sum(deals.c.result).label("results"))
                 .where(deals.c.identity_key == key)
                 .group_by(deals.c.game, deals.c.game_type, deals.c.role, deals.c.outcome))
        out: dict[str, dict[str, dict]] = {}
        with self.engine.connect() as connection:
            for row in connection.execute(query):
                slot = out.setdefault(row.game, {}).setdefault(row.game_type, {
                    "deals": 0, "won": 0, "lost": 0, "even": 0, "roles": {}, "results": 0})
                slot["deals"] += row.n
                slot[row.outcome] = slot.get(row.outcome, 0) + row.n
                slot["roles"][row.role] = slot["roles"].get(row.role, 0) + row.n
                slot["results"] += int(row.results or 0)
        return out

    def counts(self, identity: str) -> dict:
        key = identity.lower()
        query = (sa.select(seats.c.game, seats.c.outcome, sa.func.count().label("n"))
                 .where(seats.c.identity_key == key).group_by(seats.c.game, seats.c.outcome))
        out: dict[str, dict] = {}
        with self.engine.connect() as connection:
            for row in connection.execute(query):
                slot = out.setdefault(row.game, {"games": 0, "won": 0, "lost": 0, "even": 0})
                slot["games"] += row.n
                if row.outcome in slot:
                    slot[row.outcome] += row.n
        return out

    def ratings_of(self, identity: str) -> dict[str, dict]:
        with self.engine.connect() as connection:
            rows = connection.execute(sa.select(ratings).where(ratings.c.identity_key == identity.lower()))
            return {row.game: rating_json(row) for row in rows}

    def profile(self, identity: str, recent: int = 10) -> dict:
        return {"ratings": self.ratings_of(identity), "counts": self.counts(identity),
                "statistics": self.statistics(identity),
                "recent": self.games_of(identity, Filters(), recent)}

    def leaderboard(self, game: str, limit: int, after: tuple[float, str] | None = None) -> list[dict]:
        """Best first by ``ordinal`` (mu - 3 sigma), then identity; keyset cursor (ordinal, identity)."""
        query = sa.select(ratings).where(ratings.c.game == game)
        if after is not None:
            query = query.where(sa.or_(ratings.c.ordinal < after[0],
                                       (ratings.c.ordinal == after[0]) & (ratings.c.identity > after[1])))
        query = query.order_by(ratings.c.ordinal.desc(), ratings.c.identity).limit(limit)
        with self.engine.connect() as connection:
            return [{"identity": row.identity, **rating_json(row)} for row in connection.execute(query)]

    def rating_changes_of(self, identity: str, game: str, limit: int = 50) -> list[dict]:
        query = (sa.select(rating_changes).where((rating_changes.c.identity_key == identity.lower())
                                                 & (rating_changes.c.game == game))
                 .order_by(rating_changes.c.id.desc()).limit(limit))
        with self.engine.connect() as connection:
            return [change_json(row) for row in connection.execute(query)]

    def finished_games(self, after: tuple[str, str] | None, limit: int, month: str | None = None,
                       tournament: str | None = None, identity: str | None = None) -> list[tuple[str, str]]:
        """Recorded games in the order they finished, oldest first, after the keyset ``after``
        ((finished_at, game_id)): of one month (``YYYY-MM``), tournament or identity. Their
        (finished_at, game_id)."""
        query = sa.select(games.c.finished_at, games.c.game_id)
        if month is not None:
            query = query.where((games.c.finished_at >= f"{month}-01") & (games.c.finished_at < next_month(month)))
        if tournament is not None:
            query = query.where(games.c.tournament_id == tournament)
        if identity is not None:
            query = query.where(games.c.game_id.in_(sa.select(seats.c.game_id).where(
                seats.c.identity_key == identity.lower())))
        if after is not None:
            query = query.where(sa.tuple_(games.c.finished_at, games.c.game_id) > sa.tuple_(*after))
        query = query.order_by(games.c.finished_at, games.c.game_id).limit(limit)
        with self.engine.connect() as connection:
            return [(row.finished_at, row.game_id) for row in connection.execute(query)]

    def iter_units(self, game: str, applied: bool | None = None, until: str | None = None) -> Iterator[dict]:
        """The rating units of ``game`` in their order (key), a page at a time."""
        after = ""
        while True:
            query = sa.select(rating_units).where((rating_units.c.game == game) & (rating_units.c.key > after))
            if applied is not None:
                query = query.where(rating_units.c.applied == applied)
            if until is not None:
                query = query.where(rating_units.c.key <= until)
            with self.engine.connect() as connection:
                rows = list(connection.execute(query.order_by(rating_units.c.key).limit(500)))
            if not rows:
                return
            for row in rows:
                yield {"key": row.key, "game": row.game, "kind": row.kind, "ref": row.ref,
                       "matches": json.loads(row.matches), "applied": bool(row.applied)}
            after = rows[-1].key


def next_month(month: str) -> str:
    year, number = (int(part) for part in month.split("-"))
    return f"{year + number // 12:04d}-{number % 12 + 1:02d}"


def rating_json(row) -> dict:
    return {"mu": row.mu, "sigma": row.sigma, "ordinal": row.ordinal, "matches": row.matches,
            "provisional": row.matches < PROVISIONAL_MATCHES, "updated_at": row.updated_at}


def change_json(row) -> dict:
    return {"unit": row.unit, "game_id": row.game_id, "deal": row.deal, "mu_before": row.mu_before,
            "sigma_before": row.sigma_before, "mu_after": row.mu_after, "sigma_after": row.sigma_after}


PROVISIONAL_MATCHES = 20  # a rating from fewer matches is provisional (marked on the leaderboards)
