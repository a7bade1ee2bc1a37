"""The search's expected value of each move a seat could make: what the analysis of a finished
game (``domain/bots/analysis.py``) compares the move made with.

Every value is in one unit: this seat's payment of the deal plus a little for its side's card
points (``rollout.score``; a solved world's is the payment alone), averaged over sampled worlds of
what the seat knew (its ``Decision``: its view and redacted history). Each move's value in every
world is kept (``Estimates``), for the spreads the analysis marks by. Three kinds of decision are judged, by the search bot's own
machinery:

* A card (no Stoß open to the seat): the ``search`` bot's worlds, weighed by what the others said
  and their Stöße as the bot weighs them (``inference``), played out or, late in the deal, solved
  as the bot solves them (``search.search`` with ``solving``). Equivalent cards
  (``search.distinct``) share one value, so the playouts go to the cards that differ. Where the
  seat's knowledge fixes every hidden card's holder (``World.fixed``), the one world there is is
  solved (``solver``): the values are exact, the payment alone, both parties playing perfectly.
* The talk before the first card, as ``deal_search`` decides it: Doppeln, announcing ("Ich
  spiele" is worth its best game: the naming is judged on its own), naming the game and the called
  Ace (or withdrawing), the auction's raise or pass. ``deal_search.candidates`` and the move made,
  played out from the deal's start in the same worlds, weighed by what the others said
  (``deal_search.talk_values``, with inference).
* A card with a Stoß open to the seat: giving it (then the seat's best card) against each card
  without it, every candidate played out to the end in the same worlds (weighed by inference), the
  other seats' Stöße the heuristic's (``rollout.play_out``), this seat giving no other.

Not judged (None): the Hochzeit's card, the Schieberrunde's call and push (the heuristic's, never
searched: ``deal_search.HEURISTIC_ONLY``), the talk of a Schieberrunde deal (``talk_values`` does
not sample it), forced moves, and a decision where no sampled world fits what the seat saw.

Strategy fusion: a playout sees every sampled hand, which flatters a lone game and a Stoß. So a
lone game the heuristic would not play, or a Stoß it would not give, is offered as the better move
only where the search itself would take it (``deal_search.BOLD_MARGIN`` over the heuristic's
choice); a move made always keeps its value.
"""
from __future__ import annotations

from ...bots.estimate import Estimates
from ..simulator import INDEX, from_state
from . import cardplay, deal_search, heuristic
from .determinize import World
from .knowledge import read
from .rollout import play_out, score
from .search import NODES_PER_PLAYOUT, ROLLOUTS, _sampler, distinct, search, solve

# Least loss in payment units (default tariffs: a Rufspiel's base is 10) for each mark.
THRESHOLDS = {"inaccuracy": 2.0, "mistake": 5.0, "blunder": 10.0}
UNIT = "payment units per seat"  # what every value and loss is counted in (the analysis shows it)
STOSS = {"type": "stoss"}
EXACT_NODES = 10  # a fixed deal's solve may take ten times the nodes a sampled world's may: it is one


def values(decision, played: dict, playouts: int) -> Estimates | None:
    """Each move the search weighs, ``played`` among them, with its value in every sampled world;
    None when the decision is not one the search decides. At most ``playouts`` playouts, at least
    one world."""
    legal = decision.legal
    if len(legal) < 2 or played not in legal:
        return None
    if decision.view["game_state"]["phase"] != "play":
        return _talk(decision, played, playouts) if deal_search.is_talk(decision) else None
    if STOSS in legal:
        return _stoss(decision, played, playouts)
    if played.get("type") != "play":
        return None
    know = read(decision)
    cards = [c["card"] for c in legal if c["type"] == "play"]
    kept = distinct(cards, know, prefer=played["card"])
    got = Estimates([{"type": "play", "card": card} for card in kept])
    try:
        world = World.prepare(decision, know)  # once: for the fixed deal and for the sampled ones
        if _exactly(decision, world, kept, playouts, got):
            return got
        budget = max(playouts, len(kept))  # one world at the least, or no card has a value
        search(decision, know, kept, budget, ROLLOUTS["heuristic"], _sampler(decision, know, True, world),
               solving=True, record=lambda scores: got.add([scores[card] for card in kept]))
    except RuntimeError:  # no world fits what the seat saw
        return None
    return got if got.worlds else None


