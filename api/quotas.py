"""Quotas per client address, and the operator key that is exempt from them.

These quotas bound what one anonymous address can make the server do:

* **game creation**: at most ``creates`` games per ``create_window_s``, counted in
  Redis (a fixed window, shared by every API process);
* **active games**: at most ``active`` games created by the address that have
  not finished (games older than ``ACTIVE_HORIZON_S`` no longer count, so an
  abandoned lobby does not lock its creator out for ever);
* **open streams**: at most ``streams`` SSE streams and waiting long polls at
  once per address and HTTP process (a process's own count: a waiting
  request holds memory in that process, so that is where the bound belongs);
* **open sockets**: at most ``sockets`` WebSockets (``GET /v1/socket``) at once per
  address and HTTP process, counted like the streams; each subscription a socket
  holds is a stream of its address too (``api/sockets.py``);
* **search budget**: at most ``search_ms`` of search bots' wall-clock caps per
  decision (``budget_ms``, the most a decision may think whatever its playouts),
  summed over the seats of the address's unfinished games — the most the
  address can keep the bot workers busy with at once;
* **import storage**: at most ``import_bytes`` bytes of exports imported per
  day (``IMPORT_WINDOW_S``), since an imported game is stored for good.
* **stored events**: at most ``events`` events per day (``EVENTS_WINDOW_S``, a
  fixed window) in the games an address creates, each game counted at its
  ``max_events`` ceiling (``GameCreated.limits``) when it is created, since a
  game is kept for good once played, however soon it finishes: a bulk pairing
  counts its games, a tournament every table game it will open (``game_events``,
  ``tournament_events``). Reserved before the creation and given back when it
  fails (``reserve_events``); one creation over the limit alone is a 403.
* **upload CPU**: at most ``upload_bytes`` bytes of exports uploaded to verify or
  import per ``UPLOAD_WINDOW_S`` (a fixed window), since checking one costs the
  HTTP process CPU time in proportion to its size (about 0.4 s a MB) and one
  upload runs at a time per process: without it, two connections could keep
  every HTTP process verifying. Counted by the declared length before the body
  is read, and given back when the work never runs (``reserve_upload``).
* **uploads at once**: at most ``uploads`` uploads being read, waiting or worked
  on at once per address and HTTP process (a process's own count, like the
  streams: an upload's body is held in that process's memory while it waits for
  the process's one turn at upload work, ``api/uploads.py``).
* **analyses**: at most ``analyses`` analyses of finished games queued or
  running at once per address (``ANALYSIS_HORIZON_S`` at most each), since
  each costs the bot workers seconds of search.
* **hints**: at most ``hints`` hints computed per ``HINT_WINDOW_S`` per address
  (a fixed window; a hint already made is answered without counting), since each
  is a search bot's decision made for a seat (``api/hints.py``).

A creation's weight in the active games and the search budget is its ``Footprint`` (api/footprint.py): a game is one game
and its search seats' caps; a tournament is the tables of one round (they
play at once) and its search participants at the default cap. Each
refusal is a 429 problem with ``Retry-After``; a creation that is too big by
itself (a tournament of more than ``tournament_deals`` table deals, or whose
round alone opens more games than ``active``; a search budget over
``search_ms`` alone; more events than ``events`` alone) is a 403 that no waiting mends. With ``STICH_API_KEYS`` set
(comma-separated keys), creating a game needs ``X-API-Key`` with one of them,
and a request carrying a valid key is exempt from every quota and from the
per-address write limit: that is a tournament backend's credential.
"""
from __future__ import annotations

import hmac
import os
import time
from dataclasses import dataclass, field

import redis

from domain.table import DEFAULT_BUDGET_MS

from .footprint import Footprint
from .holdings import Holdings
from .problems import Problem
from .ratelimit import Reservation, note, window_counts, window_now

