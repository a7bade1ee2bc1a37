"""Auction bidding (SK-3 house rule ``auction``, default off).

The Schafkopf rulebook ("Order of Precedence"): "Playing strictly by this order of
precedence can be replaced by bidding, in which the lone-player role is won
by auction. In this case, all players who wish to play a game better than
Bettel but lower than a Tout game may raise the target score of 60 points
(exactly 61) in steps of ten." ("Announcing the Game"): "If bidding is used,
the following participant can take over by making the highest bid of
winning points." ("End of the Game"): "the relevant target for winning is
the agreed bid instead of 61 — so 71 for a bid of "70", 81 for a bid of
"80", and so on."

How it is played here:

* The *band* is Solo, Wenz, Farbwenz, Geier, Farbgeier (``game_types.BAND``).
  With the auction the band games share one rank in the naming round; every
  other game keeps its precedence (a Tout or the Sie still beats the band,
  the band still beats Bettel, Rufspiel and Hochzeit).
* In the naming round a seat facing a standing band game may name its own
  band game too: ``GameNamed`` then carries ``auction: true`` (it joins the
  auction instead of losing on equal rank).
* When the naming round ends with a band game standing and at least two
  seats named band games, the auction runs (phase ``auction``,
  ``AuctionOpened``): the earliest of them holds 61 (SK-4: on equal rank the
  earlier seat wins); the others, in speaking order, each either take over
  with a higher bid ``{"type": "bid", "target": t}`` (t = 71, 81, ... 111;
  the call reads "70", "80", ...) or ``{"type": "pass"}`` and are out. Every
  raise must be answered by every seat still in (the outbid holder answers
  last). When nobody is left to answer, the holder plays the band game he
  named, needing ``target`` points (``GameDeclared.target``).
* 111 is the highest target (bid "110"); "120" would need 121 of 120 points.
* A single band game (nobody to bid against) is declared at 61; with the rule
  on, ``GameDeclared.target`` is still given (61) for every band game.
* The bid moves only the target: the price, Schneider (91 / 90) and Schwarz
  stay as without the auction.
"""
from __future__ import annotations

from typing import Mapping

from .. import errors
from ..event import Event
from .game_types import BAND
from .state import WIN, State

STEP = 10
MAX_TARGET = WIN + 5 * STEP  # 111: a bid of "110"


def in_band(game: str | None) -> bool:
    return game in BAND


def contenders(state: State) -> list[int]:
    """Seats that named a band game this naming round, in speaking order."""
    return [seat for seat, game, _ in state.naming if in_band(game)]


def opens(state: State) -> bool:
    """After the naming round: is there an auction to hold?"""
    return (state.config.auction and state.best is not None and in_band(state.best[1])
            and len(contenders(state)) >= 2)


def opening(state: State) -> Event:
    seats = contenders(state)
    return Event("AuctionOpened", {"seats": seats, "holder": seats[0], "target": WIN})


def commands(state: State) -> list[dict]:
    bids = [{"type": "bid", "target": t} for t in range(state.target + STEP, MAX_TARGET + 1, STEP)]
    return bids + [{"type": "pass"}]


def call(target: int) -> str:
    return str(target - 1)


def decide_bid(state: State, seat: int, command: Mapping) -> list[Event]:
    target = command.get("target")
    if not isinstance(target, int) or isinstance(target, bool):
        raise errors.InvalidCommand("target must be an integer (71, 81, ... 111)")
    if {"type": "bid", "target": target} not in commands(state):
        if state.target >= MAX_TARGET:
            raise errors.IllegalChoice(f"{MAX_TARGET} is the highest target: pass")
        raise errors.IllegalChoice(f"bid a target above {state.target} in steps of ten, up to {MAX_TARGET}")
    return [Event("BidMade", {"seat": seat, "target": target, "call": call(target)})]


def decide_pass(state: State, seat: int, declare) -> list[Event]:
    """``declare(state, seat, game, suit, target)`` makes the ``GameDeclared`` of the winner."""
    events = [Event("BidPassed", {"seat": seat})]
    if len(state.bidders) == 1:
        holder = state.holder
        game, suit = next((g, s) for who, g, s in state.naming if who == holder and in_band(g))
        events.append(declare(state, holder, game, suit, state.target))
    return events
