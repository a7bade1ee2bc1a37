"""Folding events into the state: no checks, every event already decided."""
from __future__ import annotations

from ..frozen import replace

from ..event import Event
from ..trick import Trick, remove_card
from . import scoring
from .cards import PLAYERS
from .play import leads_called_suit
from .state import (ANNOUNCE, AUCTION, DEALING, DOPPELN, EXCHANGE, FINISHED, NAMING, PLAY, PUSH, SCHIEBER, WIN,
                    Contract, State)

FRESH_DEAL = dict(held=(), doppeln=(), hochzeit=None, swap=None, announcements=(),
                  namers=(), naming=(), best=None, mode=None, target=WIN, holder=None, bidders=(), bids=(),
                  schieber=False, schieber_calls=(), pushes=(), push_hint=None,
                  contract=None, partner=None, partner_revealed=False, called_suit_led=False,
                  ace_free=False, stoss=(), trick=None, last_trick=None, tricks=())


def _hands(raw) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(hand) for hand in raw)


def evolve(state: State, event: Event) -> State:
    data, kind = event.data, event.type
    handler = HANDLERS.get(kind)
    return handler(state, data) if handler else state


def _picked_up(state: State) -> State:
    """With the whole hand picked up: the announcement (a Hochzeit is offered inside it)."""
    return replace(state, phase=ANNOUNCE)


def _dealt(state: State, data: dict) -> State:
    hands = _hands(data["hands"])
    state = replace(state, phase=DOPPELN, deal=data["deal"], next_deal=data["deal"] + 1,
                    dealer=data["dealer"], dealt=hands, hands=hands, schieber_due=False, **FRESH_DEAL)
    if data.get("schieberrunde"):
        return replace(state, phase=SCHIEBER, schieber=True)
    return state if state.config.doppeln != "off" else _picked_up(state)


def _move(hands, giver: int, receiver: int, cards) -> tuple[tuple[str, ...], ...]:
    out = [list(h) for h in hands]
    for card in cards:
        out[giver].remove(card)
        out[receiver].append(card)
    return _hands(out)


def _schieber_spoken(state: State, data: dict) -> State:
    calls = state.schieber_calls + ((data["seat"], data["play"]),)
    if data["play"] and data["seat"] == state.dealer:
        return replace(state, schieber_calls=calls, phase=NAMING, namers=(data["seat"],), mode="schieber")
    return replace(state, schieber_calls=calls, phase=PUSH if data["play"] else state.phase)


def _obers_handed_over(state: State, data: dict) -> State:
    return replace(state, hands=_move(state.hands, data["seat"], data["to"], data["cards"]))


def _pushed(state: State, data: dict) -> State:
    giver = data["seat"]
    pushes = state.pushes + ((giver, data["to"], tuple(data["cards"])),)
    state = replace(state, hands=_move(state.hands, giver, data["to"], data["cards"]), pushes=pushes)
    if "hint" in data:
        state = replace(state, push_hint=(len(pushes) - 1, dict(data["hint"])))
    if len(pushes) < PLAYERS - 1:
        return state
    return replace(state, phase=NAMING, namers=(pushes[0][0],), mode="schieber")


def _schieber_paid(state: State, data: dict) -> State:
    payments = tuple(data["payments"])
    return replace(state, phase=DEALING, deals_counted=state.deals_counted + 1,
                   totals=tuple(t + p for t, p in zip(state.totals, payments)),
                   settlements=state.settlements + (scoring.thrown_in(data["deal"], payments),))


def _held(state: State, data: dict) -> State:
    return replace(state, held=_hands(data["hands"]))


def _doppeln(state: State, data: dict) -> State:
    return replace(state, doppeln=state.doppeln + ((data["seat"], data["double"]),))


def _second_half(state: State, data: dict) -> State:
    hands = tuple(h + tuple(extra) for h, extra in zip(state.hands, data["hands"]))
    return _picked_up(replace(state, hands=hands, dealt=hands, held=()))


def _hochzeit_offered(state: State, data: dict) -> State:
    """The offer comes before the announcement: what was said so far is void, Vorhand speaks again."""
    return replace(state, hochzeit=data["seat"], announcements=())


def _hochzeit_spoken(state: State, data: dict) -> State:
    """Stored games from before the offer moved into the announcement (no longer decided): their
    ``HochzeitSpoken`` all came before the first announcement, so only the offer itself matters."""
    return replace(state, hochzeit=data["seat"]) if data["offer"] else state


def _swap(hands, giver: int, receiver: int, card: str, trump: str):
    hands = [list(h) for h in hands]
    hands[giver][hands[giver].index(card)] = trump
    hands[receiver][hands[receiver].index(trump)] = card
    return _hands(hands)


def _card_given(state: State, data: dict) -> State:
    giver, receiver, card, trump = data["seat"], data["to"], data["card"], data["received"]
    return replace(state, phase=PLAY, hands=_swap(state.hands, giver, receiver, card, trump),
                   dealt=_swap(state.dealt, giver, receiver, card, trump),
                   swap=(giver, receiver, card, trump))


def _announced(state: State, data: dict) -> State:
    announcements = state.announcements + ((data["seat"], data["intent"]),)
    if len(announcements) < PLAYERS:
        return replace(state, announcements=announcements)
    namers = tuple(seat for seat, intent in announcements if intent == "play")
    return replace(state, announcements=announcements, namers=namers,
                   phase=NAMING if namers else state.phase)


