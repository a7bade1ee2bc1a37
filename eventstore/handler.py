"""The command handler: the one path every move takes.

load (snapshot + events since) → decide (pure) → append (atomic, expected seq
+ idempotency key) → on a conflict fold the missed events and decide again.
Humans, bots and the system all come through ``execute``; nothing else writes
a game's stream.
"""
from __future__ import annotations

import hashlib
import json
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable, Iterable

from domain.chain import GENESIS
from domain.errors import RuleViolation
from domain.event import Event
from domain.shuffle import seed_commitment
from domain.table import Table, TableState

from . import snapshot
from .codec import StoredEvent, decode, encode
from .store import Counters, DueChange, EventStore, Span

MAX_RETRIES = 8
CHECKPOINT_EVERY = 64  # past states kept per game for ``load_at``: any past moment folds at most this many events
PAST_GAMES = 64  # games whose past states are kept


class UnknownGame(Exception):
    code = "unknown_game"


class StaleSeq(Exception):
    """The client's ``If-Match`` seq is not the game's current seq."""

    code = "stale_seq"

    def __init__(self, expected: int, current: int):
        super().__init__(f"expected seq {expected}, the game is at {current}")
        self.expected = expected
        self.current = current


class Contention(Exception):
    code = "contention"


class WriteLimited(Exception):
    """The command's write counters (``Counters``), counted with its append, passed a limit: nothing
    was appended."""

    code = "rate_limited"

    def __init__(self, counters: Counters):
        super().__init__("a write rate limit was passed")
        self.counters = counters


class IdempotencyKeyReused(Exception):
    """The seat sent this Idempotency-Key before, with another command."""

    code = "idempotency_key_reused"


