"""Scharfe Schoten as a decider: deal, predict (simultaneously), play tricks, take from the cupboard.

Each decision emits events one step at a time and folds them locally, so
"what happens next" (the trick is complete, the round is over, the game has
ended) is always judged on the state the events produce, exactly as a replay
will see it.
"""
from __future__ import annotations

from ..frozen import replace
from typing import Any, Mapping, Sequence

from .. import errors
from ..event import Event, nobody, only_seat, per_seat
from ..game import DealRequest, Game, Setup, rank_places
from ..record import DealRecord, Match
from ..trick import Trick, remove_card
from .cards import (COLOURS, colour_counts, colour_of, colour_ranking, is_spice, numbers_dict,
                    numbers_tuple, playable_cards, sort_cards, super_trumps, trick_winner)
from .deal import make_deal, requested_decks
from . import record
from .presets import preset_deal, validate_presets
from .ruleset import validate_rules
from .scoring import score_prediction
from .state import Prediction, State
from .transcript import transcript as render_transcript
from .view import game_view


def _is_seat(actor: Any, players: int) -> bool:
    return isinstance(actor, int) and not isinstance(actor, bool) and 0 <= actor < players


def _set(items: tuple, index: int, value: Any) -> tuple:
    return items[:index] + (value,) + items[index + 1:]


