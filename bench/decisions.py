"""``python -m bench.decisions [--game schafkopf] [--kinds search,search-rollout] [--deals N] [--out FILE]``

A search bot's decision time on this machine: every seat of a one-deal game played by one kind,
the same seeded deals for every kind, at the game's default budget (playouts, and for the
solving search its solver nodes), with ``stich arena``'s loose wall-clock net. Each decision
with a choice is timed in process CPU time (the other processes on the machine do not count)
and reported as p50 and p99, over all such decisions and over the card decisions late in the
deal (the seat holding at most ``--late`` cards: where ``search`` solves its samples), with
how many sampled worlds the search solved and how many it tried to (its ``search.solve``
counted in this process). A measurement only: the figures move with the machine, the budget
does not.
"""
from __future__ import annotations

import argparse
import sys
import time
from importlib import import_module

from domain.bots import GAME_BOTS, match, policy as policy_of
from domain.registry import all_games
from domain.table import Table
from stich.arena import ARENA_BUDGET_MS, SHORT_RULES, clock, seed_of

from .measure import percentile, publish

PLAYERS = 4


def hand_size(decision) -> int | None:
    """Cards in the deciding seat's hand at a card decision, else None."""
    if decision.legal[0]["type"] != "play":
        return None
    game_state = decision.view["game_state"]
    return len(game_state.get("hand") or ())


def timed_kind(game: str, kind: str, deals: int, late: int) -> dict:
    search = policy_of(kind, game)
    every, cards_late = [], []
    module = import_module(f"{GAME_BOTS[game]}.search")
    solve = module.solve
    solves = {"tried": 0, "solved": 0}

    def counted(*args, **kwargs):
        got = solve(*args, **kwargs)
        solves["tried"] += 1
        solves["solved"] += got is not None
        return got

    def timed(decision):
        if len(decision.legal) == 1:
            return search(decision)
        began = time.process_time()
        command = search(decision)
        spent = (time.process_time() - began) * 1000
        every.append(spent)
        size = hand_size(decision)
        if size is not None and size <= late:
            cards_late.append(spent)
        return command

    table = Table(all_games())
    module.solve = counted
    try:
        for deal in range(deals):
            match.play(table, game, PLAYERS, SHORT_RULES[game], [timed] * PLAYERS, seed_of("decisions", deal),
                       rng_seed=deal, timer=clock, budget_ms=ARENA_BUDGET_MS)
    finally:
        module.solve = solve
    return {"decisions": len(every), "p50_ms": percentile(every, 50), "p99_ms": percentile(every, 99),
            "late_card_decisions": len(cards_late), "late_p50_ms": percentile(cards_late, 50),
            "late_p99_ms": percentile(cards_late, 99), "worlds_solved": solves}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.decisions", description=__doc__.split("\n\n")[1])
    parser.add_argument("--game", default="schafkopf", choices=sorted(SHORT_RULES))
    parser.add_argument("--kinds", default="search,search-rollout")
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--late", type=int, default=4, help="cards in hand at most for a late card decision")
    parser.add_argument("--out", default=None, help="write the result as JSON here too")
    args = parser.parse_args(argv)
    result = {"game": args.game, "deals": args.deals, "players": PLAYERS, "late_cards": args.late,
              "kinds": {kind: timed_kind(args.game, kind, args.deals, args.late) for kind in args.kinds.split(",")}}
    publish(result, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
