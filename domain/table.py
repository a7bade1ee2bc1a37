"""The table: seats, start, fair deals and the seed reveal, around any game.

The table is itself a decider. It owns the events every game shares
(``GameCreated``, ``SeatTaken``, ``GameStarted``, ``GameCutShort``,
``SeedRevealed``) and delegates everything in between to the game's decider.
The command handler talks only to the table, so all games get the lobby,
verifiable deals, the ceilings and the end-of-game reveal the same way.

**Every game ends.** A game's rules may let it run for ever (in Schafkopf,
thrown-in deals that do not count while everyone passes), so each game has
ceilings, recorded in ``GameCreated.limits``: at most ``max_deals`` deals,
thrown-in ones included, and ``max_events`` events. When deal number
``max_deals + 1`` would be dealt, or a command's events reach ``max_events``,
the table ends the game with ``GameCutShort`` naming the ceiling and reveals
the seed; the standings are those of the deals settled so far, ranked by
their totals. A game may end
a few events past ``max_events`` (the last command's events, then these two).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Mapping

from . import errors
from .bots.roster import default_playouts  # imports no game: the default is looked up when a seat needs it
from .clock import Clock, SeatClock, charge, deadline_ms, iso, millis, seat_json, time_out, validate_clock
from .event import Event, nobody, only_seat
from .frozen import replace
from .game import Game, Setup, rank_places
from .shuffle import deal_key, keyed_shuffle, seed_revealed
from .upcast import latest

TABLE_EVENTS = {"GameCreated", "SeatTaken", "GameStarted", "GameCutShort", "SeedRevealed", "TurnTimedOut",
                "SeatReclaimed", "GamePaused", "GameResumed"}
FINAL_EVENT = "SeedRevealed"  # every game's last event: after it the game is finished and all is public
SYSTEM_COMMANDS = {"take_seat", "reveal_seed", "deal", "end_game", "time_out", "start", "pause", "resume"}
ENTROPY_PATTERN = re.compile(r"^[A-Za-z0-9_\-]{0,64}$")
BOT_KINDS = ("random", "heuristic", "search")
# A search bot's budget is a number of playouts a decision (its seat's ``playouts``; omitted: its
# game's default, recorded in GameCreated so that the game's bots replay alike on any machine),
# and the wall clock only a safety net: at most ``budget_ms`` a decision, whatever the playouts.
DEFAULT_BUDGET_MS = 500
BUDGET_MS_RANGE = (10, 2000)
PLAYOUTS_RANGE = (8, 20_000)
# Ceilings a game may be given (GameCreated.limits). The default max_events is
# EVENTS_PER_DEAL per deal of the deal ceiling (the games take 55-95 a deal),
# at most MAX_EVENTS: about 20 MB of Redis for the largest game.
MAX_DEALS = 5_000
MAX_EVENTS = 100_000
EVENTS_PER_DEAL = 150
LIMIT_NAMES = ("max_deals", "max_events")
START_AT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?([Zz]|[+-][0-9]{2}:[0-9]{2})")


@dataclass(frozen=True)
class Limits:
    max_deals: int
    max_events: int

    def to_json(self) -> dict:
        return {"max_deals": self.max_deals, "max_events": self.max_events}


def default_limits(game: Game, setup: Setup) -> Limits:
    max_deals = min(game.deal_ceiling(setup), MAX_DEALS)
    return Limits(max_deals, min(EVENTS_PER_DEAL * max_deals + 100, MAX_EVENTS))


def validate_limits(raw: Any, defaults: Limits) -> Limits:
    """The creator's ceilings, each 1..the hard maximum; an omitted one takes its default."""
    if raw is None:
        return defaults
    if not isinstance(raw, Mapping):
        raise errors.InvalidSetup({"limits": ["must be an object with max_deals and/or max_events"]})
    problems: dict[str, list[str]] = {}
    for key in sorted(set(raw) - set(LIMIT_NAMES)):
        problems.setdefault("limits", []).append(f"unknown limit {key!r}; one of {list(LIMIT_NAMES)}")
    values = defaults.to_json()
    for name, most in (("max_deals", MAX_DEALS), ("max_events", MAX_EVENTS)):
        value = raw.get(name, values[name])
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= most:
            problems[f"limits.{name}"] = [f"must be a whole number 1..{most}"]
        values[name] = value
    if problems:
        raise errors.InvalidSetup(problems)
    return Limits(**values)


