"""Folding events into the state: no checks, every event already decided."""
from __future__ import annotations

from dataclasses import replace

from ..event import Event
from ..trick import Trick, remove_card
from . import settlement
from .cards import PLAYERS
from .play import leads_called_suit
from . import hochzeit
from .state import ANNOUNCE, DEALING, DOPPELN, EXCHANGE, FINISHED, HOCHZEIT, NAMING, PLAY, Contract, State

FRESH_DEAL = dict(held=(), doppeln=(), hochzeit_spoken=(), hochzeit=None, swap=None, announcements=(), namers=(), naming=(), best=None, mode=None,
                  contract=None, partner=None, partner_revealed=False, called_suit_led=False,
                  ace_free=False, stoss=(), trick=None, last_trick=None, tricks=())


def _hands(raw) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(hand) for hand in raw)


def evolve(state: State, event: Event) -> State:
    data, kind = event.data, event.type
    handler = HANDLERS.get(kind)
    return handler(state, data) if handler else state


def _picked_up(state: State) -> State:
    """With the whole hand picked up: the Hochzeit offers (if any), else the announcement."""
    return replace(state, phase=HOCHZEIT if hochzeit.opens(state) else ANNOUNCE)


def _dealt(state: State, data: dict) -> State:
    hands = _hands(data["hands"])
    state = replace(state, phase=DOPPELN, deal=data["deal"], next_deal=data["deal"] + 1,
                    dealer=data["dealer"], dealt=hands, hands=hands, **FRESH_DEAL)
    return state if state.config.doppeln != "off" else _picked_up(state)


def _held(state: State, data: dict) -> State:
    return replace(state, held=_hands(data["hands"]))


def _doppeln(state: State, data: dict) -> State:
    return replace(state, doppeln=state.doppeln + ((data["seat"], data["double"]),))


def _second_half(state: State, data: dict) -> State:
    hands = tuple(h + tuple(extra) for h, extra in zip(state.hands, data["hands"]))
    return _picked_up(replace(state, hands=hands, dealt=hands, held=()))


def _hochzeit_spoken(state: State, data: dict) -> State:
    state = replace(state, hochzeit_spoken=state.hochzeit_spoken + (data["seat"],),
                    hochzeit=data["seat"] if data["offer"] else state.hochzeit)
    return replace(state, phase=ANNOUNCE) if data["last"] else state


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
    result = settlement.thrown_in(data["deal"], payments, data.get("stock", 0))
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
    return replace(state, namers=state.namers[1:],
                   naming=state.naming + ((data["seat"], data["game"], data["suit"]),),
                   best=(data["seat"], data["game"], data["suit"]))


def _withdrawn(state: State, data: dict) -> State:
    return replace(state, namers=state.namers[1:], naming=state.naming + ((data["seat"], None, None),))


def _declared(state: State, data: dict) -> State:
    game, suit = data["game"], data["suit"]
    ace = data.get("called_ace")
    call = ace if ace is not None and ace != (suit or "") + "A" else None
    contract = Contract(game, suit, data["declarer"], call=call, renonce=bool(data.get("renonce")))
    partner = next((s for s in range(PLAYERS) if ace in state.hands[s]), None) if ace else None
    if game == "hochzeit":
        return replace(state, phase=EXCHANGE, namers=(), contract=contract, partner=data["partner"],
                       partner_revealed=True, trick=Trick((state.dealer + 1) % PLAYERS))
    return replace(state, phase=PLAY, namers=(), contract=contract, partner=partner,
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
    result = settlement.from_json(data)
    totals = tuple(t + p for t, p in zip(state.totals, result.payments))
    return replace(state, phase=DEALING, totals=totals, deals_counted=state.deals_counted + 1,
                   stock=state.stock + result.stock, bock=0,
                   settlements=state.settlements + (result,))


def _ended(state: State, data: dict) -> State:
    return replace(state, phase=FINISHED)


HANDLERS = {
    "HandsDealt": _dealt,
    "SecondHalfHeld": _held,
    "DoppelnDeclared": _doppeln,
    "SecondHalfDealt": _second_half,
    "HochzeitSpoken": _hochzeit_spoken,
    "HochzeitCardGiven": _card_given,
    "AnnouncementMade": _announced,
    "DealThrownIn": _thrown_in,
    "MussSpiel": _muss,
    "RenonceRound": _renonce_round,
    "GameNamed": _named,
    "PlayWithdrawn": _withdrawn,
    "GameDeclared": _declared,
    "StossGiven": _stoss,
    "CardPlayed": _card,
    "PartnerRevealed": _revealed,
    "TrickTaken": _trick,
    "DealSettled": _settled,
    "GameEnded": _ended,
}
