"""The heuristic's choices outside the card play: announcing, naming, Doppeln, Stoß, the
auction, the Schieberrunde and the Hochzeit's card (see ``heuristic`` for the rules)."""
from __future__ import annotations

from ..cards import points, rank_of
from ..game_types import OBERS, PRECEDENCE, contracts_for, order, outranks
from ..hochzeit import TRUMPS as RUFSPIEL_TRUMPS
from . import hand as judge


def _command(legal, **match) -> dict | None:
    return next((c for c in legal if all(c.get(k) == v for k, v in match.items())), None)


def _options(hand, rules) -> list[tuple[str, str | None]]:
    return contracts_for(hand, rules.get("allowed_games", PRECEDENCE))


def announce(hand, rules, legal, someone_plays: bool) -> dict:
    """'play' with a game worth playing (after an earlier 'play': only one above the Rufspiel);
    a Hochzeit offer with its one trump; else 'pass'."""
    offer = _command(legal, intent="hochzeit")
    play = _command(legal, intent="play")
    if play is not None:
        chosen, _ = judge.best(hand, _options(hand, rules))
        if chosen is not None and (not someone_plays or outranks(chosen[0], "rufspiel")):
            return play
    if offer is not None:
        return offer
    return _command(legal, intent="pass") or legal[0]


def name(hand, legal) -> dict:
    """The best game among those still open; withdraw if none is worth it; forced, the least bad."""
    named = [(c["game"], c.get("suit")) for c in legal if c["type"] == "name_game"]
    withdraw = _command(legal, type="withdraw")
    chosen, _ = judge.best(hand, named)
    if chosen is None:
        if withdraw is not None or not named:
            return withdraw or legal[0]
        chosen = judge.least_bad(hand, named)
    game, suit = chosen
    return _command(legal, type="name_game", game=game, suit=suit) if suit else \
        _command(legal, type="name_game", game=game)


def doppeln(first_half, legal) -> dict:
    """Double with a first half of three trumps among them two Obers, or four trumps."""
    trumps = [c for c in first_half if c in RUFSPIEL_TRUMPS]
    obers = [c for c in trumps if c in OBERS]
    double = len(trumps) >= 4 or (len(trumps) >= 3 and len(obers) >= 2)
    return _command(legal, type="doppeln", double=double) or legal[0]


def stoss(hand, contract, declaring: bool, level: int) -> bool:
    """Kontra against a game this hand can break; Re with a very safe game; never Supra/Resupra."""
    game, suit = contract["game"], contract["suit"]
    trumps = judge.trumps_of(hand, game, suit)
    high = [c for c in trumps if rank_of(c) in ("O", "U")]
    aces = judge.free_aces(hand, game, suit)
    if level == 1 and not declaring:
        if game in ("rufspiel", "hochzeit"):
            return len(trumps) >= 5 or (len(trumps) >= 4 and len(high) >= 3 and aces >= 1)
        if game in ("wenz", "geier"):
            return len(trumps) >= 2 and aces >= 3
        return len(trumps) >= 4 and len(high) >= 2 and aces >= 1
    if level == 2 and declaring:
        return judge.margin(hand, game, suit) >= 4
    return False


def bid(hand, legal, game_named: tuple[str, str | None] | None) -> dict:
    """The auction: one raise with a very strong hand for the game named, else pass."""
    passing = _command(legal, type="pass")
    raises = [c for c in legal if c["type"] == "bid"]
    if game_named is not None and raises and raises[0]["target"] <= 71 and judge.margin(hand, *game_named) >= 3:
        return raises[0]
    return passing or legal[0]


def _best_solo_suit(hand) -> str:
    return max("EGHS", key=lambda s: (len(judge.trumps_of(hand, "solo", s)), s == "H"))


def schieber(hand, legal, takes_obers: bool) -> dict:
    """Play the Schieberrunde's Solo with five trumps in the best suit (the dealer counting the
    two Obers he would get)."""
    extra = list(OBERS[:2]) if takes_obers else []
    suit = _best_solo_suit(list(hand) + extra)
    play = len(judge.trumps_of(list(hand) + extra, "solo", suit)) >= 5
    return _command(legal, type="schieber", play=play) or legal[0]


def push(hand, legal, declarer: bool) -> dict:
    """The player passes his two weakest non-trumps; the others pass their two lowest cards
    (they are all defenders: a low card hurts nobody)."""
    suit = _best_solo_suit(hand)
    rules_order = order("solo", suit)

    def keep(card):
        return (rules_order.is_trump(card) if declarer else False, points(card), rules_order.strength(
            card, rules_order.follow_key(card)))
    worst = sorted(hand, key=keep)[:2]
    return next((c for c in legal if set(c["cards"]) == set(worst)), legal[0])


def give_card(hand, legal) -> dict:
    """Hochzeit: give the lowest non-trump (the partner's trick-taking does not depend on it)."""
    return min(legal, key=lambda c: (points(c["card"]), c["card"]))