@dataclass(frozen=True)
class Seat:
    kind: str  # human | bot
    bot: str | None = None
    taken: bool = False
    entropy: str = ""
    budget_ms: int | None = None  # a search bot's wall-clock cap per decision (the safety net)
    playouts: int | None = None  # a search bot's budget per decision; None (games before it existed): the default
    generation: int = 0  # how often the seat was taken again after it was abandoned (its token's generation)

    def to_json(self, number: int) -> dict:
        out = {"seat": number, "kind": self.kind, "taken": self.taken}
        if self.bot:
            out["bot"] = self.bot
        if self.budget_ms is not None:
            out["budget_ms"] = self.budget_ms
        if self.playouts is not None:
            out["playouts"] = self.playouts
        return out


def _search_option(raw: Mapping, name: str, what: str, bot: str, bounds: tuple[int, int], unit: str,
                   where: str, problems: dict[str, list[str]]) -> int | None:
    """A search seat's whole-number option ``name`` (``what`` it is to a reader), None when omitted;
    a problem when another bot names it or it is out of ``bounds``."""
    value = raw.get(name)
    low, high = bounds
    if value is not None and bot != "search":
        problems[f"{where}.{name}"] = [f"only a search bot takes {what}"]
    elif value is not None and (not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high):
        problems[f"{where}.{name}"] = [f"must be a whole number of {unit} {low}..{high}"]
    return value


@dataclass(frozen=True)
class TableState:
    game: Game | None = None
    setup: Setup | None = None
    seats: tuple[Seat, ...] = ()
    status: str = "new"  # new | waiting | active | finished
    seed_sha256: str = ""
    seed: str | None = None  # hex, once revealed
    inner: Any = None  # the game's own state once started
    limits: Limits | None = None
    events: int = 0  # events folded so far (the seq of the last one)
    cut_short: str | None = None  # the ceiling that ended the game, if one did
    clock: Clock | None = None  # turn deadlines, if the game has them (domain/clock.py)
    clocks: tuple[SeatClock, ...] = ()  # one per seat when the game has a clock
    start_at_ms: int | None = None  # GameCreated.start_at: the game starts then, by the system's ``start``
    paused: bool = False  # GamePaused .. GameResumed: nobody acts, no clock runs
    paused_ms: int | None = None  # when it was paused (a timed fold's): resuming gives the clocks that time back
    hints: bool = False  # GameCreated.hints: every seat may ask for the search's suggestion (api/hints.py)

    @property
    def players(self) -> int:
        return len(self.seats)

    @property
    def entropy(self) -> str:
        return ",".join(seat.entropy for seat in self.seats)