def _exactly(decision, world: World, cards: list[str], playouts: int, got: Estimates) -> bool:
    """Where the seat's knowledge fixes every hidden card's holder (``World.fixed``), the one world
    there is, solved: each card's exact payment, both parties playing perfectly from here. False
    (``got`` untouched) where it does not, in a Ramsch, or past the solver's nodes."""
    if not world.fixed():
        return False
    sim = from_state(world.sample(decision.rng).inner)
    scores = solve(sim, decision.seat, cards, playouts * NODES_PER_PLAYOUT * EXACT_NODES)
    if scores is None:
        return False
    got.add([scores[card] for card in cards])
    got.exact = True
    return True


def _talk(decision, played: dict, playouts: int) -> Estimates | None:
    options = deal_search.candidates(decision)
    if not any(command == played for command, _, _ in options):
        options.append((played, None, None))  # the rollout then names the heuristic's game for it
    if len(options) < 2:
        return None
    got = Estimates([command for command, _, _ in options])
    averages = deal_search.talk_values(decision, options, max(playouts, len(options)), inference=True,
                                       record=got.add)
    if not averages:
        return None
    games = [game for _, _, game in options]
    # The heuristic's choice is options[0]; a bold candidate counts only past the search's margin.
    credible = [not _bold(games[i], games[0]) or averages[i] - averages[0] > deal_search.BOLD_MARGIN
                for i in range(len(options))]
    keep: list[int] = []  # per command, its best credible candidate (any, for the move made)
    for command in _unique(command for command, _, _ in options):
        mine = [i for i, (c, _, _) in enumerate(options) if c == command]
        trusted = [i for i in mine if credible[i]]
        if trusted or command == played:
            keep.append(max(trusted or mine, key=averages.__getitem__))
    return got.kept(keep)


def _bold(game: str | None, heuristic_game: str | None) -> bool:
    """A lone game (Solo, Wenz, a Tout...) other than the heuristic's own (``deal_search._choose``)."""
    return game is not None and game not in deal_search.LONE and game != heuristic_game


def _unique(commands) -> list[dict]:
    out: list[dict] = []
    for command in commands:
        if command not in out:
            out.append(command)
    return out


def _stoss(decision, played: dict, playouts: int) -> Estimates | None:
    """The Stoß (then the best card) and each distinct card without it, in the same worlds."""
    know = read(decision)
    me, rng = decision.seat, decision.rng
    cards = [c["card"] for c in decision.legal if c["type"] == "play"]
    prefer = played["card"] if played.get("type") == "play" else \
        cardplay.choose(heuristic.situation(decision, know))
    kept = distinct(cards, know, prefer=prefer)
    rows = []  # per world: each card without the Stoß, then each with it
    try:
        draw = _sampler(decision, know, True)
        while not rows or (len(rows) + 1) * 2 * len(kept) <= playouts:
            sim = from_state(draw().inner)
            rows.append([_played_out(sim, me, card, rng, stoss=False) for card in kept] +
                        [_played_out(sim, me, card, rng, stoss=True) for card in kept])
    except RuntimeError:  # no world fits what the seat saw
        return None
    got = Estimates([{"type": "play", "card": card} for card in kept] + [STOSS] * len(kept))
    for row in rows:
        got.add(row)
    without = [got.mean(i) for i in range(len(kept))]
    best = max(range(len(kept), 2 * len(kept)), key=got.mean)  # the Stoß with its best card
    keep = list(range(len(kept)))
    # A Stoß the heuristic would not give is a strategy-fusion favourite: only past the search's margin.
    if played == STOSS or heuristic.stoss_wanted(decision, know) or \
            got.mean(best) - max(without) > deal_search.BOLD_MARGIN:
        keep.append(best)
    return got.kept(keep)


def _played_out(sim, me: int, card: str, rng, stoss: bool) -> float:
    played = sim.copy()
    if stoss:
        played.stoss()
    played.apply(INDEX[card])
    play_out(played, rng, silent=me)
    return score(played.settlement(), me)