class ScharfeSchoten(Game):
    name = "scharfe-schoten"
    title = "Scharfe Schoten"
    player_counts = (3, 4)

    # -- configuration ----------------------------------------------------
    def setup(self, players: int, rules: Mapping[str, Any], preset_deals: list | None) -> Setup:
        problems: dict[str, list[str]] = {}
        if players not in self.player_counts:
            raise errors.InvalidSetup({"players": ["Scharfe Schoten is played by 3 or 4 players"]})
        complete = validate_rules(players, rules, problems)
        presets = validate_presets(players, complete, preset_deals, problems)
        if problems:
            raise errors.InvalidSetup(problems)
        return Setup(players, complete, presets)

    def initial_state(self, setup: Setup) -> State:
        return State(
            players=setup.players,
            rounds=setup.rules["rounds"],
            first_starter=setup.rules.get("first_starter"),
            presets=tuple(preset_deal(raw) for raw in setup.preset_deals),
            totals=(0,) * setup.players,
        )

    def pending_deal(self, state: State) -> DealRequest | None:
        if state.phase != "dealing":
            return None
        return DealRequest(index=state.deal, decks=requested_decks(state, state.deal))

    # -- deciding ---------------------------------------------------------
    def decide(self, state: State, actor: int | None, command: Mapping[str, Any]) -> list[Event]:
        if not isinstance(command, Mapping):
            raise errors.InvalidCommand("a command is an object with a type")
        kind = command.get("type")
        if kind == "deal":
            return self._deal(state, actor, command)
        handler = {"predict": self._predict, "play": self._play, "take": self._take}.get(kind)
        if handler is None:
            raise errors.UnknownCommand(f"unknown command {kind!r}; Scharfe Schoten knows predict, play, take")
        if state.phase == "finished":
            raise errors.WrongPhase("the game has finished")
        if not _is_seat(actor, state.players):
            raise errors.InvalidCommand(f"{kind} is sent by a seat 0..{state.players - 1}")
        return handler(state, actor, command)

    def _deal(self, state: State, actor: int | None, command: Mapping[str, Any]) -> list[Event]:
        if actor is not None:
            raise errors.InvalidCommand("only the system deals")
        if state.phase != "dealing":
            raise errors.WrongPhase("no deal is due now")
        if command.get("deal") != state.deal:
            raise errors.InvalidCommand(f"deal {state.deal} is due, not {command.get('deal')!r}")
        facts = make_deal(state, state.deal, command.get("decks"))
        numbers = numbers_dict(facts.numbers)
        dealt = Event("HandsDealt", {
            "deal": state.deal,
            "round": state.deal + 1,
            "hands": [list(sort_cards(hand)) for hand in facts.hands],
            "hand_colours": [colour_counts(hand) for hand in facts.hands],
            "cupboard_colours": colour_counts(facts.cupboard),
            "numbers": numbers,
            "ranking": list(colour_ranking(facts.numbers)),
            "super_trumps": list(super_trumps(facts.numbers)),
            "starter": facts.starter,
        }, per_seat("hands"))
        # The cupboard's values are seen by nobody until the game ends (SS-5);
        # only its colours are public. A separate event, because per_seat
        # would show every other key of HandsDealt.
        stocked = Event("CupboardStocked", {
            "deal": state.deal,
            "cards": list(facts.cupboard),
            "colours": colour_counts(facts.cupboard),
        }, nobody("deal", "colours"))
        return [dealt, stocked]

    def _predict(self, state: State, seat: int, command: Mapping[str, Any]) -> list[Event]:
        if state.phase != "predicting":
            raise errors.WrongPhase("predictions are made after the deal, before the first card")
        if state.predictions[seat] is not None:
            raise errors.AlreadyDone("you have already predicted this round; predictions cannot change")
        most, fewest = command.get("most"), command.get("fewest")
        if most not in COLOURS or fewest not in COLOURS:
            raise errors.InvalidCommand("most and fewest must each be one of R, G, Y, B")
        if most == fewest:
            raise errors.IllegalChoice("the most and the fewest colour must differ")
        events = [Event("PredictionMade", {"seat": seat, "most": most, "fewest": fewest},
                        only_seat(seat, "seat"))]
        after = self._fold(state, events)
        if all(p is not None for p in after.predictions):
            # Revealed in the same decision as the last prediction (SS-6).
            events.append(Event("PredictionsRevealed", {
                "predictions": [p.to_json() for p in after.predictions]}))
        return events

    def _play(self, state: State, seat: int, command: Mapping[str, Any]) -> list[Event]:
        if state.phase == "taking":
            raise errors.WrongPhase("the trick winner first takes a card from the cupboard")
        if state.phase != "playing":
            raise errors.WrongPhase("cards are played after every seat has predicted")
        if seat != state.trick.next_to_play(state.players):
            raise errors.NotYourTurn(f"seat {state.trick.next_to_play(state.players)} plays next")
        card = command.get("card")
        if not is_spice(card):
            raise errors.UnknownCard(f"{card!r} is not a spice card (R1..B12)")
        hand = state.hands[seat]
        if card not in hand:
            raise errors.CardNotInHand(f"{card} is not in your hand")
        if card not in playable_cards(hand, state.trick.led):
            raise errors.MustFollowSuit(f"you hold {colour_of(state.trick.led)} and must follow it")
        events = [Event("CardPlayed", {"seat": seat, "card": card})]
        after = self._fold(state, events)
        if after.trick.is_complete(state.players):
            winner = trick_winner(after.trick.plays, state.numbers)
            events.append(Event("TrickTaken", {"winner": winner, "leader": after.trick.leader,
                                               "cards": list(after.trick.cards)}))
            events += self._round_end(self._fold(after, events[-1:]))
        return events

    def _take(self, state: State, seat: int, command: Mapping[str, Any]) -> list[Event]:
        if state.phase != "taking":
            raise errors.WrongPhase("a cupboard card is taken right after winning a trick")
        if seat != state.taker:
            raise errors.NotYourTurn(f"seat {state.taker} won the trick and takes from the cupboard")
        colour = command.get("colour")
        if colour not in COLOURS:
            raise errors.InvalidCommand("colour must be one of R, G, Y, B")
        cards = [card for card in state.cupboard if colour_of(card) == colour]
        if not cards:
            raise errors.IllegalChoice(f"the cupboard holds no {colour} card")
        # Which card of the colour is the shuffle's choice, not the player's (SS-7).
        events = [Event("CupboardCardTaken", {"seat": seat, "colour": colour, "card": cards[0]},
                        nobody("seat", "colour"))]
        return events + self._round_end(self._fold(state, events))

    def _round_end(self, state: State) -> list[Event]:
        """RoundScored (and GameEnded after the last round) once every card is played and taken."""
        if state.phase != "playing" or any(state.hands):
            return []
        counts = [colour_counts(cards) for cards in state.collections]
        results = [score_prediction(counts[seat], p.most, p.fewest)
                   for seat, p in enumerate(state.predictions)]
        points = [result["points"] for result in results]
        totals = [total + gained for total, gained in zip(state.totals, points)]
        events = [Event("RoundScored", {
            "deal": state.deal,
            "round": state.deal + 1,
            "counts": counts,
            "predictions": [p.to_json() for p in state.predictions],
            "results": results,
            "points": points,
            "totals": totals,
        })]
        if state.deal + 1 >= state.rounds:
            events.append(Event("GameEnded", {"totals": totals, "ranking": rank_places(totals)}))
        return events

    # -- evolving ---------------------------------------------------------
    def _fold(self, state: State, events: list[Event]) -> State:
        for event in events:
            state = self.evolve(state, event)
        return state

    def evolve(self, state: State, event: Event) -> State:
        data, kind = event.data, event.type
        n = state.players
        if kind == "HandsDealt":
            starter = data["starter"]
            return replace(
                state, phase="predicting", deal=data["deal"], starter=starter,
                numbers=numbers_tuple(data["numbers"]),
                hands=tuple(tuple(hand) for hand in data["hands"]), cupboard=(),
                predictions=(None,) * n, revealed=False, trick=Trick(starter),
                last_trick=None, last_winner=None, taker=None, collections=((),) * n)
        if kind == "CupboardStocked":
            return replace(state, cupboard=tuple(data["cards"]))
        if kind == "PredictionMade":
            prediction = Prediction(data["most"], data["fewest"])
            return replace(state, predictions=_set(state.predictions, data["seat"], prediction))
        if kind == "PredictionsRevealed":
            return replace(state, phase="playing", revealed=True)
        if kind == "CardPlayed":
            seat, card = data["seat"], data["card"]
            return replace(state, hands=_set(state.hands, seat, remove_card(state.hands[seat], card)),
                           trick=state.trick.with_play(seat, card))
        if kind == "TrickTaken":
            winner = data["winner"]
            collections = _set(state.collections, winner, state.collections[winner] + state.trick.cards)
            # With 4 players the cupboard runs out two tricks early: then no take step.
            taking = bool(state.cupboard)
            return replace(state, collections=collections, last_trick=state.trick, last_winner=winner,
                           trick=Trick(winner), phase="taking" if taking else "playing",
                           taker=winner if taking else None)
        if kind == "CupboardCardTaken":
            seat, card = data["seat"], data["card"]
            return replace(state, cupboard=remove_card(state.cupboard, card),
                           collections=_set(state.collections, seat, state.collections[seat] + (card,)),
                           phase="playing", taker=None)
        if kind == "RoundScored":
            more = state.deal + 1 < state.rounds
            return replace(state, round_points=state.round_points + (tuple(data["points"]),),
                           totals=tuple(data["totals"]), phase="dealing" if more else "finished",
                           deal=state.deal + 1 if more else state.deal)
        if kind == "GameEnded":
            return replace(state, phase="finished", totals=tuple(data["totals"]),
                           ranking=tuple(data["ranking"]))
        raise ValueError(f"Scharfe Schoten has no event {kind!r}")

    # -- reading ----------------------------------------------------------
    def to_act(self, state: State) -> frozenset[int]:
        if state.phase == "predicting":
            return frozenset(seat for seat, p in enumerate(state.predictions) if p is None)
        if state.phase == "playing":
            return frozenset({state.trick.next_to_play(state.players)})
        if state.phase == "taking":
            return frozenset({state.taker})
        return frozenset()

    def legal_commands(self, state: State, seat: int) -> list[dict]:
        if seat not in self.to_act(state):
            return []
        if state.phase == "predicting":
            return [{"type": "predict", "most": most, "fewest": fewest}
                    for most in COLOURS for fewest in COLOURS if most != fewest]
        if state.phase == "playing":
            return [{"type": "play", "card": card}
                    for card in playable_cards(state.hands[seat], state.trick.led)]
        held = {colour_of(card) for card in state.cupboard}
        return [{"type": "take", "colour": colour} for colour in COLOURS if colour in held]

    def view(self, state: State, seat: int | None, reveal: bool = False) -> dict:
        return game_view(state, seat, self.to_act(state), reveal)

    def transcript(self, events: Sequence[Mapping[str, Any]]) -> list[str]:
        return render_transcript(events)

    def deal_records(self, events: Sequence[Mapping[str, Any]]) -> list[DealRecord]:
        return record.deal_records(events)

    def rating_matches(self, events: Sequence[Mapping[str, Any]]) -> list[Match]:
        return record.rating_matches(events)

    def deal_ceiling(self, setup: Setup) -> int:
        return 2 * setup.rules["rounds"]  # every deal counts: the game takes exactly ``rounds``

    def is_finished(self, state: State) -> bool:
        return state.phase == "finished"

    def scores(self, state: State) -> dict:
        out = {"totals": list(state.totals), "rounds": [list(points) for points in state.round_points]}
        if self.is_finished(state):
            out["ranking"] = list(state.ranking) if state.ranking else rank_places(list(state.totals))
        return out
