"""The announcement (SK-4): who wants to play, then the naming round.

Round one, starting left of the dealer, every seat says ``pass`` ("Weiter")
or ``play`` ("Ich spiele"; after an earlier ``play`` the same wish reads "Ich
spiele auch" and promises a game above the Rufspiel, because a second
Rufspiel could never win). With ``rules.hochzeit`` a seat holding exactly
one trump may instead offer a Hochzeit (``hochzeit``, see ``hochzeit.py``):
the offer is one more answer to the question every seat is asked anyway, so
a "Weiter" looks the same whatever the hand. The offer comes before the
announcement, so it starts the round again from Vorhand.

Round two, the naming round, asks only the seats that said ``play``, in the
same order. Each names a game that beats the standing highest, or withdraws
("Weiter"). Because an earlier seat wins on equal rank, a later seat must
name a strictly higher game; the legal list only offers games that could
still win. The last seat still in cannot withdraw when nothing has been
named, since he promised to play. When everybody has spoken the standing
highest game is declared. Nobody saying ``play``: see ``all_pass``.

After all passed, the naming round may run in a *mode*: ``muss`` (the
Eichel-Ober holder alone, who must name a Rufspiel, with As-Renonce if
blocked) or ``renonce`` (every seat, of which the blocked ones may name a
Rufspiel with As-Renonce, and all may withdraw; the first to name plays it).
In a Schieberrunde the mode is ``schieber``: the seat that plays names the
suit of his Solo.

With ``rules.auction`` the band games (Solo ... Farbgeier) tie in the naming
round and an auction decides between them (``auction.py``).
"""
from __future__ import annotations

from typing import Mapping

from .. import errors
from ..event import Event
from ..trick import seats_from
from . import auction
from .cards import PLAYERS, SUITS
from .all_pass import all_passed, apply_option
from .evolve import evolve
from .hochzeit import decide_offer, may_marry, may_offer
from .game_types import (CALLABLE_SUITS, GAME_TYPES, SUITED, beats, callable_suits, contracts_for, is_blocked,
                         outranks, renonce_calls)
from .state import State

CALLS = {"pass": "Weiter", "play": "Ich spiele", "play_too": "Ich spiele auch"}
INTENTS = ("pass", "play", "hochzeit")


def speaking_order(state: State) -> list[int]:
    return seats_from((state.dealer + 1) % PLAYERS, PLAYERS)


def announcer(state: State) -> int:
    return speaking_order(state)[len(state.announcements)]


def _someone_plays(state: State) -> bool:
    return any(intent == "play" for _, intent in state.announcements)


def options_for(state: State, seat: int) -> list[tuple[str, str | None]]:
    """Every (game, suit) the seat could name, by precedence (a Hochzeit with the Rufspiel)."""
    options = contracts_for(state.hands[seat], state.config.allowed_games)
    if may_marry(state, seat):
        options.append(("hochzeit", None))
    return options


def can_play(state: State, seat: int) -> bool:
    options = options_for(state, seat)
    if _someone_plays(state):
        return any(outranks(game, "rufspiel") for game, _ in options)
    return bool(options)


def announce_commands(state: State, seat: int) -> list[dict]:
    out = [{"type": "announce", "intent": "pass"}]
    if can_play(state, seat):
        out.append({"type": "announce", "intent": "play"})
    if may_offer(state, seat):
        out.append({"type": "announce", "intent": "hochzeit"})
    return out


def decide_announce(state: State, seat: int, command: Mapping) -> list[Event]:
    intent = command.get("intent")
    if intent not in INTENTS:
        raise errors.InvalidCommand(f"intent must be one of {list(INTENTS)}")
    if intent == "hochzeit":
        return decide_offer(state, seat)
    if intent == "play" and not can_play(state, seat):
        if _someone_plays(state):
            raise errors.IllegalChoice("after an earlier 'Ich spiele' only a game above the Rufspiel can win")
        raise errors.IllegalChoice("no game this table allows can be named with this hand (blocked)")
    call = CALLS["play_too" if intent == "play" and _someone_plays(state) else intent]
    events = [Event("AnnouncementMade", {"seat": seat, "intent": intent, "call": call})]
    intents = [said for _, said in state.announcements] + [intent]
    if len(intents) == PLAYERS and "play" not in intents:
        events += all_passed(state)
    return events


def called_card(hand, game: str, suit: str | None) -> tuple[str | None, bool]:
    """The called card of a Rufspiel and whether it is an As-Renonce call."""
    if game != "rufspiel":
        return None, False
    if suit in callable_suits(hand):
        return suit + "A", False
    return next(card for s, card in renonce_calls(hand) if s == suit), True


