"""``python -m bench.inference [--games N] [--players heuristic,search-deal] [--draws D] [--seed S] [--out FILE]``

How much the search bots' inference moves their sampled deals towards the true hands: the
information it extracts from the other seats' public choices, per game.

For each game and each kind of players (all four seats played by that bot: ``heuristic``, so the
inference's model of the other seats is exact; ``search-deal``, the search without inference,
so the model is mismatched) it plays N seeded one-deal games through the real table, as
``domain.bots.match.play`` does, keeping the true state beside each decision. At every card-play
decision with more than one legal command and something of another seat's to infer from, it
draws D deals with the search's own sampler for that seat and the search's own inference
weights them, exactly as the search builds them from the seat's ``Decision``; the true state
only scores the draws. A draw's **accuracy** is the share of the cards the other seats still
hold (in truth) that the draw puts in the right hand.

Per game, player kind and inference it reports: decisions measured; the uniform mean accuracy
(what the search without inference plays on); **posterior gain**, the weighted mean accuracy
minus the uniform mean; and **as used**: Schafkopf and Scharfe Schoten keep one draw of k by
weight (sampling-importance-resampling, k = ``POOL`` / ``CANDIDATES``), so the gain of the kept
draw, the mean over groups of k draws of each group's weighted mean accuracy, minus the uniform
mean; Scharwenzel averages its playouts with the weights, so its "as used" is the posterior gain.
Each with its standard error over decisions (the decisions of one game are not independent, so
the error is on the small side).

The games' own searches play with ``--playouts`` (24 by default, to keep the games quick): it
changes how the players play, not how a decision is measured.
"""
from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from domain.bots import match
from domain.bots.decision import Decision
from domain.registry import all_games
from domain.schafkopf.bots import BOTS as SCHAFKOPF_BOTS
from domain.schafkopf.bots.determinize import World
from domain.schafkopf.bots.inference import POOL, Prior
from domain.scharfe_schoten.bots import BOTS as SCHARFE_SCHOTEN_BOTS
from domain.scharfe_schoten.bots.determinize import Determinizer
from domain.scharfe_schoten.bots.inference import Inference, PlayInference
from domain.scharfe_schoten.bots.search import CANDIDATES
from domain.scharwenzel.bots import BOTS as SCHARWENZEL_BOTS
from domain.scharwenzel.bots.determinize import sample_hands, starting_hands
from domain.scharwenzel.bots.knowledge import read as read_scharwenzel
from domain.scharwenzel.bots.search import weigher
from domain.table import Table, TableState

PLAYERS = 4
DEFAULT_GAMES = 3
DEFAULT_DRAWS = 120
DEFAULT_PLAYOUTS = 24
DEFAULT_SEED = 900
DEFAULT_KINDS = ("heuristic", "search-deal")
MAX_MOVES = 20_000


@dataclass
class Draws:
    """One measured decision: each draw's accuracy, and its weight by each inference."""
    accuracy: list[float]
    weights: dict[str, list[float]]


# A measurer reads the seat's decision (the bots' side) and the true state (the scorer's side
# only) and gives the decision's draws, or None when the decision is not measured.
Measurer = Callable[[Decision, TableState, int, random.Random], "Draws | None"]


def accuracy(truth: Sequence[Collection[str]], drawn: Sequence[Collection[str]], seat: int) -> float:
    """The share of the cards the other seats hold in truth that ``drawn`` gives the right seat.
    ``drawn[s]`` may hold more than seat s holds now (its played cards): those match no card in
    a hand now, so they do not count."""
    right = total = 0
    for other, hand in enumerate(truth):
        if other == seat:
            continue
        total += len(hand)
        right += len(set(hand) & set(drawn[other]))
    return right / total if total else 1.0


# -- Schafkopf ---------------------------------------------------------------------------------
def measure_schafkopf(decision: Decision, state: TableState, draws: int, rng: random.Random) -> Draws | None:
    """The search's sampler with inference (``search._sampler``): ``World`` draws, weighed by
    ``Prior.replay(draw, play=True)`` (the talk and the first tricks' Stöße)."""
    if decision.view["game_state"]["phase"] != "play" or len(decision.legal) < 2:
        return None
    world = World.prepare(decision)
    prior = Prior(world, decision.seat, rng)
    if not any(seat != decision.seat for seat, _ in prior.observed.talk):
        return None
    truth = state.inner.hands
    result = Draws([], {"talk+Stoss": []})
    for _ in range(draws):
        draw = prior.draw(rng)
        # The draw holds the hands as dealt; a Hochzeit or a Schieberrunde moved cards since, so the
        # hands now come from the fold, as the search's playouts see them.
        result.accuracy.append(accuracy(truth, world.build(draw).inner.hands, decision.seat))
        result.weights["talk+Stoss"].append(prior.replay(draw, play=True)[0])
    return result


