"""Ratings: each identity's skill per game, moved by the rating units of rated games, in their order.

The model is openskill's Weng–Lin Plackett–Luce (``mu``, ``sigma``; a new identity starts at 25 and
25/3), which rates teams of any size against each other with ranks and ties: a Schafkopf deal's two
parties, Scharwenzel's two sides, every seat for itself in Scharfe Schoten — or, for a duplicate
round, everyone who held the same cards, ranked by what they made of them, so the luck of the deal
moves nobody. Bots are identities too (``bot:<kind>``), rated in the same games as people.

**Derived data that anyone can recompute.** A unit (``eventstore/history.py``'s ``rating_units``)
holds its matches with each seat's identity, taken from the finished game's public events; its key
is ``<finished_at>|<ref>``. Units apply in key order, one transaction each, every change written
with the unit it came from. A unit that arrives late (its key before one already applied: its
recording was delayed) makes the rater recompute that game's ratings from its first unit, so the
result is always that of the units in key order — the same numbers ``recompute`` gives from
scratch. Units newer than ``SETTLE_S`` wait a moment, so that games finishing together are applied
in their order rather than as they happen to be recorded.

An identity that fills several places of one match (a bot kind at several tables of a duplicate
round) moves by the mean of the moves its places give.
"""
from __future__ import annotations

import logging
import threading
import time
from datetime import datetime, timedelta, timezone

import sqlalchemy as sa
from openskill.models import PlackettLuce

from eventstore.history import History, rating_changes, rating_units, ratings

log = logging.getLogger("stich.rater")

SETTLE_S = 2.0
MODEL = PlackettLuce()  # mu 25, sigma 25/3, beta 25/6, tau 25/300: openskill's defaults, recorded in the docs


def iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Rater:
    def __init__(self, history: History, lock: threading.Lock | None = None):
        self.history = history
        self.lock = lock or threading.Lock()

    def apply_pending(self, settle_s: float = SETTLE_S) -> int:
        """Apply every unit that has settled, in key order (recomputing a game whose unit came late);
        how many units were applied."""
        watermark = iso(datetime.now(timezone.utc) - timedelta(seconds=settle_s)) + "|~" if settle_s else None
        applied = 0
        with self.lock:
            for game in self._games_pending():
                last = self._last_applied(game)
                pending = list(self.history.iter_units(game, applied=False, until=watermark))
                if not pending:
                    continue
                if last is not None and pending[0]["key"] < last:
                    applied += self.recompute(game, until=watermark, locked=True)
                    continue
                for unit in pending:
                    self._apply(unit)
                    applied += 1
        return applied

    def recompute(self, game: str, until: str | None = None, locked: bool = False) -> int:
        """Every rating of ``game`` from scratch: forget them, then apply its units (up to ``until``) in
        key order. The same numbers as the units applied one by one in that order."""
        with (self.lock if not locked else _Held()):
            engine = self.history.engine
            with engine.begin() as connection:
                connection.execute(sa.delete(rating_changes).where(rating_changes.c.game == game))
                connection.execute(sa.delete(ratings).where(ratings.c.game == game))
                connection.execute(sa.update(rating_units).where(rating_units.c.game == game).values(applied=False))
            count = 0
            for unit in list(self.history.iter_units(game, until=until)):
                self._apply(unit)
                count += 1
            return count

    def _games_pending(self) -> list[str]:
        with self.history.engine.connect() as connection:
            return [row.game for row in connection.execute(
                sa.select(rating_units.c.game).where(rating_units.c.applied.is_(False)).distinct())]

    def _last_applied(self, game: str) -> str | None:
        with self.history.engine.connect() as connection:
            return connection.execute(sa.select(sa.func.max(rating_units.c.key)).where(
                (rating_units.c.game == game) & rating_units.c.applied.is_(True))).scalar()

    def _apply(self, unit: dict) -> None:
        """One unit's matches, in one transaction: the ratings, a change per identity per match, applied."""
        game = unit["game"]
        finished_at = unit["key"].split("|", 1)[0]
        with self.history.engine.begin() as connection:
            current: dict[str, tuple[float, float, int]] = {}
            changes = []
            for match in unit["matches"]:
                teams = match["teams"]
                names = {identity for team in teams for identity in team if identity}
                for identity in names - current.keys():
                    row = connection.execute(sa.select(ratings.c.mu, ratings.c.sigma, ratings.c.matches).where(
                        (ratings.c.identity == identity) & (ratings.c.game == game))).first()
                    current[identity] = (row.mu, row.sigma, row.matches) if row else (MODEL.mu, MODEL.sigma, 0)
                moved = rate(teams, match["ranks"], current)
                for identity, (mu, sigma) in moved.items():
                    before = current[identity]
                    changes.append({"identity": identity, "identity_key": identity.lower(), "game": game,
                                    "unit": unit["key"], "game_id": match.get("game_id") or unit["ref"],
                                    "deal": match.get("deal"), "mu_before": before[0], "sigma_before": before[1],
                                    "mu_after": mu, "sigma_after": sigma})
                    current[identity] = (mu, sigma, before[2] + 1)
            if changes:
                connection.execute(sa.insert(rating_changes), changes)
            for identity, (mu, sigma, matches) in current.items():
                values = {"identity_key": identity.lower(), "mu": mu, "sigma": sigma, "ordinal": mu - 3 * sigma,
                          "matches": matches, "updated_at": finished_at}
                updated = connection.execute(sa.update(ratings).where(
                    (ratings.c.identity == identity) & (ratings.c.game == game)).values(**values)).rowcount
                if not updated:
                    connection.execute(sa.insert(ratings).values(identity=identity, game=game, **values))
            connection.execute(sa.update(rating_units).where(rating_units.c.key == unit["key"]).values(applied=True))


def rate(teams: list[list[str | None]], ranks: list[int], current: dict[str, tuple[float, float, int]]
         ) -> dict[str, tuple[float, float]]:
    """Each identity's (mu, sigma) after one match. A place without an identity (an anonymous seat)
    takes part at the default rating and moves nobody; an identity in several places moves by the mean
    of its places' moves."""
    if len(teams) < 2:
        return {}
    rated = [[MODEL.rating(mu=current[i][0], sigma=current[i][1]) if i else MODEL.rating() for i in team]
             for team in teams]
    after = MODEL.rate(rated, ranks=list(ranks))
    moves: dict[str, list[tuple[float, float]]] = {}
    for team, new_team in zip(teams, after):
        for identity, new in zip(team, new_team):
            if identity:
                moves.setdefault(identity, []).append((new.mu, new.sigma))
    return {identity: (sum(m for m, _ in values) / len(values), sum(s for _, s in values) / len(values))
            for identity, values in moves.items()}


class _Held:
    """The rater's lock when the caller holds it already."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def run_forever(rater: Rater, stop: threading.Event, interval: float = 1.0) -> None:
    while not stop.wait(interval):
        try:
            rater.apply_pending()
        except Exception:
            log.exception("a rating pass failed; the next one tries again")
        time.sleep(0)