ACTIVE_HORIZON_S = 24 * 3600
IMPORT_WINDOW_S = 24 * 3600  # imported games are kept for good, so their bytes are counted per day
EVENTS_WINDOW_S = 24 * 3600  # created games are kept for good too: their events are counted per day
# The largest anonymous Schafkopf tournament (1,024 table deals, at the default ceilings about 3.2
# million events) fits a day; at about 250 bytes an event, at most about 1 GB a day per address.
EVENTS_LIMIT = 4_000_000
ANALYSIS_HORIZON_S = 600  # an analysis still unfinished after this no longer counts (its worker died)
HINT_WINDOW_S = 60  # hints are counted per minute: a person asks a few a minute at most
REGISTER_WINDOW_S = 3600  # players registered are counted per hour: a handle is kept for good
UPLOAD_WINDOW_S = 60  # uploads' bytes are counted per minute: their cost is CPU time now, not storage
API_KEY_HEADER = "X-API-Key"
# 53 search seats at the default cap, as many as the 8,000 ms this limit was when the default
# budget was 150 ms of thinking: the cap grew to 500 ms when playouts became the budget.
SEARCH_BUDGET_LIMIT = 53 * DEFAULT_BUDGET_MS


@dataclass(frozen=True)
class Quotas:
    creates: int | None = None  # games per window per address; None = unlimited
    create_window_s: int = 60
    active: int | None = None  # unfinished games per address
    streams: int | None = None  # open streams and long polls per address and process
    sockets: int | None = None  # open WebSockets per address and process
    api_keys: frozenset[str] = field(default_factory=frozenset)
    search_ms: int | None = None  # search caps (budget_ms) per decision, summed over an address's unfinished games
    tournament_deals: int | None = None  # table deals (tables x rounds x deals per table) of one tournament
    import_bytes: int | None = None  # bytes of exports one address may import per IMPORT_WINDOW_S
    analyses: int | None = None  # analyses of finished games queued or running at once per address
    hints: int | None = None  # hints computed per HINT_WINDOW_S per address
    events: int | None = None  # events (max_events ceilings) of the games one address may create per EVENTS_WINDOW_S
    upload_bytes: int | None = None  # bytes of exports one address may upload (verify or import) per UPLOAD_WINDOW_S
    uploads: int | None = None  # uploads read, waiting or worked on at once per address and process
    registrations: int | None = None  # players one address may register per REGISTER_WINDOW_S

    @classmethod
    def from_env(cls) -> "Quotas":
        def read(name: str, default: int) -> int | None:
            return int(os.environ.get(name, default)) or None

        keys = frozenset(k.strip() for k in os.environ.get("STICH_API_KEYS", "").split(",") if k.strip())
        return cls(creates=read("STICH_CREATE_LIMIT", 30), create_window_s=int(os.environ.get("STICH_CREATE_WINDOW", 60)),
                   active=read("STICH_ACTIVE_GAMES_LIMIT", 100), streams=read("STICH_STREAMS_LIMIT", 500),
                   sockets=read("STICH_SOCKETS_LIMIT", 20),
                   api_keys=keys, search_ms=read("STICH_SEARCH_BUDGET_LIMIT", SEARCH_BUDGET_LIMIT),
                   tournament_deals=read("STICH_TOURNAMENT_DEALS_LIMIT", 1024),
                   import_bytes=read("STICH_IMPORT_BYTES_LIMIT", 64 * 1024 * 1024),
                   analyses=read("STICH_ANALYSIS_LIMIT", 2), hints=read("STICH_HINT_LIMIT", 30),
                   events=read("STICH_EVENTS_LIMIT", EVENTS_LIMIT),
                   upload_bytes=read("STICH_UPLOAD_BYTES_LIMIT", 32 * 1024 * 1024),
                   uploads=read("STICH_UPLOADS_LIMIT", 2),
                   registrations=read("STICH_REGISTRATION_LIMIT", 20))


