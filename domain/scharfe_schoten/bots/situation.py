"""What one seat knows at a decision, in plain numbers: the input of every heuristic rule.

A ``Situation`` is read either from a bot's ``Decision`` (its view and history: what the
seat may see), from a concrete ``State``, or from the simulator inside a search's playout. In a playout the
cards a seat cannot see are taken as the other hands plus the cupboard, which is what the
seat would reckon with too (the cupboard cards already taken are left out: their values
never decide a trick).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping, Sequence

from ...bitmask import members
from ..cards import COLOURS, SPICE_DECK, card_strength, numbers_tuple
from ..simulator import COLOUR_MASKS
from ..state import State


@lru_cache(maxsize=64)
def strength_table(numbers: tuple[int, ...]) -> dict[str, int]:
    """Card -> its rank in this deal, 0 (weakest) to 47 (the top super trump)."""
    ordered = sorted(SPICE_DECK, key=lambda card: card_strength(card, numbers))
    return {card: rank for rank, card in enumerate(ordered)}


@dataclass(frozen=True)
class Situation:
    seat: int
    players: int
    numbers: tuple[int, ...]
    hand: tuple[str, ...]
    leader: int
    plays: tuple[tuple[int, str], ...]
    hand_counts: tuple[Mapping[str, int], ...]  # every seat's colour counts (public)
    cupboard_counts: Mapping[str, int]
    collections: tuple[Mapping[str, int], ...]
    most: str | None
    fewest: str | None
    unseen: frozenset[str]  # cards that may be in another hand or the cupboard

    @property
    def strength(self) -> dict[str, int]:
        return strength_table(self.numbers)


def from_decision(decision) -> Situation:
    game = decision.view["game_state"]
    seat = decision.seat
    trick = game.get("current_trick") or {"leader": game.get("starter") or 0, "plays": []}
    plays = tuple((p["seat"], p["card"]) for p in trick["plays"])
    own = game["predictions"][seat]
    hand = tuple(game["hand"] or ())
    return Situation(
        seat=seat, players=game["players"], numbers=numbers_tuple(game["numbers"]), hand=hand,
        leader=trick["leader"], plays=plays, hand_counts=tuple(game["hand_colours"]),
        cupboard_counts=game["cupboard_colours"], collections=tuple(game["collections"]),
        most=own.get("most"), fewest=own.get("fewest"),
        unseen=frozenset(SPICE_DECK) - set(hand) - played_this_deal(decision.history) - {c for _, c in plays})


def played_this_deal(history: Sequence[Mapping]) -> set[str]:
    """Every card played to a finished trick of the current deal (public)."""
    played: set[str] = set()
    for event in history:
        if event["type"] == "HandsDealt":
            played = set()
        elif event["type"] == "TrickTaken":
            played.update(event["data"]["cards"])
    return played


def counts(cards) -> dict[str, int]:
    """``cards.colour_counts``, inlined: a playout reads every seat's counts at every move."""
    out = {"R": 0, "G": 0, "Y": 0, "B": 0}
    for card in cards:
        out[card[0]] += 1
    return out


def from_state(state: State, seat: int) -> Situation:
    prediction = state.predictions[seat] if state.predictions else None
    unseen = [card for other, hand in enumerate(state.hands) if other != seat for card in hand]
    return Situation(
        seat=seat, players=state.players, numbers=state.numbers, hand=state.hands[seat],
        leader=state.trick.leader, plays=state.trick.plays,
        hand_counts=tuple(counts(hand) for hand in state.hands),
        cupboard_counts=counts(state.cupboard),
        collections=tuple(counts(cards) for cards in state.collections),
        most=prediction.most if prediction else None, fewest=prediction.fewest if prediction else None,
        unseen=frozenset(unseen) | frozenset(state.cupboard))


def _codes(mask: int) -> tuple[str, ...]:
    return tuple(SPICE_DECK[card] for card in members(mask))


def _colours(mask: int) -> dict[str, int]:
    return {colour: (mask & COLOUR_MASKS[c]).bit_count() for c, colour in enumerate(COLOURS)}


def from_simulator(sim, seat: int) -> Situation:
    """What ``seat`` reckons with in the simulated round (``simulator.Simulator``): as ``from_state``
    reads it."""
    most, fewest = sim.predictions[seat] or (None, None)
    players = sim.players
    return Situation(
        seat=seat, players=players, numbers=sim.numbers, hand=_codes(sim.hands[seat]), leader=sim.leader,
        plays=tuple(((sim.leader + i) % players, SPICE_DECK[card]) for i, card in enumerate(sim.trick)),
        hand_counts=tuple(_colours(hand) for hand in sim.hands), cupboard_counts=_colours(sim.cupboard),
        collections=tuple(dict(zip(COLOURS, sim.collection(other))) for other in range(players)),
        most=None if most is None else COLOURS[most], fewest=None if fewest is None else COLOURS[fewest],
        unseen=frozenset(_codes(sim.unseen(seat))))
