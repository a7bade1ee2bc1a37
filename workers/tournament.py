"""The tournament driver: opens every table of a round, records each finished table, moves on.

``TournamentDesk.drive(id)`` is one idempotent pass over the current round:

* a table not yet opened gets its game, created under the id ``table_game_id``
  derives from (tournament, round, table), then ``TableOpened``. Creating
  that id again finds the game (``CommandHandler.create_with``), and the
  tournament refuses a second ``TableOpened`` for a table, so a retried or
  doubled pass never makes a second set of tables;
* a table whose game has finished gets ``TableFinished`` with its totals (the
  idempotency key ``finish-<round>-<table>`` makes a retry a no-op). After the
  round's last table the tournament itself appends ``RoundFinished`` and draws
  the next round (or finishes), and the pass goes on with that round.

Who calls it: a listener of the games' handler, when a tournament table's game
ends (its ``SeedRevealed``), and a listener of the tournaments' handler when a
round is drawn. With RQ each is a job (``drive_tournament``); inline (tests,
single process) the pass runs in the calling thread, iteratively. A worker
killed mid-pass loses nothing: the tournament's entry ``tournament|<id>|0`` in
the due-time index (from ``TournamentStarted`` until it finishes) makes a
sweeper queue a fresh pass every ``STICH_SWEEP_AFTER`` seconds, and the pass
also gives every unfinished table whose bot is due an entry of its own, in case
its creator died before the game's own listeners ran.
"""
from __future__ import annotations

import threading
import time
from collections import deque

from domain.errors import RuleViolation
from domain.game import rank_places
from domain.table import ABORTED, FINAL_EVENT, MAX_DETAIL
from domain.tournament import Tournaments, TournamentState
from domain.tournament.decider import table_game_id
from eventstore.codec import StoredEvent
from eventstore.handler import CommandHandler, Contention, Loaded, UnknownGame
from eventstore.schedule import Entry
from eventstore.store import EventStore
from eventstore.tournament_index import TournamentIndex

from .dispatch import bots_to_act, sweep_after
from .runtime import current_runtime

KIND = "tournament"  # its entries in the due-time index
MAX_ROUNDS_PER_PASS = 64  # a pass follows the rounds it finishes; bounded all the same


