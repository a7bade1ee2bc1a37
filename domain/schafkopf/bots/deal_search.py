"""Whole-deal decisions: Doppeln, announcing, naming, the auction raise and Stoß, by search.

For such a decision it samples the deal from its start consistently with what the seat knows
(``determinize.World.draw``; before the pickup ``draw_before_pickup``), replays what was said
so far through the simulator (``inference.Prior``: with inference the draws are weighed by how
likely the heuristic with those hands says what was said; without, a draw only has to be able
to say it), and from the seat's moment plays each candidate and the rest of the deal with the
heuristic for every seat's talk, Stoß and cards (``rollout.play_out``). Every candidate is
tried in the same worlds; the best average wins.

The candidates: Doppeln yes/no; every announcement the seat may make, "Ich spiele" once per
game it would then name (the games the heuristic rates worth playing, or its least bad one,
at most ``GAMES``: the rollout names that game for it, so "Ich spiele" is worth what its best
game is); in the naming round the heuristic's game, the others it rates worth playing and
"Weiter"; in the auction a pass or one raise; a Stoß or none. The Hochzeit's card and the
Schieberrunde stay the heuristic's (``HEURISTIC_ONLY``).

Strategy fusion: in a playout every seat plays the sampled hands as if it saw them, which
flatters an ambitious game (the declarer of a Solo never misguesses a card). So a candidate
must beat the heuristic's choice by ``MARGIN`` payment units, and a lone game (Solo, Wenz, a
Tout...) or a Stoß the heuristic would not take by ``BOLD_MARGIN`` (measured: see
docs/bots-and-arena.md).
"""
from __future__ import annotations

from ..game_types import PRECEDENCE, contracts_for, outranks
from ..simulator import action_of, from_state
from . import hand as judge
from . import heuristic
from .determinize import World
from .inference import FLOOR, Prior, pick
from .knowledge import read
from .rollout import play_out, score

GAMES = 3  # games tried behind one "Ich spiele"
MARGIN = 1.0  # payment units a candidate must gain over the heuristic's choice (noise)
BOLD_MARGIN = 10.0  # ... a lone game or a Stoß the heuristic would not take (strategy fusion)
LONE = ("rufspiel", "hochzeit", "ramsch")  # games that are *not* lone; others are
TALK = ("announce", "name_game", "withdraw", "doppeln", "bid", "pass")
HEURISTIC_ONLY = ("give_card", "schieber", "push")
FAILURES = 20  # draws that cannot have said what was said, before the search gives up


def _lone(game: str | None) -> bool:
    return game is not None and game not in LONE


def _ranked(hand, options) -> list[tuple[str, str | None]]:
    """The heuristic's choice first, then the others worth playing by margin, at most ``GAMES``."""
    chosen, _ = judge.best(hand, options)
    worth = sorted((o for o in options if judge.margin(hand, *o) > 0 and o != chosen),
                   key=lambda o: -judge.margin(hand, *o))
    ranked = ([chosen] if chosen else []) + worth
    if not ranked and options:
        ranked = [judge.least_bad(hand, options)]
    return ranked[:GAMES]


def candidates(decision) -> list[tuple[dict, int | None, str | None]]:
    """(command, the naming action its rollout takes for this seat, the game it stands for); the
    heuristic's choice first."""
    legal = decision.legal
    game_state = decision.view["game_state"]
    hand = tuple(game_state["hand"] or ())
    chosen = heuristic.policy(decision)
    kinds = {c["type"] for c in legal}
    out: list[tuple[dict, int | None, str | None]] = []
    if "announce" in kinds:
        options = contracts_for(hand, decision.rules.get("allowed_games", PRECEDENCE))
        if any(a["intent"] == "play" for a in game_state["announcements"]):
            options = [o for o in options if outranks(o[0], "rufspiel")]
        offered = game_state.get("hochzeit")
        if offered is not None and offered != decision.seat and decision.rules.get("hochzeit"):
            options.append(("hochzeit", None))
        games = _ranked(hand, options)
        for command in legal:
            if command["intent"] != "play":
                out.append((command, None, None))
                continue
            for game, suit in games:
                out.append((command, _name(game, suit), game))
        heuristic_game = games[0][0] if games else None
        first = next((i for i, (c, _, g) in enumerate(out) if c == chosen
                      and (c["intent"] != "play" or g == heuristic_game)), 0)
        out.insert(0, out.pop(first))
        return out
    if "name_game" in kinds or "withdraw" in kinds:
        named = [(c["game"], c.get("suit")) for c in legal if c["type"] == "name_game"]
        keep = set(_ranked(hand, named))
        for command in legal:
            if command == chosen or command["type"] == "withdraw" or (command["game"], command.get("suit")) in keep:
                out.append((command, None, command.get("game")))
    elif "doppeln" in kinds:
        out = [(c, None, None) for c in legal]
    elif "bid" in kinds or game_state["phase"] == "auction":
        raises = [c for c in legal if c["type"] == "bid"]
        out = [(c, None, None) for c in legal if c["type"] == "pass"] + [(c, None, None) for c in raises[:1]]
    if not any(c == chosen for c, _, _ in out):
        out.append((chosen, None, None))
    first = next(i for i, (c, _, _) in enumerate(out) if c == chosen)
    out.insert(0, out.pop(first))
    return out


