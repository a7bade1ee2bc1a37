"""How a deal is made: from the shuffled decks, or from a preset.

From the shuffled decks of deal k (each a permutation of its canonical order):

* ``spice`` (48 codes): seat i gets ``spice[i*h:(i+1)*h]`` (h = 12 with 3
  players, 10 with 4); the rest, in shuffled order, is the cupboard. Taking a
  colour takes the first remaining cupboard card of that colour.
* ``numbers`` ("1".."12"): the first four are paired with R, G, Y, B in that order.
* ``seats`` ("0".."n-1", only requested for deal 0 when no starter is set):
  round 1's starter is ``int(seats[0])``.

Round 1's starter is, in order of precedence: the preset's ``starter``,
``rules.first_starter``, the shuffled ``seats`` deck (seat 0 for a preset
without either). Every later round starts left of the previous starter (SS-9).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from .. import errors
from .cards import COLOURS, NUMBER_DECK, SPICE_DECK
from .state import State


def hand_size(players: int) -> int:
    return 12 if players == 3 else 10


def cupboard_size(players: int) -> int:
    return len(SPICE_DECK) - players * hand_size(players)


def seat_deck(players: int) -> tuple[str, ...]:
    return tuple(str(seat) for seat in range(players))


def needs_seat_draw(state: State, index: int) -> bool:
    return index == 0 and state.first_starter is None and not state.presets


@dataclass(frozen=True)
class DealFacts:
    hands: tuple[tuple[str, ...], ...]
    cupboard: tuple[str, ...]
    numbers: tuple[int, ...]  # colour order R G Y B
    starter: int


def requested_decks(state: State, index: int) -> dict[str, tuple[str, ...]]:
    decks = {"spice": SPICE_DECK, "numbers": NUMBER_DECK}
    if needs_seat_draw(state, index):
        decks["seats"] = seat_deck(state.players)
    return decks


def _shuffled(decks: Mapping[str, Any], name: str, canonical: tuple[str, ...]) -> list[str]:
    deck = decks.get(name)
    if not isinstance(deck, list | tuple) or sorted(deck) != sorted(canonical):
        raise errors.InvalidCommand(f"deck {name!r} must be a permutation of its {len(canonical)} cards")
    return list(deck)


def make_deal(state: State, index: int, decks: Any) -> DealFacts:
    """The facts of deal ``index``: from its preset if there is one, else from ``decks``."""
    later_starter = None if index == 0 else (state.starter + 1) % state.players
    if index < len(state.presets):
        preset = state.presets[index]
        starter = later_starter
        if starter is None:
            starter = preset.starter if preset.starter is not None else (state.first_starter or 0)
        return DealFacts(preset.hands, preset.cupboard, preset.numbers, starter)

    if not isinstance(decks, Mapping):
        raise errors.InvalidCommand("decks must be an object of shuffled decks")
    spice = _shuffled(decks, "spice", SPICE_DECK)
    numbers = _shuffled(decks, "numbers", NUMBER_DECK)
    size = hand_size(state.players)
    hands = tuple(tuple(spice[seat * size:(seat + 1) * size]) for seat in range(state.players))
    cupboard = tuple(spice[state.players * size:])
    paired = tuple(int(number) for number in numbers[:len(COLOURS)])
    if later_starter is not None:
        starter = later_starter
    elif state.first_starter is not None:
        starter = state.first_starter
    else:
        starter = int(_shuffled(decks, "seats", seat_deck(state.players))[0])
    return DealFacts(hands, cupboard, paired, starter)