def _thrown_in(state: State, data: dict) -> State:
    counted = state.deals_counted + (1 if state.config.thrown_in_counts else 0)
    payments = tuple(data.get("payments") or (0,) * PLAYERS)
    result = scoring.thrown_in(data["deal"], payments, data.get("stock", 0))
    return replace(state, phase=DEALING, deals_counted=counted,
                   totals=tuple(t + p for t, p in zip(state.totals, payments)),
                   stock=state.stock + result.stock,
                   bock=state.bock + (1 if data.get("doubles_next") else 0),
                   settlements=state.settlements + (result,))


def _muss(state: State, data: dict) -> State:
    return replace(state, phase=NAMING, namers=(data["seat"],), mode="muss")


def _renonce_round(state: State, data: dict) -> State:
    return replace(state, phase=NAMING, namers=tuple(data["seats"]), mode="renonce")


def _named(state: State, data: dict) -> State:
    best = state.best if data.get("auction") else (data["seat"], data["game"], data["suit"])
    return replace(state, namers=state.namers[1:],
                   naming=state.naming + ((data["seat"], data["game"], data["suit"]),), best=best)


def _auction_opened(state: State, data: dict) -> State:
    seats = tuple(data["seats"])
    return replace(state, phase=AUCTION, holder=data["holder"], target=data["target"],
                   bidders=tuple(s for s in seats if s != data["holder"]))


def _bid(state: State, data: dict) -> State:
    return replace(state, target=data["target"], holder=data["seat"],
                   bidders=state.bidders[1:] + (state.holder,),
                   bids=state.bids + ((data["seat"], data["target"]),))


def _bid_passed(state: State, data: dict) -> State:
    return replace(state, bidders=state.bidders[1:], bids=state.bids + ((data["seat"], None),))


def _withdrawn(state: State, data: dict) -> State:
    return replace(state, namers=state.namers[1:], naming=state.naming + ((data["seat"], None, None),))


def _declared(state: State, data: dict) -> State:
    game, suit = data["game"], data["suit"]
    ace = data.get("called_ace")
    call = ace if ace is not None and ace != (suit or "") + "A" else None
    contract = Contract(game, suit, data["declarer"], call=call, renonce=bool(data.get("renonce")),
                        target=data.get("target"))
    partner = next((s for s in range(PLAYERS) if ace in state.hands[s]), None) if ace else None
    if game == "hochzeit":
        return replace(state, phase=EXCHANGE, namers=(), contract=contract, partner=data["partner"],
                       partner_revealed=True, trick=Trick((state.dealer + 1) % PLAYERS))
    dealt = state.hands if data.get("schieberrunde") else state.dealt  # Laufende after the passing
    return replace(state, phase=PLAY, namers=(), contract=contract, partner=partner, dealt=dealt,
                   trick=Trick((state.dealer + 1) % PLAYERS))


def _stoss(state: State, data: dict) -> State:
    return replace(state, stoss=state.stoss + (data["seat"],))


def _card(state: State, data: dict) -> State:
    seat, card = data["seat"], data["card"]
    hands = list(state.hands)
    hands[seat] = remove_card(hands[seat], card)
    ace_free = state.ace_free
    contract = state.contract
    if (not state.trick.plays and seat == state.partner and card != contract.called_ace
            and not state.called_suit_led and leads_called_suit(card, contract)):
        ace_free = True  # davonlaufen: from now on the Ace is free
    return replace(state, hands=tuple(hands), trick=state.trick.with_play(seat, card), ace_free=ace_free)


def _revealed(state: State, data: dict) -> State:
    return replace(state, partner_revealed=True)


def _trick(state: State, data: dict) -> State:
    trick, winner = state.trick, data["seat"]
    tricks = state.tricks + ((winner, trick),)
    led_called = state.called_suit_led or leads_called_suit(trick.led, state.contract)
    return replace(state, tricks=tricks, last_trick=trick, called_suit_led=led_called,
                   trick=Trick(winner) if len(tricks) < state.config.hand_size else None)


def _settled(state: State, data: dict) -> State:
    result = scoring.from_json(data)
    totals = tuple(t + p for t, p in zip(state.totals, result.payments))
    return replace(state, phase=DEALING, totals=totals, deals_counted=state.deals_counted + 1,
                   stock=state.stock + result.stock, bock=0,
                   schieber_due=bool(data.get("schieberrunde_next")),
                   settlements=state.settlements + (result,))


def _ended(state: State, data: dict) -> State:
    return replace(state, phase=FINISHED)


HANDLERS = {
    "HandsDealt": _dealt,
    "SecondHalfHeld": _held,
    "DoppelnDeclared": _doppeln,
    "SecondHalfDealt": _second_half,
    "HochzeitOffered": _hochzeit_offered,
    "HochzeitSpoken": _hochzeit_spoken,
    "HochzeitCardGiven": _card_given,
    "AnnouncementMade": _announced,
    "DealThrownIn": _thrown_in,
    "MussSpiel": _muss,
    "RenonceRound": _renonce_round,
    "GameNamed": _named,
    "AuctionOpened": _auction_opened,
    "BidMade": _bid,
    "BidPassed": _bid_passed,
    "PlayWithdrawn": _withdrawn,
    "GameDeclared": _declared,
    "SchieberSpoken": _schieber_spoken,
    "ObersHandedOver": _obers_handed_over,
    "CardsPushed": _pushed,
    "SchieberrundePaid": _schieber_paid,
    "StossGiven": _stoss,
    "CardPlayed": _card,
    "PartnerRevealed": _revealed,
    "TrickTaken": _trick,
    "DealSettled": _settled,
    "GameEnded": _ended,
}
