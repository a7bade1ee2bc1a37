"""The table: seats, start, fair deals and the seed reveal, around any game.

The table is itself a decider. It owns the events every game shares
(``GameCreated``, ``SeatTaken``, ``GameStarted``, ``SeedRevealed``) and
delegates everything in between to the game's decider. The command handler
talks only to the table, so all games get the lobby, verifiable deals and the
end-of-game reveal the same way.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Mapping

from . import errors
from .event import Event, nobody
from .game import Game, Setup
from .shuffle import deal_key, keyed_shuffle, seed_commitment

TABLE_EVENTS = {"GameCreated", "SeatTaken", "GameStarted", "SeedRevealed"}
FINAL_EVENT = "SeedRevealed"  # every game's last event: after it the game is finished and all is public
SYSTEM_COMMANDS = {"take_seat", "reveal_seed", "deal"}
ENTROPY_PATTERN = re.compile(r"^[A-Za-z0-9_\-]{0,64}$")
BOT_KINDS = ("random",)


@dataclass(frozen=True)
class Seat:
    kind: str  # human | bot
    bot: str | None = None
    taken: bool = False
    entropy: str = ""

    def to_json(self, number: int) -> dict:
        out = {"seat": number, "kind": self.kind, "taken": self.taken}
        if self.bot:
            out["bot"] = self.bot
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
               preset_deals: Any, seed_sha256: str) -> list[Event]:
        """Validate a new game and return its first events (raises InvalidSetup)."""
        game = self.games.get(game_name)
        if game is None:
            raise errors.InvalidSetup({"game": [f"unknown game {game_name!r}; one of {sorted(self.games)}"]})
        if players not in game.player_counts:
            raise errors.InvalidSetup({"players": [f"{game.title} is played by {' or '.join(map(str, game.player_counts))} players"]})
        seat_list = self._validate_seats(players, seats)
        setup = game.setup(players, rules or {}, preset_deals)
        data = {
            "game": game.name,
            "players": players,
            "rules": dict(setup.rules),
            "seats": [s.to_json(i) for i, s in enumerate(seat_list)],
            "seed_sha256": seed_sha256,
            "preset": bool(setup.preset_deals),
            "preset_deals": [dict(p) for p in setup.preset_deals],
        }
        # The preset deals hold every hand: only their existence is public.
        created = Event("GameCreated", data, nobody("game", "players", "rules", "seats", "seed_sha256", "preset"))
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
                if raw.get("bot") is not None:
                    problems[f"seats[{i}].bot"] = ["only bot seats name a bot"]
                out.append(Seat("human"))
            elif kind == "bot":
                bot = raw.get("bot", "random")
                if bot not in BOT_KINDS:
                    problems[f"seats[{i}].bot"] = [f"unknown bot {bot!r}; one of {list(BOT_KINDS)}"]
                out.append(Seat("bot", bot=bot))
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
        if state.status == "finished":
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

    def _reveal_seed(self, state: TableState, command: Mapping[str, Any]) -> list[Event]:
        if state.status != "active" or not state.game.is_finished(state.inner):
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
            seats = tuple(Seat(s["kind"], s.get("bot")) for s in data["seats"])
            return TableState(game=game, setup=setup, seats=seats, status="waiting",
                              seed_sha256=data["seed_sha256"])
        if kind == "SeatTaken":
            seats = list(state.seats)
            seats[event.data["seat"]] = replace(seats[event.data["seat"]], taken=True,
                                                entropy=event.data.get("entropy", ""))
            return replace(state, seats=tuple(seats))
        if kind == "GameStarted":
            return replace(state, status="active", inner=state.game.initial_state(state.setup))
        if kind == "SeedRevealed":
            return replace(state, status="finished", seed=event.data["seed"])
        return replace(state, inner=state.game.evolve(state.inner, event))

    def fold(self, state: TableState, events) -> TableState:
        for event in events:
            state = self.evolve(state, event)
        return state

    # -- what the system does next ----------------------------------------
    def needs_system(self, state: TableState) -> bool:
        """Whether a deal or the seed reveal is due (the handler then fetches the seed)."""
        if state.status != "active":
            return False
        return state.game.is_finished(state.inner) or state.game.pending_deal(state.inner) is not None

    def system_command(self, state: TableState, seed_hex: str | None) -> dict | None:
        """The command the system must issue now (a deal, the seed reveal), if any."""
        if state.status != "active":
            return None
        if state.game.is_finished(state.inner):
            return {"type": "reveal_seed", "seed": seed_hex} if seed_hex else None
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
        if state.status != "active":
            return frozenset()
        return state.game.to_act(state.inner)

    def legal_commands(self, state: TableState, seat: int) -> list[dict]:
        if state.status != "active" or seat not in state.game.to_act(state.inner):
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
        }
        if state.inner is not None:
            out["scores"] = state.game.scores(state.inner)
        if state.seed is not None:
            out["seed"] = state.seed
        return out

    def view(self, state: TableState, seat: int | None) -> dict:
        out = self.summary(state)
        out["viewer"] = seat
        # A game's view shows every hand once the game is finished.
        out["game_state"] = state.game.view(state.inner, seat) if state.inner is not None else None
        out["legal"] = self.legal_commands(state, seat) if seat is not None else []
        return out
