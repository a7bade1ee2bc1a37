"""What one seat (or a spectator, ``seat=None``) may see of the state.

While the session runs a seat sees its own hand and public facts only: the
announcement, the declared game, who the partner is once the called Ace has
fallen (the partner himself knows it from his own hand), the current and the
last trick and how many tricks each seat took. Card points of a deal are
public only once it is settled. After the session everything is shown.
Also public: the Doppeln said, the Stöße given, the deal's multiplier, the
naming mode, the Stock's balance and the auction's bids.
"""
from __future__ import annotations

from .cards import PLAYERS, sort_hand
from .schieberrunde import pushes_view
from .scoring import deal_line, to_json as settlement_json
from .stoss import CALLS
from .state import DEALING, FINISHED, State


def view(state: State, seat: int | None, finished: bool, reveal: bool = False) -> dict:
    """``reveal`` (a finished game's past view) shows what ``finished`` shows, with ``hands``
    the cards each seat holds at this moment and ``dealt`` the hands as dealt."""
    finished = finished or reveal
    contract = state.contract
    partner = None
    if contract is not None and state.partner is not None:
        if state.partner_revealed or seat == state.partner or finished:
            partner = state.partner
    tricks_taken = [0] * PLAYERS
    for winner, _ in state.tricks:
        tricks_taken[winner] += 1
    last_settled = state.settlements[-1] if state.settlements else None
    settled_now = state.phase in (DEALING, FINISHED) and last_settled is not None
    out = {
        "phase": state.phase,
        "deal": state.deal,
        "deals": state.config.deals,
        "deals_counted": state.deals_counted,
        "dealer": state.dealer,
        "hand": list(sort_hand(state.hands[seat])) if seat is not None and state.hands else None,
        "hand_sizes": [len(hand) for hand in state.hands] if state.hands else [0] * PLAYERS,
        "announcements": [{"seat": s, "intent": intent} for s, intent in state.announcements],
        "naming": [{"seat": s, "game": game, "suit": suit} if game else {"seat": s, "withdrew": True}
                   for s, game, suit in state.naming],
        "declared": contract.to_json() if contract is not None else None,
        "partner": partner,
        "current_trick": state.trick.to_json() if state.trick is not None else None,
        "last_trick": state.last_trick.to_json() if state.last_trick is not None else None,
        "tricks_taken": tricks_taken,
        "card_points": (settlement_json(last_settled)["card_points"]
                        if settled_now and last_settled.game is not None else None),
        "last_deal": settlement_json(last_settled) if last_settled is not None else None,
        "deal_results": [deal_line(s) for s in state.settlements],
        "totals": list(state.totals),
        "doppeln": [{"seat": s, "double": d} for s, d in state.doppeln],
        "stoss": [{"seat": s, "call": CALLS[i]} for i, s in enumerate(state.stoss)],
        "multiplier": state.multiplier,
        "mode": state.mode,
        "stock": state.stock,
        "hochzeit": state.hochzeit,
        "swap": _swap_view(state, seat, finished),
        "auction": _auction_view(state),
        "schieberrunde": _schieber_view(state, seat, finished),
        "schieberrunde_next": state.schieber_due,
    }
    if reveal:
        out["hands"] = [list(sort_hand(hand)) for hand in state.hands] if state.hands else [[]] * PLAYERS
        out["dealt"] = [list(hand) for hand in state.dealt] if state.dealt else [[]] * PLAYERS
        out["tricks"] = [{"winner": w, **t.to_json()} for w, t in state.tricks]
    elif finished:
        out["hands"] = [list(hand) for hand in state.dealt]
        out["tricks"] = [{"winner": w, **t.to_json()} for w, t in state.tricks]
    return out


def _schieber_view(state: State, seat: int | None, finished: bool) -> dict | None:
    """This deal's Schieberrunde: the calls are public, the passed cards only giver's and receiver's."""
    if not state.schieber:
        return None
    return {"vorhand": (state.dealer + 1) % PLAYERS,
            "calls": [{"seat": s, "play": p} for s, p in state.schieber_calls],
            "pushes": pushes_view(state, seat, finished)}


def _auction_view(state: State) -> dict | None:
    """The band's auction (rules.auction), public: standing target and holder, who answers, the bids."""
    if state.holder is None:
        return None
    return {"target": state.target, "holder": state.holder, "bidders": list(state.bidders),
            "bids": [{"seat": s, "target": t} if t is not None else {"seat": s, "passed": True}
                     for s, t in state.bids]}


def _swap_view(state: State, seat: int | None, finished: bool) -> dict | None:
    """The Hochzeit swap: that it happened is public; the cards only to giver and receiver."""
    if state.swap is None:
        return None
    giver, receiver, card, trump = state.swap
    out = {"from": giver, "to": receiver}
    if finished or seat == giver:
        out.update(gave=card, received=trump)
    elif seat == receiver:
        out.update(gave=trump, received=card)
    return out
