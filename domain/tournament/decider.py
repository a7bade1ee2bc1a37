"""The tournament decider: the same surface as the table's, so the command handler runs it.

Every command is the system's (``actor`` None): the API checks who may join
or start, and the driver (``workers/tournament.py``) reports tables opened and
finished. Commands:

* ``join`` {participant}: a human participant took its slot → ``ParticipantJoined``.
* ``start``: every human slot is taken → ``TournamentStarted``, and round 1 is drawn.
* ``draw_round`` {round, tables, deals} (issued by the system from the seed) → ``RoundDrawn``.
* ``open_table`` {round, table, game_id} → ``TableOpened`` (once per table; the driver names
  the game ``table_game_id`` gives, so a retry finds the game it created).
* ``finish_table`` {round, table, totals, places} (by seat, from the game's scores) →
  ``TableFinished``, and ``RoundFinished`` after the round's last table.
* ``finish`` (the system, after the last round) → ``TournamentFinished`` with the standings.
* ``reveal_seed`` {seed} → ``SeedRevealed``: the tournament's last event.

The organizer's controls (the API checks the organizer's token):

* ``pause`` {reason} → ``TournamentPaused``: while paused no table opens and no round is drawn
  (nor the tournament finished); tables already open play on.
* ``resume`` → ``TournamentResumed``: what was held back goes ahead.
* ``withdraw`` {participant, bot} → ``ParticipantWithdrawn`` {participant, bot, from_round}: the
  participant's seat is played by ``bot`` at every table opened from round ``from_round`` (the
  next round to be drawn) on; its tables opened before play on as they were. A human who has not
  joined yet no longer holds up the start.
* ``abort`` {reason} → ``TournamentAborted`` {reason, standings over the finished rounds}, and the
  seed is revealed: the tournament has finished. Tables still playing are no longer recorded.

After every command the handler asks ``system_command`` for what is due next
(the next round's draw, the finish, the reveal), exactly as it deals a table.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

from .. import errors
from ..event import PUBLIC, Event, nobody
from ..frozen import replace
from ..game import Game
from ..shuffle import seed_revealed
from ..seat import PlayerSeat, player_of
from ..table import BOT_KINDS
from . import config as tournament_config
from .duplicate import base_deals, rotated
from .seating import draw, meetings
from .standings import standings
from .state import Result, RoundState, TableSlot, TournamentState

FINAL_EVENT = "SeedRevealed"
MAX_REASON = 200  # characters of a pause's or an abort's reason
# Pauses a tournament may have: each is events in it and in every open table, so a loop of pause and
# resume would grow them without end; an organiser pauses a few times a day.
MAX_PAUSES = 100


def table_game_id(tournament_id: str, round_: int, table: int) -> str:
    """The id of a tournament table's game: derived, so a table can only ever be created once."""
    digest = hashlib.sha256(f"stich-tournament-table-v1|{tournament_id}|{round_}|{table}".encode())
    return digest.hexdigest()[:16]