# -- Scharwenzel -------------------------------------------------------------------------------
def measure_scharwenzel(decision: Decision, state: TableState, draws: int, rng: random.Random) -> Draws | None:
    """The search's card play (``search.choose_card``): ``sample_hands`` draws the hands now,
    weighed by ``weigher`` on their starting hands: the bidding (the bids, the trumps, the tout)
    alone, and with the cards played too (the search's)."""
    legal = decision.legal
    if len(legal) < 2 or legal[0]["type"] != "play":
        return None
    known = read_scharwenzel(decision)
    weighers = {"bidding": weigher(decision, known, cards=False), "bidding+cards": weigher(decision, known)}
    if weighers["bidding+cards"] is None:
        return None
    truth = state.inner.hands
    result = Draws([], {name: [] for name in weighers})
    for _ in range(draws):
        hands = sample_hands(known, rng)
        result.accuracy.append(accuracy(truth, hands, decision.seat))
        starting = starting_hands(known, hands)
        for name, weigh in weighers.items():
            result.weights[name].append(1.0 if weigh is None else weigh(starting))
    return result


# -- Scharfe Schoten ---------------------------------------------------------------------------
def measure_scharfe_schoten(decision: Decision, state: TableState, draws: int, rng: random.Random) -> Draws | None:
    """The search's ``draw``: ``Determinizer.draw`` deals, weighed by the revealed predictions
    (``Inference``), the cards played (``PlayInference``) and both (search-infer's product)."""
    if decision.view["game_state"]["phase"] != "playing" or len(decision.legal) < 2:
        return None
    sampler = Determinizer(decision)
    predictions, cards = Inference(sampler.deal, decision.players), PlayInference(sampler)
    if not (predictions.informed or cards.informed):
        return None
    truth = state.inner.hands
    result = Draws([], {"predictions": [], "cards": [], "both": []})
    for _ in range(draws):
        drawn = sampler.draw(rng)
        by_prediction, by_cards = predictions.of(drawn), cards.of(drawn)
        result.accuracy.append(accuracy(truth, drawn[0], decision.seat))  # dealt hands: played cards do not count
        result.weights["predictions"].append(by_prediction)
        result.weights["cards"].append(by_cards)
        result.weights["both"].append(by_prediction * by_cards)
    return result


@dataclass(frozen=True)
class GameSpec:
    name: str
    rules: dict
    bots: dict
    measure: Measurer
    resample: int | None  # the search keeps one draw of this many by weight; None: weights used directly


GAMES = (
    GameSpec("schafkopf", {"deals": 1}, SCHAFKOPF_BOTS, measure_schafkopf, POOL),
    GameSpec("scharwenzel", {"deals": 1}, SCHARWENZEL_BOTS, measure_scharwenzel, None),
    GameSpec("scharfe-schoten", {"rounds": 1}, SCHARFE_SCHOTEN_BOTS, measure_scharfe_schoten, CANDIDATES),
)


# -- scoring -----------------------------------------------------------------------------------
def weighted_mean(values: Sequence[float], weights: Sequence[float]) -> float:
    """The weighted mean; with no weight at all, the plain mean (the searches then fall back to
    a uniform draw)."""
    total = sum(weights)
    if total <= 0:
        return statistics.fmean(values)
    return sum(v * w for v, w in zip(values, weights)) / total


def resampled_mean(values: Sequence[float], weights: Sequence[float], k: int) -> float:
    """The expected accuracy of the draw SIR keeps from each group of ``k`` consecutive draws."""
    groups = len(values) // k
    return statistics.fmean(weighted_mean(values[g * k:(g + 1) * k], weights[g * k:(g + 1) * k])
                            for g in range(groups))


