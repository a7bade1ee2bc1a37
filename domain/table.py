"""The table: seats, start, fair deals and the seed reveal, around any game.

The table is itself a decider. It owns the events every game shares
(``GameCreated``, ``SeatTaken``, ``GameStarted``, ``GameCutShort``,
``SeedRevealed``) and delegates everything in between to the game's decider.
The command handler talks only to the table, so all games get the lobby,
verifiable deals, the ceilings and the end-of-game reveal the same way.

**Every game ends.** A game's rules may let it run for ever (in Schafkopf,
thrown-in deals that do not count while everyone passes), and a person may
never come or never move, so each game has ceilings, recorded in
``GameCreated.limits`` (``domain/limits.py``): at most ``max_deals`` deals,
thrown-in ones included, ``max_events`` events, and ``max_idle_s`` seconds
without an event. When deal number ``max_deals + 1`` would be dealt, or a
command's events reach ``max_events``, the table ends the game with
``GameCutShort`` naming the ceiling and reveals the seed; the system ends a
game idle for ``max_idle_s`` (waiting for its seats or for a move) the same
way, and a tournament's table when its tournament is aborted (reason
``aborted``). The standings are those of the deals settled so far, ranked by
their totals (a game that never started: every total 0). A game may end a few
events past ``max_events`` (the last command's events, then these two).
"""
from __future__ import annotations

import re
from typing import Any, Mapping

from . import errors
from .clock import Clock, SeatClock, charge, deadline_ms, iso, millis, seat_json, time_out, validate_clock
from .event import Event, nobody
from .frozen import replace
from .game import Game, Setup, rank_places
from .limits import (DEFAULT_IDLE_S, EVENTS_PER_DEAL, MAX_DEALS, MAX_EVENTS, Limits, default_limits,  # noqa: F401
                     recorded_limits, validate_limits)
from .seat import (BOT_KINDS, BUDGET_MS_RANGE, DEFAULT_BUDGET_MS, PLAYOUTS_RANGE, Seat,  # noqa: F401
                   validate_seats)
from .shuffle import deal_key, keyed_shuffle
# ABORTED, IDLE, MAX_DETAIL and same_command stay importable from here, where their callers found them.
from .system_commands import (ABORTED, IDLE, MAX_DETAIL, ceiling_reached, end_game, pause_or_resume,  # noqa: F401
                              reveal_seed, same_command, start, take_seat, time_out_seat)
from .table_state import TableState
from .upcast import latest

TABLE_EVENTS = {"GameCreated", "SeatTaken", "GameStarted", "GameCutShort", "SeedRevealed", "TurnTimedOut",
                "SeatReclaimed", "GamePaused", "GameResumed"}
FINAL_EVENT = "SeedRevealed"  # every game's last event: after it the game is finished and all is public
SYSTEM_COMMANDS = {"take_seat", "reveal_seed", "deal", "end_game", "time_out", "start", "pause", "resume"}
START_AT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?([Zz]|[+-][0-9]{2}:[0-9]{2})")


