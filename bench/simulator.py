"""Random playouts: the games' simulators against their deciders, and OpenSpiel's skat and hearts.

Start states are random deals at the first moment each simulator covers, reached through the
decider with uniformly random commands: Schafkopf at its first decision after the deal (Doppeln
or the announcement; every contract the rules allow comes up, Ramsch and thrown-in deals
included), Scharwenzel at its first bid, Scharfe Schoten at its first prediction. From each, the rest of the deal is played with uniformly random legal moves: once
through the decider (``decide`` and ``evolve``, the moves from ``legal_commands``) and once
through the simulator (``copy`` of a simulator built once per start state, then
``legal``/``apply`` to the end and the deal's score). An action is one move of a seat: a card,
a cupboard take, a prediction, a bid or pass, a trump suit named, a tout answer. The simulator is
also timed with its build from the decider's state in every playout, as a search that samples a
new world per playout would use it.

Then the search bots' decisions at their game's default playouts with the worker's 500 ms
safety net, timed as a bot worker times them: from reading the seat's history to the command, in
whole games where every seat is a search bot (``domain.bots.match.play`` with the worker's
clock), so the p50 and p99 are of the decisions people meet at a table; and how many of them the
net stopped before their playouts (none, on a machine fast enough for the defaults).

OpenSpiel (``pip install open-spiel``, optional: skipped when ``pyspiel`` is missing) plays
skat and hearts from their initial states with uniformly random actions through its Python
API; its figure counts every applied action, chance actions (its deal, card by card)
included, as its own random-simulation benchmarks do, and the player actions alone beside it.
"""
from __future__ import annotations

import random
import time
from importlib import import_module

from domain.bitmask import members
from domain.bots import default_playouts, policy
from domain.bots.match import play
from domain.registry import all_games
from domain.schafkopf.simulator import TALK_PHASES as SCHAFKOPF_TALK
from domain.schafkopf.state import PLAY as SCHAFKOPF_PLAY
from domain.table import DEFAULT_BUDGET_MS, Table

SCHAFKOPF_RULES = {"allowed_games": ["sie", "solo_tout", "wenz_tout", "farbwenz_tout", "geier_tout", "farbgeier_tout",
                                     "solo", "wenz", "farbwenz", "geier", "farbgeier", "bettel", "rufspiel"],
                   "all_pass": "ramsch", "deals": 400}
# name -> (registered game, players, rules, simulator module, the phases the simulator plays). Schafkopf
# twice: the whole deal (the full rules, from the announcement) and its card play alone (what a search
# plays out: the search names its game with the heuristic).
GAMES = {
    "schafkopf": ("schafkopf", 4, SCHAFKOPF_RULES, "domain.schafkopf.simulator", SCHAFKOPF_TALK + (SCHAFKOPF_PLAY,)),
    "schafkopf-card-play": ("schafkopf", 4, SCHAFKOPF_RULES, "domain.schafkopf.simulator", (SCHAFKOPF_PLAY,)),
    "scharwenzel": ("scharwenzel", 4, {"deals": 1000}, "domain.scharwenzel.simulator",
                    ("bidding", "naming", "tout", "playing")),
    "scharfe-schoten-3": ("scharfe-schoten", 3, {"rounds": 12}, "domain.scharfe_schoten.simulator",
                          ("predicting", "playing", "taking")),
    "scharfe-schoten-4": ("scharfe-schoten", 4, {"rounds": 12}, "domain.scharfe_schoten.simulator",
                          ("predicting", "playing", "taking")),
}
OPEN_SPIEL_GAMES = ("skat", "hearts")