def _name(game: str, suit: str | None) -> int:
    command = {"type": "name_game", "game": game}
    if suit:
        command["suit"] = suit
    return action_of(command)


def is_talk(decision) -> bool:
    kinds = {c["type"] for c in decision.legal}
    return bool(kinds & set(TALK)) and not kinds & set(HEURISTIC_ONLY)


def decide_talk(decision, playouts: int, inference: bool) -> dict:
    """The command for a decision before the first card (``is_talk``)."""
    options = candidates(decision)
    if len(options) == 1:
        return options[0][0]
    averages = talk_values(decision, options, playouts, inference)
    if not averages:
        return options[0][0]
    return options[_choose(averages, [game for _, _, game in options])][0]


def _choose(averages: list[float], games: list[str | None]) -> int:
    """The best candidate, the heuristic's (index 0) unless another beats it by the margin."""
    best = max(range(len(averages)), key=lambda i: averages[i])
    bold = _lone(games[best]) and games[best] != games[0]
    if averages[best] - averages[0] > (BOLD_MARGIN if bold else MARGIN):
        return best
    return 0


def talk_values(decision, options, playouts: int, inference: bool, record=None) -> list[float]:
    """Each candidate's average score over the same sampled deals (empty: no deal fits).
    ``record(scores)`` is told each deal's scores, in ``options``' order."""
    me, rng = decision.seat, decision.rng
    know = read(decision)
    world = World.prepare(decision, know)
    if world.deal and world.deal[0]["data"].get("schieberrunde"):
        return []
    try:
        prior = Prior(world, me, rng, before_pickup=decision.view["game_state"]["phase"] == "doppeln",
                      floor=FLOOR if inference else 1.0)
    except RuntimeError:
        return []
    totals = [0.0] * len(options)
    worlds = failures = 0
    actions = [action_of(command) for command, _, _ in options]
    while (worlds + 1) * len(options) <= playouts and not decision.out_of_time():
        got = pick(prior, rng, play=False)
        if got is None or got[1].talk is None or got[1].to_move() != me or any(
                not got[1].legal() >> a & 1 for a in actions):
            failures += 1
            if failures > FAILURES:
                break
            continue
        sim = got[1]
        scores = []
        for action, (_, plan, _) in zip(actions, options):
            played = sim.copy()
            played.apply(action)
            play_out(played, rng, plan={me: plan} if plan is not None else None)
            scores.append(score(played.settlement(), me))
        totals = [total + s for total, s in zip(totals, scores)]
        if record is not None:
            record(scores)
        worlds += 1
    return [total / worlds for total in totals] if worlds else []


def stoss_values(decision, know, worlds_budget: int, sampler) -> tuple[float, float] | None:
    """(average score giving the Stoß now, not giving it) over sampled worlds in play; the rest of
    the deal by the heuristic with its Stöße, this seat giving no other."""
    rng, me = decision.rng, decision.seat
    totals = [0.0, 0.0]
    worlds = 0
    while worlds < worlds_budget and not decision.out_of_time():
        sim = from_state(sampler().inner)
        for i in (0, 1):
            played = sim.copy()
            if i == 0:
                played.stoss()
            play_out(played, rng, silent=me)
            totals[i] += score(played.settlement(), me)
        worlds += 1
    return (totals[0] / worlds, totals[1] / worlds) if worlds else None


def decide_stoss(decision, know, budget: int, sampler) -> bool:
    """Give the Stoß now? The heuristic's answer unless the search finds the other better by the margin."""
    wanted = heuristic.stoss_wanted(decision, know)
    values = stoss_values(decision, know, max(1, budget // 2), sampler)
    if values is None:
        return wanted
    gain = values[0] - values[1]
    if wanted:
        return gain > -MARGIN
    return gain > BOLD_MARGIN