def score(draws: Draws, resample: int | None) -> dict:
    """One decision's figures: the uniform mean, and per inference its posterior gain and its
    gain as the search uses it."""
    uniform = statistics.fmean(draws.accuracy)
    out = {"uniform": uniform, "posterior": {}, "used": {}}
    for name, weights in draws.weights.items():
        out["posterior"][name] = weighted_mean(draws.accuracy, weights) - uniform
        if resample is None:
            out["used"][name] = out["posterior"][name]
        else:
            # Against the same draws' uniform mean, so the groups' remainder does not add noise.
            kept = draws.accuracy[:len(draws.accuracy) // resample * resample]
            out["used"][name] = resampled_mean(kept, weights, resample) - statistics.fmean(kept)
    return out


def mean_and_error(values: Sequence[float]) -> dict:
    mean = statistics.fmean(values)
    error = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.nan
    return {"mean": mean, "se": error}


def summarise(scores: list[dict]) -> dict:
    """Per inference: decisions, uniform accuracy, posterior gain and gain as used, with errors."""
    if not scores:
        return {"decisions": 0, "uniform": None, "inferences": {}}
    names = scores[0]["posterior"]
    return {"decisions": len(scores), "uniform": mean_and_error([s["uniform"] for s in scores]),
            "inferences": {name: {"posterior": mean_and_error([s["posterior"][name] for s in scores]),
                                  "used": mean_and_error([s["used"][name] for s in scores])} for name in names}}


# -- playing -----------------------------------------------------------------------------------
def seed_of(seed: int, index: int) -> str:
    """Game ``index``'s deal seed: the same deals for every kind of players."""
    return f"{seed + index:064x}"


def play_measured(table: Table, spec: GameSpec, kind: str, index: int, seed: int, draws: int,
                  playouts: int) -> list[dict]:
    """One game of ``kind`` at every seat (``match.play``), every eligible decision measured."""
    scores = []
    moves = itertools.count()

    def observe(state, decision) -> None:
        # Its own generator: measuring a decision leaves the game as it would be without it.
        measured = spec.measure(decision, state, draws, random.Random(f"draws/{seed}/{index}/{next(moves)}"))
        if measured is not None:
            scores.append(score(measured, spec.resample))

    match.play(table, spec.name, PLAYERS, spec.rules, [spec.bots[kind]] * PLAYERS, seed_of(seed, index),
               rng_seed=f"{seed}/{index}", max_moves=MAX_MOVES, playouts=playouts, observe=observe)
    return scores


def measure(games: int = DEFAULT_GAMES, kinds: Sequence[str] = DEFAULT_KINDS, draws: int = DEFAULT_DRAWS,
            seed: int = DEFAULT_SEED, playouts: int = DEFAULT_PLAYOUTS, only: Sequence[str] | None = None,
            progress: Callable[[str], None] = lambda _: None) -> dict:
    """Every game (or those in ``only``) × every kind of players: the summary (see ``summarise``)."""
    table = Table(all_games())
    results: dict = {"games": games, "draws": draws, "seed": seed, "playouts": playouts, "results": {}}
    for spec in GAMES:
        if only is not None and spec.name not in only:
            continue
        results["results"][spec.name] = {}
        for kind in kinds:
            start = time.perf_counter()
            scores = []
            for index in range(games):
                scores += play_measured(table, spec, kind, index, seed, draws, playouts)
            summary = summarise(scores)
            summary["seconds"] = round(time.perf_counter() - start, 1)
            summary["resample"] = spec.resample
            results["results"][spec.name][kind] = summary
            progress(f"{spec.name} {kind}: {summary['decisions']} decisions, {summary['seconds']} s")
    return results


def format_table(results: dict) -> str:
    lines = [(f"inference: {results['games']} one-deal games per game and players, {results['draws']} draws "
              f"a decision, seed {results['seed']}, the players' searches at {results['playouts']} playouts"),
             (f"{'game':<16}{'players':<13}{'inference':<13}{'decisions':>9}{'uniform':>9}"
              f"{'posterior gain':>20}{'as used':>20}  used as")]
    for game, kinds in results["results"].items():
        for kind, summary in kinds.items():
            if not summary["decisions"]:
                lines.append(f"{game:<16}{kind:<13}{'-':<13}{0:>9}")
                continue
            used_as = "weights" if summary["resample"] is None else f"SIR of {summary['resample']}"
            for name, figures in summary["inferences"].items():
                lines.append(f"{game:<16}{kind:<13}{name:<13}{summary['decisions']:>9}"
                             f"{summary['uniform']['mean']:>9.3f}{_signed(figures['posterior']):>20}"
                             f"{_signed(figures['used']):>20}  {used_as}")
    lines.append("gains: weighted mean accuracy - uniform mean, ± one standard error over decisions")
    return "\n".join(lines)


def _signed(figure: dict) -> str:
    return f"{figure['mean']:+.4f} ± {figure['se']:.4f}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.inference", description=__doc__.split("\n\n")[1])
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES, help="one-deal games per game and players")
    parser.add_argument("--players", default=",".join(DEFAULT_KINDS), help="bot kinds, comma-separated")
    parser.add_argument("--draws", type=int, default=DEFAULT_DRAWS, help="sampled deals a decision")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--playouts", type=int, default=DEFAULT_PLAYOUTS, help="the players' own search budget")
    parser.add_argument("--only", help="games to run, comma-separated (default: all three)")
    parser.add_argument("--out", help="write the figures as JSON here")
    args = parser.parse_args(argv)
    kinds = [k for k in args.players.split(",") if k]
    only = args.only.split(",") if args.only else None
    results = measure(args.games, kinds, args.draws, args.seed, args.playouts, only,
                      progress=lambda line: print(line, file=sys.stderr, flush=True))
    print(format_table(results))
    if args.out:
        with open(args.out, "w") as out:
            json.dump(results, out, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
