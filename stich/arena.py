"""``stich arena``: bot kinds against each other on duplicate deals, with confidence intervals.

Every comparison is of two kinds, A and B, on the same deals: each deal (one
seed, so the same cards) is played twice, A on the even seats and B on the odd
ones, then the other way round, so that each kind holds every hand and the luck
of the deal cancels. Per deal the result is A's mean score minus B's; the
report gives the mean of that over all deals with a 95% confidence interval
(mean ± 1.96 standard errors). In Scharwenzel the even and odd seats are the
two sides, so a kind plays a whole side.

Games are played in process through the real table (``domain.bots.match``)
with the same policies the bot workers use (``domain.bots.policy``), in
parallel processes. A search bot's budget is ``--playouts`` a decision; the
wall clock (``--budget-ms``, by this process's clock) is only a safety net,
generous by default so that the machine's load never decides a result, and
the report counts the decisions it stopped. In Schafkopf each comparison has its Stoß table
(``stoss_table``): how far the Stöße went, and what each Stoß paid whoever gave it.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import multiprocessing
import os
import sys
import time
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path

from domain.bots import default_playouts, kinds as bot_kinds, policy
from domain.bots.match import play
from domain.registry import all_games
from domain.scharwenzel.bots.outcome import side_value
from domain.scharwenzel.scoring import side_of
from domain.table import PLAYOUTS_RANGE, Table

from . import stoss_table
from .help_formatter import HelpFormatter

DESCRIPTION = """\
Bot kinds against each other on duplicate deals, with 95% confidence intervals.

Each deal (one seed, so the same cards) is played twice: kind A on the even seats and
B on the odd ones, then the other way round, so that each kind holds every hand and
the luck of the deal cancels. Per deal the result is A's mean score minus B's; the
report gives its mean over all deals with a 95% confidence interval. In Scharwenzel
the even and odd seats are the two sides. A search bot plays --playouts a decision;
--budget-ms is only a safety net, and the report counts the decisions it stopped.
In Schafkopf it adds a Stoß table: the deals at each level reached (none, Kontra,
Re, Supra, Resupra), how often the declaring party won and what the declarer was
paid; and each Stoß at the level it was given, with what its givers were paid on
average, by kind. It writes a JSON report (and, with matplotlib, a PNG plot) to --out."""

# The safety net's default: far above any default search's decision time on a loaded machine, so
# that a result depends on the playouts only (the worker's net is 500 ms: people wait there).
ARENA_BUDGET_MS = 5000

# One deal of each game, four players: the shortest game each game allows.
SHORT_RULES = {"schafkopf": {"deals": 1}, "scharwenzel": {"deals": 1}, "scharfe-schoten": {"rounds": 1}}


@dataclass(frozen=True)
class Match:
    game: str
    players: int
    rules: dict
    first: str  # kind A
    second: str  # kind B
    budget_ms: int  # the safety net per decision
    playouts: int | None = None  # a search's budget per decision; None: each bot's default


def clock(budget_ms: int):
    deadline = time.monotonic() + budget_ms / 1000
    return lambda: time.monotonic() >= deadline


class Net:
    """A kind's decisions and how many of them the safety net stopped: a decision whose
    ``out_of_time`` once answered yes (a search asks before each playout, so it then stopped
    short of its playouts). Random and heuristic bots never ask."""

    def __init__(self, chosen):
        self.chosen = chosen
        self.decisions = self.stopped = 0

    def __call__(self, decision) -> dict:
        fired = False

        def out_of_time() -> bool:
            nonlocal fired
            fired = fired or decision.out_of_time()
            return fired

        command = self.chosen(replace(decision, out_of_time=out_of_time))
        self.decisions += 1
        self.stopped += fired
        return command


def seed_of(base: str, deal: int) -> str:
    return hashlib.sha256(f"stich-arena|{base}|{deal}".encode()).hexdigest()


def deal_scores(table: Table, state, events) -> list[float]:
    """Each seat's score for the game, in the game's own terms: Schafkopf's payouts, Scharfe
    Schoten's points, and in Scharwenzel the deal's points (a hook counted as a thread of 24
    points) for the seat's side against the other's - its totals count whole threads, which a
    single deal rarely completes, so they would call nearly every deal a draw."""
    if state.game.name == "scharwenzel":
        scored = [e.data for e in events if e.type == "DealScored"]
        return [sum(side_value(data, side_of(seat)) for data in scored) for seat in range(state.players)]
    return list(table.summary(state)["scores"]["totals"])


def play_deal(match: Match, base: str, deal: int) -> dict:
    """Both seatings of one deal: A's mean score - B's mean score, each kind's mean score, and
    each kind's decisions and the ones the safety net stopped."""
    table = Table(all_games())
    seed_hex = seed_of(base, deal)
    kinds = {match.first: Net(policy(match.first, match.game)), match.second: Net(policy(match.second, match.game))}
    scores = {match.first: [], match.second: []}
    stoss: list[dict] = []  # Schafkopf: each seating's deals, for the Stoß table
    for swap in (False, True):
        lineup = [(match.second if swap else match.first) if seat % 2 == 0 else
                  (match.first if swap else match.second) for seat in range(match.players)]
        state, events = play(table, match.game, match.players, match.rules, [kinds[k] for k in lineup], seed_hex,
                             rng_seed=f"{base}|{deal}|{swap}", budget_ms=match.budget_ms, timer=clock,
                             playouts=match.playouts)
        totals = deal_scores(table, state, events)
        for seat, kind in enumerate(lineup):
            scores[kind].append(totals[seat])
        if match.game == "schafkopf":
            stoss += stoss_table.deal_rows(events, lineup)
    means = {kind: sum(values) / len(values) for kind, values in scores.items()}
    return {"deal": deal, "difference": means[match.first] - means[match.second], "means": means,
            "decisions": {kind: net.decisions for kind, net in kinds.items()},
            "net_stopped": {kind: net.stopped for kind, net in kinds.items()}, "stoss": stoss}


