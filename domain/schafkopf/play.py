"""Trick play: which cards may be played (following, SK-6) and who takes a trick."""
from __future__ import annotations

from ..trick import Trick, best_play
from .cards import suit_of
from .game_types import order
from .state import Contract


def _called_suit_cards(hand, ace: str, rules_order) -> list[str]:
    """Cards of the called suit that follow it (Obers/Unters and Herz are trumps)."""
    suit = suit_of(ace)
    return [c for c in hand if rules_order.follow_key(c) == suit]


def legal_cards(hand: tuple[str, ...], trick: Trick, contract: Contract, *,
                holds_ace_bound: bool, tricks_done: int, hand_size: int = 8,
                stichzwang: bool = False) -> list[str]:
    """The cards of ``hand`` that may be played to ``trick``.

    ``holds_ace_bound`` is true for the holder of the called Ace while SK-6
    binds it: the called suit has not been led yet and he has not run away.
    ``stichzwang`` (Bettel house rule): following suit, a player who can beat
    the best card of the trick so far must do so.
    """
    rules_order = order(contract.game, contract.suit)
    ace = contract.called_ace
    last_trick = tricks_done == hand_size - 1
    if not trick.plays:
        if holds_ace_bound:
            suit_cards = _called_suit_cards(hand, ace, rules_order)
            # Davonlaufen: with the Ace and at least three more of the suit he
            # may lead a small one; otherwise the suit is led only by the Ace.
            if len(suit_cards) - 1 < 3:
                return [c for c in hand if c == ace or c not in suit_cards]
        return list(hand)
    led = rules_order.follow_key(trick.led)
    same = [c for c in hand if rules_order.follow_key(c) == led]
    if same:
        if holds_ace_bound and led == suit_of(ace):
            return [ace]  # the called Ace must fall when its suit is first led
        if stichzwang:
            best = max(rules_order.strength(c, led) for c in trick.cards)
            beating = [c for c in same if rules_order.strength(c, led) > best]
            return beating or same
        return same
    if holds_ace_bound and not last_trick:
        # Not discarded on another suit before the called suit has been led.
        return [c for c in hand if c != ace]
    return list(hand)


def trick_winner(trick: Trick, contract: Contract) -> int:
    rules_order = order(contract.game, contract.suit)
    led = rules_order.follow_key(trick.led)
    return best_play(trick.plays, lambda card: rules_order.strength(card, led))[0]


def leads_called_suit(card: str, contract: Contract) -> bool:
    ace = contract.called_ace
    return ace is not None and order(contract.game, contract.suit).follow_key(card) == suit_of(ace)