def nameable(state: State, seat: int) -> list[tuple[str, str | None]]:
    hand = state.hands[seat]
    if state.mode == "renonce":  # every seat is asked; only a blocked one may name
        if state.best is not None or not is_blocked(hand):
            return []
        return [("rufspiel", s) for s, _ in renonce_calls(hand)]
    if state.mode == "muss":
        suits = callable_suits(hand) or [s for s, _ in renonce_calls(hand)]
        return [("rufspiel", s) for s in suits]
    if state.mode == "schieber":
        return [("solo", s) for s in SUITS]
    options = options_for(state, seat)
    if state.best is None:
        return options
    return [(game, suit) for game, suit in options
            if beats(game, state.best[1], state.config.auction) or joins_auction(state, game)]


def joins_auction(state: State, game: str) -> bool:
    """With the auction: a band game named against a standing band game joins the bidding."""
    return (state.config.auction and state.mode is None and state.best is not None
            and auction.in_band(game) and auction.in_band(state.best[1]))


def may_withdraw(state: State) -> bool:
    if state.mode is not None:
        return state.mode == "renonce"
    return state.best is not None or len(state.namers) > 1


def naming_commands(state: State, seat: int) -> list[dict]:
    out = []
    for game, suit in nameable(state, seat):
        command = {"type": "name_game", "game": game}
        if suit is not None:
            command["suit"] = suit
        out.append(command)
    if may_withdraw(state):
        out.append({"type": "withdraw"})
    return out


def decide_name(state: State, seat: int, command: Mapping) -> list[Event]:
    game, suit = command.get("game"), command.get("suit")
    if game == "hochzeit":
        if suit is not None:
            raise errors.InvalidCommand("hochzeit takes no suit")
        if ("hochzeit", None) not in nameable(state, seat):
            raise errors.IllegalChoice("no Hochzeit is offered to you, or it does not beat the game named")
        return _named(state, seat, game, suit)
    if game not in GAME_TYPES:
        raise errors.InvalidCommand(f"unknown game {game!r}")
    if game in SUITED and suit is None:
        raise errors.InvalidCommand(f"{game} needs a suit")
    if game not in SUITED and suit is not None:
        raise errors.InvalidCommand(f"{game} takes no suit")
    if suit is not None and suit not in SUITS:
        raise errors.InvalidCommand(f"unknown suit {suit!r}; one of {list(SUITS)}")
    if game not in state.config.allowed_games:
        raise errors.IllegalChoice(f"{game} is not played at this table")
    if (game, suit) not in nameable(state, seat):
        if state.mode == "renonce":
            raise errors.IllegalChoice("in the Renonce round only a blocked player may name a Rufspiel "
                                       "(with As-Renonce), or withdraw")
        if game == "rufspiel" and suit not in CALLABLE_SUITS:
            raise errors.IllegalChoice("only the Ace of Eichel, Gras or Schellen can be called")
        if game == "rufspiel":
            raise errors.IllegalChoice(f"cannot call {suit}A: you need a {suit} card and not its Ace")
        if state.best is not None:
            raise errors.IllegalChoice(f"{game} does not beat the {state.best[1]} already named")
        raise errors.IllegalChoice(f"{game} needs all four Obers and Unters")
    return _named(state, seat, game, suit)


def _named(state: State, seat: int, game: str, suit: str | None) -> list[Event]:
    data = {"seat": seat, "game": game, "suit": suit}
    if joins_auction(state, game):
        data["auction"] = True
    events = [Event("GameNamed", data)]
    if state.mode is not None:
        events.append(declared(state, seat, game, suit))
    elif len(state.namers) == 1:
        events.append(_round_over(evolve(state, events[0])))
    return events


def _round_over(state: State) -> Event:
    """The naming round is over: the standing highest is declared, or the band's auction opens."""
    if auction.opens(state):
        return auction.opening(state)
    declarer, game, suit = state.best
    return declared(state, declarer, game, suit)


def decide_withdraw(state: State, seat: int) -> list[Event]:
    if not may_withdraw(state):
        raise errors.IllegalChoice("you said 'Ich spiele' and nobody else is left: name your game")
    events = [Event("PlayWithdrawn", {"seat": seat})]
    if len(state.namers) == 1:
        if state.best is None:  # the Renonce round ended without a game
            return events + apply_option(state)
        events.append(_round_over(evolve(state, events[0])))
    return events


def declared(state: State, declarer: int, game: str, suit: str | None, target: int | None = None) -> Event:
    call, renonce = called_card(state.hands[declarer], game, suit)
    data = {"declarer": declarer, "game": game, "suit": suit, "called_ace": call}
    if game == "hochzeit":
        data["partner"] = state.hochzeit
    if renonce:
        data["renonce"] = True
    if state.config.auction and auction.in_band(game) and state.mode is None:
        data["target"] = target or auction.WIN
    if state.mode == "schieber":
        data["schieberrunde"] = True
    return Event("GameDeclared", data)