class Table:
    """Pure functions over ``TableState``; ``games`` maps a game name to its decider."""

    def __init__(self, games: Mapping[str, Game], default_idle_s: int = DEFAULT_IDLE_S):
        """``default_idle_s``: the ``max_idle_s`` a game created without one records (a server's own)."""
        self.games = dict(games)
        self.default_idle_s = default_idle_s

    # -- creation ---------------------------------------------------------
    def _game(self, game_name: Any, players: Any) -> Game:
        game = self.games.get(game_name)
        if game is None:
            raise errors.InvalidSetup({"game": [f"unknown game {game_name!r}; one of {sorted(self.games)}"]})
        if players not in game.player_counts:
            raise errors.InvalidSetup({"players": [f"{game.title} is played by {' or '.join(map(str, game.player_counts))} players"]})
        return game

    def ceilings(self, game_name: Any, players: Any, rules: Any, preset_deals: Any = None,
                 limits: Any = None) -> Limits:
        """The ``GameCreated.limits`` that ``create`` with these would record (raises InvalidSetup),
        without the rest of a creation: what a quota reserves before the game exists."""
        game = self._game(game_name, players)
        setup = game.setup(players, rules or {}, preset_deals)
        return validate_limits(limits, default_limits(game.deal_ceiling(setup), self.default_idle_s))

    def create(self, game_name: str, players: Any, rules: Any, seats: Any,
               preset_deals: Any, seed_sha256: str, limits: Any = None, clock: Any = None,
               start_at: Any = None, hints: Any = False, rated: Any = False) -> list[Event]:
        """Validate a new game and return its first events (raises InvalidSetup).

        ``start_at`` (RFC 3339): the game does not start when its last seat is taken but at that
        time, when the system sends ``start`` (a scheduled command: the caller checks it is ahead).
        ``hints``: every seat may ask for the search's suggestion, by the table's agreement."""
        game = self._game(game_name, players)
        seat_list = validate_seats(game.name, players, seats)
        setup = game.setup(players, rules or {}, preset_deals)
        ceilings = validate_limits(limits, default_limits(game.deal_ceiling(setup), self.default_idle_s))
        deadlines = validate_clock(clock, BOT_KINDS)
        starts = validate_start_at(start_at)
        if not isinstance(hints, bool):
            raise errors.InvalidSetup({"hints": ["must be true or false"]})
        if not isinstance(rated, bool):
            raise errors.InvalidSetup({"rated": ["must be true or false"]})
        data = {
            "game": game.name,
            "players": players,
            "rules": dict(setup.rules),
            "seats": [s.to_json(i) for i, s in enumerate(seat_list)],
            "seed_sha256": seed_sha256,
            "preset": bool(setup.preset_deals),
            "preset_deals": [dict(p) for p in setup.preset_deals],
            "limits": ceilings.to_json(),
        }
        public = ["game", "players", "rules", "seats", "seed_sha256", "preset", "limits"]
        if deadlines is not None:  # only then: a game without a clock keeps the GameCreated it always had
            data["clock"] = deadlines.to_json()
            public.append("clock")
        if starts is not None:  # likewise: only a game with a set start records one
            data["start_at"] = iso(starts)
            public.append("start_at")
        if hints:  # likewise, and public: every seat knows the table agreed to hints
            data["hints"] = True
            public.append("hints")
        if rated:  # likewise: a rated game's result moves its players' ratings, which everyone may know
            data["rated"] = True
            public.append("rated")
        # The preset deals hold every hand: only their existence is public.
        created = Event("GameCreated", data, nobody(*public), latest("GameCreated"))
        events = [created]
        state = self.evolve(TableState(), created)
        for number, seat in enumerate(seat_list):
            if seat.kind == "bot":
                taken = self.decide(state, None, {"type": "take_seat", "seat": number})
                events += taken
                state = self.fold(state, taken)
        return events

    # -- the decider ------------------------------------------------------
    def decide(self, state: TableState, actor: int | None, command: Mapping[str, Any],
               at: str | None = None) -> list[Event]:
        """``at``: the time the events will be stamped with; only a time-out needs it."""
        kind = command.get("type")
        if kind in SYSTEM_COMMANDS and actor is not None:
            # Only the system seats players, deals and reveals; a seat never can.
            raise errors.UnknownCommand(f"{kind!r} is not a command a seat can send")
        if kind == "take_seat":
            return take_seat(state, command)
        if kind == "reveal_seed":
            return reveal_seed(state, command)
        if kind == "end_game":
            return end_game(state, command, at)
        if kind == "time_out":
            return time_out_seat(state, command, at, self.legal_commands)
        if kind == "start":
            return start(state, at)
        if kind in ("pause", "resume"):
            return pause_or_resume(state, kind == "pause")
        if state.status == "finished" or state.cut_short:
            raise errors.GameFinished("the game has finished")
        if state.status != "active":
            if state.start_at_ms is not None:
                raise errors.GameNotStarted(f"the game starts at {iso(state.start_at_ms)}")
            raise errors.GameNotStarted("the game starts when every seat is taken")
        if state.paused:
            raise errors.WrongPhase("the game is paused (its tournament's organiser paused it); nobody moves "
                                    "until it is resumed")
        return state.game.decide(state.inner, actor, command)

    def evolve(self, state: TableState, event: Event) -> TableState:
        kind = event.type
        if kind == "GameCreated":
            data = event.data
            game = self.games[data["game"]]
            setup = Setup(data["players"], data["rules"], tuple(data.get("preset_deals") or ()))
            seats = tuple(Seat.recorded(s) for s in data["seats"])
            # Games created before ceilings existed take today's defaults.
            limits = recorded_limits(data["limits"]) if "limits" in data else default_limits(game.deal_ceiling(setup))
            clock = Clock(**data["clock"]) if data.get("clock") else None
            clocks = tuple(SeatClock(clock.bank_s * 1000) for _ in seats) if clock else ()
            start_at_ms = millis(data["start_at"]) if data.get("start_at") else None
            return TableState(game=game, setup=setup, seats=seats, status="waiting",
                              seed_sha256=data["seed_sha256"], limits=limits, events=1, clock=clock, clocks=clocks,
                              start_at_ms=start_at_ms, hints=bool(data.get("hints")), rated=bool(data.get("rated")),
                              last_at=event.at)
        count = state.events + 1
        if kind == "SeatTaken":
            seats = list(state.seats)
            taken = seats[event.data["seat"]]
            seats[event.data["seat"]] = replace(taken, taken=True, entropy=event.data.get("entropy", ""),
                                                player=event.data.get("player", taken.player))
            return replace(state, seats=tuple(seats), events=count)
        if kind == "GameStarted":
            return replace(state, status="active", inner=state.game.initial_state(state.setup), events=count)
        if kind == "GameCutShort":
            return replace(state, cut_short=event.data["reason"], events=count)
        if kind == "SeedRevealed":
            return replace(state, status="finished", seed=event.data["seed"], events=count)
        if kind == "TurnTimedOut":
            clocks = list(state.clocks)
            clocks[event.data["seat"]] = time_out(state.clock, clocks[event.data["seat"]])
            return replace(state, clocks=tuple(clocks), events=count)
        if kind == "GamePaused":
            return replace(state, paused=True, events=count)
        if kind == "GameResumed":
            return replace(state, paused=False, paused_ms=None, events=count)
        if kind == "SeatReclaimed":
            number = event.data["seat"]
            seats, clocks = list(state.seats), list(state.clocks)
            seats[number] = replace(seats[number], generation=event.data["generation"])
            clocks[number] = SeatClock(clocks[number].bank_ms)
            return replace(state, seats=tuple(seats), clocks=tuple(clocks), events=count)
        return replace(state, inner=state.game.evolve(state.inner, event), events=count)

    def evolve_timed(self, state: TableState, event: Event, at: str | None, actor: int | str | None) -> TableState:
        """``evolve``, and then the seats' clocks at the event's time (its own ``at`` and
        ``actor`` if it was stored, else the given ones: a decision's fresh events)."""
        when = event.at or at
        if event.type == "GameResumed" and state.clock is not None and when is not None:
            state = resumed_clocks(state, millis(when))
        state = self.evolve(state, event)
        if when is not None:
            state = replace(state, last_at=when)
        if state.clock is None or when is None:
            return state  # events folded without their times (a pure test) keep no clocks
        if event.type == "GamePaused":
            return replace(state, paused_ms=millis(when))  # the clocks keep their starts; resuming shifts them
        return self._tick(state, millis(when), event.actor if event.actor is not None else actor)

    def _tick(self, state: TableState, now: int, actor: int | str | None) -> TableState:
        """A seat's own move stops its clock; a seat that is to act (human, not abandoned) has its
        clock running from the first event after which it is; one that is not, has none running."""
        if state.paused:
            return state  # stopped: nobody is to act, yet the running decisions resume where they were
        clocks = list(state.clocks)
        if isinstance(actor, int) and 0 <= actor < len(clocks):
            clocks[actor] = charge(state.clock, clocks[actor], now)
        to_act = self.to_act(state)
        for number, seat in enumerate(state.seats):
            running = number in to_act and seat.kind == "human" and not clocks[number].abandoned
            if running and clocks[number].since_ms is None:
                clocks[number] = replace(clocks[number], since_ms=now)
            elif not running and clocks[number].since_ms is not None:
                clocks[number] = replace(clocks[number], since_ms=None)
        clocks = tuple(clocks)
        return state if clocks == state.clocks else replace(state, clocks=clocks)

    def fold(self, state: TableState, events, at: str | None = None, actor: int | str | None = None) -> TableState:
        """``evolve`` over ``events``. A run of the game's own events is folded into the game's
        state alone and the table's state is copied once after it, not once per event.
        ``at`` and ``actor``: of a decision's fresh events, for the clocks (stored events have their own)."""
        if state.clock is not None:
            return self._fold_timed(state, events, at, actor)
        inner, count, game = state.inner, state.events, state.game
        event = None
        events = iter(events)
        for event in events:
            if event.type in TABLE_EVENTS:
                if count != state.events:
                    state = replace(state, inner=inner, events=count)
                state = self.evolve(state, event)
                if state.clock is not None:  # a game with a clock: every event from here on is timed
                    return self._fold_timed(state, events, at, actor)
                inner, count, game = state.inner, state.events, state.game
            else:
                inner, count = game.evolve(inner, event), count + 1
        if event is None:
            return state
        # The last event's time (a fresh decision's: ``at``), from which ``max_idle_s`` counts.
        return replace(state, inner=inner, events=count, last_at=event.at or at or state.last_at)

    def _fold_timed(self, state: TableState, events, at: str | None, actor: int | str | None) -> TableState:
        for event in events:
            state = self.evolve_timed(state, event, at, actor)
        return state

    # -- what the system does next ----------------------------------------
    def needs_system(self, state: TableState) -> bool:
        """Whether a deal or the seed reveal is due (the handler then fetches the seed)."""
        if state.cut_short and state.status in ("waiting", "active"):  # cut short (paused or not): the reveal is due
            return True
        if state.status != "active" or state.paused:
            return False
        # A deal ceiling is only ever reached with a deal pending, so it needs no check of its own.
        return (state.game.is_finished(state.inner) or state.cut_short is not None
                or state.game.pending_deal(state.inner) is not None or state.events >= state.limits.max_events)

    def system_command(self, state: TableState, seed_hex: str | None) -> dict | None:
        """The command the system must issue now (a deal, the seed reveal), if any."""
        if state.cut_short and state.status in ("waiting", "active"):
            return {"type": "reveal_seed", "seed": seed_hex} if seed_hex else None
        if state.status != "active" or state.paused:
            return None
        if state.game.is_finished(state.inner) or state.cut_short:
            return {"type": "reveal_seed", "seed": seed_hex} if seed_hex else None
        ceiling = ceiling_reached(state)
        if ceiling:
            return {"type": "end_game", "reason": ceiling}
        request = state.game.pending_deal(state.inner)
        if request is None:
            return None
        if request.index < len(state.setup.preset_deals) or seed_hex is None:
            return {"type": "deal", "deal": request.index, "decks": {}}
        seed = bytes.fromhex(seed_hex)
        decks = {name: keyed_shuffle(cards, deal_key(seed, request.index, name, state.entropy))
                 for name, cards in request.decks.items()}
        return {"type": "deal", "deal": request.index, "decks": decks}

    # -- reading ----------------------------------------------------------
    def to_act(self, state: TableState) -> frozenset[int]:
        if state.status != "active" or state.cut_short or state.paused:
            return frozenset()
        return state.game.to_act(state.inner)

    def legal_commands(self, state: TableState, seat: int) -> list[dict]:
        if state.status != "active" or state.cut_short or state.paused or seat not in state.game.to_act(state.inner):
            return []
        return state.game.legal_commands(state.inner, seat)

    def deadlines(self, state: TableState) -> dict[int, int]:
        """Each running clock's deadline (ms since the epoch), by seat."""
        if state.clock is None or state.status != "active" or state.cut_short or state.paused:
            return {}
        out = {}
        for number, seat_clock in enumerate(state.clocks):
            due = deadline_ms(state.clock, seat_clock)
            if due is not None:
                out[number] = due
        return out

    def bot_for(self, state: TableState, seat: int) -> str | None:
        """The bot kind that plays ``seat`` now: a bot seat's, or the clock's for an abandoned seat."""
        if state.seats[seat].kind == "bot":
            return state.seats[seat].bot or "random"
        if state.clocks and state.clocks[seat].abandoned:
            return state.clock.bot
        return None

    def is_finished(self, state: TableState) -> bool:
        return state.status == "finished"

    def summary(self, state: TableState) -> dict:
        out = {
            "game": state.game.name,
            "players": state.players,
            "status": state.status,
            "seats": [s.to_json(i) for i, s in enumerate(state.seats)],
            # By name: a fold of the stored events (canonical JSON: sorted keys) and one of a decision's
            # fresh events must answer alike, whichever process answers.
            "rules": dict(sorted(state.setup.rules.items())),
            "seed_sha256": state.seed_sha256,
            "to_act": sorted(self.to_act(state)),
            "limits": state.limits.to_json(),
            "cut_short": state.cut_short,
        }
        if state.start_at_ms is not None:
            out["start_at"] = iso(state.start_at_ms)
        if state.paused:
            out["paused"] = True
        if state.hints:
            out["hints"] = True
        if state.rated:
            out["rated"] = True
        if state.clock is not None:
            out["clock"] = {**state.clock.to_json(),
                            "seats": [seat_json(state.clock, n, c, stopped=state.paused)
                                      for n, c in enumerate(state.clocks)]}
        if state.inner is not None or state.cut_short:
            # A game ended before it started (idle, or its tournament aborted) settles as dealt: every total 0.
            inner = state.inner if state.inner is not None else state.game.initial_state(state.setup)
            out["scores"] = state.game.scores(inner)
            if state.cut_short and "ranking" not in out["scores"]:
                # Every game ranks by its totals, higher first; a cut game by the totals it reached.
                out["scores"]["ranking"] = rank_places(out["scores"]["totals"])
        if state.seed is not None:
            out["seed"] = state.seed
        return out

    def view(self, state: TableState, seat: int | None, reveal: bool = False) -> dict:
        """``reveal``: every hand, for a past moment of a game that has finished since."""
        out = self.summary(state)
        out["viewer"] = seat
        # A game's view shows every hand once the game is finished.
        out["game_state"] = state.game.view(state.inner, seat, reveal) if state.inner is not None else None
        out["legal"] = self.legal_commands(state, seat) if seat is not None else []
        return out


def validate_start_at(raw: Any) -> int | None:
    """A creator's ``start_at`` (RFC 3339 with a zone, e.g. ``2026-12-01T18:00:00Z``) in ms; None: none."""
    if raw is None:
        return None
    if not isinstance(raw, str) or not START_AT.fullmatch(raw):
        raise errors.InvalidSetup({"start_at": ["must be an RFC 3339 time with its zone, e.g. 2026-12-01T18:00:00Z"]})
    try:
        return millis(raw.replace("z", "Z").replace("t", "T"))
    except ValueError:
        raise errors.InvalidSetup({"start_at": ["is not a valid date and time"]}) from None


def resumed_clocks(state: TableState, now_ms: int) -> TableState:
    """The clocks as they ran when the game was paused, moved on by the pause's length: each running
    decision has the time it had left at the pause."""
    if state.paused_ms is None:
        return state
    gap = max(0, now_ms - state.paused_ms)
    clocks = tuple(c if c.since_ms is None else replace(c, since_ms=c.since_ms + gap) for c in state.clocks)
    return replace(state, clocks=clocks)
