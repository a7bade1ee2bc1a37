"""The search's expected value of each move a seat could make: what the analysis of a finished
game (``domain/bots/analysis.py``) compares the move made with.

Every value is in one unit: this seat's payment of the deal plus a little for its side's card
points (``rollout.score``), averaged over sampled worlds of what the seat knew (its ``Decision``:
its view and redacted history). Three kinds of decision are judged, by the search bot's own
machinery:

* A card (no Stoß open to the seat): the ``search`` bot's worlds and playouts (``search.search``).
  Equivalent cards (``search.distinct``) share one value, so the playouts go to the cards that
  differ.
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

from ..simulator import INDEX, from_state
from . import cardplay, deal_search, heuristic
from .determinize import World
from .inference import Prior, pick
from .knowledge import read
from .rollout import play_out, score
from .search import ROLLOUTS, distinct, search

# Least loss in payment units (default tariffs: a Rufspiel's base is 10) for each mark.
THRESHOLDS = {"inaccuracy": 2.0, "mistake": 5.0, "blunder": 10.0}
UNIT = "payment units per seat"  # what every value and loss is counted in (the analysis shows it)
STOSS = {"type": "stoss"}


def values(decision, played: dict, playouts: int) -> list[tuple[dict, float]] | None:
    """(command, expected value) for each move the search weighs, ``played`` among them; None when
    the decision is not one the search decides. At most ``playouts`` playouts, at least one world."""
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
    budget = max(playouts, len(kept))  # one world at the least, or no card has a value
    try:
        averages = search(decision, know, kept, budget, ROLLOUTS["heuristic"])
    except RuntimeError:  # no world fits what the seat saw
        return None
    if not averages:
        return None
    return [({"type": "play", "card": card}, averages[card]) for card in kept if card in averages]


def _talk(decision, played: dict, playouts: int) -> list[tuple[dict, float]] | None:
    options = deal_search.candidates(decision)
    if not any(command == played for command, _, _ in options):
        options.append((played, None, None))  # the rollout then names the heuristic's game for it
    if len(options) < 2:
        return None
    averages = deal_search.talk_values(decision, options, max(playouts, len(options)), inference=True)
    if not averages:
        return None
    games = [game for _, _, game in options]
    # The heuristic's choice is options[0]; a bold candidate counts only past the search's margin.
    credible = [not _bold(games[i], games[0]) or averages[i] - averages[0] > deal_search.BOLD_MARGIN
                for i in range(len(options))]
    out: list[tuple[dict, float]] = []
    for command in _unique(command for command, _, _ in options):
        mine = [i for i, (c, _, _) in enumerate(options) if c == command]
        trusted = [averages[i] for i in mine if credible[i]]
        if trusted or command == played:
            out.append((command, max(trusted or [averages[i] for i in mine])))
    return out


def _bold(game: str | None, heuristic_game: str | None) -> bool:
    """A lone game (Solo, Wenz, a Tout...) other than the heuristic's own (``deal_search._choose``)."""
    return game is not None and game not in deal_search.LONE and game != heuristic_game


def _unique(commands) -> list[dict]:
    out: list[dict] = []
    for command in commands:
        if command not in out:
            out.append(command)
    return out


def _stoss(decision, played: dict, playouts: int) -> list[tuple[dict, float]] | None:
    """The Stoß (then the best card) and each distinct card without it, in the same worlds."""
    know = read(decision)
    me, rng = decision.seat, decision.rng
    cards = [c["card"] for c in decision.legal if c["type"] == "play"]
    prefer = played["card"] if played.get("type") == "play" else \
        cardplay.choose(heuristic.situation(decision, know))
    kept = distinct(cards, know, prefer=prefer)
    try:
        draw = _sampler(decision, know)
        plain, stossed = [0.0] * len(kept), [0.0] * len(kept)
        worlds = 0
        while worlds == 0 or (worlds + 1) * 2 * len(kept) <= playouts:
            sim = from_state(draw().inner)
            for i, card in enumerate(kept):
                plain[i] += _played_out(sim, me, card, rng, stoss=False)
                stossed[i] += _played_out(sim, me, card, rng, stoss=True)
            worlds += 1
    except RuntimeError:  # no world fits what the seat saw
        return None
    without = [total / worlds for total in plain]
    given = max(total / worlds for total in stossed)
    out = [({"type": "play", "card": card}, value) for card, value in zip(kept, without)]
    # A Stoß the heuristic would not give is a strategy-fusion favourite: only past the search's margin.
    if played == STOSS or heuristic.stoss_wanted(decision, know) or given - max(without) > deal_search.BOLD_MARGIN:
        out.append((STOSS, given))
    return out


def _played_out(sim, me: int, card: str, rng, stoss: bool) -> float:
    played = sim.copy()
    if stoss:
        played.stoss()
    played.apply(INDEX[card])
    play_out(played, rng, silent=me)
    return score(played.settlement(), me)


def _sampler(decision, know):
    """One sampled state of the deal now a call, drawn by its likelihood given what the others said
    and their Stöße (``inference.pick``, as the ``search`` bot draws them); uniform when none fits."""
    world = World.prepare(decision, know)
    prior = Prior(world, decision.seat, decision.rng)

    def draw():
        got = pick(prior, decision.rng, play=True)
        return world.build(got[0]) if got is not None else world.sample(decision.rng)

    return draw
