"""``python -m bench.analysis_marks [--game schafkopf] [--games N] [--kind search] [--procs 2] [--out FILE]``

How often the analysis marks a move in games the search bots play against each other: one-deal
games (``stich arena``'s short rules and seeds), every seat the same kind, each analysed as
``POST /v1/games/{id}/analysis`` would (``domain.bots.analysis.analyse`` at the default budget).
It reports, per 100 judged decisions, the marks of each kind under the analysis's rule (the
threshold, and a loss clear of twice its spread) and under the threshold alone (the rule before
spreads were given), how many values were exact, and the losses' median spread. A search bot
judged by the search should rarely be marked: a mark there is mostly the sampling's noise.
"""
from __future__ import annotations

import argparse
import multiprocessing
import sys
import time

from domain.bots import policy
from domain.bots.analysis import MARKS, Budget, analyse, mark_of, thresholds
from domain.bots.match import play
from domain.registry import all_games
from domain.table import Table
from stich.arena import ARENA_BUDGET_MS, SHORT_RULES, clock, seed_of

from .measure import percentile, publish

PLAYERS = 4


def analysed(args: tuple[str, str, int, int]) -> list[dict]:
    """One game of ``kind`` at every seat, analysed: its judged decisions' losses, spreads and marks."""
    game, kind, number, playouts = args
    table = Table(all_games())
    bot = policy(kind, game)
    seed = seed_of("analysis-marks", number)
    _, events = play(table, game, PLAYERS, SHORT_RULES[game], [bot] * PLAYERS, seed, rng_seed=number,
                     timer=clock, budget_ms=ARENA_BUDGET_MS)
    result = analyse(table, events, seed, Budget(playouts=playouts))
    return [{"loss": d["loss"], "loss_spread": d.get("loss_spread"), "mark": d["mark"],
             "exact": d.get("exact", False)} for d in result["decisions"] if d["loss"] is not None]


def summary(game: str, rows: list[dict]) -> dict:
    limits = thresholds(game)
    judged = len(rows)

    def per_100(count: int) -> float | None:
        return round(100 * count / judged, 2) if judged else None

    now = {name: sum(r["mark"] == name for r in rows) for name in MARKS}
    before = {name: sum(mark_of(r["loss"], limits) == name for r in rows) for name in MARKS}
    spreads = [r["loss_spread"] for r in rows if r["loss_spread"] is not None]
    return {"judged_decisions": judged,
            "marks_per_100": {name: per_100(count) for name, count in now.items()} |
            {"all": per_100(sum(now.values()))},
            "threshold_only_marks_per_100": {name: per_100(count) for name, count in before.items()} |
            {"all": per_100(sum(before.values()))},
            "exact_decisions": sum(r["exact"] for r in rows),
            "loss_spread_p50": percentile(spreads, 50), "loss_spread_p90": percentile(spreads, 90)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.analysis_marks", description=__doc__.split("\n\n")[1])
    parser.add_argument("--game", default="schafkopf", choices=sorted(SHORT_RULES))
    parser.add_argument("--kind", default="search", help="the bot at every seat")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--playouts", type=int, default=Budget().playouts, help="the analysis's playouts a decision")
    parser.add_argument("--procs", type=int, default=2)
    parser.add_argument("--out", default=None, help="write the result as JSON here too")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    try:
        Budget(playouts=args.playouts)  # refuses what the analysis would
    except ValueError as error:
        parser.error(str(error))
    started = time.monotonic()
    rows: list[dict] = []
    tasks = [(args.game, args.kind, number, args.playouts) for number in range(args.games)]
    with multiprocessing.Pool(args.procs) as pool:
        for done, got in enumerate(pool.imap_unordered(analysed, tasks), 1):
            rows.extend(got)
            sys.stderr.write(f"\r{args.game}: {done}/{args.games} games analysed, {time.monotonic() - started:.0f}s ")
    sys.stderr.write("\n")
    result = {"game": args.game, "kind": args.kind, "games": args.games, "players": PLAYERS,
              "playouts": args.playouts, "seconds": round(time.monotonic() - started, 1), **summary(args.game, rows)}
    publish(result, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
