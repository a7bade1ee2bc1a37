"""Stoß (SK-10): Kontra, Re, Supra, Resupra, each doubling the game's price.

The n-th Stoß (1 Kontra, 2 Re, 3 Supra, 4 Resupra) may be given by a seat of
the right side — a defender for Kontra and Supra, the declarer or his
partner for Re and Resupra — who has played fewer than n cards of this deal:
Kontra until the defender's first card, Re one card later, and so on. It is
offered to the seat whose turn it is to play, before it plays
(``{"type": "stoss"}``). At most ``rules.stoss`` Stöße (0 = none). No Stoß
in a Muss-Spiel or a Ramsch.
"""
from __future__ import annotations

from ..event import Event
from .state import PLAY, State

CALLS = ("Kontra", "Re", "Supra", "Resupra")


def declaring_side(state: State) -> set[int]:
    contract = state.contract
    side = {contract.declarer}
    if state.partner is not None:
        side.add(state.partner)
    return side


def allowed(state: State, seat: int) -> bool:
    contract = state.contract
    if state.phase != PLAY or contract is None or contract.declarer is None or state.mode == "muss":
        return False
    level = len(state.stoss) + 1
    if level > state.config.stoss:
        return False
    if (seat in declaring_side(state)) == (level % 2 == 1):
        return False  # Kontra and Supra are the defenders', Re and Resupra the declarers'
    return state.cards_played(seat) < level


def decide(state: State, seat: int) -> list[Event]:
    level = len(state.stoss) + 1
    return [Event("StossGiven", {"seat": seat, "level": level, "call": CALLS[level - 1]})]