class Tournaments:
    """Pure functions over ``TournamentState``; ``games`` maps a game name to its decider."""

    def __init__(self, games: Mapping[str, Game]):
        self.games = dict(games)

    @staticmethod
    def empty() -> TournamentState:
        return TournamentState()

    # -- creation ---------------------------------------------------------
    def create(self, raw: Mapping[str, Any], seed_sha256: str) -> list[Event]:
        """Validate a new tournament and return its first event (raises InvalidSetup)."""
        config = tournament_config.validate(self.games, raw)
        if config["duplicate"]:
            self._check_duplicate(config)
        return [Event("TournamentCreated", {**config, "seed_sha256": seed_sha256})]

    def _check_duplicate(self, config: dict) -> None:
        """The rules must let a table play rotated preset deals (e.g. no fixed first starter)."""
        game, players = self.games[config["game"]], config["players"]
        sample = base_deals(bytes(32), 1, game.name, players, config["rules"], config["deals_per_table"])
        try:
            game.setup(players, config["rules"], rotated(sample, 1, players))
        except errors.InvalidSetup as invalid:
            raise errors.InvalidSetup({"duplicate": [f"these rules cannot play rotated deals: {invalid}"]})

    # -- the decider ------------------------------------------------------
    def decide(self, state: TournamentState, actor: int | None, command: Mapping[str, Any],
               at: str | None = None) -> list[Event]:
        """``at`` (the command's time, which tables fold for their clocks) plays no part here."""
        if actor is not None:
            raise errors.UnknownCommand("a tournament takes commands from the server only")
        kind = command.get("type")
        handler = {"join": self._join, "start": self._start, "draw_round": self._draw_round,
                   "open_table": self._open_table, "finish_table": self._finish_table, "finish": self._finish,
                   "reveal_seed": self._reveal_seed, "pause": self._pause, "resume": self._resume,
                   "withdraw": self._withdraw, "abort": self._abort}.get(kind)
        if handler is None:
            raise errors.UnknownCommand(f"no tournament command {kind!r}")
        if state.status == "finished" or (state.standings is not None and kind != "reveal_seed"):
            raise errors.GameFinished("the tournament has finished")
        return handler(state, command)

    def _join(self, state: TournamentState, command: Mapping[str, Any]) -> list[Event]:
        p = command.get("participant")
        if not isinstance(p, int) or isinstance(p, bool) or not 0 <= p < len(state.participants):
            raise errors.InvalidCommand(f"no participant {p!r}")
        if state.participants[p]["kind"] != "human":
            raise errors.SeatTaken(f"participant {p} is a bot")
        if p in state.joined:
            raise errors.SeatTaken(f"participant {p} has joined already")
        if state.has_withdrawn(p):  # its slot is its bot's now: nobody joins in its place
            raise errors.SeatTaken(f"participant {p} has withdrawn: its bot plays for it")
        if state.status != "waiting":
            raise errors.WrongPhase("the tournament has started")
        player = player_of(command)
        kept = state.participants[p].get("player")
        if kept is not None and player != kept:
            raise PlayerSeat(f"participant {p} is player {kept}'s slot: only that player joins as it")
        if player is not None and any(state.player_of(q) == player for q in state.joined):
            raise PlayerSeat(f"player {player} has joined this tournament already")
        if state.config.get("rated") and player is None:
            raise PlayerSeat("a rated tournament's participants are players: join as a player")
        return [Event("ParticipantJoined", {"participant": p, **({"player": player} if player else {})})]

    def _start(self, state: TournamentState, command: Mapping[str, Any]) -> list[Event]:
        if state.status != "waiting":
            raise errors.WrongPhase("the tournament has started already")
        missing = [p for p, entry in enumerate(state.participants)
                   if entry["kind"] == "human" and p not in state.joined and not state.has_withdrawn(p)]
        if missing:
            raise errors.WrongPhase(f"participants {missing} have not joined yet", missing=missing)
        return [Event("TournamentStarted", {})]

    def _draw_round(self, state: TournamentState, command: Mapping[str, Any]) -> list[Event]:
        number = len(state.rounds) + 1
        if not self._draw_due(state) or command.get("round") != number:
            raise errors.WrongPhase("a round is drawn when the one before it has finished")
        tables = command.get("tables")
        count = len(state.participants)
        seated = sorted(p for table in tables or () for p in table) if isinstance(tables, list) else None
        if seated != list(range(count)) or any(len(t) != state.table_size for t in tables):
            raise errors.InvalidCommand("tables must seat every participant once, a full table each")
        data = {"round": number, "tables": [{"table": t, "participants": list(ps)} for t, ps in enumerate(tables)]}
        if state.config["duplicate"]:
            data["deals"] = list(command.get("deals") or ())
            return [Event("RoundDrawn", data, nobody("round", "tables"))]  # the deals stay secret until the end
        return [Event("RoundDrawn", data)]

    def _slot(self, state: TournamentState, command: Mapping[str, Any]) -> TableSlot:
        current = state.current
        if state.status != "active" or current is None or current.finished:
            raise errors.WrongPhase("no round is being played")
        if command.get("round") != current.number:
            raise errors.WrongPhase(f"round {current.number} is being played")
        table = command.get("table")
        if not isinstance(table, int) or isinstance(table, bool) or not 0 <= table < len(current.tables):
            raise errors.InvalidCommand(f"no table {table!r} in round {current.number}")
        return current.tables[table]

    def _open_table(self, state: TournamentState, command: Mapping[str, Any]) -> list[Event]:
        slot = self._slot(state, command)
        if state.paused:
            raise errors.WrongPhase("the tournament is paused: no table opens until it is resumed")
        if slot.game_id is not None:
            raise errors.SeatTaken(f"table {slot.table} is open already")
        if not isinstance(command.get("game_id"), str):
            raise errors.InvalidCommand("game_id names the table's game")
        return [Event("TableOpened", {"round": command["round"], "table": slot.table,
                                      "game_id": command["game_id"]})]

    def _finish_table(self, state: TournamentState, command: Mapping[str, Any]) -> list[Event]:
        slot = self._slot(state, command)
        if slot.game_id is None:
            raise errors.WrongPhase(f"table {slot.table} has not opened")
        if slot.finished:
            raise errors.AlreadyDone(f"table {slot.table} has finished already")
        totals, places = command.get("totals"), command.get("places")
        size = state.table_size
        if not (isinstance(totals, list) and isinstance(places, list) and len(totals) == len(places) == size):
            raise errors.InvalidCommand(f"totals and places are lists of {size}, by seat")
        results = [Result(p, seat, totals[seat], places[seat]).to_json() for seat, p in enumerate(slot.participants)]
        data = {"round": command["round"], "table": slot.table, "game_id": slot.game_id, "results": results}
        if command.get("cut_short"):
            data["cut_short"] = command["cut_short"]
        # In a secret duplicate round the results wait for the round's end: a table that is still
        # playing the deals must not learn how they went elsewhere. The API shows a TableFinished
        # in full once its round has finished (``shown``).
        secret = nobody("round", "table", "game_id") if state.keeps_deals_secret else PUBLIC
        events = [Event("TableFinished", data, secret)]
        after = self.evolve(state, events[0])
        if after.current.all_tables_finished:
            done = replace(after.current, finished=True)
            table = standings(state.config, after.rounds[:-1] + (done,))
            events.append(Event("RoundFinished", {"round": command["round"], "standings": table}))
        return events

    def _finish(self, state: TournamentState, command: Mapping[str, Any]) -> list[Event]:
        if not self._finish_due(state):
            raise errors.WrongPhase("a tournament finishes after its last round")
        return [Event("TournamentFinished", {"standings": standings(state.config, state.rounds)})]

    def _reveal_seed(self, state: TournamentState, command: Mapping[str, Any]) -> list[Event]:
        if state.standings is None or state.seed is not None:
            raise errors.WrongPhase("the seed is revealed when the tournament has finished")
        return [seed_revealed(command.get("seed", ""), state.seed_sha256)]

    # -- the organizer's controls ------------------------------------------
    @staticmethod
    def _reason(command: Mapping[str, Any], required: bool) -> str:
        reason = command.get("reason", "")
        if not isinstance(reason, str) or len(reason) > MAX_REASON or (required and not reason.strip()):
            raise errors.InvalidCommand(f"reason must be a{' non-empty' if required else ''} text of at most "
                                        f"{MAX_REASON} characters")
        return reason

    def _pause(self, state: TournamentState, command: Mapping[str, Any]) -> list[Event]:
        reason = self._reason(command, required=False)
        if state.status != "active":
            raise errors.WrongPhase("only a running tournament is paused")
        if state.paused:
            raise errors.AlreadyDone("the tournament is paused already")
        if state.pauses >= MAX_PAUSES:
            raise errors.WrongPhase(f"the tournament has been paused {MAX_PAUSES} times, the most it may be")
        return [Event("TournamentPaused", {"reason": reason})]

    def _resume(self, state: TournamentState, command: Mapping[str, Any]) -> list[Event]:
        if not state.paused:
            raise errors.WrongPhase("the tournament is not paused")
        return [Event("TournamentResumed", {})]

    def _withdraw(self, state: TournamentState, command: Mapping[str, Any]) -> list[Event]:
        p = command.get("participant")
        if not isinstance(p, int) or isinstance(p, bool) or not 0 <= p < len(state.participants):
            raise errors.InvalidCommand(f"no participant {p!r}")
        bot = command.get("bot", "heuristic")
        if bot not in BOT_KINDS:
            raise errors.InvalidCommand(f"unknown bot {bot!r}; one of {list(BOT_KINDS)}")
        if state.participants[p]["kind"] != "human":
            raise errors.WrongPhase(f"participant {p} is a bot: there is nobody to withdraw")
        if state.has_withdrawn(p):
            raise errors.AlreadyDone(f"participant {p} has withdrawn already")
        return [Event("ParticipantWithdrawn", {"participant": p, "bot": bot, "from_round": len(state.rounds) + 1})]

    def _abort(self, state: TournamentState, command: Mapping[str, Any]) -> list[Event]:
        reason = self._reason(command, required=True)
        return [Event("TournamentAborted", {"reason": reason, "standings": standings(state.config, state.rounds)})]

    # -- evolving ---------------------------------------------------------
    def evolve(self, state: TournamentState, event: Event) -> TournamentState:
        kind, data = event.type, event.data
        count = state.events + 1
        if kind == "TournamentCreated":
            config = {k: v for k, v in data.items() if k != "seed_sha256"}
            return TournamentState(config=config, status="waiting", seed_sha256=data["seed_sha256"], events=1)
        if kind == "ParticipantJoined":
            players = state.players + (((data["participant"], data["player"]),) if data.get("player") else ())
            return replace(state, joined=state.joined | {data["participant"]}, players=players, events=count)
        if kind == "TournamentStarted":
            return replace(state, status="active", events=count)
        if kind == "RoundDrawn":
            tables = tuple(TableSlot(t["table"], tuple(t["participants"])) for t in data["tables"])
            drawn = RoundState(data["round"], tables, tuple(data.get("deals") or ()))
            return replace(state, rounds=state.rounds + (drawn,), events=count)
        if kind in ("TableOpened", "TableFinished"):
            current = state.current
            slot = current.tables[data["table"]]
            if kind == "TableOpened":
                slot = replace(slot, game_id=data["game_id"])
            else:
                results = tuple(Result(r["participant"], r["seat"], r["result"], r["place"]) for r in data["results"])
                slot = replace(slot, results=results, cut_short=data.get("cut_short"))
            tables = current.tables[:slot.table] + (slot,) + current.tables[slot.table + 1:]
            return replace(state, rounds=state.rounds[:-1] + (replace(current, tables=tables),), events=count)
        if kind == "RoundFinished":
            return replace(state, rounds=state.rounds[:-1] + (replace(state.current, finished=True),), events=count)
        if kind == "TournamentFinished":
            return replace(state, standings=tuple(data["standings"]), events=count)
        if kind == "TournamentPaused":
            return replace(state, paused=True, pauses=state.pauses + 1, events=count)
        if kind == "TournamentResumed":
            return replace(state, paused=False, events=count)
        if kind == "ParticipantWithdrawn":
            withdrawn = state.withdrawn + ((data["participant"], data["bot"], data["from_round"]),)
            return replace(state, withdrawn=withdrawn, events=count)
        if kind == "TournamentAborted":
            return replace(state, standings=tuple(data["standings"]), aborted=data["reason"], events=count)
        if kind == "SeedRevealed":
            return replace(state, status="finished", seed=data["seed"], events=count)
        raise ValueError(f"not a tournament event: {kind}")

    def evolve_timed(self, state: TournamentState, event: Event, at: str | None, actor: Any) -> TournamentState:
        return self.evolve(state, event)

    def fold(self, state: TournamentState, events: Iterable[Event], at: str | None = None,
             actor: Any = None) -> TournamentState:
        for event in events:
            state = self.evolve(state, event)
        return state

    # -- what the system does next ----------------------------------------
    def _draw_due(self, state: TournamentState) -> bool:
        if state.status != "active" or state.paused or len(state.rounds) >= state.config["rounds"]:
            return False
        return state.current is None or state.current.finished

    def _finish_due(self, state: TournamentState) -> bool:
        return (state.status == "active" and not state.paused and state.standings is None
                and len(state.rounds) == state.config["rounds"] and state.current.finished)

    def needs_system(self, state: TournamentState) -> bool:
        return self._draw_due(state) or self._finish_due(state) or (state.standings is not None
                                                                    and state.seed is None)

    def system_command(self, state: TournamentState, seed_hex: str | None) -> dict | None:
        if self._finish_due(state):
            return {"type": "finish"}
        if seed_hex is None:
            return None
        if state.standings is not None and state.seed is None:
            return {"type": "reveal_seed", "seed": seed_hex}
        if not self._draw_due(state):
            return None
        config, seed = state.config, bytes.fromhex(seed_hex)
        number = len(state.rounds) + 1
        places = {row["participant"]: row["place"] for row in standings(config, state.rounds)}
        met = meetings(table.participants for round_ in state.rounds for table in round_.tables)
        tables = draw(seed, number, config["seating"], len(config["participants"]), config["players"], places, met)
        command = {"type": "draw_round", "round": number, "tables": tables}
        if config["duplicate"]:
            command["deals"] = base_deals(seed, number, config["game"], config["players"], config["rules"],
                                          config["deals_per_table"])
        return command

    # -- reading ----------------------------------------------------------
    @staticmethod
    def shown(event_type: str, data: Mapping[str, Any], finished_rounds: set[int]) -> bool:
        """Whether an event held back while its round ran (a secret round's ``TableFinished``) is
        shown in full now: once its round is among ``finished_rounds``."""
        return event_type == "TableFinished" and data.get("round") in finished_rounds


    def table_setup(self, state: TournamentState, round_: int, table: int) -> dict:
        """What the driver creates a table's game with: the arguments of ``Table.create``."""
        config = state.config
        slot = state.rounds[round_ - 1].tables[table]
        def seat(p: int) -> dict:
            entry, bot = config["participants"][p], state.replacement(p, round_)
            if bot is not None:  # withdrawn: its bot plays on for it
                return {"kind": "bot", "bot": bot}
            if entry["kind"] != "human":
                return {"kind": "bot", "bot": entry["bot"]}
            player = state.player_of(p)  # a player's seat at every table: its player token plays it there
            return {"kind": "human", **({"player": player} if player else {})}

        seats = [seat(p) for p in slot.participants]
        deals = state.rounds[round_ - 1].deals
        # A duplicate round is rated as a whole by its margins once it has finished, not table by table.
        return {"game": config["game"], "players": config["players"], "rules": config["rules"], "seats": seats,
                "preset_deals": rotated(deals, table, config["players"]) if deals else None,
                "clock": config.get("clock"), "rated": bool(config.get("rated")) and not config["duplicate"]}

    def summary(self, state: TournamentState) -> dict:
        config = state.config
        out = {
            "name": config["name"], "game": config["game"], "players": config["players"], "rules": config["rules"],
            "rounds": config["rounds"], "deals_per_table": config["deals_per_table"], "seating": config["seating"],
            "duplicate": config["duplicate"], "clock": config.get("clock"), "status": state.status,
            "seed_sha256": state.seed_sha256,
            "participants": [{"participant": p, **entry, **({"joined": p in state.joined}
                                                           if entry["kind"] == "human" else {}),
                              **({"player": state.player_of(p)} if state.player_of(p) else {}),
                              **self._withdrawal_json(state, p)}
                             for p, entry in enumerate(config["participants"])],
            "rated": bool(config.get("rated")),
            "paused": state.paused,
            "aborted": state.aborted,
            "round": len(state.rounds),
            "schedule": [self._round_json(r, withheld=state.keeps_deals_secret and not r.finished)
                         for r in state.rounds],
            "standings": list(state.standings) if state.standings is not None else standings(config, state.rounds),
            "final": state.standings is not None,
        }
        if state.seed is not None:
            out["seed"] = state.seed
        return out

    @staticmethod
    def _withdrawal_json(state: TournamentState, participant: int) -> dict:
        for p, bot, start in state.withdrawn:
            if p == participant:
                return {"withdrawn": {"bot": bot, "from_round": start}}
        return {}

    @staticmethod
    def _round_json(round_: RoundState, withheld: bool = False) -> dict:
        """``withheld``: a secret round still running, whose finished tables' results wait for its end."""
        def shown(t: TableSlot) -> bool:
            return bool(t.results) and not withheld

        return {"round": round_.number, "finished": round_.finished, "tables": [
            {"table": t.table, "participants": list(t.participants), "game_id": t.game_id,
             "finished": t.finished, "results": [r.to_json() for r in t.results] if shown(t) else None,
             **({"cut_short": t.cut_short} if t.cut_short and not withheld else {})}
            for t in round_.tables]}