def interval(values: list[float]) -> dict:
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n) if n > 1 else float("inf")
    return {"n": n, "mean": mean, "ci95": [mean - half, mean + half]}


def _task(args):
    return play_deal(*args)


def run_match(match: Match, deals: int, base: str, procs: int, progress) -> dict:
    tasks = [(match, base, deal) for deal in range(deals)]
    results = []
    started = time.monotonic()
    with multiprocessing.Pool(procs) as pool:
        for result in pool.imap_unordered(_task, tasks, chunksize=1):
            results.append(result)
            progress(match, len(results), deals, time.monotonic() - started)
    results.sort(key=lambda r: r["deal"])
    difference = interval([r["difference"] for r in results])
    return {"first": match.first, "second": match.second, "deals": deals, "difference": difference,
            "means": {kind: interval([r["means"][kind] for r in results])
                      for kind in (match.first, match.second)},
            "excludes_zero": difference["ci95"][0] > 0 or difference["ci95"][1] < 0,
            "decisions": {kind: sum(r["decisions"][kind] for r in results) for kind in (match.first, match.second)},
            "net_stopped": {kind: sum(r["net_stopped"][kind] for r in results) for kind in (match.first, match.second)},
            "seconds": round(time.monotonic() - started, 1),
            **({"stoss": stoss_table.table([row for r in results for row in r["stoss"]])}
               if match.game == "schafkopf" else {})}


def bar(stream):
    def progress(match: Match, done: int, total: int, elapsed: float) -> None:
        width = 30
        filled = int(width * done / total)
        eta = elapsed / done * (total - done) if done else 0
        stream.write(f"\r{match.game}: {match.first} vs {match.second} [{'#' * filled}{'.' * (width - filled)}] "
                     f"{done}/{total} deals, {elapsed:.0f}s, about {eta:.0f}s left ")
        if done == total:
            stream.write("\n")
        stream.flush()
    return progress


