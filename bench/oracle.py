"""``python -m bench.oracle [--games schafkopf,scharwenzel,scharfe-schoten] [--kind search] [--deals N] [--procs P] [--out FILE]``

The most that any inference could give each game's search at its default budget: a search
(``--kind``: ``search``, the served one, which solves its late samples; ``search-deal``, the
search without inference that plays every sample out) against the same search whose card play
is handed the true deal in place of every sampled one (``oracle``), on duplicate deals with the
seats rotated, as ``stich arena`` plays them (the same seeds, scores and confidence intervals).

Inference only changes which deals the search samples; the best it can do is to sample the true
one. So if the oracle does not beat the search, no inference can, however good, until the
search itself (its playouts, its rollout policy) gets more out of a well-sampled deal.

What the oracle is handed: in the card play, the sampled state of each playout (Schafkopf's
``search._sampler``, Scharwenzel's ``search.sampled_state``, Scharfe Schoten's
``Determinizer.state_of``; in Scharfe Schoten, whose predictions and takes are searched on the
same samples, those too) is replaced by the true state, only while an oracle seat decides. The
bidding of Schafkopf and Scharwenzel samples as before. A measurement only: it patches the
searches inside this benchmark's own processes, and no served bot ever sees the true state.
Each result counts the true states handed over, so a search that stopped asking for samples
where the patch expects would show as zero.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time

from domain.bots import bots_of, match, policy as policy_of
from domain.registry import all_games
from domain.schafkopf.bots import search as schafkopf_search
from domain.scharfe_schoten.bots import search as scharfe_schoten_search
from domain.scharwenzel.bots import search as scharwenzel_search
from domain.table import Table
from stich.arena import ARENA_BUDGET_MS, SHORT_RULES, clock, deal_scores, interval, seed_of

GAMES = ("schafkopf", "scharwenzel", "scharfe-schoten")
PLAYERS = 4
ORACLE, SEARCH = "oracle", "search"
DEFAULT_DEALS = 100


class Truth:
    """The true state of the decision being made, and whether an oracle seat is making it."""
    state = None
    active = False
    handed = 0  # true states handed to a search in this process

    @classmethod
    def hand(cls):
        cls.handed += 1
        return cls.state


def install() -> None:
    """Route each search's sampled state through ``Truth`` (this process only; idempotent)."""
    if getattr(schafkopf_search, "_oracle_installed", False):
        return
    sampler_of = schafkopf_search._sampler

    def schafkopf_sampler(decision, know, inference):
        sampler = sampler_of(decision, know, inference)
        return lambda: Truth.hand() if Truth.active else sampler()

    sampled_state = scharwenzel_search.sampled_state

    def scharwenzel_state(decision, known, prefix, hands):
        return Truth.hand() if Truth.active else sampled_state(decision, known, prefix, hands)

    class OracleDeterminizer(scharfe_schoten_search.Determinizer):
        def state_of(self, drawn):
            return Truth.hand() if Truth.active else super().state_of(drawn)

    schafkopf_search._sampler = schafkopf_sampler
    scharwenzel_search.sampled_state = scharwenzel_state
    scharfe_schoten_search.Determinizer = OracleDeterminizer
    schafkopf_search._oracle_installed = True


def oracle_of(game: str, kind: str = SEARCH):
    search = policy_of(kind, game)

    def oracle(decision) -> dict:
        Truth.active = True
        try:
            return search(decision)
        finally:
            Truth.active = False

    return oracle


def observe(state, _decision) -> None:
    Truth.state = state


def play_deal(args) -> dict:
    """Both seatings of one deal: the oracle's mean score minus the search's, and the true states
    the oracle was handed."""
    game, base, deal, kind = args
    install()
    table = Table(all_games())
    policies = {ORACLE: oracle_of(game, kind), SEARCH: policy_of(kind, game)}
    scores = {ORACLE: [], SEARCH: []}
    handed = Truth.handed
    for swap in (False, True):
        lineup = [(SEARCH if swap else ORACLE) if seat % 2 == 0 else (ORACLE if swap else SEARCH)
                  for seat in range(PLAYERS)]
        state, events = match.play(table, game, PLAYERS, SHORT_RULES[game], [policies[k] for k in lineup],
                                   seed_of(base, deal), rng_seed=f"{base}|{deal}|{swap}",
                                   budget_ms=ARENA_BUDGET_MS, timer=clock, observe=observe)
        for seat, kind in enumerate(lineup):
            scores[kind].append(deal_scores(table, state, events)[seat])
    means = {kind: sum(values) / len(values) for kind, values in scores.items()}
    return {"difference": means[ORACLE] - means[SEARCH], "handed": Truth.handed - handed}


def run(game: str, deals: int, procs: int, base: str, say=print, kind: str = SEARCH) -> dict:
    started = time.monotonic()
    results = []
    with multiprocessing.Pool(procs) as pool:
        for result in pool.imap_unordered(play_deal, [(game, base, deal, kind) for deal in range(deals)],
                                          chunksize=1):
            results.append(result)
            if len(results) % max(1, deals // 10) == 0 or len(results) == deals:
                say(f"  {game}: {len(results)}/{deals} deals, {time.monotonic() - started:.0f} s")
    difference = interval([r["difference"] for r in results])
    return {"game": game, "deals": deals, "kind": kind, "oracle_minus_search": difference,
            "excludes_zero": difference["ci95"][0] > 0 or difference["ci95"][1] < 0,
            "true_states_handed": sum(r["handed"] for r in results),
            "seconds": round(time.monotonic() - started, 1)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.oracle", description=__doc__.split("\n\n")[1])
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated (default: all three)")
    parser.add_argument("--kind", default=SEARCH,
                        help=f"the search the oracle is made of and plays against (default {SEARCH}; search-deal: "
                             "no inference, every sample played out)")
    parser.add_argument("--deals", type=int, default=DEFAULT_DEALS, help=f"duplicate deals a game (default {DEFAULT_DEALS})")
    parser.add_argument("--procs", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--seed", default="stich", help="the deals' seed (default: the arena's, 'stich')")
    parser.add_argument("--out", default=None, help="write the results as JSON here")
    args = parser.parse_args(argv)
    games = [g for g in args.games.split(",") if g]
    unknown = sorted(set(games) - set(GAMES))
    if unknown or args.deals < 2 or args.procs < 1:
        parser.error(f"unknown games {unknown}" if unknown else "--deals must be at least 2, --procs at least 1")
    lacking = [game for game in games if args.kind not in bots_of(game) or not args.kind.startswith("search")]
    if lacking:
        parser.error(f"--kind {args.kind} is not a search of {', '.join(lacking)}")
    report = {"deals": args.deals, "seed": args.seed, "kind": args.kind, "budget": "each search's default playouts", "results": []}
    for game in games:
        print(f"{game}: {ORACLE} against {args.kind}, {args.deals} duplicate deals", flush=True)
        result = run(game, args.deals, args.procs, args.seed, lambda line: print(line, flush=True), args.kind)
        report["results"].append(result)
        low, high = result["oracle_minus_search"]["ci95"]
        print(f"{game}: oracle - search {result['oracle_minus_search']['mean']:+.2f} [{low:+.2f}, {high:+.2f}] "
              f"per deal, {result['true_states_handed']} true states handed, {result['seconds']:.0f} s", flush=True)
    if args.out:
        with open(args.out, "w") as out:
            json.dump(report, out, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
