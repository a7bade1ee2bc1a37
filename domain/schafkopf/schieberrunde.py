"""The Schieberrunde (house rule ``schieberrunde``, SK-12; rulebook "Passing Round").

The Schafkopf rulebook: "It is only possible after a won Herzsolo. In this passing round,
the player in Vorhand (first seat) receives the Acorn Ober and the Leaves
Ober from the dealer beforehand. Then, as usual, two batches of four cards
each (three with the short deck) are dealt, leaving the dealer short of
cards on the second round. Vorhand can now set aside two poor cards and play
a suit solo. If Vorhand cannot play a suit solo, they say "I'm not playing"
and offer the dealer the high trumps, who then decides whether to play a
solo. If Vorhand does play, they pass the discarded cards to the next
player, who in turn passes on two cards. [...] The third player passes two
cards without giving any hint. If Rückhand (last seat) plays, no passing
takes place. If neither Vorhand nor Rückhand plays, both pay the price of a
solo to the other two players."

As built:

* **Trigger.** A won Herz-Solo (``solo`` or ``solo_tout`` in ``H``) makes
  the next deal a Schieberrunde (``DealSettled.schieberrunde_next``), also
  after a Schieberrunde.
* **Deal.** Vorhand (left of the dealer) gets ``EO`` and ``GO`` first; the
  rest of the shuffled deck (without them, in order) is dealt in two batches
  from Vorhand round to the dealer, the dealer's second batch two cards
  short: Vorhand 10 cards (long deck; 8 short), the dealer 6 (4), the others
  8 (6). ``HandsDealt`` carries ``schieberrunde: true``. No Doppeln and no
  Hochzeit offer in this deal. A preset deal that falls on a Schieberrunde is
  read back as the deck it deals (the inverse of the normal mapping) and
  dealt this way.
* **Vorhand speaks** (phase ``schieber``): ``{"type": "schieber", "play":
  true}`` ("Ich spiele") or ``false`` ("Ich spiele nicht", offering the
  dealer the high trumps). Then the dealer (Rückhand): ``play: true`` takes
  the two Obers from Vorhand (``ObersHandedOver``, public) and plays a Solo,
  with no passing; ``false``: ``SchieberrundePaid`` — Vorhand and the dealer
  each pay the Solo base price (``tariffs.solo.base``, not multiplied) to
  each of the other two; the deal counts towards ``deals``.
* **Passing** (phase ``push``), when Vorhand plays: Vorhand sets aside two
  cards and passes them to Mittelhand, Mittelhand passes two to Hinterhand,
  Hinterhand two to the dealer: ``{"type": "push", "cards": [a, b]}`` (any
  two of his cards, in deck order). Everybody ends with 8 (6). Only giver and
  receiver see the cards (``CardsPushed`` / ``CardsReceived``).
* **Hinting** (house rule ``schieberrunde_hinting``, the rulebook's "passing
  round with hinting"): "the passer indicates to the third player, by means
  of the passed cards, which trump suit they consider likely. For example,
  if they pass a Hearts card and hint 'two above', they mean that they
  believe Acorns will be trump. The third player passes two cards without
  giving any hint." The passer who passes to the third player is Mittelhand
  (the second push); its push may carry ``"hint": {"card": c, "above": n}``:
  ``c`` one of the two cards passed, ``n`` how many suits above ``c``'s suit
  in the order Eichel, Gras, Herz, Schellen (0 = that suit; no wrapping
  round). The events add the suit it names (``"suit"``). The hint travels
  with the cards, so it is seen by Mittelhand and Hinterhand alone, like the
  cards, until the session ends. Nobody else's push may hint.
* **The Solo.** The player names the suit last, after the passing
  (``{"type": "name_game", "game": "solo", "suit": S}``, naming mode
  ``schieber``): with the hinting the rulebook describes, the trump suit is still
  open while the cards go round. Then a normal Solo: Vorhand leads, Stoß as
  usual, Laufende counted from the hands after the passing.
"""
from __future__ import annotations

from itertools import combinations
from typing import Mapping

from .. import errors
from ..event import PUBLIC, Event, only_seat
from .cards import DECK, PLAYERS
from .state import State

OBERS = ("EO", "GO")  # "the Acorn Ober and the Leaves Ober"
SUITS_DOWN = "EGHS"  # Eichel, Gras, Herz, Schellen: "two above" Herz is Eichel
HINTING_PUSH = 1  # the second push, Mittelhand's to Hinterhand, "the third player"
HERZ_SOLOS = ("solo", "solo_tout")


def follows(config, game: str, suit: str | None, won: bool) -> bool:
    """Does this settled game make the next deal a Schieberrunde?"""
    return config.schieberrunde and won and game in HERZ_SOLOS and suit == "H"


def deck_from_hands(hands, dealer: int, half: int) -> list[str]:
    """The inverse of ``deal.hands_from_deck``: the deck order that deals ``hands``."""
    out: list[str] = []
    for h in range(2):
        for j in range(PLAYERS):
            out.extend(hands[(dealer + 1 + j) % PLAYERS][h * half:(h + 1) * half])
    return out


