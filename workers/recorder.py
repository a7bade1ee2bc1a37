"""The recorder: finished games into the history database (``eventstore/history.py``), and the ratings on.

A game's last event (``SeedRevealed``) makes the ``HistoryFeed`` listener add its id to a Redis stream,
``<prefix>:history:finished`` (one write per game, after its final append). The history loop — one
worker at a time, under a lock — reads that stream from where it stopped, records each game, moves its
cursor on, and then lets the rater (``workers/rater.py``) apply what settled. Recording is idempotent
(a game recorded already is left as it is), so a pass that dies midway is simply made again.

A table of a **duplicate round** with people at it is recorded only once its round has finished, like
its export (the other tables play the same deals): until then it waits in
``<prefix>:history:deferred``, looked at again every ``DEFER_S``. Such a round is rated as a whole by
its duplicate margins once all its tables are recorded (a unit of kind ``duplicate``); its tables are
not rated one by one.

With bot turns inline (tests, one process) the listener records and rates at once instead.

``backfill`` records the finished games of the game list that the history lacks (a store that had
finished games before the history existed, or whose listener died between a game's end and its
stream entry); a worker makes that pass at its start unless another made it in the last hour.
"""
from __future__ import annotations

import logging
import threading
import time
import redis

from domain.record import Match
from domain.table import FINAL_EVENT
from domain.tournament.duplicate import deal_count
from domain.tournament.margins import compare, round_seat
from eventstore.handler import CommandHandler, Loaded, UnknownGame
from eventstore.history import History
from eventstore.index import GameIndex

from .rater import Rater

log = logging.getLogger("stich.recorder")

STREAM_MAXLEN = 100_000  # finished games the stream keeps for a recorder that is behind (backfill covers more)
BATCH = 200
DEFER_S = 60.0
RECORDED, DEFERRED, KNOWN, UNFINISHED = "recorded", "deferred", "known", "not finished"


def identity_of(seat: dict) -> str | None:
    """Who is rated for a seat: its player, its bot kind, or nobody (an anonymous seat)."""
    if seat.get("player"):
        return seat["player"]
    if seat.get("kind") == "bot":
        return f"bot:{seat.get('bot') or 'random'}"
    return None


def outcome_of(place: int | None, places: list[int]) -> str | None:
    if place is None:
        return None
    if all(p == 1 for p in places):
        return "even"
    return "won" if place == 1 else "lost"