def start_states(game, players: int, rules: dict, phases: tuple[str, ...], count: int, seed: int) -> list:
    """The decider's state at the first card-play moment of ``count`` random deals."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        state = game.initial_state(game.setup(players, rules, None))
        in_play = False
        while not game.is_finished(state) and len(out) < count:
            request = game.pending_deal(state)
            if request is not None:
                decks = {name: rng.sample(list(deck), len(deck)) for name, deck in request.decks.items()}
                command, seat = {"type": "deal", "deal": request.index, "decks": decks}, None
                in_play = False  # a new deal: its first moment in ``phases`` is a start state
            else:
                seat = rng.choice(sorted(game.to_act(state)))
                if state.phase in phases and not in_play:
                    out.append(state)
                in_play = state.phase in phases
                legal = [c for c in game.legal_commands(state, seat) if c["type"] != "stoss"]
                command = rng.choice(legal)
            for event in game.decide(state, seat, command):
                state = game.evolve(state, event)
    return out


def decider_actions(game, states: list, phases: tuple[str, ...], seconds: float, seed: int) -> dict:
    """Random playouts of the rest of each deal through the decider, for about ``seconds``."""
    rng = random.Random(seed)
    actions = playouts = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for state in states:
            while state.phase in phases:
                seat = min(game.to_act(state))
                legal = [c for c in game.legal_commands(state, seat) if c["type"] != "stoss"]
                for event in game.decide(state, seat, legal[rng.randrange(len(legal))]):
                    state = game.evolve(state, event)
                actions += 1
            playouts += 1
    elapsed = time.perf_counter() - start
    return {"actions": actions, "playouts": playouts, "actions_per_s": actions / elapsed}


def simulator_actions(module, states: list, seconds: float, seed: int, rebuild: bool) -> dict:
    """Random playouts through the simulator; ``rebuild``: build it from the decider's state every
    playout, else copy one built beforehand."""
    rng = random.Random(seed)
    built = [module.from_state(state) for state in states]
    finish = _finisher(module)
    actions = playouts = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for state, sim in zip(states, built):
            sim = module.from_state(state) if rebuild else sim.copy()
            while not sim.is_over():
                moves = members(sim.legal())
                sim.apply(moves[rng.randrange(len(moves))] if len(moves) > 1 else moves[0])
                actions += 1
            finish(sim)
            playouts += 1
    elapsed = time.perf_counter() - start
    return {"actions": actions, "playouts": playouts, "actions_per_s": actions / elapsed}


def _finisher(module):
    simulator = module.Simulator
    for name in ("settlement", "score", "points"):
        if hasattr(simulator, name):
            return getattr(simulator, name)
    raise AttributeError(f"{module.__name__}.Simulator has no result")


def open_spiel_actions(name: str, seconds: float, seed: int) -> dict | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    rng = random.Random(seed)
    actions = player_actions = playouts = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                player_actions += 1
            actions += 1
        state.returns()
        playouts += 1
    elapsed = time.perf_counter() - start
    return {"actions": actions, "player_actions": player_actions, "playouts": playouts,
            "actions_per_s": actions / elapsed, "player_actions_per_s": player_actions / elapsed}


# name -> (game, players, rules) of the games the search decisions are timed in: one deal each
SEARCH_GAMES = {"schafkopf": ("schafkopf", 4, {"deals": 1}), "scharwenzel": ("scharwenzel", 4, {"deals": 1}),
                "scharfe-schoten": ("scharfe-schoten", 4, {"rounds": 1})}


def search_decisions(games: int, budget_ms: int = DEFAULT_BUDGET_MS, seed: int = 7) -> dict:
    """Per game: the wall time of every decision of all-search tables with a choice to make (more
    than one legal command: a forced move costs nothing), as p50, p99, max and count, at the game's
    default playouts with ``budget_ms`` as the safety net; ``net_stopped``: how many of those
    decisions the net cut short (their search asked ``out_of_time`` and heard yes)."""
    table = Table(all_games())
    out = {}
    for name, (game, players, rules) in SEARCH_GAMES.items():
        times: list[float] = []
        cpu: list[float] = []  # CPU time of the same decisions: on a loaded machine, what the wall time is not
        started = [0.0, 0.0]
        fired = [False]
        stopped = [0]

        def timer(budget: int):
            started[:] = time.monotonic(), time.process_time()  # the worker's deadline starts before the history
            fired[0] = False
            deadline = started[0] + budget / 1000

            def out_of_time() -> bool:
                fired[0] = fired[0] or time.monotonic() >= deadline
                return fired[0]
            return out_of_time

        def timed(decision, bot=policy("search", game)):
            command = bot(decision)
            if len(decision.view["legal"]) > 1:
                times.append((time.monotonic() - started[0]) * 1000)
                cpu.append((time.process_time() - started[1]) * 1000)
                stopped[0] += fired[0]
            return command

        rng = random.Random(seed)
        for _ in range(games):
            play(table, game, players, rules, [timed] * players, rng.randbytes(32).hex(), rng.random(),
                 budget_ms, timer)  # playouts None: the game's default, as a seat created today records
        times.sort()
        cpu.sort()
        out[name] = {"decisions": len(times), "playouts": default_playouts(game), "budget_ms": budget_ms,
                     "net_stopped": stopped[0], "p50_ms": times[len(times) // 2],
                     "p99_ms": times[min(len(times) - 1, int(len(times) * 0.99))], "max_ms": times[-1],
                     "cpu_p50_ms": cpu[len(cpu) // 2], "cpu_p99_ms": cpu[min(len(cpu) - 1, int(len(cpu) * 0.99))]}
    return out


def run(seconds: float = 3.0, states: int = 200, seed: int = 7, progress=print, search_games: int = 3) -> dict:
    registry = all_games()
    out: dict = {"seconds_per_measure": seconds, "start_states": states, "games": {}, "open_spiel": {}}
    for name in OPEN_SPIEL_GAMES:
        figures = open_spiel_actions(name, seconds, seed)
        out["open_spiel"][name] = figures
        if figures is None:
            progress(f"open_spiel {name}: pyspiel not importable (pip install open-spiel), skipped")
        else:
            progress(f"open_spiel {name}: {figures['actions_per_s']:,.0f} actions/s "
                     f"({figures['player_actions_per_s']:,.0f} player actions/s)")
    spiel = [f["actions_per_s"] for f in out["open_spiel"].values() if f]
    for name, (key, players, rules, module_name, phases) in GAMES.items():
        game = registry[key]
        module = import_module(module_name)
        starts = start_states(game, players, rules, phases, states, seed)
        figures = {"decider": decider_actions(game, starts, phases, seconds, seed),
                   "simulator": simulator_actions(module, starts, seconds, seed, rebuild=False),
                   "simulator_built_each_playout": simulator_actions(module, starts, seconds, seed, rebuild=True)}
        sim = figures["simulator"]["actions_per_s"]
        figures["simulator_over_decider"] = sim / figures["decider"]["actions_per_s"]
        for spiel_name, spiel_figures in out["open_spiel"].items():
            if spiel_figures:
                figures[f"simulator_over_{spiel_name}"] = sim / spiel_figures["actions_per_s"]
        out["games"][name] = figures
        ratios = ", ".join(f"{k.removeprefix('simulator_over_')} {v:.2f}x" for k, v in figures.items()
                           if k.startswith("simulator_over_"))
        progress(f"{name}: simulator {sim:,.0f} actions/s (built each playout "
                 f"{figures['simulator_built_each_playout']['actions_per_s']:,.0f}), decider "
                 f"{figures['decider']['actions_per_s']:,.0f}; simulator over {ratios}")
    out["targets"] = {}
    if spiel:
        floor = 0.5 * min(spiel)
        out["targets"] = {f"{name}_simulator>=0.5x_open_spiel": g["simulator"]["actions_per_s"] >= floor
                          for name, g in out["games"].items()}
    out["search_decisions"] = search_decisions(search_games, seed=seed)
    for name, d in out["search_decisions"].items():
        progress(f"{name}: search decisions at {d['playouts']} playouts (net {d['budget_ms']} ms): p50 "
                 f"{d['p50_ms']:.0f} ms, p99 {d['p99_ms']:.0f} ms, max {d['max_ms']:.0f} ms over {d['decisions']}, "
                 f"{d['net_stopped']} stopped by the net; CPU p50 {d['cpu_p50_ms']:.0f} ms, p99 {d['cpu_p99_ms']:.0f} ms")
        out["targets"][f"{name}_search_p50<=150ms"] = d["p50_ms"] <= 150
        out["targets"][f"{name}_search_p99<=500ms"] = d["p99_ms"] <= 500
    return out


def table_rows(result: dict) -> list[tuple[str, str, str]]:
    rows = []
    for name, figures in result["open_spiel"].items():
        if figures:
            rows.append((f"OpenSpiel {name} random", f"{figures['actions_per_s']:,.0f} actions/s",
                         f"{figures['player_actions_per_s']:,.0f} player actions/s"))
    for name, g in result["games"].items():
        ratios = ", ".join(f"/{k.removeprefix('simulator_over_')} {v:.2f}" for k, v in g.items()
                           if k.startswith("simulator_over_"))
        rows.append((f"{name} simulator random", f"{g['simulator']['actions_per_s']:,.0f} actions/s", ratios))
        rows.append((f"{name} simulator, built each playout",
                     f"{g['simulator_built_each_playout']['actions_per_s']:,.0f} actions/s", ""))
        rows.append((f"{name} decider random", f"{g['decider']['actions_per_s']:,.0f} actions/s", ""))
    for name, d in result.get("search_decisions", {}).items():
        rows.append((f"{name} search decision ({d['playouts']} playouts, {d['budget_ms']} ms net)",
                     f"p50 {d['p50_ms']:.0f} / p99 {d['p99_ms']:.0f} ms",
                     f"max {d['max_ms']:.0f} ms, n={d['decisions']}, {d['net_stopped']} stopped by the net"))
    return rows


if __name__ == "__main__":
    run()
