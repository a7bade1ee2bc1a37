"""Choosing a card: the heuristic's card play, also the search's rollout policy.

A ``Situation`` is what the choice needs: the hand, the legal cards, the trick
so far, the contract, who is known to be on this seat's side, the cards gone,
and either the voids seen so far (a real seat) or every hand (a rollout, where
the sampled world is known). The rules, by the game's goal:

* **Points (61)**, following: when a friend's card wins the trick and nobody
  after us can beat it (or only friends come), *schmieren*: give the card
  with most points that is no Ober/Unter. Else, when a card of ours wins:
  last to play, take the trick with the cheapest winner if it holds points or
  costs no trump; earlier, take it with the cheapest winner nobody after us
  can beat if the trick is worth it (or it is a plain Ace). Otherwise throw
  the cheapest card (no trump if possible, fewest points, lowest).
* **Points**, leading: the declaring side draws trumps (its highest trump if
  that is the highest still out, else its lowest) while it holds two or
  more; the defenders cash an Ace of a suit not yet played, in a Rufspiel
  play the called suit when they hold it (the Ace must fall), else lead the
  lowest card of their shortest plain suit; trumps last.
* **All tricks** (Tout, Sie): the declarer plays his strongest card; the
  defenders play as in a points game.
* **No tricks** (Bettel): the declarer plays the highest card that does not
  win the trick (the highest at all if every card wins), leads his lowest;
  the defenders play their lowest cards and lead their shortest suit.
* **Ramsch** (each for himself, fewest points): never take a trick one can
  leave: drop the highest card that loses (a point card onto another's
  trick); forced to win, win with the strongest card (it would only win
  later); lead the lowest plain card.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..cards import points, rank_of, suit_of
from ..game_types import OBERS, UNTERS, goal, order

HIGH_TRUMPS = frozenset(OBERS + UNTERS)


@dataclass
class Situation:
    seat: int
    hand: tuple[str, ...]
    legal: list[str]
    trick: tuple[tuple[int, str], ...]  # (seat, card) played to this trick so far
    game: str
    suit: str | None
    declarer: int | None
    called_ace: str | None
    friends: frozenset[int]  # seats known to play on this seat's side
    played: frozenset[str]  # cards gone this deal (the current trick's included; unused with ``hands``)
    deck: tuple[str, ...]
    led_before: frozenset[str] = frozenset()  # follow keys led in earlier tricks
    voids: dict = field(default_factory=dict)  # seat -> follow keys it cannot hold
    hands: dict | None = None  # seat -> hand, when every hand is known (a rollout)

    def unseen(self) -> list[str]:
        """The cards in the other hands."""
        if self.hands is not None:
            return [c for hand in self.hands.values() for c in hand]
        return [c for c in self.deck if c not in self.played and c not in self.hand]

    @property
    def declaring(self) -> bool:
        """Is this seat on the declaring side (as far as it knows)?"""
        return self.declarer is not None and (self.seat == self.declarer or self.declarer in self.friends)


def _key(rules_order, card: str) -> str:
    return rules_order.follow_key(card)


def _power(rules_order, card: str) -> tuple[int, int]:
    return rules_order.strength(card, _key(rules_order, card))


def _cheap(rules_order, card: str) -> tuple:
    """How little a card is worth keeping: plain before trump, few points, low."""
    return (rules_order.is_trump(card), points(card), _power(rules_order, card))


def _after_me(s: Situation) -> list[int]:
    return [(s.seat + i) % 4 for i in range(1, 4 - len(s.trick))]


def _beatable(s: Situation, rules_order, card: str, led: str, seats: list[int]) -> bool:
    """Could one of ``seats`` (still to play) beat ``card``?"""
    mine = rules_order.strength(card, led)
    if s.hands is not None:
        for seat in seats:
            hand = s.hands[seat]
            same = [c for c in hand if _key(rules_order, c) == led]
            if any(rules_order.strength(c, led) > mine for c in (same or hand)):
                return True
        return False
    unseen = s.unseen()
    for seat in seats:
        voids = s.voids.get(seat, ())
        # A player may trump a plain suit only when void in it: known void, or likely once the suit went round.
        may_ruff = led != "T" and (led in voids or led in s.led_before)
        for c in unseen:
            key = _key(rules_order, c)
            if key in voids:
                continue
            if (key == led or (key == "T" and may_ruff)) and rules_order.strength(c, led) > mine:
                return True
    return False


def _winning(trick, rules_order, led: str) -> tuple[int, str]:
    best = trick[0]
    for play in trick[1:]:
        if rules_order.strength(play[1], led) > rules_order.strength(best[1], led):
            best = play
    return best


def choose(s: Situation) -> str:
    if len(s.legal) == 1:
        return s.legal[0]
    rules_order = order(s.game, s.suit)
    kind = "ramsch" if s.game == "ramsch" else goal(s.game)
    if not s.trick:
        return _lead(s, rules_order, kind)
    led = _key(rules_order, s.trick[0][1])
    best_seat, best_card = _winning(s.trick, rules_order, led)
    best_strength = rules_order.strength(best_card, led)
    winners = sorted((c for c in s.legal if rules_order.strength(c, led) > best_strength),
                     key=lambda c: rules_order.strength(c, led))
    losers = [c for c in s.legal if c not in winners]
    if kind == "ramsch":
        if losers:
            return max(losers, key=lambda c: (points(c), _power(rules_order, c)))
        return max(winners, key=lambda c: rules_order.strength(c, led))
    if kind == "no_tricks" and s.seat == s.declarer:
        if losers:
            return max(losers, key=lambda c: rules_order.strength(c, led))
        return winners[-1]
    if kind == "no_tricks":
        return min(s.legal, key=lambda c: _cheap(rules_order, c))
    if kind == "all_tricks" and s.seat == s.declarer:
        return winners[-1] if winners else min(s.legal, key=lambda c: _cheap(rules_order, c))
    return _follow_for_points(s, rules_order, led, best_seat, best_card, winners)


def _follow_for_points(s: Situation, rules_order, led: str, best_seat: int, best_card: str,
                       winners: list[str]) -> str:
    later = _after_me(s)
    foes_later = [seat for seat in later if seat not in s.friends]
    trick_points = sum(points(c) for _, c in s.trick)
    cheapest = min(s.legal, key=lambda c: _cheap(rules_order, c))
    if best_seat in s.friends and not _beatable(s, rules_order, best_card, led, foes_later):
        gifts = [c for c in s.legal if c not in HIGH_TRUMPS]
        return max(gifts, key=lambda c: (points(c), -_power(rules_order, c)[0])) if gifts else cheapest
    if not winners:
        return cheapest
    if not later:
        take = winners[0]
        if trick_points >= 3 or not rules_order.is_trump(take) or best_seat not in s.friends:
            return take if (trick_points + points(take) > 0 or best_seat not in s.friends) else cheapest
        return cheapest
    safe = [c for c in winners if not _beatable(s, rules_order, c, led, foes_later)]
    if safe and (trick_points >= 3 or rank_of(safe[0]) == "A" or best_seat not in s.friends):
        if best_seat in s.friends and trick_points < 10:
            return cheapest
        return safe[0]
    if trick_points >= 10 and best_seat not in s.friends:
        return winners[-1]
    return cheapest


def _lead(s: Situation, rules_order, kind: str) -> str:
    legal = s.legal
    trumps = sorted((c for c in legal if rules_order.is_trump(c)), key=lambda c: _power(rules_order, c))
    plain = [c for c in legal if not rules_order.is_trump(c)]
    if kind == "ramsch":
        pool = plain or legal
        return min(pool, key=lambda c: (_power(rules_order, c), points(c)))
    if kind == "no_tricks":
        if s.seat == s.declarer:
            return min(legal, key=lambda c: _power(rules_order, c))
        return min(legal, key=lambda c: (_suit_length(s.hand, rules_order, c), _power(rules_order, c)))
    if kind == "all_tricks" and s.seat == s.declarer:
        return max(legal, key=lambda c: (rules_order.is_trump(c), _power(rules_order, c)))
    unseen = s.unseen()
    unseen_trumps = [c for c in unseen if rules_order.is_trump(c)]
    if s.declaring:
        all_trumps = [c for c in s.hand if rules_order.is_trump(c)]
        if trumps and len(all_trumps) >= 2 and unseen_trumps:
            top = trumps[-1]
            if all(_power(rules_order, top) > _power(rules_order, c) for c in unseen_trumps):
                return top
            return trumps[0]
    aces = [c for c in plain if rank_of(c) == "A" and _key(rules_order, c) not in s.led_before]
    if aces:
        return aces[0]
    if not s.declaring and s.called_ace is not None and s.called_ace in unseen:
        called = [c for c in plain if suit_of(c) == suit_of(s.called_ace)]
        if called:
            return min(called, key=lambda c: _power(rules_order, c))
    if plain:
        if s.declaring:
            boss = [c for c in plain if not any(
                _key(rules_order, u) == _key(rules_order, c) and _power(rules_order, u) > _power(rules_order, c)
                for u in unseen)]
            if boss:
                return max(boss, key=points)
        return min(plain, key=lambda c: (_suit_length(s.hand, rules_order, c), points(c), _power(rules_order, c)))
    return trumps[0]


def _suit_length(hand, rules_order, card: str) -> int:
    key = _key(rules_order, card)
    return sum(1 for c in hand if _key(rules_order, c) == key)
