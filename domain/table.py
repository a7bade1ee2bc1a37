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

import re
from dataclasses import dataclass
from typing import Any, Mapping

from . import errors
from .event import Event, nobody
from .frozen import replace
from .game import Game, Setup, rank_places
from .shuffle import deal_key, keyed_shuffle, seed_commitment

TABLE_EVENTS = {"GameCreated", "SeatTaken", "GameStarted", "GameCutShort", "SeedRevealed"}
FINAL_EVENT = "SeedRevealed"  # every game's last event: after it the game is finished and all is public
SYSTEM_COMMANDS = {"take_seat", "reveal_seed", "deal", "end_game"}
ENTROPY_PATTERN = re.compile(r"^[A-Za-z0-9_\-]{0,64}$")
BOT_KINDS = ("random", "heuristic", "search")
# A search bot's thinking time per decision (its seat's ``budget_ms``): the default, and the range allowed.
DEFAULT_BUDGET_MS = 150
BUDGET_MS_RANGE = (10, 2000)
# Ceilings a game may be given (GameCreated.limits). The default max_events is
# EVENTS_PER_DEAL per deal of the deal ceiling (the games take 55-95 a deal),
# at most MAX_EVENTS: about 20 MB of Redis for the largest game.
MAX_DEALS = 5_000
MAX_EVENTS = 100_000
EVENTS_PER_DEAL = 150
LIMIT_NAMES = ("max_deals", "max_events")


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
    budget_ms: int | None = None  # a search bot's thinking time per decision

    def to_json(self, number: int) -> dict:
        out = {"seat": number, "kind": self.kind, "taken": self.taken}
        if self.bot:
            out["bot"] = self.bot
        if self.budget_ms is not None:
            out["budget_ms"] = self.budget_ms
        return out


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
    def create(self, game_name: str, players: Any, rules: Any, seats: Any,
               preset_deals: Any, seed_sha256: str, limits: Any = None) -> list[Event]:
        """Validate a new game and return its first events (raises InvalidSetup)."""
        game = self.games.get(game_name)
        if game is None:
            raise errors.InvalidSetup({"game": [f"unknown game {game_name!r}; one of {sorted(self.games)}"]})
        if players not in game.player_counts:
            raise errors.InvalidSetup({"players": [f"{game.title} is played by {' or '.join(map(str, game.player_counts))} players"]})
        seat_list = self._validate_seats(players, seats)
        setup = game.setup(players, rules or {}, preset_deals)
        ceilings = validate_limits(limits, default_limits(game, setup))
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
        # The preset deals hold every hand: only their existence is public.
        created = Event("GameCreated", data, nobody("game", "players", "rules", "seats", "seed_sha256", "preset",
                                                    "limits"))
        events = [created]
        state = self.evolve(TableState(), created)
        for number, seat in enumerate(seat_list):
            if seat.kind == "bot":
                taken = self.decide(state, None, {"type": "take_seat", "seat": number})
                events += taken
                state = self.fold(state, taken)
        return events

    def _validate_seats(self, players: int, seats: Any) -> list[Seat]:
        if seats is None:
            return [Seat("human") for _ in range(players)]
        if len(seats) != players:
            raise errors.InvalidSetup({"seats": [f"expected {players} seats, got {len(seats)}"]})
        out = []
        problems: dict[str, list[str]] = {}
        for i, raw in enumerate(seats):
            kind = raw.get("kind")
            if kind == "human":
                if raw.get("bot") is not None or raw.get("budget_ms") is not None:
                    problems[f"seats[{i}].bot"] = ["only bot seats name a bot or a budget"]
                out.append(Seat("human"))
            elif kind == "bot":
                bot = raw.get("bot", "random")
                if bot not in BOT_KINDS:
                    problems[f"seats[{i}].bot"] = [f"unknown bot {bot!r}; one of {list(BOT_KINDS)}"]
                budget = raw.get("budget_ms")
                low, high = BUDGET_MS_RANGE
                if budget is not None and bot != "search":
                    problems[f"seats[{i}].budget_ms"] = ["only a search bot takes a budget"]
                elif budget is not None and (not isinstance(budget, int) or isinstance(budget, bool)
                                             or not low <= budget <= high):
                    problems[f"seats[{i}].budget_ms"] = [f"must be a whole number of milliseconds {low}..{high}"]
                if bot == "search" and budget is None:
                    budget = DEFAULT_BUDGET_MS
                out.append(Seat("bot", bot=bot, budget_ms=budget))
            else:
                problems[f"seats[{i}].kind"] = ["must be 'human' or 'bot'"]
        if problems:
            raise errors.InvalidSetup(problems)
        return out

    # -- the decider ------------------------------------------------------
    def decide(self, state: TableState, actor: int | None, command: Mapping[str, Any]) -> list[Event]:
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
        if state.status == "finished" or state.cut_short:
            raise errors.GameFinished("the game has finished")
        if state.status != "active":
            raise errors.GameNotStarted("the game starts when every seat is taken")
        return state.game.decide(state.inner, actor, command)

    def _take_seat(self, state: TableState, command: Mapping[str, Any]) -> list[Event]:
        seat = command.get("seat")
        if not isinstance(seat, int) or not 0 <= seat < state.players:
            raise errors.InvalidCommand(f"no seat {seat!r}; seats are 0..{state.players - 1}")
        if state.seats[seat].taken:
            raise errors.SeatTaken(f"seat {seat} is already taken")
        entropy = command.get("entropy") or ""
        if not isinstance(entropy, str) or not ENTROPY_PATTERN.match(entropy):
            raise errors.InvalidCommand("entropy must be at most 64 characters of A-Z a-z 0-9 _ -")
        events = [Event("SeatTaken", {"seat": seat, "kind": state.seats[seat].kind, "entropy": entropy})]
        if all(s.taken for i, s in enumerate(state.seats) if i != seat):
            events.append(Event("GameStarted", {}))
        return events

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
        seed = command.get("seed", "")
        if seed_commitment(bytes.fromhex(seed)) != state.seed_sha256:
            raise errors.InvalidCommand("seed does not match the published commitment")
        return [Event("SeedRevealed", {"seed": seed})]

    def evolve(self, state: TableState, event: Event) -> TableState:
        kind = event.type
        if kind == "GameCreated":
            data = event.data
            game = self.games[data["game"]]
            setup = Setup(data["players"], data["rules"], tuple(data.get("preset_deals") or ()))
            seats = tuple(Seat(s["kind"], s.get("bot"), budget_ms=s.get("budget_ms")) for s in data["seats"])
            # Games created before ceilings existed take today's defaults.
            limits = Limits(**data["limits"]) if "limits" in data else default_limits(game, setup)
            return TableState(game=game, setup=setup, seats=seats, status="waiting",
                              seed_sha256=data["seed_sha256"], limits=limits, events=1)
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
        return replace(state, inner=state.game.evolve(state.inner, event), events=count)

    def fold(self, state: TableState, events) -> TableState:
        """``evolve`` over ``events``. A run of the game's own events is folded into the game's
        state alone and the table's state is copied once after it, not once per event."""
        inner, count, game = state.inner, state.events, state.game
        pending = False
        for event in events:
            if event.type in TABLE_EVENTS:
                if pending:
                    state, pending = replace(state, inner=inner, events=count), False
                state = self.evolve(state, event)
                inner, count, game = state.inner, state.events, state.game
            else:
                inner, count, pending = game.evolve(inner, event), count + 1, True
        return replace(state, inner=inner, events=count) if pending else state

    # -- what the system does next ----------------------------------------
    def needs_system(self, state: TableState) -> bool:
        """Whether a deal or the seed reveal is due (the handler then fetches the seed)."""
        if state.status != "active":
            return False
        # A deal ceiling is only ever reached with a deal pending, so it needs no check of its own.
        return (state.game.is_finished(state.inner) or state.cut_short is not None
                or state.game.pending_deal(state.inner) is not None or state.events >= state.limits.max_events)

    def system_command(self, state: TableState, seed_hex: str | None) -> dict | None:
        """The command the system must issue now (a deal, the seed reveal), if any."""
        if state.status != "active":
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
        if state.status != "active" or state.cut_short:
            return frozenset()
        return state.game.to_act(state.inner)

    def legal_commands(self, state: TableState, seat: int) -> list[dict]:
        if state.status != "active" or state.cut_short or seat not in state.game.to_act(state.inner):
            return []
        return state.game.legal_commands(state.inner, seat)

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