def fingerprint(command: dict) -> str:
    """A short digest of a command, stored with its idempotency key to tell a retry from a reuse."""
    canonical = json.dumps(command, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Loaded:
    game_id: str
    state: TableState
    seq: int
    head: str | None = None  # the hash of event ``seq`` (None for events from before the chain)


@dataclass(frozen=True)
class Outcome:
    game_id: str
    events: list[StoredEvent]  # what this command appended (or appended first, if duplicate)
    loaded: Loaded  # the game after the command
    duplicate: bool = False


class SeatReclaimedByOther(RuleViolation):
    """The token is of an earlier holder of a seat that was abandoned, or taken again since."""

    code = "seat_reclaimed"


def check_generation(state: TableState, seat: int | None, generation: int) -> None:
    if seat is None or not 0 <= seat < len(state.seats):
        return
    if state.seats[seat].generation != generation:
        raise SeatReclaimedByOther(f"seat {seat} was taken again with a new token; this token no longer plays it")
    if state.clocks and state.clocks[seat].abandoned:
        raise SeatReclaimedByOther(f"seat {seat} was abandoned after timing out and a bot plays it; take the seat "
                                   "again for a new token (POST /v1/games/{id}/seats/{seat}; at a tournament's "
                                   "table, POST /v1/tournaments/{id}/participants/{n}/seat)")


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


Listener = Callable[[Loaded, list[StoredEvent]], None]
# A listener that keeps the due-time index (workers/sweeper.py, workers/deadline.py) also has
# ``stage(loaded, previous_seq) -> DueChange | None``: what its call would write for the game
# moving from ``previous_seq`` to ``loaded`` (whose ``head`` is not known yet). A command's append
# then makes that change in its own script, one round trip in all, and the listener is not called.


class CommandHandler:
    def __init__(self, store: EventStore, table: Table, listeners: Iterable[Listener] = (),
                 snapshot_every: int = 100, cache_size: int = 1024, clock: Callable[[], str] = utc_now,
                 empty: Callable[[], Any] = TableState):
        self.store = store
        self.table = table
        self.listeners = list(listeners)
        self.snapshot_every = snapshot_every
        self.cache_size = cache_size
        self.clock = clock
        self.empty = empty  # the state before the first event: another decider (tournaments) has its own
        self._cache: OrderedDict[str, Loaded] = OrderedDict()
        self._past: OrderedDict[str, dict[int, Loaded]] = OrderedDict()
        self._seeds: OrderedDict[str, str] = OrderedDict()  # each hash is salted with the game's seed
        self._lock = threading.Lock()

    # -- loading -----------------------------------------------------------
    def load(self, game_id: str, fresh: bool = True) -> Loaded:
        """The game as of its latest event. ``fresh=False`` accepts this process's
        cached fold without asking Redis for newer events (the command path does:
        its append checks the seq anyway, and a stale state only costs a retry)."""
        with self._lock:
            cached = self._cache.get(game_id)
        if cached is not None and not fresh:
            return cached
        if cached is None:
            restored = snapshot.load(self.store.load_snapshot(game_id))
            if restored:
                snap_seq, snap_state, snap_head = restored
                cached = Loaded(game_id, snap_state, snap_seq, snap_head)
            else:
                cached = Loaded(game_id, self.empty(), 0)
        events = self.store.read(game_id, after=cached.seq)
        if not events and cached.seq == 0:
            raise UnknownGame(f"no game {game_id!r}")
        loaded = self._fold(cached, events)
        self._remember(loaded)
        return loaded

    def load_at(self, game_id: str, seq: int) -> Loaded:
        """The game right after event ``seq`` (1 ≤ seq ≤ the game's seq; the caller checks).

        Stepping through a finished game asks for every seq in turn, so the fold
        keeps a checkpoint every ``CHECKPOINT_EVERY`` events: a past moment then
        costs at most that many events read and folded, not a replay from seq 1."""
        with self._lock:
            checkpoints = self._past.get(game_id) or {}
            if checkpoints:
                self._past.move_to_end(game_id)
        start = max((s for s in checkpoints if s <= seq), default=0)
        loaded = checkpoints.get(start) or Loaded(game_id, self.empty(), 0)
        events = self.store.read(game_id, after=start, until=seq)
        if loaded.seq + len(events) != seq:
            raise UnknownGame(f"game {game_id!r} has no event {seq}")
        found = {}
        state, head = loaded.state, loaded.head
        for event in events:
            state, head = self.table.evolve_timed(state, event.to_domain(), None, None), event.hash
            if event.seq % CHECKPOINT_EVERY == 0:
                found[event.seq] = Loaded(game_id, state, event.seq, head)
        if found:
            with self._lock:
                self._past.setdefault(game_id, {}).update(found)
                self._past.move_to_end(game_id)
                while len(self._past) > PAST_GAMES:
                    self._past.popitem(last=False)
        return Loaded(game_id, state, seq, head)

    def _fold(self, loaded: Loaded, events: list[StoredEvent]) -> Loaded:
        if not events:
            return loaded
        state = self.table.fold(loaded.state, (e.to_domain() for e in events))
        return Loaded(loaded.game_id, state, events[-1].seq, events[-1].hash)

    def _remember(self, loaded: Loaded) -> None:
        with self._lock:
            current = self._cache.get(loaded.game_id)
            if current is None or current.seq <= loaded.seq:
                self._cache[loaded.game_id] = loaded
            self._cache.move_to_end(loaded.game_id)
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)

    def cached(self, game_id: str) -> Loaded | None:
        """This process's fold of the game, however old, without asking Redis."""
        with self._lock:
            return self._cache.get(game_id)

    def advance(self, game_id: str, events: list[StoredEvent]) -> None:
        """Fold events read elsewhere (the stream watcher's) into a cached game they continue;
        events that do not continue it are left to the next load."""
        cached = self.cached(game_id)
        if cached is None or not events:
            return
        fresh = [e for e in events if e.seq > cached.seq]
        if fresh and fresh[0].seq == cached.seq + 1:
            self._remember(self._fold(cached, fresh))

    def forget(self, game_id: str) -> None:
        with self._lock:
            self._cache.pop(game_id, None)

    # -- creating ------------------------------------------------------------
    def create(self, game: str, players: int, rules: Any, seats: Any, preset_deals: Any,
               limits: Any = None, clock: Any = None, hints: bool = False, rated: Any = False) -> Outcome:
        """Validate and create a game; raises ``domain.errors.InvalidSetup``."""
        return self.create_with(lambda commitment: self.table.create(game, players, rules, seats, preset_deals,
                                                                     commitment, limits, clock, hints=hints,
                                                                     rated=rated))

    def create_with(self, build: Callable[[str], list[Event]], game_id: str | None = None) -> Outcome:
        """Create from the first events ``build(seed_commitment)`` returns (raising InvalidSetup or the
        like): a game, a tournament, or a tournament table's game.

        ``game_id``: a derived id, so that creating twice is harmless. The secret is claimed only if
        the id has none (an earlier attempt's secret is kept), and an id whose stream exists is
        answered with the existing aggregate (``duplicate``), never appended to. Without one, a
        fresh id is drawn once the events are valid, so a refused creation stores nothing."""
        derived = game_id is not None
        if derived:
            seed_hex = self.store.claim_secret(game_id, secrets.token_bytes(32).hex())
            if self.store.exists(game_id):
                return Outcome(game_id, [], self.load(game_id), duplicate=True)
        else:
            seed_hex = secrets.token_bytes(32).hex()
        events = build(seed_commitment(bytes.fromhex(seed_hex)))
        at = self.clock()
        state = self.table.fold(self.empty(), events, at, "system")
        batch = [(e, "system") for e in events]
        system, state = self._system_events(state, seed_hex, at)
        batch += system
        if not derived:
            game_id = secrets.token_hex(8)
            # The secret is stored before the first event exists, so no reader can
            # ever see a game whose seed is missing.
            self.store.save_secret(game_id, seed_hex)
        before = Loaded(game_id, self.empty(), 0)
        payloads = self._encode(batch, before, seed_hex, at)
        result = self.store.append(game_id, payloads, expected_seq=0)
        if not result.ok:
            if derived and self.store.exists(game_id):  # another attempt created it meanwhile
                return Outcome(game_id, [], self.load(game_id), duplicate=True)
            raise Contention("game id collision, try again")  # a 64-bit id collision: never merge two games
        return self._after_append(game_id, before, result.first_seq, payloads, state)

    def import_game(self, records: list[dict], seed_hex: str, origin: dict) -> Outcome:
        """Store a verified finished game's events, exactly as exported (hashes included),
        under a new id. The caller has verified them: nothing here checks the rules."""
        payloads = [json.dumps({key: record[key] for key in ("type", "v", "data", "at", "actor", "visibility",
                                                             "hash")}, separators=(",", ":"))
                    for record in records]
        game_id = secrets.token_hex(8)
        self.store.save_secret(game_id, seed_hex)
        self.store.save_origin(game_id, origin)
        result = self.store.append(game_id, payloads, expected_seq=0)
        if not result.ok:
            raise Contention("game id collision, try again")
        return self._after_append(game_id, Loaded(game_id, TableState(), 0), result.first_seq, payloads)

    # -- executing -------------------------------------------------------------
    def execute(self, game_id: str, actor: int | None, command: dict, expected_seq: int | None = None,
                idempotency_key: str | None = None, generation: int | None = None,
                counters: Counters | None = None) -> Outcome:
        """Decide and append one command. Raises RuleViolation, StaleSeq, UnknownGame, WriteLimited.

        ``counters``: a write rate limit's, counted in the append's own round trip (see
        ``Counters``); a command refused before its append leaves them uncounted for the caller.

        ``generation``: a human's command, sent with a token of that generation of the seat
        (``Seat.generation``): refused while the seat is abandoned or once it was taken again.
        The check is made on the state the append's expected seq pins, so no command of an
        old token lands after the seat was taken again.

        The decision starts from this process's cached state, so a move costs one
        round trip (the append script) when nobody else moved meanwhile. A stale
        cache never decides wrongly: a conflict, an If-Match mismatch or a
        rejection is only trusted after folding the latest events.
        """
        idem = f"{'system' if actor is None else actor}:{idempotency_key}" if idempotency_key else None
        digest = fingerprint(command) if idem else ""
        if idem:
            prior = self.store.idempotent_result(game_id, idem)
            if prior:
                return self._replay_answer(game_id, prior, digest)
        loaded = self.load(game_id, fresh=False)
        seed_hex = self._seed(game_id)
        fresh = False
        for _ in range(MAX_RETRIES):
            if expected_seq is not None and expected_seq != loaded.seq:
                if not fresh:
                    loaded, fresh = self.load(game_id), True
                    continue
                self._raise_unless_done_before(game_id, idem, digest, StaleSeq(expected_seq, loaded.seq))
            at = self.clock()
            try:
                if generation is not None:
                    check_generation(loaded.state, actor, generation)
                decided = self.table.decide(loaded.state, actor, command, at)
            except RuleViolation as violation:
                if not fresh:
                    loaded, fresh = self.load(game_id), True
                    continue
                return self._raise_unless_done_before(game_id, idem, digest, violation)
            label = "system" if actor is None else actor
            state = self.table.fold(loaded.state, decided, at, label)
            batch = [(e, label) for e in decided]
            system, state = self._system_events(state, seed_hex, at)
            batch += system
            payloads = self._encode(batch, loaded, seed_hex, at)
            due = self._stage(Loaded(game_id, state, loaded.seq + len(payloads)), loaded.seq)
            result = self.store.append(game_id, payloads, expected_seq=loaded.seq, idempotency_key=idem,
                                       fingerprint=digest, counters=counters, due=due or ())
            if result.status == "limited":
                raise WriteLimited(counters)
            if result.status == "duplicate":
                return self._replay_answer(game_id, Span(result.first_seq, result.last_seq, result.fingerprint), digest)
            if result.ok:
                return self._after_append(game_id, loaded, result.first_seq, payloads, state, staged=due is not None)
            loaded, fresh = self.load(game_id), True  # someone else moved first: fold their events, decide again
        raise Contention(f"game {game_id} is too busy; retry")

    def _raise_unless_done_before(self, game_id: str, idem: str | None, digest: str, error: Exception) -> Outcome:
        """A retry racing its own first attempt sees the first attempt's events and
        would be refused: if the key has been recorded meanwhile, answer as the
        first attempt did instead."""
        if idem:
            prior = self.store.idempotent_result(game_id, idem)
            if prior:
                return self._replay_answer(game_id, prior, digest)
        raise error

    def _seed(self, game_id: str) -> str:
        """The game's secret seed (it deals, salts every hash and is revealed at the end), kept
        for the games this process serves so that a move costs no extra round trip."""
        with self._lock:
            seed_hex = self._seeds.get(game_id)
            if seed_hex is not None:
                self._seeds.move_to_end(game_id)
                return seed_hex
        seed_hex = self.store.load_secret(game_id)
        if seed_hex is None:
            raise UnknownGame(f"no game {game_id!r}")
        with self._lock:
            self._seeds[game_id] = seed_hex
            while len(self._seeds) > self.cache_size:
                self._seeds.popitem(last=False)
        return seed_hex

    def _encode(self, batch: list[tuple[Event, int | str]], before: Loaded, seed_hex: str, at: str) -> list[str]:
        """The batch's payloads, each event chained to the one before it (from ``before.head``),
        all stamped ``at`` (the time the decision and the clocks were folded with)."""
        previous = before.head or GENESIS  # a game from before the chain starts one at its next event
        payloads = []
        for offset, (event, actor) in enumerate(batch, start=1):
            payload, previous = encode(event, at, actor, before.seq + offset, previous, seed_hex)
            payloads.append(payload)
        return payloads

    def _system_events(self, state: TableState, seed_hex: str, at: str) -> tuple[list[tuple[Event, str]], TableState]:
        """Deals and the seed reveal that are due after ``state``, and the state after them."""
        out: list[tuple[Event, str]] = []
        while self.table.needs_system(state):
            command = self.table.system_command(state, seed_hex)
            if command is None:
                break
            events = self.table.decide(state, None, command, at)
            state = self.table.fold(state, events, at, "system")
            out += [(e, "system") for e in events]
        return out, state

    def _stage(self, after: Loaded, previous_seq: int) -> list[DueChange] | None:
        """The due-time index changes the staging listeners would write after this append, for the
        append's own script; None where the store cannot take them (a Redis Cluster)."""
        if not self.store.takes_due_changes:
            return None
        staged = (stage(after, previous_seq) for stage in self._stagers)
        return [change for change in staged if change is not None]

    @property
    def _stagers(self) -> list:
        return [listener.stage for listener in self.listeners if hasattr(listener, "stage")]

    def _after_append(self, game_id: str, before: Loaded, first_seq: int, payloads: list[str],
                      after: TableState | None = None, staged: bool = False) -> Outcome:
        # The appended events are exactly our payloads at first_seq..: decode them
        # here instead of reading them back (one round trip less per move). ``after``
        # is the state the decision already folded them into: not folded twice.
        mine = [decode(first_seq + i, payload) for i, payload in enumerate(payloads)]
        loaded = (self._fold(before, mine) if after is None else
                  Loaded(game_id, after, mine[-1].seq, mine[-1].hash))
        self._remember(loaded)
        if loaded.seq // self.snapshot_every > before.seq // self.snapshot_every:
            self.store.save_snapshot(game_id, snapshot.dump(loaded.seq, loaded.state, loaded.head))
        for listener in self.listeners:
            if staged and hasattr(listener, "stage"):
                continue  # its change was made by the append's script
            listener(loaded, mine)
        return Outcome(game_id, mine, loaded)

    def _replay_answer(self, game_id: str, span: Span, digest: str) -> Outcome:
        """The first answer to a retried command: the same events, nothing appended.
        The same key with another command is not a retry (keys stored before
        fingerprints existed carry none and are taken as retries)."""
        if span.fingerprint and span.fingerprint != digest:
            raise IdempotencyKeyReused(f"this Idempotency-Key was used for another command (seqs {span.first}.."
                                       f"{span.last}); use a new key for a new command")
        events = self.store.read(game_id, after=span.first - 1, until=span.last)
        # The game as the first answer left it (its seq, ETag and view), even when other seats
        # have moved since: a retry must not tell a client something its first try did not.
        current = self.load(game_id)
        then = current if current.seq == span.last else self.load_at(game_id, span.last)
        return Outcome(game_id, events, then, duplicate=True)
