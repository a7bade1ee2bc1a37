"""Schafkopf (Bavarian, 4 players, long or short deck): the decider the table wraps.

The rules live in small modules: ``cards`` (codes, points), ``game_types``
(precedence, trumps), ``ruleset``/``tariffs`` (options, presets, prices),
``deal`` (hands, halves), ``doppeln``, ``announcement`` (who plays what),
``auction`` (bidding for the target), ``all_pass`` (when everybody passes),
``schieberrunde`` (the passing round after a won Herz-Solo), ``stoss``, ``play`` (legal cards,
trick winner), ``settlement``/``ramsch`` (payments, the Stock), ``evolve``
(folding events) and ``view`` (what a seat may see). This module sequences
them.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from .. import errors
from ..event import Event
from ..game import DealRequest, Game, Setup, rank_places
from ..record import DealRecord, Match
from . import announcement, auction, doppeln, hochzeit, record, schieberrunde, stoss
from .cards import DECK_SET, PLAYERS, points
from .deal import SEAT_DECK, decide_deal, hands_from_deck  # noqa: F401  (re-exported)
from .evolve import evolve as fold_event
from .game_types import order
from .play import legal_cards, trick_winner
from .presets import validate_presets
from .ramsch import settle_ramsch
from .ruleset import config_from_rules, validate_rules
from .scoring import settle, to_json as settlement_json
from .state import ANNOUNCE, AUCTION, DEALING, DOPPELN, EXCHANGE, FINISHED, NAMING, PLAY, PUSH, SCHIEBER, State
from .transcript import transcript as render_transcript
from .view import view as build_view

# command type -> the phase that accepts it
PHASE_OF = {"doppeln": DOPPELN, "give_card": EXCHANGE, "announce": ANNOUNCE,
            "name_game": NAMING, "withdraw": NAMING, "bid": AUCTION, "pass": AUCTION,
            "schieber": SCHIEBER, "push": PUSH,
            "stoss": PLAY, "play": PLAY}


class Schafkopf(Game):
    name = "schafkopf"
    title = "Schafkopf"
    player_counts = (PLAYERS,)

    # -- configuration ----------------------------------------------------
    def setup(self, players: int, rules: Mapping[str, Any], preset_deals: list | None) -> Setup:
        if players != PLAYERS:
            raise errors.InvalidSetup({"players": ["Schafkopf is played by 4 players"]})
        complete = validate_rules(dict(rules) if isinstance(rules, dict) else rules)
        return Setup(players, complete, validate_presets(preset_deals, complete))

    def initial_state(self, setup: Setup) -> State:
        presets = tuple((tuple(tuple(hand) for hand in p["hands"]), p.get("dealer"))
                        for p in setup.preset_deals)
        return State(config=config_from_rules(setup.rules), presets=presets)

    def pending_deal(self, state: State) -> DealRequest | None:
        if state.phase != DEALING:
            return None
        decks = {"cards": state.config.cards}
        if state.next_deal == 0:
            decks["seats"] = SEAT_DECK  # its first card after shuffling is the first dealer
        return DealRequest(index=state.next_deal, decks=decks)

    # -- deciding ---------------------------------------------------------
    def decide(self, state: State, actor: int | None, command: Mapping[str, Any]) -> list[Event]:
        kind = command.get("type")
        if actor is None:
            if kind != "deal":
                raise errors.UnknownCommand(f"the system only deals, not {kind!r}")
            if state.phase != DEALING:
                raise errors.WrongPhase("no deal is due")
            return decide_deal(state, command)
        if kind not in PHASE_OF:
            raise errors.UnknownCommand(f"unknown command {kind!r}; one of {sorted(PHASE_OF)}")
        if state.phase == FINISHED:
            raise errors.GameFinished("the session has ended")
        if state.phase != PHASE_OF[kind]:
            raise errors.WrongPhase(f"{kind!r} is not accepted in the {state.phase} phase")
        if actor not in self.to_act(state):
            raise errors.NotYourTurn(f"it is seat {sorted(self.to_act(state))}'s turn")
        return self._session_end(state, self._decide(state, actor, kind, command))

    def _decide(self, state: State, actor: int, kind: str, command: Mapping[str, Any]) -> list[Event]:
        if kind == "doppeln":
            return doppeln.decide(state, actor, command)
        if kind == "give_card":
            return hochzeit.decide_give(state, actor, command)
        if kind == "announce":
            return announcement.decide_announce(state, actor, command)
        if kind == "name_game":
            return announcement.decide_name(state, actor, command)
        if kind == "withdraw":
            return announcement.decide_withdraw(state, actor)
        if kind == "schieber":
            return schieberrunde.decide_call(state, actor, command)
        if kind == "push":
            return schieberrunde.decide_push(state, actor, command)
        if kind == "bid":
            return auction.decide_bid(state, actor, command)
        if kind == "pass":
            return auction.decide_pass(state, actor, announcement.declared)
        if kind == "stoss":
            if not stoss.allowed(state, actor):
                raise errors.IllegalChoice("no Stoß is open to you now (SK-10)")
            return stoss.decide(state, actor)
        return self._play(state, actor, command)

    def _session_end(self, state: State, events: list[Event]) -> list[Event]:
        """Append ``GameEnded`` when a deal just ended the session."""
        counted, totals = state.deals_counted, list(state.totals)
        for event in events:
            if event.type == "DealThrownIn":
                counted += 1 if state.config.thrown_in_counts else 0
                totals = [t + p for t, p in zip(totals, event.data.get("payments") or [0] * PLAYERS)]
            elif event.type in ("DealSettled", "SchieberrundePaid"):
                counted += 1
                totals = [t + p for t, p in zip(totals, event.data["payments"])]
            else:
                continue
            if counted >= state.config.deals:
                return events + [Event("GameEnded", {"totals": totals, "ranking": rank_places(totals)})]
        return events

    def _bound(self, state: State, seat: int) -> bool:
        """Is ``seat`` the called Ace's holder while SK-6 still binds the Ace?"""
        contract = state.contract
        return (contract.called_ace is not None and seat == state.partner
                and contract.called_ace in state.hands[seat]
                and not state.called_suit_led and not state.ace_free)

    def _legal_cards(self, state: State, seat: int) -> list[str]:
        contract = state.contract
        return legal_cards(state.hands[seat], state.trick, contract,
                           holds_ace_bound=self._bound(state, seat), tricks_done=state.trick_number,
                           hand_size=state.config.hand_size,
                           stichzwang=contract.game == "bettel" and state.config.bettel_stichzwang)

    def _play(self, state: State, seat: int, command: Mapping[str, Any]) -> list[Event]:
        card = command.get("card")
        if card not in DECK_SET:
            raise errors.UnknownCard(f"no card {card!r} in the deck")
        if card not in state.hands[seat]:
            raise errors.CardNotInHand(f"{card} is not in your hand")
        legal = self._legal_cards(state, seat)
        if card not in legal:
            trick, rules_order = state.trick, order(state.contract.game, state.contract.suit)
            if trick.plays:
                led = rules_order.follow_key(trick.led)
                if rules_order.follow_key(card) != led and any(
                        rules_order.follow_key(c) == led for c in state.hands[seat]):
                    raise errors.MustFollowSuit(f"you must follow {trick.led} (trump counts as its own suit)")
            raise errors.IllegalCard(f"{card} may not be played now (called-Ace rule or Stichzwang); "
                                     f"one of {legal}")
        events = [Event("CardPlayed", {"seat": seat, "card": card})]
        if card == state.contract.called_ace:
            events.append(Event("PartnerRevealed", {"seat": seat, "card": card}))
        trick = state.trick.with_play(seat, card)
        if not trick.is_complete(PLAYERS):
            return events
        winner = trick_winner(trick, state.contract)
        events.append(Event("TrickTaken", {"seat": winner, "trick": state.trick_number,
                                           "cards": list(trick.cards),
                                           "points": sum(points(c) for c in trick.cards)}))
        tricks = state.tricks + ((winner, trick),)
        if len(tricks) < state.config.hand_size:
            return events
        contract = state.contract
        if contract.game == "ramsch":
            result = settle_ramsch(state.deal, tricks, state.dealer, state.config, state.multiplier)
        else:
            result = settle(state.deal, state.dealt, tricks, contract, state.partner, state.config,
                            multiplier=state.multiplier, stock=state.stock)
        data = settlement_json(result, contract)
        if schieberrunde.follows(state.config, contract.game, contract.suit, result.won):
            data["schieberrunde_next"] = True
        events.append(Event("DealSettled", data))
        return events

    # -- evolving ---------------------------------------------------------
    def evolve(self, state: State, event: Event) -> State:
        return fold_event(state, event)

    # -- reading ----------------------------------------------------------
    def to_act(self, state: State) -> frozenset[int]:
        # A past view (``?at=``) may show a moment inside one command's events, where a phase is
        # about to end (every seat announced, no namer left, the last trick taken): nobody acts then.
        if state.phase == DOPPELN:
            done = len(state.doppeln) >= len(doppeln.speakers(state))
            return frozenset() if done else frozenset({doppeln.speaker(state)})
        if state.phase == EXCHANGE:
            return frozenset({state.contract.declarer})
        if state.phase == ANNOUNCE:
            return frozenset({announcement.announcer(state)}) if len(state.announcements) < PLAYERS else frozenset()
        if state.phase == NAMING:
            return frozenset(state.namers[:1])
        if state.phase == AUCTION:
            return frozenset(state.bidders[:1])  # the next bidder; none once the last has passed
        if state.phase == SCHIEBER:
            return frozenset({schieberrunde.speaker(state)})
        if state.phase == PUSH:
            return frozenset({schieberrunde.pusher(state)})
        if state.phase == PLAY and state.trick is not None:
            return frozenset({state.trick.next_to_play(PLAYERS)})
        return frozenset()

    def legal_commands(self, state: State, seat: int) -> list[dict]:
        if seat not in self.to_act(state):
            return []
        if state.phase == DOPPELN:
            return doppeln.commands()
        if state.phase == EXCHANGE:
            return hochzeit.give_commands(state, seat)
        if state.phase == ANNOUNCE:
            return announcement.announce_commands(state, seat)
        if state.phase == NAMING:
            return announcement.naming_commands(state, seat)
        if state.phase == AUCTION:
            return auction.commands(state)
        if state.phase == SCHIEBER:
            return schieberrunde.call_commands()
        if state.phase == PUSH:
            return schieberrunde.push_commands(state, seat)
        out = [{"type": "play", "card": card} for card in self._legal_cards(state, seat)]
        if stoss.allowed(state, seat):
            out.append({"type": "stoss"})
        return out

    def view(self, state: State, seat: int | None, reveal: bool = False) -> dict:
        out = build_view(state, seat, finished=self.is_finished(state), reveal=reveal)
        out["to_act"] = sorted(self.to_act(state))
        out["scores"] = self.scores(state)
        return out

    def deal_records(self, events: Sequence[Mapping[str, Any]]) -> list[DealRecord]:
        return record.deal_records(events)

    def rating_matches(self, events: Sequence[Mapping[str, Any]]) -> list[Match]:
        return record.rating_matches(events)

    def transcript(self, events: Sequence[Mapping[str, Any]]) -> list[str]:
        return render_transcript(events)

    def deal_ceiling(self, setup: Setup) -> int:
        # Thrown-in deals (which may not count) and Schieberrunden come on top of ``deals``.
        return 4 * setup.rules["deals"] + 16

    def is_finished(self, state: State) -> bool:
        return state.phase == FINISHED

    def scores(self, state: State) -> dict:
        out: dict[str, Any] = {"totals": list(state.totals),
                               "deals": [list(s.payments) for s in state.settlements],
                               "stock": state.stock}
        if self.is_finished(state):
            out["ranking"] = rank_places(list(state.totals))
        return out