class Recorder:
    def __init__(self, handler: CommandHandler, history: History, tournaments=None, origins=None, waits=None):
        """``tournaments``: the tournament desk (which game is whose table, whether its round runs);
        ``origins(game_id)``: what made a game (a pool, the daily challenge), or None; ``waits(game_id)``:
        until when (Unix time) a finished game's record must wait, or None (a daily challenge's game waits
        for its day's end)."""
        self.handler = handler
        self.history = history
        self.tournaments = tournaments
        self.origins = origins or (lambda game_id: None)
        self.waits = waits or (lambda game_id: None)

    def record(self, game_id: str) -> str:
        if self.history.has_game(game_id):
            return KNOWN
        try:
            loaded = self.handler.load(game_id)
        except UnknownGame:
            return UNFINISHED
        if not self.handler.table.is_finished(loaded.state):
            return UNFINISHED
        if self.waits(game_id) is not None:
            return DEFERRED
        tournament = self._tournament(game_id)
        if tournament is not None and tournament[1]:
            return DEFERRED
        events = self._events(loaded)
        game, seat_rows, deal_rows, unit = self.rows(loaded, events, tournament[0] if tournament else None)
        self.history.record(game, seat_rows, deal_rows, unit)
        if tournament is not None:
            self._duplicate_round(tournament[0], game_id)
        return RECORDED

    def _events(self, loaded: Loaded) -> list[dict]:
        return [e.for_viewer(None, True) for e in self.handler.store.read(loaded.game_id, until=loaded.seq)]

    def _duplicate_round(self, tournament_id: str, game_id: str) -> None:
        """Once every table of a duplicate round is recorded: each deal's margins (everyone who held the
        same cards compared), and, if the tournament is rated, the round's rating unit of those matches."""
        state = self.tournaments.handler.load(tournament_id).state
        config = state.config
        if not config.get("duplicate"):
            return
        found = [r for r in state.rounds if any(slot.game_id == game_id for slot in r.tables)]
        if not found or not found[0].finished:
            return
        round_ = found[0]
        slots = [slot for slot in round_.tables if slot.game_id]
        if not all(self.history.has_game(slot.game_id) for slot in slots):
            return  # the last table recorded does the round
        players = config["players"]
        tables, identities, finished_at = {}, {}, ""
        for slot in slots:
            loaded = self.handler.load(slot.game_id)
            events = self._events(loaded)
            tables[slot.table] = loaded.state.game.deal_records(events)
            finished_at = max(finished_at, events[-1]["at"])
            for seat, info in enumerate(self.handler.table.summary(loaded.state)["seats"]):
                identities[round_seat(slot.table, seat, players)] = identity_of(info)
        games = {slot.table: slot.game_id for slot in slots}
        comparisons = compare(tables, players, deal_count(config["game"], config["deals_per_table"]))
        self.history.set_margins([(games[h.table], c.deal, h.seat, h.margin)
                                  for c in comparisons for h in c.holdings])
        if not config.get("rated"):
            return
        matches = []
        for comparison in comparisons:
            teams = [[identities[seat] for seat in team] for team in comparison.match.teams]
            if sum(1 for team in teams if any(team)) >= 2:
                table = comparison.holdings[0].table
                matches.append({"teams": teams, "ranks": list(comparison.match.ranks), "game_id": games[table],
                                "deal": comparison.deal})
        ref = f"{tournament_id}/{round_.number}"
        self.history.add_unit({"key": f"{finished_at}|{ref}", "game": config["game"], "kind": "duplicate",
                               "ref": ref, "matches": matches})

    def _tournament(self, game_id: str) -> tuple[str, bool] | None:
        """(tournament id, whether to wait for its round) of a table, else None. A duplicate round's tables
        wait for their round's end: while it runs their deals are secret (with people at them), and the
        round is compared as a whole once it is over."""
        if self.tournaments is None:
            return None
        tournament_id = self.tournaments.tournament_of(game_id)
        if not tournament_id:
            return None
        state = self.tournaments.handler.load(tournament_id).state
        running = state.config["duplicate"] and not any(
            round_.finished for round_ in state.rounds
            for slot in round_.tables if slot.game_id == game_id)
        return tournament_id, running

    def rows(self, loaded: Loaded, events: list[dict], tournament_id: str | None):
        """The game's history rows and, if it is rated, its rating unit."""
        state, table = loaded.state, self.handler.table
        summary = table.summary(state)
        game_name = state.game.name
        created_at, finished_at = events[0]["at"], events[-1]["at"]
        seat_json = summary["seats"]
        identities = [identity_of(seat) for seat in seat_json]
        scores = summary.get("scores") or {}
        places = scores.get("ranking") or [None] * len(seat_json)
        totals = scores.get("totals") or [None] * len(seat_json)
        game = {"game_id": loaded.game_id, "game": game_name, "players": state.players,
                "rules": dict(state.setup.rules), "rated": state.rated, "tournament_id": tournament_id,
                "origin": self.origins(loaded.game_id), "seats": seat_json, "scores": scores,
                "cut_short": state.cut_short, "created_at": created_at, "finished_at": finished_at,
                "head": loaded.head}
        seat_rows = [{"game_id": loaded.game_id, "seat": n, "identity": identity,
                      "identity_key": identity.lower() if identity else None, "game": game_name,
                      "total": totals[n], "place": places[n], "outcome": outcome_of(places[n], list(places)),
                      "rated": state.rated, "tournament_id": tournament_id, "finished_at": finished_at}
                     for n, identity in enumerate(identities)]
        deal_rows = [{"game_id": loaded.game_id, "deal": record.deal, "seat": n,
                      "identity_key": identities[n].lower() if identities[n] else None, "game": game_name,
                      "game_type": record.game_type, "role": record.roles[n], "result": record.results[n],
                      "outcome": record.outcomes[n], "details": record.details, "finished_at": finished_at}
                     for record in state.game.deal_records(events) for n in range(state.players)]
        unit = None
        duplicate = bool(tournament_id and self.tournaments is not None
                         and self.tournaments.handler.load(tournament_id).state.config.get("duplicate"))
        if state.rated and not duplicate:
            matches = [unit_match(match, identities, loaded.game_id) for match in state.game.rating_matches(events)]
            unit = {"key": f"{finished_at}|{loaded.game_id}", "game": game_name, "kind": "game",
                    "ref": loaded.game_id, "matches": [m for m in matches if m is not None]}
        return game, seat_rows, deal_rows, unit