class QuotaKeeper(Holdings):
    def __init__(self, client: redis.Redis, quotas: Quotas, prefix: str = "stich"):
        super().__init__(quotas)
        self.redis = client
        self.prefix = prefix

    # -- the operator key ------------------------------------------------------
    def operator(self, presented: str | None) -> bool:
        """Whether ``presented`` is a configured key (compared in constant time, each key)."""
        if not presented or not self.quotas.api_keys:
            return False
        found = False
        for key in self.quotas.api_keys:
            found |= hmac.compare_digest(presented.encode(), key.encode())
        return found

    def require_key_to_create(self, presented: str | None, what: str = "creating a game") -> bool:
        """True when the caller holds an operator key; raises when keys are configured and it does not.
        ``what``: what the route does, for the refusal's detail."""
        if self.operator(presented):
            return True
        if self.quotas.api_keys:
            if not presented:
                raise Problem(401, "missing_api_key", f"{what} on this server needs an operator key in {API_KEY_HEADER}")
            raise Problem(403, "invalid_api_key", f"the {API_KEY_HEADER} is not one of this server's operator keys")
        return False

    # -- creation ------------------------------------------------------------
    def check_create(self, address: str, status_of, footprint: Footprint = Footprint(),
                     creations: int = 1) -> "Reservation":
        """Before a creation of ``footprint``: the rate, the active games and the search budget.
        ``status_of(ids)`` gives the statuses of the address's creations. ``creations``: how many the
        rate counts (a bulk pairing's games each count, api/bulk.py). The rate's count is the returned
        reservation: a refusal here gives it back, and so does the caller when the creation then fails,
        so that only what was created costs the window."""
        q = self.quotas
        if q.creates and creations > q.creates:  # no window ever holds it: a 403, and nothing counted
            raise Problem(403, "create_limit", f"this creates {creations} games at once; one address may create "
                          f"at most {q.creates} in {q.create_window_s}s without an operator key ({API_KEY_HEADER}): "
                          f"split it", limit=q.creates, window_s=q.create_window_s, requested=creations)
        if q.search_ms and footprint.search_ms > q.search_ms:
            raise Problem(403, "search_budget_limit", f"its search bots think {footprint.search_ms} ms per decision "
                          f"together, over the {q.search_ms} ms one address may keep thinking at once; an "
                          f"operator key ({API_KEY_HEADER}) lifts the limit", limit=q.search_ms,
                          requested=footprint.search_ms)
        reservation = Reservation.none()
        if q.creates:
            index, retry = window_now(q.create_window_s)
            key = f"{self.prefix}:quota:create:{address}:{index}"
            [count] = window_counts(self.redis, [key], q.create_window_s, creations)
            reservation = Reservation(self.redis, key, creations)
            note("games-per-address", q.creates, q.create_window_s, count, retry)
            if count > q.creates:
                reservation.refund()
                raise Problem(429, "create_quota", f"more than {q.creates} games created in {q.create_window_s}s "
                              f"from this address; retry after {retry}s", headers={"Retry-After": str(retry)},
                              limit=q.creates, window_s=q.create_window_s)
        try:
            self._check_holdings(address, status_of, footprint)
        except BaseException:
            reservation.refund()
            raise
        return reservation

    def _check_holdings(self, address: str, status_of, footprint: Footprint) -> None:
        """The active games and the search budget of the address, with ``footprint`` added."""
        q = self.quotas
        now = time.time()
        if not (q.active or q.search_ms):
            return
        held = self._held(address, status_of, now)
        games = sum(f.games for f in held)
        if q.active and games + footprint.games > q.active:
            what = "games" if footprint.games == 1 else f"games, and this opens {footprint.games} at once"
            raise Problem(429, "active_games_quota", f"{games} of the {q.active} games created from this address "
                          f"have not finished ({what}); finish or wait for some first",
                          headers={"Retry-After": "60"}, limit=q.active)
        thinking = sum(f.search_ms for f in held)
        if q.search_ms and footprint.search_ms and thinking + footprint.search_ms > q.search_ms:
            raise Problem(429, "search_budget_quota", f"search bots in this address's unfinished games think "
                          f"{thinking} ms per decision together; {footprint.search_ms} more would pass the "
                          f"{q.search_ms} ms limit; finish or wait for a game first", headers={"Retry-After": "60"},
                          limit=q.search_ms, held=thinking, requested=footprint.search_ms)

    def check_tournament(self, config: dict) -> None:
        """An anonymous tournament's size (its validated config): 403 above ``tournament_deals`` table deals,
        or when one of its rounds alone opens more games than the active quota allows."""
        q = self.quotas
        tables = len(config["participants"]) // config["players"]
        deals = tables * config["rounds"] * config["deals_per_table"]
        if q.tournament_deals and deals > q.tournament_deals:
            raise Problem(403, "tournament_size_limit", f"this tournament plays {deals} table deals ({tables} tables "
                          f"x {config['rounds']} rounds x {config['deals_per_table']} deals); without an operator "
                          f"key ({API_KEY_HEADER}) at most {q.tournament_deals}", limit=q.tournament_deals,
                          requested=deals)
        if q.active and tables > q.active:
            raise Problem(403, "tournament_size_limit", f"each round opens {tables} table games; without an "
                          f"operator key ({API_KEY_HEADER}) one address may have at most {q.active} unfinished",
                          limit=q.active, requested=tables)

    def _held(self, address: str, status_of, now: float, leave_out: str | None = None) -> list[Footprint]:
        """The footprints of the address's unfinished creations (but ``leave_out``); finished and expired
        ones are let go."""
        key, weights = self._active_key(address), self._footprint_key(address)
        expired = {i.decode() if isinstance(i, bytes) else i
                   for i in self.redis.zrangebyscore(key, "-inf", now - ACTIVE_HORIZON_S)}
        ids = [i for i in (i.decode() if isinstance(i, bytes) else i for i in self.redis.zrange(key, 0, -1))
               if i not in expired]
        done = {i for i, status in zip(ids, status_of(ids)) if status in (None, "finished")}
        gone = sorted(expired | done)
        if gone:
            pipe = self.redis.pipeline(transaction=False)
            pipe.zrem(key, *gone)
            pipe.hdel(weights, *gone)
            pipe.execute()
        unfinished = [i for i in ids if i not in done and i != leave_out]
        return [Footprint.decode(raw) for raw in (self.redis.hmget(weights, unfinished) if unfinished else [])]

    def created(self, address: str, game_id: str, footprint: Footprint = Footprint()) -> None:
        if self.quotas.active or self.quotas.search_ms:
            key = self._active_key(address)
            pipe = self.redis.pipeline(transaction=False)
            pipe.zadd(key, {game_id: time.time()})
            pipe.expire(key, ACTIVE_HORIZON_S)
            if footprint != Footprint():  # a plain game needs no entry: a missing one reads as one game
                pipe.hset(self._footprint_key(address), game_id, footprint.encode())
                pipe.expire(self._footprint_key(address), ACTIVE_HORIZON_S)
            # Whose quota the creation counts in, for a later change that adds to it (``grow``).
            pipe.set(self._owner_key(game_id), address, ex=ACTIVE_HORIZON_S)
            pipe.execute()

    def grow(self, creation_id: str, footprint: Footprint, status_of) -> None:
        """A change to an unfinished creation that adds bot work (a tournament's participant withdrawn to
        the search bot) is checked as a creation of its new ``footprint`` would be, against the address
        that created it, with the creation's own old footprint left out of what the address holds: 403
        ``search_budget_limit`` when it alone is over the limit, 429 ``search_budget_quota`` when it does
        not fit beside the address's other games. Then the creation counts at its new footprint. A
        creation made with an operator key, or older than the active horizon, has no owner: exempt."""
        raw = self.redis.get(self._owner_key(creation_id))
        limit = self.quotas.search_ms
        if raw is None or not limit:
            return
        address = raw.decode() if isinstance(raw, bytes) else raw
        if footprint.search_ms > limit:
            raise Problem(403, "search_budget_limit", f"with this change its search bots would think "
                          f"{footprint.search_ms} ms per decision together, over the {limit} ms one address "
                          f"may keep thinking at once; nothing was changed", limit=limit,
                          requested=footprint.search_ms)
        others = self._held(address, status_of, time.time(), leave_out=creation_id)
        thinking = sum(f.search_ms for f in others)
        if thinking + footprint.search_ms > limit:
            raise Problem(429, "search_budget_quota", f"search bots in the creating address's other unfinished "
                          f"games think {thinking} ms per decision together; with this change this one would "
                          f"think {footprint.search_ms}, past the {limit} ms limit; nothing was changed",
                          headers={"Retry-After": "60"}, limit=limit, held=thinking, requested=footprint.search_ms)
        self.redis.hset(self._footprint_key(address), creation_id, footprint.encode())

    def _owner_key(self, creation_id: str) -> str:
        return f"{self.prefix}:quota:owner:{creation_id}"

    def _footprint_key(self, address: str) -> str:
        return f"{self.prefix}:quota:footprint:{address}"

    def _active_key(self, address: str) -> str:
        return f"{self.prefix}:quota:active:{address}"

    # -- imports (storage) -----------------------------------------------------
    def reserve_events(self, address: str | None, events: int) -> "Reservation":
        """Count ``events`` (the ``max_events`` ceilings of the games a creation makes) against the
        address's daily stored-events quota: 429 ``events_quota`` past it, 403 ``events_limit`` when
        ``events`` alone is over it. Counted before the creation, so concurrent creations cannot
        overshoot; ``refund`` gives them back when nothing was created. ``address`` None: exempt."""
        limit = self.quotas.events
        if not limit or address is None:
            return Reservation(None, None, 0)
        if events > limit:
            raise Problem(403, "events_limit", f"this creation may store {events} events (its games' max_events "
                          f"ceilings), over the {limit} one address may create in {EVENTS_WINDOW_S // 3600} h; "
                          f"lower the games' limits.max_events, or create it with an operator key "
                          f"({API_KEY_HEADER})", limit=limit, requested=events)
        reservation, used, retry = self._reserve("events", address, events, EVENTS_WINDOW_S, limit)
        if reservation is None:
            raise Problem(429, "events_quota", f"this creation may store {events} events (its games' max_events "
                          f"ceilings); with the {used} of the games created from this address in this "
                          f"{EVENTS_WINDOW_S // 3600} h window that passes the {limit} allowed; retry after "
                          f"{retry}s, or lower the games' limits.max_events", headers={"Retry-After": str(retry)},
                          limit=limit, window_s=EVENTS_WINDOW_S, used=used, requested=events)
        return reservation

    def _reserve(self, name: str, address: str, amount: int, window_s: int,
                 limit: int) -> tuple["Reservation | None", int, int]:
        """Count ``amount`` in the address's ``name`` counter of the fixed window: the reservation (None,
        and nothing counted, when it would pass ``limit``), what was used before it, and the seconds
        until the window ends."""
        key, used, retry = self._count(name, address, amount, window_s)
        if used > limit:
            self.redis.decrby(key, amount)
            return None, used - amount, retry
        return Reservation(self.redis, key, amount), used - amount, retry

    def _count(self, name: str, address: str, amount: int, window_s: int) -> tuple[str, int, int]:
        """Count ``amount`` more in the address's ``name`` counter of the current fixed window: its key,
        the count now, and the seconds until the window ends (for Retry-After)."""
        index, retry = window_now(window_s)
        key = f"{self.prefix}:quota:{name}:{address}:{index}"
        [used] = window_counts(self.redis, [key], window_s, amount)
        return key, used, retry

    def reserve_import(self, address: str | None, size: int) -> "Reservation":
        """Count ``size`` bytes of an export to store against the address's daily import quota
        (429 ``import_quota`` past it); counted before the work, so concurrent imports cannot
        overshoot, and ``refund`` gives them back when nothing is stored."""
        limit = self.quotas.import_bytes
        if not limit or address is None:
            return Reservation(None, None, 0)
        reservation, used, retry = self._reserve("import", address, size, IMPORT_WINDOW_S, limit)
        if reservation is None:
            raise Problem(429, "import_quota", f"importing these {size} bytes would pass the {limit} bytes of "
                          f"exports this address may import in {IMPORT_WINDOW_S // 3600} h "
                          f"({used} used); retry after {retry}s", headers={"Retry-After": str(retry)},
                          limit=limit, window_s=IMPORT_WINDOW_S)
        return reservation

    # -- analyses --------------------------------------------------------------
    def reserve_analysis(self, address: str | None, analysis: str, unfinished) -> None:
        """Count ``analysis`` (``<game>:<head>``) against the address's analyses in flight; 429
        ``analysis_quota`` when ``analyses`` of them are. ``unfinished(members)`` tells which of the
        address's earlier ones are still queued or running; the rest are let go."""
        limit = self.quotas.analyses
        if not limit or address is None:
            return
        key = f"{self.prefix}:quota:analysis:{address}"
        now = time.time()
        self.redis.zremrangebyscore(key, "-inf", now - ANALYSIS_HORIZON_S)
        members = [m.decode() if isinstance(m, bytes) else m for m in self.redis.zrange(key, 0, -1)]
        held = [m for m, running in zip(members, unfinished(members)) if running and m != analysis]
        gone = sorted(set(members) - set(held) - {analysis})
        if gone:
            self.redis.zrem(key, *gone)
        if len(held) >= limit:
            raise Problem(429, "analysis_quota", f"{len(held)} analyses asked for from this address are still "
                          f"queued or running, of the {limit} one address may have at once; wait for one, or "
                          f"ask with an operator key ({API_KEY_HEADER})", headers={"Retry-After": "30"},
                          limit=limit)
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(key, {analysis: now})
        pipe.expire(key, ANALYSIS_HORIZON_S)
        pipe.execute()

    # -- hints -----------------------------------------------------------------
    def count_hint(self, address: str | None) -> None:
        """Count one hint to compute against the address's window; 429 ``hint_quota`` past ``hints``."""
        limit = self.quotas.hints
        if not limit or address is None:
            return
        _, count, retry = self._count("hint", address, 1, HINT_WINDOW_S)
        note("hints-per-address", limit, HINT_WINDOW_S, count, retry)
        if count > limit:
            raise Problem(429, "hint_quota", f"more than {limit} hints asked for from this address in "
                          f"{HINT_WINDOW_S}s; retry after {retry}s", headers={"Retry-After": str(retry)},
                          limit=limit, window_s=HINT_WINDOW_S)

    def count_registration(self, address: str | None) -> None:
        """Count one player registered from the address; 429 ``registration_quota`` past ``registrations``
        an hour (a handle is kept for good, so an address must not be able to take them all)."""
        limit = self.quotas.registrations
        if not limit or address is None:
            return
        key, count, retry = self._count("register", address, 1, REGISTER_WINDOW_S)
        note("players-per-address", limit, REGISTER_WINDOW_S, count, retry)
        if count > limit:
            self.redis.decrby(key, 1)
            raise Problem(429, "registration_quota", f"more than {limit} players registered from this address in "
                          f"{REGISTER_WINDOW_S // 3600} h; retry after {retry}s", headers={"Retry-After": str(retry)},
                          limit=limit, window_s=REGISTER_WINDOW_S)

    def reserve_upload(self, address: str | None, size: int) -> "Reservation":
        """Count an upload's declared ``size`` bytes (an export to verify or import) against the
        address's window before its body is read; 429 ``upload_quota`` past ``upload_bytes``, counting
        nothing. The caller refunds it when the work never runs (the process was busy, the body
        ended early); once the work has run it stays counted, whatever the export turns out to be."""
        limit = self.quotas.upload_bytes
        if not limit or address is None:
            return Reservation.none()
        reservation, used, retry = self._reserve("upload", address, size, UPLOAD_WINDOW_S, limit)
        if reservation is None:
            raise Problem(429, "upload_quota", f"{size} more bytes would pass the {limit} bytes of exports this "
                          f"address may upload in {UPLOAD_WINDOW_S}s ({used} used; verifying one costs CPU time "
                          f"by its size); retry after {retry}s, or verify offline with `stich verify`",
                          headers={"Retry-After": str(retry)}, limit=limit, window_s=UPLOAD_WINDOW_S)
        return reservation