def hands_from_deck(cards, dealer: int, half: int) -> list[list[str]]:
    vorhand = (dealer + 1) % PLAYERS
    rest = [card for card in cards if card not in OBERS]
    hands: list[list[str]] = [[] for _ in range(PLAYERS)]
    hands[vorhand] = list(OBERS)
    position = 0
    for h in range(2):
        for j in range(PLAYERS):
            seat = (dealer + 1 + j) % PLAYERS
            take = half - len(OBERS) if h == 1 and seat == dealer else half
            hands[seat].extend(rest[position:position + take])
            position += take
    return hands


def vorhand(state: State) -> int:
    return (state.dealer + 1) % PLAYERS


def speaker(state: State) -> int:
    return vorhand(state) if not state.schieber_calls else state.dealer


def pusher(state: State) -> int:
    return (vorhand(state) + len(state.pushes)) % PLAYERS


def call_commands() -> list[dict]:
    return [{"type": "schieber", "play": True}, {"type": "schieber", "play": False}]


def decide_call(state: State, seat: int, command: Mapping) -> list[Event]:
    play = command.get("play")
    if not isinstance(play, bool):
        raise errors.InvalidCommand("play must be true or false")
    data = {"seat": seat, "play": play, "call": "Ich spiele" if play else "Ich spiele nicht"}
    if not play and seat == vorhand(state):
        data["offered_to"] = state.dealer  # the high trumps go to the dealer if he plays
    events = [Event("SchieberSpoken", data)]
    if seat == vorhand(state):
        return events
    if play:
        return events + [Event("ObersHandedOver", {"seat": vorhand(state), "to": seat, "cards": list(OBERS)})]
    return events + [paid(state)]


def paid(state: State) -> Event:
    """Neither Vorhand nor Rückhand plays: each pays each of the other two the Solo price."""
    price = state.config.tariff("solo").base
    payers = [vorhand(state), state.dealer]
    payments = [-2 * price if seat in payers else 2 * price for seat in range(PLAYERS)]
    return Event("SchieberrundePaid", {"deal": state.deal, "dealer": state.dealer, "payers": payers,
                                       "price": price, "payments": payments}, PUBLIC)


def push_commands(state: State, seat: int) -> list[dict]:
    hand = sorted(state.hands[seat], key=DECK.index)
    out = []
    for a, b in combinations(hand, 2):
        out.append({"type": "push", "cards": [a, b]})
        if may_hint(state):
            out += [{"type": "push", "cards": [a, b], "hint": {"card": card, "above": above}}
                    for card in (a, b) for above in range(SUITS_DOWN.index(card[0]) + 1)]
    return out


def may_hint(state: State) -> bool:
    return state.config.schieberrunde_hinting and len(state.pushes) == HINTING_PUSH


def hinted_suit(hint, cards: list[str]) -> str:
    """The suit a hint names; InvalidCommand if it is not a hint this push may give."""
    if not isinstance(hint, dict) or set(hint) != {"card", "above"}:
        raise errors.InvalidCommand('hint must be {"card": one of the two cards, "above": 0 to 3}')
    card, above = hint["card"], hint["above"]
    if card not in cards:
        raise errors.InvalidCommand(f"hint.card must be one of the cards you pass ({cards[0]}, {cards[1]})")
    if isinstance(above, bool) or not isinstance(above, int) or not 0 <= above <= SUITS_DOWN.index(card[0]):
        raise errors.InvalidCommand(f"hint.above: from {card}'s suit 0 to {SUITS_DOWN.index(card[0])} suits "
                                    "above (Eichel, Gras, Herz, Schellen, no wrapping round)")
    return SUITS_DOWN[SUITS_DOWN.index(card[0]) - above]


def decide_push(state: State, seat: int, command: Mapping) -> list[Event]:
    cards = command.get("cards")
    if not isinstance(cards, list) or len(cards) != 2 or not all(isinstance(c, str) for c in cards):
        raise errors.InvalidCommand("cards must be a list of two card codes")
    missing = [card for card in cards if card not in state.hands[seat]]
    if missing:
        raise errors.CardNotInHand(f"{', '.join(missing)} not in your hand")
    hand = sorted(state.hands[seat], key=DECK.index)
    if cards[0] == cards[1] or hand.index(cards[0]) > hand.index(cards[1]):
        raise errors.InvalidCommand("name two different cards, in deck order (e.g. [\"EA\", \"G7\"])")
    extra = {}
    if "hint" in command:
        if not may_hint(state):
            raise errors.InvalidCommand("only Mittelhand's push to the third player may hint, and only with "
                                        "rules.schieberrunde_hinting")
        hint = command["hint"]
        extra["hint"] = {"card": hint.get("card") if isinstance(hint, dict) else None,
                         "above": hint.get("above") if isinstance(hint, dict) else None,
                         "suit": hinted_suit(hint, list(cards))}
    to = (seat + 1) % PLAYERS
    return [Event("CardsPushed", {"seat": seat, "to": to, "cards": list(cards), **extra},
                  only_seat(seat, "seat", "to")),
            Event("CardsReceived", {"seat": to, "from": seat, "cards": list(cards), **extra},
                  only_seat(to, "seat", "from"))]


def pushes_view(state: State, seat: int | None, finished: bool) -> list[dict]:
    out = []
    for index, (giver, receiver, cards) in enumerate(state.pushes):
        entry = {"from": giver, "to": receiver}
        if finished or seat in (giver, receiver):
            entry["cards"] = list(cards)
            if state.push_hint is not None and state.push_hint[0] == index:
                entry["hint"] = dict(state.push_hint[1])
        out.append(entry)
    return out