def unit_match(match: Match, identities: list[str | None], game_id: str) -> dict | None:
    """A match with each seat named by its identity; None when fewer than two teams have one."""
    teams = [[identities[seat] for seat in team] for team in match.teams]
    if sum(1 for team in teams if any(team)) < 2:
        return None
    return {"teams": teams, "ranks": list(match.ranks), "game_id": game_id, "deal": match.deal}


class HistoryFeed:
    """A listener of the games' handler: a finished game's id into the stream the recorder reads, or
    (``inline``) recorded and rated at once."""

    def __init__(self, client: redis.Redis, prefix: str, inline: tuple[Recorder, Rater] | None = None):
        self.redis = client
        self.stream = f"{prefix}:history:finished"
        self.inline = inline
        self.deferred: dict[str, None] = {}  # inline: tables waiting for their round, retried at every game's end

    def __call__(self, loaded: Loaded, appended) -> None:
        if not appended or appended[-1].type != FINAL_EVENT:
            return
        if self.inline is not None:
            recorder, rater = self.inline
            try:
                for game_id in [*self.deferred, loaded.game_id]:
                    if recorder.record(game_id) == DEFERRED:
                        self.deferred[game_id] = None
                    else:
                        self.deferred.pop(game_id, None)
                rater.apply_pending(settle_s=0)
            except Exception:  # the history is derived: a failure here must not fail the move
                log.exception("recording game %s failed", loaded.game_id)
            return
        self.redis.xadd(self.stream, {"game": loaded.game_id}, maxlen=STREAM_MAXLEN, approximate=True)


class HistoryLoop:
    """The worker's pass over the finished games' stream, the deferred tables and the ratings; one
    worker at a time (a lock in Redis)."""

    def __init__(self, client: redis.Redis, prefix: str, recorder: Recorder, rater: Rater, index: GameIndex):
        self.redis, self.recorder, self.rater, self.index = client, recorder, rater, index
        self.stream = f"{prefix}:history:finished"
        self.cursor_key = f"{prefix}:history:cursor"
        self.deferred_key = f"{prefix}:history:deferred"
        self.lock_key = f"{prefix}:history:lock"
        self.backfill_key = f"{prefix}:history:backfilled"

    def pass_once(self, now: float | None = None) -> dict[str, int]:
        now = time.time() if now is None else now
        done = {"recorded": 0, "deferred": 0}
        cursor = (self.redis.get(self.cursor_key) or b"0-0").decode()
        while True:
            entries = self.redis.xrange(self.stream, min=f"({cursor}", count=BATCH)
            if not entries:
                break
            for entry_id, fields in entries:
                game_id = fields[b"game"].decode()
                outcome = self.recorder.record(game_id)
                if outcome == DEFERRED:
                    self.redis.zadd(self.deferred_key, {game_id: self.retry_at(game_id, now)})
                    done["deferred"] += 1
                done["recorded"] += outcome == RECORDED
                cursor = entry_id.decode()
            self.redis.set(self.cursor_key, cursor)
        for raw in self.redis.zrangebyscore(self.deferred_key, "-inf", now, start=0, num=BATCH):
            game_id = raw.decode()
            outcome = self.recorder.record(game_id)
            if outcome == DEFERRED:
                self.redis.zadd(self.deferred_key, {game_id: self.retry_at(game_id, now)})
            else:
                self.redis.zrem(self.deferred_key, game_id)
                done["recorded"] += outcome == RECORDED
        self.rater.apply_pending()
        return done

    def retry_at(self, game_id: str, now: float) -> float:
        """When to look at a deferred game again: its embargo's end if it has one, else in ``DEFER_S``."""
        until = self.recorder.waits(game_id)
        return until if until is not None else now + DEFER_S

    def backfill(self) -> int:
        """Record every finished game of the game list that the history lacks; how many."""
        count = 0
        for game_id in self.index.ids(status="finished"):
            outcome = self.recorder.record(game_id)
            if outcome == DEFERRED:
                self.redis.zadd(self.deferred_key, {game_id: self.retry_at(game_id, time.time())})
            count += outcome == RECORDED
        return count

    def run_forever(self, stop: threading.Event, interval: float = 1.0) -> None:
        if self.redis.set(self.backfill_key, "1", nx=True, ex=3600):
            try:
                log.info("history backfill: %d games recorded", self.backfill())
            except Exception:
                log.exception("the history backfill failed")
        while not stop.wait(interval):
            try:
                if self.redis.set(self.lock_key, "1", nx=True, px=max(1000, int(interval * 30_000))):
                    try:
                        self.pass_once()
                    finally:
                        self.redis.delete(self.lock_key)
            except Exception:
                log.exception("a history pass failed; the next one tries again")

