"""``python -m soak [--short] [--only SCENARIO] [--cycles N] [--cases N] [--games N] [--kills N]``

The long versions of the reliability tests, outside the suite (the suite runs
``--short``). Every scenario starts its own private Redis-compatible server
and prints its progress to stderr; at the end a table goes to stdout and the
figures to ``soak/results/<utc time>.json``. A broken invariant makes the
scenario fail with its first violation printed, and the exit status 1.

Scenarios (default size, ``--short`` size):

  durability          Valkey SIGKILLed and restarted under load; every acknowledged
                      move still stored, in order, gapless (100 cycles, 3)
  contract            schemathesis over every operation of openapi.yaml, positive
                      and negative: no 5xx, every response as documented
                      (10,000 cases, 200)
  hidden-information  random games of every game and player count through the leak
                      check: no seat or spectator sees a hidden card, prediction
                      or the seed (10,000 games, 12)
  worker-kills        bot workers SIGKILLed mid turn: each turn re-driven within the
                      bound and played exactly once, every game to its end
                      (1,000 kills, 3)
  store-kills         a real ``stich serve``'s store SIGKILLed every 2-5 s under light
                      load: each recovery (health ok, a move accepted) within 10 s,
                      nothing acknowledged lost, no other child dies (20 kills; not in
                      ``--short``: the suite's tests/e2e/test_recovery.py is its short run)
  topology            nginx in front of two API processes and two bot workers on a local
                      3-master Redis Cluster: games with each seat's commands and stream
                      on different processes, one process SIGKILLed, a rolling restart,
                      a worker SIGTERMed mid-job, a tournament, exports verified (12
                      games; not in ``--short``: tests/e2e/test_topology.py is its short
                      run with 2; needs nginx)
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import random
import sys
import time
import traceback
from datetime import datetime, timezone
from pathlib import Path

from . import Violation, contract, durability, hidden_information, store_kills, topology, worker_kills

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ("durability", "contract", "hidden-information", "worker-kills", "store-kills", "topology")
NOT_SHORT = ("store-kills", "topology")  # each has a short run of its own in the suite


class Progress:
    def __init__(self, scenarios: int):
        self.scenarios, self.current, self.started = scenarios, 0, time.monotonic()
        # A copy of stderr of its own: the contract scenario runs pytest in this process, which
        # captures file descriptor 2 while a test runs, and the lines in between must still show.
        self.stream = os.fdopen(os.dup(sys.stderr.fileno()), "w", buffering=1)

    def scenario(self, name: str) -> None:
        self.current += 1
        self.say(f"[{self.current}/{self.scenarios}] {name}")

    def say(self, text: str) -> None:
        print(f"  {time.monotonic() - self.started:7.1f}s  {text}", file=self.stream, flush=True)


def sizes(args: argparse.Namespace) -> dict:
    short = args.short
    size = {"cycles": args.cycles or (3 if short else 100), "cases": args.cases or (200 if short else 10_000),
            "games": args.games or (12 if short else 10_000), "kills": args.kills or (3 if short else 1_000),
            "store_kills": args.store_kills or (4 if short else 20),
            "topology_games": args.topology_games or (2 if short else 12),
            "workers": args.workers or (3 if short else 6), "think_ms": args.think_ms or (100 if short else 250)}
    # Enough games to keep every worker in a turn, few enough that a re-driven job does not wait
    # behind a long queue (it is enqueued last); short: fewer, so the last ones end soon after the kills.
    size["bot_games"] = args.bot_games or size["workers"] * (2 if short else 3)
    return size


def run_scenario(name: str, size: dict, say, seed: int) -> dict:
    if name == "durability":
        return durability.run(size["cycles"], say, seed=seed)
    if name == "contract":
        return contract.run(size["cases"], say, seed=seed)
    if name == "hidden-information":
        return hidden_information.run(size["games"], say, seed=seed)
    if name == "store-kills":
        return store_kills.run(size["store_kills"], say, seed=seed)
    if name == "topology":
        return topology.run(size["topology_games"], say, seed=seed)
    return worker_kills.run(size["kills"], say, workers=size["workers"], think_ms=size["think_ms"],
                            games=size["bot_games"], seed=seed)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m soak", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--short", action="store_true", help="every scenario small: well under two minutes in all")
    parser.add_argument("--only", choices=SCENARIOS, action="append",
                        help="run only this scenario (may be given more than once)")
    parser.add_argument("--cycles", type=int, help="durability: Valkey SIGKILL/restart cycles (default 100, short 3)")
    parser.add_argument("--cases", type=int, help="contract: schemathesis cases (default 10000, short 200)")
    parser.add_argument("--games", type=int, help="hidden-information: games (default 10000, short 12)")
    parser.add_argument("--kills", type=int, help="worker-kills: workers killed mid turn (default 1000, short 3)")
    parser.add_argument("--workers", type=int, help="worker-kills: bot workers (default 6, short 3)")
    parser.add_argument("--store-kills", type=int, help="store-kills: SIGKILLs of stich serve's store (default 20)")
    parser.add_argument("--topology-games", type=int, help="topology: games played through nginx (default 12)")
    parser.add_argument("--bot-games", type=int, help="worker-kills: all-bot games at once (default 3 per worker, "
                                                      "short 2)")
    parser.add_argument("--think-ms", type=int, help="worker-kills: STICH_BOT_THINK_MS (default 250, short 100)")
    parser.add_argument("--seed", type=int, help="the hypothesis seed and every scenario's random choices "
                                                 "(default: a fresh one, reported)")
    parser.add_argument("--out", default=str(ROOT / "soak" / "results"))
    args = parser.parse_args(argv)
    if args.only:
        chosen = [name for name in SCENARIOS if name in args.only]
    else:
        chosen = [name for name in SCENARIOS if not (args.short and name in NOT_SHORT)]
    # One seed for the run, reported, so its random choices can be replayed (hands still differ:
    # every game's seed is the server's own secret).
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    size = sizes(args)
    # The soak stops servers under the stream watchers' follower threads and kills Redis on
    # purpose: their reconnect warnings are expected, and would bury the progress lines.
    logging.getLogger("stich.watch").setLevel(logging.ERROR)

    progress = Progress(len(chosen))
    result = {"started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
              "config": {"short": args.short, "only": args.only, "seed": seed, **size}, "scenarios": {}}
    for name in chosen:
        progress.scenario(name)
        started = time.monotonic()
        try:
            figures = {"passed": True, **run_scenario(name, size, progress.say, seed)}
        except Violation as violation:
            figures = {"passed": False, "violation": str(violation), **violation.figures}
            progress.say(f"VIOLATION in {name}: {violation}")
        except Exception as error:  # a scenario that could not run is a failure too, with its cause
            figures = {"passed": False, "error": f"{type(error).__name__}: {error}"}
            progress.say(f"ERROR in {name}:\n{traceback.format_exc()}")
        figures["wall_s"] = round(time.monotonic() - started, 1)
        result["scenarios"][name] = figures
        progress.say(f"{name}: {'passed' if figures['passed'] else 'FAILED'} in {figures['wall_s']}s")
    result["passed"] = all(s["passed"] for s in result["scenarios"].values())
    result["wall_s"] = round(time.monotonic() - progress.started, 1)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    suffix = ("-short" if args.short else "") + "".join(f"-{name}" for name in args.only or ())
    path = out / f"{datetime.now(timezone.utc).strftime('%Y%m%dT%H%M%SZ')}{suffix}.json"
    path.write_text(json.dumps(result, indent=2))
    print_table(result, path)
    return 0 if result["passed"] else 1


def table_rows(name: str, s: dict) -> list[tuple[str, str]]:
    """The figures worth a line each; the JSON has them all."""
    if "error" in s or "violation" in s:
        return [("FAILED", s.get("violation") or s["error"])]
    if name == "durability":
        return [("cycles", f"{s['cycles']} SIGKILL/restart of Valkey under {s['players']} players"),
                ("acknowledged", f"{s['acknowledged_moves']} moves ({s['acknowledged_events']} events) "
                                 f"in {s['games']} games, {s['lost']} lost"),
                ("checks", f"{s['event_checks']} event checks after restarts, "
                           f"{s['unacknowledged_attempts']} unacknowledged attempts"),
                ("restart", f"p50 {s['restart_p50_ms']} ms, max {s['restart_max_ms']} ms")]
    if name == "contract":
        return [("cases", f"{s['cases']} of a {s['budget']} budget over {s['operations']} operations, "
                          f"{s['failures']} failures ({s['cases_per_s']}/s)"),
                ("busiest", ", ".join(f"{op} {n}" for op, n in list(s["per_operation"].items())[:4])),
                ("seed", f"hypothesis seed {s['hypothesis_seed']}")]
    if name == "store-kills":
        return [("kills", f"{s['kills']} SIGKILLs of stich serve's store, 2-5 s apart, under light load; "
                          f"{s['other_children_restarted']} other children restarted"),
                ("recovery", f"p50 {s['recovery_p50_s']} s, max {s['recovery_max_s']} s (limit {s['limit_s']:g} s) "
                             f"to health ok and a move accepted"),
                ("acknowledged", f"{s['acknowledged_moves']} moves in {s['games']} games, {s['event_checks']} "
                                 f"event checks, {s['lost']} lost")]
    if name == "topology":
        return [("games", f"{s['games']} through nginx, commands and streams on different API processes, "
                          f"{s['acknowledged_events']} acknowledged events, {s['lost']} lost"),
                ("faults", f"one API SIGKILLed, both restarted (SIGTERM exit {s['sigterm_b_exit_s']} s), "
                           f"{s['stream_resumes']} stream resumes by Last-Event-ID, {s['command_failovers']} "
                           f"command fail-overs; a worker drained in {s['worker_drain_s']} s"),
                ("checks", f"{s['bot_turns_audited']} bot turns audited, {s['exports_verified']} exports verified, "
                           f"a tournament of {s['tournament_standings']} to its standings")]
    if name == "hidden-information":
        return [("games", f"{s['games']} ({', '.join(f'{k} {n}' for k, n in s['per_kind'].items())})"),
                ("scanned", f"{s['responses_scanned']} responses over {s['moves']} moves, {s['leaks']} leaks"),
                ("rate", f"{s['games_per_s']} games/s")]
    return [("kills", f"{s['kills']} workers SIGKILLed mid turn ({s['kills_not_mid_turn']} more landed after the "
                      f"move), {s['workers_started']} workers started"),
            ("re-drive", f"p50 {s['redrive_p50_s']} s, p99 {s['redrive_p99_s']} s, max {s['redrive_max_s']} s "
                         f"from the kill to the turn's move"),
            ("bound", f"{s['within_bound']}/{s['kills']} within {s['bound_s']:g} s (sweep after "
                      f"{s['sweep_after_s']:g} + interval {s['sweep_interval_s']:g} + think), all within "
                      f"{s['limit_s']:g} s"),
            ("games", f"{s['games_finished']}/{s['games']} finished, {s['bot_turns_audited']} bot turns audited: "
                      f"{s['lost']} lost, {s['doubled']} doubled")]


def print_table(r: dict, path: Path) -> None:
    rows = []
    for name, s in r["scenarios"].items():
        rows.append((name, "passed" if s["passed"] else "FAILED", f"{s['wall_s']} s"))
        rows += [("", label, text) for label, text in table_rows(name, s)]
    width = max(len(a) for a, _, _ in rows)
    print()
    for a, b, c in rows:
        print(f"{a:<{width}}  {b:<12} {c}")
    print(f"\n{'all passed' if r['passed'] else 'FAILED'} in {r['wall_s']} s; written to {path}")


if __name__ == "__main__":
    sys.exit(main())
