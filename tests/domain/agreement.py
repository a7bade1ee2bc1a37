"""Random deals driven straight through a decider, for checking a simulator against it.

No table and no replay check (the playout tests do that): the game's own ``decide`` and
``evolve`` with seeded random shuffles and seeded random commands, session after session,
until ``deals`` deals have been played to their end. ``observer`` sees every command with the
state before it, the events it made and the state after; the simulator tests compare there.

``STICH_SIMULATOR_DEALS`` sets the deals per game and option set (the suit runs a few dozen;
the agreement runs the bots' issue asks for are ``STICH_SIMULATOR_DEALS=10000``).
"""
from __future__ import annotations

import os
import random
from typing import Any, Callable

from domain.game import Game

Chooser = Callable[[random.Random, Any, int, list[dict]], dict]


def deals_wanted(default: int) -> int:
    return int(os.environ.get("STICH_SIMULATOR_DEALS", default))


def random_choice(rng: random.Random, state: Any, seat: int, legal: list[dict]) -> dict:
    return legal[rng.randrange(len(legal))]


def drive(game: Game, players: int, rules: dict, seed: int, deals: int, observer,
          choose: Chooser = random_choice, presets: Callable[[random.Random], list] | None = None,
          deal_over: Callable[[list], bool] = lambda events: False) -> int:
    """Play sessions of ``rules`` until ``observer.deals`` reaches ``deals``; return the sessions played.

    ``observer.step(state, seat, command, events, after)`` is called for every seat's command;
    ``observer.deals`` counts the deals it checked."""
    rng = random.Random(seed)
    sessions = 0
    while observer.deals < deals:
        setup = game.setup(players, rules, presets(rng) if presets else None)
        state = game.initial_state(setup)
        sessions += 1
        while not game.is_finished(state) and observer.deals < deals:
            request = game.pending_deal(state)
            if request is not None:
                decks = {name: rng.sample(list(deck), len(deck)) for name, deck in request.decks.items()}
                for event in game.decide(state, None, {"type": "deal", "deal": request.index, "decks": decks}):
                    state = game.evolve(state, event)
                continue
            seat = rng.choice(sorted(game.to_act(state)))
            legal = game.legal_commands(state, seat)
            command = choose(rng, state, seat, legal)
            events = game.decide(state, seat, command)
            after = state
            for event in events:
                after = game.evolve(after, event)
            observer.step(state, seat, legal, command, events, after)
            state = after
    return sessions