class Table:
    """Pure functions over ``TableState``; ``games`` maps a game name to its decider."""

    def __init__(self, games: Mapping[str, Game]):
        self.games = dict(games)

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
        return validate_limits(limits, default_limits(game, game.setup(players, rules or {}, preset_deals)))

    def create(self, game_name: str, players: Any, rules: Any, seats: Any,
               preset_deals: Any, seed_sha256: str, limits: Any = None, clock: Any = None,
               start_at: Any = None, hints: Any = False) -> list[Event]:
        """Validate a new game and return its first events (raises InvalidSetup).

        ``start_at`` (RFC 3339): the game does not start when its last seat is taken but at that
        time, when the system sends ``start`` (a scheduled command: the caller checks it is ahead).
        ``hints``: every seat may ask for the search's suggestion, by the table's agreement."""
        game = self._game(game_name, players)
        seat_list = self._validate_seats(game.name, players, seats)
        setup = game.setup(players, rules or {}, preset_deals)
        ceilings = validate_limits(limits, default_limits(game, setup))
        deadlines = validate_clock(clock, BOT_KINDS)
        starts = validate_start_at(start_at)
        if not isinstance(hints, bool):
            raise errors.InvalidSetup({"hints": ["must be true or false"]})
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

    def _validate_seats(self, game: str, players: int, seats: Any) -> list[Seat]:
        if seats is None:
            return [Seat("human") for _ in range(players)]
        if len(seats) != players:
            raise errors.InvalidSetup({"seats": [f"expected {players} seats, got {len(seats)}"]})
        out = []
        problems: dict[str, list[str]] = {}
        for i, raw in enumerate(seats):
            kind = raw.get("kind")
            if kind == "human":
                if any(raw.get(key) is not None for key in ("bot", "budget_ms", "playouts")):
                    problems[f"seats[{i}].bot"] = ["only bot seats name a bot or a budget"]
                out.append(Seat("human"))
            elif kind == "bot":
                bot = raw.get("bot", "random")
                if bot not in BOT_KINDS:
                    problems[f"seats[{i}].bot"] = [f"unknown bot {bot!r}; one of {list(BOT_KINDS)}"]
                budget = _search_option(raw, "budget_ms", "a budget", bot, BUDGET_MS_RANGE, "milliseconds",
                                        f"seats[{i}]", problems)
                playouts = _search_option(raw, "playouts", "playouts", bot, PLAYOUTS_RANGE, "playouts",
                                          f"seats[{i}]", problems)
                if bot == "search":
                    budget = DEFAULT_BUDGET_MS if budget is None else budget
                    playouts = default_playouts(game) if playouts is None else playouts
                out.append(Seat("bot", bot=bot, budget_ms=budget, playouts=playouts))
            else:
                problems[f"seats[{i}].kind"] = ["must be 'human' or 'bot'"]
        if problems:
            raise errors.InvalidSetup(problems)
        return out

    # -- the decider ------------------------------------------------------
    def decide(self, state: TableState, actor: int | None, command: Mapping[str, Any],
               at: str | None = None) -> list[Event]:
        """``at``: the time the events will be stamped with; only a time-out needs it."""
        kind = command.get("type")
        if kind in SYSTEM_COMMANDS and actor is not None:
            # Only the system seats players, deals and reveals; a seat never can.
            raise errors.UnknownCommand(f"{kind!r} is not a command a seat can send")
        if kind == "take_seat":
            return self._take_seat(state, command)
        if kind == "reveal_seed":
            return self._reveal_seed(state, command)
        if kind == "end_game":
            return self._end_game(state, command)
        if kind == "time_out":
            return self._time_out(state, command, at)
        if kind == "start":
            return self._start(state, at)
        if kind in ("pause", "resume"):
            return self._pause(state, kind == "pause")
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

    def _take_seat(self, state: TableState, command: Mapping[str, Any]) -> list[Event]:
        seat = command.get("seat")
        if not isinstance(seat, int) or not 0 <= seat < state.players:
            raise errors.InvalidCommand(f"no seat {seat!r}; seats are 0..{state.players - 1}")
        if state.seats[seat].taken:
            if state.clocks and state.clocks[seat].abandoned and state.status == "active":
                # Taken again (the API hands out a new token): the seat's own entropy stays, deals do not change.
                return [Event("SeatReclaimed", {"seat": seat, "generation": state.seats[seat].generation + 1})]
            raise errors.SeatTaken(f"seat {seat} is already taken")
        entropy = command.get("entropy") or ""
        if not isinstance(entropy, str) or not ENTROPY_PATTERN.match(entropy):
            raise errors.InvalidCommand("entropy must be at most 64 characters of A-Z a-z 0-9 _ -")
        events = [Event("SeatTaken", {"seat": seat, "kind": state.seats[seat].kind, "entropy": entropy})]
        # A game with a set start waits for the system's ``start`` at that time, however early it filled.
        if all(s.taken for i, s in enumerate(state.seats) if i != seat) and state.start_at_ms is None:
            events.append(Event("GameStarted", {}))
        return events

    def _start(self, state: TableState, at: str | None) -> list[Event]:
        """The scheduled start of a game created with ``start_at``: decided at the time it is stamped with."""
        if state.start_at_ms is None:
            raise errors.WrongPhase("only a game created with start_at is started by the system")
        if state.status != "waiting":
            raise errors.AlreadyDone("the game has started")
        if not all(seat.taken for seat in state.seats):
            raise errors.WrongPhase("the game starts when every seat is taken")
        if at is None or millis(at) < state.start_at_ms:
            raise errors.WrongPhase(f"the game starts at {iso(state.start_at_ms)}")
        return [Event("GameStarted", {})]

    def _pause(self, state: TableState, pause: bool) -> list[Event]:
        """A pause between moves (a tournament's organiser's): no seat or bot acts, no deal is made and
        no clock runs until ``resume``, which gives every running clock back the time it had left. A
        table still waiting for its seats is paused too: it starts, when they are taken, paused."""
        if state.status == "finished" or state.cut_short:
            raise errors.GameFinished("the game has finished")
        if state.status not in ("waiting", "active"):
            raise errors.WrongPhase("only a game being played or waiting for its seats is paused or resumed")
        if state.paused == pause:
            raise errors.AlreadyDone("the game is paused already" if pause else "the game is not paused")
        # Pausing and resuming are events too: near the ceiling a game is not paused again (its resume
        # always is allowed), so no loop of them grows a game past its max_events, waiting or not.
        if pause and state.limits is not None and state.events + 2 > state.limits.max_events:
            raise errors.WrongPhase(f"the game is at its ceiling of {state.limits.max_events} events: "
                                    "it is not paused again")
        return [Event("GamePaused", {})] if pause else [Event("GameResumed", {})]

    def _time_out(self, state: TableState, command: Mapping[str, Any], at: str | None) -> list[Event]:
        """The system plays for a seat whose time ran out, with the move its clock's bot chose."""
        if state.clock is None:
            raise errors.WrongPhase("this game has no clock")
        seat = command.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.players:
            raise errors.InvalidCommand(f"no seat {seat!r}; seats are 0..{state.players - 1}")
        if at is None:
            raise errors.InvalidCommand("a time-out is decided at the time its events are stamped with")
        due = deadline_ms(state.clock, state.clocks[seat])
        if due is None or state.status != "active" or state.cut_short or state.paused:
            raise errors.WrongPhase(f"seat {seat} is not on the clock")
        if millis(at) < due:
            raise errors.WrongPhase(f"seat {seat} has time until {iso(due)}")
        move = command.get("move")
        legal = self.legal_commands(state, seat)
        if not any(same_command(move, option) for option in legal):
            raise errors.InvalidCommand(f"the move made for seat {seat} must be one of its legal commands")
        after = time_out(state.clock, state.clocks[seat])
        data = {"seat": seat, "seq": state.events, "move": move, "timeouts": after.timeouts,
                "abandoned": after.abandoned}
        # The move may be a hidden one (a card pushed to a partner): only the seat sees it until the end.
        timed_out = Event("TurnTimedOut", data, only_seat(seat, "seat", "seq", "timeouts", "abandoned"))
        return [timed_out] + state.game.decide(state.inner, seat, move)

    def _end_game(self, state: TableState, command: Mapping[str, Any]) -> list[Event]:
        reason = command.get("reason")
        if state.status != "active" or state.cut_short or reason != self._ceiling_reached(state):
            raise errors.WrongPhase("a game is cut short only when it reaches one of its limits")
        limit = getattr(state.limits, reason)
        return [Event("GameCutShort", {"reason": reason, "limit": limit, "events": state.events})]

    def _ceiling_reached(self, state: TableState) -> str | None:
        """The ceiling that ends the game now, if any (checked between commands)."""
        if state.limits is None or state.game.is_finished(state.inner):
            return None
        if state.events >= state.limits.max_events:
            return "max_events"
        request = state.game.pending_deal(state.inner)
        if request is not None and request.index >= state.limits.max_deals:
            return "max_deals"
        return None

    def _reveal_seed(self, state: TableState, command: Mapping[str, Any]) -> list[Event]:
        if state.status != "active" or not (state.game.is_finished(state.inner) or state.cut_short):
            raise errors.WrongPhase("the seed is revealed when the game has finished")
        return [seed_revealed(command.get("seed", ""), state.seed_sha256)]

    def evolve(self, state: TableState, event: Event) -> TableState:
        kind = event.type
        if kind == "GameCreated":
            data = event.data
            game = self.games[data["game"]]
            setup = Setup(data["players"], data["rules"], tuple(data.get("preset_deals") or ()))
            seats = tuple(Seat(s["kind"], s.get("bot"), budget_ms=s.get("budget_ms"), playouts=s.get("playouts"))
                          for s in data["seats"])
            # Games created before ceilings existed take today's defaults.
            limits = Limits(**data["limits"]) if "limits" in data else default_limits(game, setup)
            clock = Clock(**data["clock"]) if data.get("clock") else None
            clocks = tuple(SeatClock(clock.bank_s * 1000) for _ in seats) if clock else ()
            start_at_ms = millis(data["start_at"]) if data.get("start_at") else None
            return TableState(game=game, setup=setup, seats=seats, status="waiting",
                              seed_sha256=data["seed_sha256"], limits=limits, events=1, clock=clock, clocks=clocks,
                              start_at_ms=start_at_ms, hints=bool(data.get("hints")))
        count = state.events + 1
        if kind == "SeatTaken":
            seats = list(state.seats)
            seats[event.data["seat"]] = replace(seats[event.data["seat"]], taken=True,
                                                entropy=event.data.get("entropy", ""))
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
        pending = False
        events = iter(events)
        for event in events:
            if event.type in TABLE_EVENTS:
                if pending:
                    state, pending = replace(state, inner=inner, events=count), False
                state = self.evolve(state, event)
                if state.clock is not None:  # a game with a clock: every event from here on is timed
                    return self._fold_timed(state, events, at, actor)
                inner, count, game = state.inner, state.events, state.game
            else:
                inner, count, pending = game.evolve(inner, event), count + 1, True
        return replace(state, inner=inner, events=count) if pending else state

    def _fold_timed(self, state: TableState, events, at: str | None, actor: int | str | None) -> TableState:
        for event in events:
            state = self.evolve_timed(state, event, at, actor)
        return state

    # -- what the system does next ----------------------------------------
    def needs_system(self, state: TableState) -> bool:
        """Whether a deal or the seed reveal is due (the handler then fetches the seed)."""
        if state.status != "active" or state.paused:
            return False
        # A deal ceiling is only ever reached with a deal pending, so it needs no check of its own.
        return (state.game.is_finished(state.inner) or state.cut_short is not None
                or state.game.pending_deal(state.inner) is not None or state.events >= state.limits.max_events)

    def system_command(self, state: TableState, seed_hex: str | None) -> dict | None:
        """The command the system must issue now (a deal, the seed reveal), if any."""
        if state.status != "active" or state.paused:
            return None
        if state.game.is_finished(state.inner) or state.cut_short:
            return {"type": "reveal_seed", "seed": seed_hex} if seed_hex else None
        ceiling = self._ceiling_reached(state)
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
            "rules": dict(state.setup.rules),
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
        if state.clock is not None:
            out["clock"] = {**state.clock.to_json(),
                            "seats": [seat_json(state.clock, n, c, stopped=state.paused)
                                      for n, c in enumerate(state.clocks)]}
        if state.inner is not None:
            out["scores"] = state.game.scores(state.inner)
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


def same_command(a: Any, b: Any) -> bool:
    """Commands equal as JSON (a move read back from JSON has lists where the rules made tuples)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