def plot(report: dict, path: Path) -> bool:
    """A PNG of each comparison's mean difference with its interval; False without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    rows = report["comparisons"]
    labels = [f"{r['first']} - {r['second']}" for r in rows]
    means = [r["difference"]["mean"] for r in rows]
    errors = [r["difference"]["mean"] - r["difference"]["ci95"][0] for r in rows]
    figure, axes = plt.subplots(figsize=(6, 1.2 + 0.6 * len(rows)))
    axes.barh(labels, means, xerr=errors, capsize=4, color="#2f6f4f")
    axes.axvline(0, color="black", linewidth=0.8)
    axes.set_xlabel(f"mean score per deal, A - B ({report['deals']} duplicate deals, 95% CI)")
    axes.set_title(f"stich arena: {report['game']}, {report['players']} players")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return True


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="stich arena", description=DESCRIPTION, formatter_class=HelpFormatter)
    parser.add_argument("--game", required=True, choices=sorted(SHORT_RULES), help="the game to play")
    parser.add_argument("--kinds", default="random,heuristic,search",
                        help="the ladder, weakest first; each kind plays the next: random, or any of the game's "
                             "bots (domain/<game>/bots/__init__.py's BOTS, arena-only variants included)")
    parser.add_argument("--deals", type=int, default=500, help="duplicate deals per comparison")
    parser.add_argument("--players", type=int, default=4, help="players at the table")
    parser.add_argument("--rules", default=None, help="rules as JSON (default: one deal of the game)")
    parser.add_argument("--playouts", type=int, default=None,
                        help="a search bot's budget: playouts a decision (default: each game's default)")
    parser.add_argument("--budget-ms", type=int, default=ARENA_BUDGET_MS,
                        help="the safety net: the most wall-clock time a decision may take")
    parser.add_argument("--procs", type=int, default=os.cpu_count() or 1, help="parallel processes")
    parser.add_argument("--seed", default="stich", help="the deals' base seed (same seed, same deals)")
    parser.add_argument("--out", default="arena-results", help="directory for the JSON report and the PNG plot")
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    known = bot_kinds(args.game)
    unknown = [k for k in kinds if k not in known]
    if len(kinds) < 2 or unknown or len(set(kinds)) < len(kinds) or args.deals < 2:
        parser.error(f"--kinds needs two or more different kinds of {list(known)} (unknown: {unknown}); "
                     "--deals at least 2")
    low, high = PLAYOUTS_RANGE
    if args.playouts is not None and not low <= args.playouts <= high:
        parser.error(f"--playouts must be {low}..{high}")
    if args.budget_ms < 1:
        parser.error("--budget-ms must be at least 1")
    rules = json.loads(args.rules) if args.rules else SHORT_RULES[args.game]
    report = {"game": args.game, "players": args.players, "rules": rules, "deals": args.deals,
              "playouts": args.playouts, "default_playouts": default_playouts(args.game),
              "budget_ms": args.budget_ms, "seed": args.seed, "kinds": kinds,
              "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"), "comparisons": []}
    progress = bar(sys.stderr)
    for weaker, stronger in zip(kinds, kinds[1:]):
        match = Match(args.game, args.players, rules, stronger, weaker, args.budget_ms, args.playouts)
        report["comparisons"].append(run_match(match, args.deals, args.seed, args.procs, progress))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"arena-{args.game}-{datetime.now(timezone.utc).strftime('%Y%m%dT%H%M%SZ')}"
    (out / f"{stem}.json").write_text(json.dumps(report, indent=2))
    plotted = plot(report, out / f"{stem}.png")
    playouts = args.playouts if args.playouts is not None else f"the default ({report['default_playouts']})"
    print(f"{args.game}, {args.players} players, {args.deals} duplicate deals per comparison, "
          f"search playouts {playouts} a decision, safety net {args.budget_ms} ms")
    for row in report["comparisons"]:
        d = row["difference"]
        low, high = d["ci95"]
        verdict = "excludes 0" if row["excludes_zero"] else "includes 0"
        print(f"  {row['first']:>9} - {row['second']:<9} {d['mean']:+9.2f} per deal, 95% CI [{low:+.2f}, {high:+.2f}] "
              f"({verdict}); {row['first']} {row['means'][row['first']]['mean']:+.2f}, "
              f"{row['second']} {row['means'][row['second']]['mean']:+.2f}; {row['seconds']} s")
        stopped = ", ".join(f"{kind} {row['net_stopped'][kind]} of {row['decisions'][kind]}"
                            for kind in (row["first"], row["second"]))
        print(f"  {'':>9}   decisions the safety net stopped: {stopped}")
        if "stoss" in row:
            print("\n".join(stoss_table.lines(row["stoss"])))
    print(f"written: {out / (stem + '.json')}" + (f", {out / (stem + '.png')}" if plotted else
                                                  " (no plot: matplotlib is not installed)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