class TournamentDesk:
    def __init__(self, games: CommandHandler, store: EventStore, schedule=None, queue=None):
        self.games = games
        self.schedule = schedule
        self.queue = queue
        self.redis = store.redis
        self.prefix = games.store.prefix
        # The list first: a pass driven inline from on_tournament appends (and lists) later events.
        self.index = TournamentIndex(store.redis, store.prefix)
        self.handler = CommandHandler(store, Tournaments(games.table.games),
                                      listeners=[self.index, self.on_tournament], empty=TournamentState)
        self._local = threading.local()

    @classmethod
    def attach(cls, runtime) -> TournamentDesk:
        """The desk of a runtime: tournaments in a key space of their own (``<prefix>:tournaments``), so a
        tournament id is never a game id, and a listener on the runtime's games for their tables."""
        store = EventStore(runtime.store.redis, f"{runtime.store.prefix}:tournaments")
        desk = cls(runtime.handler, store, runtime.schedule, runtime.queue)
        runtime.handler.listeners.append(desk.on_game)
        return desk

    # -- which game belongs to which tournament ----------------------------------------------
    def _table_key(self, game_id: str) -> str:
        return f"{self.prefix}:{{g:{game_id}}}:tournament"  # the game's slot, beside its other keys

    def tournament_of(self, game_id: str) -> str | None:
        raw = self.redis.get(self._table_key(game_id))
        return raw.decode() if raw is not None else None

    def _commitment_key(self, seed_sha256: str) -> str:
        return f"{self.prefix}:table-commitment:{seed_sha256}"

    def table_committed_to(self, seed_sha256: str) -> str | None:
        """The table game whose GameCreated commits to ``seed_sha256``: an export names its game only
        in a header anyone may relabel, but its commitment is covered by the hash chain."""
        raw = self.redis.get(self._commitment_key(seed_sha256)) if isinstance(seed_sha256, str) else None
        return raw.decode() if raw is not None else None

    def tournaments_of(self, game_ids: list[str]) -> list[str | None]:
        """``tournament_of`` each, in one round trip (a pipeline: the keys live in their games' slots)."""
        if not game_ids:
            return []
        pipe = self.redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.get(self._table_key(game_id))
        return [raw.decode() if raw is not None else None for raw in pipe.execute()]

    # -- triggers ---------------------------------------------------------------------------
    def on_game(self, loaded: Loaded, appended: list[StoredEvent]) -> None:
        """A game ended: if it is a tournament table, its tournament may move on."""
        if appended and appended[-1].type == FINAL_EVENT:
            tournament_id = self.tournament_of(loaded.game_id)
            if tournament_id:
                self.request(tournament_id, loaded.game_id)

    def on_tournament(self, loaded: Loaded, appended: list[StoredEvent]) -> None:
        types = {e.type for e in appended}
        if self.schedule is not None and "TournamentStarted" in types:
            self.schedule.add(Entry(KIND, loaded.game_id, 0), time.time() + sweep_after())
        if "RoundDrawn" in types:
            self.request(loaded.game_id, f"r{loaded.state.current.number}")
        elif "TournamentResumed" in types:  # the tables held back open now, and the open ones play on
            self.request(loaded.game_id, f"resumed-{loaded.seq}")
        elif "TournamentPaused" in types:  # the open tables stop
            self.request(loaded.game_id, f"paused-{loaded.seq}")
        elif "TournamentAborted" in types:  # the open tables end
            self.request(loaded.game_id, f"aborted-{loaded.seq}")

    def request(self, tournament_id: str, reason: str) -> None:
        """A pass over the tournament: a job with RQ, else now in this thread (never recursively)."""
        if self.queue is not None:
            self.queue.enqueue("workers.tournament.drive_tournament", tournament_id,
                               job_id=f"tournament-{tournament_id}-{reason}", result_ttl=60, failure_ttl=3600,
                               job_timeout=120)
            return
        pending = getattr(self._local, "pending", None)
        if pending is None:
            pending = self._local.pending = deque()
        if tournament_id not in pending:
            pending.append(tournament_id)
        if getattr(self._local, "draining", False):
            return
        self._local.draining = True
        try:
            while pending:
                self.drive(pending.popleft())
        finally:
            self._local.draining = False

    # -- the pass ---------------------------------------------------------------------------
    def drive(self, tournament_id: str) -> str:
        for _ in range(MAX_ROUNDS_PER_PASS):
            try:
                state = self.handler.load(tournament_id).state
            except UnknownGame:
                return "unknown tournament"
            if state.status == "finished":
                if state.aborted is not None:
                    self._end_tables(tournament_id, state)
                if self.schedule is not None:
                    self.schedule.drop(Entry(KIND, tournament_id, 0))
                return "finished"
            round_ = state.current
            if state.status != "active" or round_ is None or round_.finished:
                return "not started"
            finished = 0
            for slot in round_.tables:
                if slot.finished or (slot.game_id is None and state.paused):  # paused: no table opens
                    continue
                game_id = slot.game_id or self._open(tournament_id, state, round_.number, slot.table)
                game = self._hold(self.games.load(game_id), state.paused)
                if game.state.status == "finished":
                    self._record(tournament_id, round_.number, slot.table, game)
                    finished += 1
                else:
                    self._keep_due(game)
            if not finished:
                return "playing"
        return "playing"

    def _open(self, tournament_id: str, state: TournamentState, round_: int, table: int) -> str:
        game_id = table_game_id(tournament_id, round_, table)
        # Before the game exists: its end must find its tournament even if it ends inside create.
        self.redis.set(self._table_key(game_id), tournament_id)
        setup = self.handler.table.table_setup(state, round_, table)
        create = self.games.table.create
        self.games.create_with(lambda commitment: create(setup["game"], setup["players"], setup["rules"],
                                                         setup["seats"], setup["preset_deals"], commitment,
                                                         clock=setup["clock"], rated=setup["rated"]),
                               game_id=game_id)
        # The table's seed commitment, so an import of it is known whatever its header says (api/embargo.py).
        self.redis.set(self._commitment_key(self.games.load(game_id).state.seed_sha256), game_id)
        if setup["clock"]:
            # With turn deadlines the table starts at once: a participant who never asks for its seat's
            # token is on the clock like one who stops moving, and cannot hold up the round.
            for seat, spec in enumerate(setup["seats"]):
                if spec["kind"] == "human":
                    try:
                        self.games.execute(game_id, None, {"type": "take_seat", "seat": seat,
                                                           **({"player": spec["player"]} if spec.get("player") else {})},
                                           idempotency_key=f"seat-{seat}")
                    except RuleViolation:  # taken by an earlier pass
                        pass
        self._system(tournament_id, {"type": "open_table", "round": round_, "table": table, "game_id": game_id},
                     f"open-{round_}-{table}")
        return game_id

    def _end_tables(self, tournament_id: str, state: TournamentState) -> None:
        """An aborted tournament's open tables end too (``GameCutShort``, reason ``aborted``), through the
        games' handler: nobody can take their seats any more (they are its participants'), so left open
        they would wait for ever."""
        for round_ in state.rounds:
            for slot in round_.tables:
                if slot.game_id is None or slot.finished:
                    continue
                try:
                    self.games.execute(slot.game_id, None, {
                        "type": "end_game", "reason": ABORTED,
                        "detail": f"tournament {tournament_id} was aborted: {state.aborted}"[:MAX_DETAIL]},
                        idempotency_key="aborted")
                except (RuleViolation, Contention):  # finished meanwhile, or another pass ended it
                    pass

    def _record(self, tournament_id: str, round_: int, table: int, game: Loaded) -> None:
        scores = self.games.table.summary(game.state)["scores"]
        totals = list(scores["totals"])
        command = {"type": "finish_table", "round": round_, "table": table, "totals": totals,
                   "places": list(scores.get("ranking") or rank_places(totals))}
        if game.state.cut_short:
            command["cut_short"] = game.state.cut_short
        self._system(tournament_id, command, f"finish-{round_}-{table}")

    def _system(self, tournament_id: str, command: dict, key: str) -> None:
        try:
            self.handler.execute(tournament_id, None, command, idempotency_key=key)
        except (RuleViolation, Contention):  # another pass recorded it first: what we wanted
            pass

    def _hold(self, game: Loaded, paused: bool) -> Loaded:
        """An open table follows its tournament: paused while it is (``GamePaused``, through the games'
        handler, between two moves), resumed when it is not. Every pass re-checks, so a pass lost after
        the tournament's pause or resume is made good by the next."""
        state = game.state
        if state.status == "finished" or state.cut_short or state.paused == paused:
            return game
        try:
            return self.games.execute(game.game_id, None, {"type": "pause" if paused else "resume"}).loaded
        except (RuleViolation, Contention):  # finished meanwhile, or another pass did it: re-read
            return self.games.load(game.game_id)

    def _keep_due(self, game: Loaded) -> None:
        """An entry for a table's due bot, unless it has one: its creator may have died before its listeners."""
        if self.schedule is not None and bots_to_act(self.games.table, game.state):
            self.schedule.add(Entry("bot", game.game_id, game.seq), time.time() + sweep_after())


def drive_tournament(tournament_id: str) -> str:
    """The RQ job: one pass over the tournament in this worker's runtime."""
    return current_runtime().tournaments.drive(tournament_id)


def settle_tournament(sweeper, entry: Entry, now: float) -> int:
    """A sweeper found the tournament's entry due: queue a pass. The entry stays, leased, and comes due
    again after the lease; the pass drops it once the tournament has finished."""
    sweeper.queue.enqueue("workers.tournament.drive_tournament", entry.game_id,
                          job_id=f"tournament-{entry.game_id}-s{int(now * 1000)}", result_ttl=60,
                          failure_ttl=3600, job_timeout=120)
    return 1
