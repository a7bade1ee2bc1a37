"""Schafkopf (Bavarian, 4 players, long deck): the decider the table wraps.

The rules live in small modules: ``cards`` (codes, points), ``game_types``
(precedence, trumps), ``ruleset`` (options), ``announcement`` (who plays
what), ``play`` (legal cards, trick winner), ``settlement`` (payments) and
``view`` (what a seat may see). This module sequences them.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from .. import errors
from ..event import Event, per_seat
from ..game import DealRequest, Game, Setup, rank_places
from ..trick import Trick, remove_card
from . import announcement, settlement
from .cards import DECK, DECK_SET, HALF, HAND_SIZE, PLAYERS, points
from .game_types import order
from .play import leads_called_suit, legal_cards, trick_winner
from .ruleset import config_from_rules, validate_presets, validate_rules
from .state import ANNOUNCE, DEALING, FINISHED, NAMING, PLAY, Contract, State
from .view import view as build_view

SEAT_DECK = tuple(str(seat) for seat in range(PLAYERS))


def hands_from_deck(cards, dealer: int) -> list[list[str]]:
    """Two halves of four, each half going round from the seat left of the dealer.

    Shuffled position p (0-based): half h = p // 16, then the (p % 16) // 4-th
    seat counted from the dealer's left neighbour gets it, as card
    4*h + p % 4 of that hand (a hand's first four cards are its first half).
    """
    hands: list[list[str]] = [[] for _ in range(PLAYERS)]
    for half in range(2):
        for j in range(PLAYERS):
            seat = (dealer + 1 + j) % PLAYERS
            start = half * HALF * PLAYERS + j * HALF
            hands[seat].extend(cards[start:start + HALF])
    return hands


class Schafkopf(Game):
    name = "schafkopf"
    title = "Schafkopf"
    player_counts = (PLAYERS,)

    # -- configuration ----------------------------------------------------
    def setup(self, players: int, rules: Mapping[str, Any], preset_deals: list | None) -> Setup:
        if players != PLAYERS:
            raise errors.InvalidSetup({"players": ["Schafkopf is played by 4 players"]})
        return Setup(players, validate_rules(dict(rules)), validate_presets(preset_deals))

    def initial_state(self, setup: Setup) -> State:
        presets = tuple((tuple(tuple(hand) for hand in p["hands"]), p.get("dealer"))
                        for p in setup.preset_deals)
        return State(config=config_from_rules(setup.rules), presets=presets)

    def pending_deal(self, state: State) -> DealRequest | None:
        if state.phase != DEALING:
            return None
        decks = {"cards": DECK}
        if state.next_deal == 0:
            decks["seats"] = SEAT_DECK  # its first card after shuffling is the first dealer
        return DealRequest(index=state.next_deal, decks=decks)

    # -- deciding ---------------------------------------------------------
    def decide(self, state: State, actor: int | None, command: Mapping[str, Any]) -> list[Event]:
        kind = command.get("type")
        if actor is None:
            if kind != "deal":
                raise errors.UnknownCommand(f"the system only deals, not {kind!r}")
            return self._deal(state, command)
        handlers = {"announce": ANNOUNCE, "name_game": NAMING, "withdraw": NAMING, "play": PLAY}
        if kind not in handlers:
            raise errors.UnknownCommand(f"unknown command {kind!r}; one of {sorted(handlers)}")
        if state.phase == FINISHED:
            raise errors.GameFinished("the session has ended")
        if state.phase != handlers[kind]:
            raise errors.WrongPhase(f"{kind!r} is not accepted in the {state.phase} phase")
        if actor not in self.to_act(state):
            raise errors.NotYourTurn(f"it is seat {sorted(self.to_act(state))}'s turn")
        if kind == "announce":
            events = announcement.decide_announce(state, actor, command)
            last = len(state.announcements) == PLAYERS - 1
            intents = [intent for _, intent in state.announcements] + [command["intent"]]
            if last and "play" not in intents:
                events += self._thrown_in(state)  # all_pass "redeal": the next dealer deals
            return events
        if kind == "name_game":
            return announcement.decide_name(state, actor, command)
        if kind == "withdraw":
            return announcement.decide_withdraw(state, actor)
        return self._play(state, actor, command)

    def _deal(self, state: State, command: Mapping[str, Any]) -> list[Event]:
        if state.phase != DEALING:
            raise errors.WrongPhase("no deal is due")
        k = command.get("deal")
        if k != state.next_deal:
            raise errors.InvalidCommand(f"deal {state.next_deal} is due, not {k!r}")
        dealer = (state.dealer + 1) % PLAYERS if state.dealer >= 0 else 0
        if k < len(state.presets):
            hands, preset_dealer = state.presets[k]
            hands = [list(hand) for hand in hands]
            if preset_dealer is not None:
                dealer = preset_dealer
        else:
            decks = command.get("decks") or {}
            cards = list(decks.get("cards") or ())
            if len(cards) != len(DECK) or set(cards) != DECK_SET:
                raise errors.InvalidCommand("decks.cards must be the 32 cards of the long deck")
            if k == 0:
                seats = list(decks.get("seats") or ())
                if sorted(seats) != list(SEAT_DECK):
                    raise errors.InvalidCommand("deal 0 needs decks.seats, the four seat numbers")
                dealer = int(seats[0])
            hands = hands_from_deck(cards, dealer)
        return [Event("HandsDealt", {"deal": k, "dealer": dealer, "hands": hands}, per_seat("hands"))]

    def _thrown_in(self, state: State) -> list[Event]:
        events = [Event("DealThrownIn", {"deal": state.deal, "dealer": state.dealer})]
        counted = state.deals_counted + (1 if state.config.thrown_in_counts else 0)
        if counted >= state.config.deals:
            events.append(self._ended(list(state.totals)))
        return events

    def _ended(self, totals: list[int]) -> Event:
        return Event("GameEnded", {"totals": totals, "ranking": rank_places(totals)})

    def _bound(self, state: State, seat: int) -> bool:
        """Is ``seat`` the called Ace's holder while SK-6 still binds the Ace?"""
        contract = state.contract
        return (contract.called_ace is not None and seat == state.partner
                and contract.called_ace in state.hands[seat]
                and not state.called_suit_led and not state.ace_free)

    def _legal_cards(self, state: State, seat: int) -> list[str]:
        return legal_cards(state.hands[seat], state.trick, state.contract,
                           holds_ace_bound=self._bound(state, seat), tricks_done=state.trick_number)

    def _play(self, state: State, seat: int, command: Mapping[str, Any]) -> list[Event]:
        card = command.get("card")
        if card not in DECK_SET:
            raise errors.UnknownCard(f"no card {card!r} in the long deck")
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
            raise errors.IllegalCard(f"{card} may not be played now (called-Ace rule); one of {legal}")
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
        if len(tricks) < HAND_SIZE:
            return events
        result = settlement.settle(state.deal, state.dealt, tricks, state.contract, state.partner,
                                   state.config)
        events.append(Event("DealSettled", settlement.to_json(result, state.contract)))
        if state.deals_counted + 1 >= state.config.deals:
            events.append(self._ended([t + p for t, p in zip(state.totals, result.payments)]))
        return events

    # -- evolving ---------------------------------------------------------
    def evolve(self, state: State, event: Event) -> State:
        data, kind = event.data, event.type
        if kind == "HandsDealt":
            hands = tuple(tuple(hand) for hand in data["hands"])
            return replace(state, phase=ANNOUNCE, deal=data["deal"], next_deal=data["deal"] + 1,
                           dealer=data["dealer"], dealt=hands, hands=hands, announcements=(),
                           namers=(), naming=(), best=None, contract=None, partner=None,
                           partner_revealed=False, called_suit_led=False, ace_free=False,
                           trick=None, last_trick=None, tricks=())
        if kind == "AnnouncementMade":
            announcements = state.announcements + ((data["seat"], data["intent"]),)
            if len(announcements) < PLAYERS:
                return replace(state, announcements=announcements)
            namers = tuple(seat for seat, intent in announcements if intent == "play")
            return replace(state, announcements=announcements, namers=namers,
                           phase=NAMING if namers else state.phase)
        if kind == "DealThrownIn":
            counted = state.deals_counted + (1 if state.config.thrown_in_counts else 0)
            return replace(state, phase=DEALING, deals_counted=counted,
                           settlements=state.settlements + (settlement.thrown_in(data["deal"]),))
        if kind == "GameNamed":
            return replace(state, namers=state.namers[1:],
                           naming=state.naming + ((data["seat"], data["game"], data["suit"]),),
                           best=(data["seat"], data["game"], data["suit"]))
        if kind == "PlayWithdrawn":
            return replace(state, namers=state.namers[1:],
                           naming=state.naming + ((data["seat"], None, None),))
        if kind == "GameDeclared":
            contract = Contract(data["game"], data["suit"], data["declarer"])
            ace = contract.called_ace
            partner = next((s for s in range(PLAYERS) if ace in state.hands[s]), None) if ace else None
            return replace(state, phase=PLAY, contract=contract, partner=partner,
                           trick=Trick((state.dealer + 1) % PLAYERS))
        if kind == "CardPlayed":
            seat, card = data["seat"], data["card"]
            hands = list(state.hands)
            hands[seat] = remove_card(hands[seat], card)
            ace_free = state.ace_free
            if (not state.trick.plays and seat == state.partner and card != state.contract.called_ace
                    and not state.called_suit_led and leads_called_suit(card, state.contract)):
                ace_free = True  # davonlaufen: from now on the Ace is free
            return replace(state, hands=tuple(hands), trick=state.trick.with_play(seat, card),
                           ace_free=ace_free)
        if kind == "PartnerRevealed":
            return replace(state, partner_revealed=True)
        if kind == "TrickTaken":
            trick, winner = state.trick, data["seat"]
            tricks = state.tricks + ((winner, trick),)
            led_called = state.called_suit_led or leads_called_suit(trick.led, state.contract)
            return replace(state, tricks=tricks, last_trick=trick, called_suit_led=led_called,
                           trick=Trick(winner) if len(tricks) < HAND_SIZE else None)
        if kind == "DealSettled":
            result = settlement.from_json(data)
            totals = tuple(t + p for t, p in zip(state.totals, result.payments))
            return replace(state, phase=DEALING, totals=totals, deals_counted=state.deals_counted + 1,
                           settlements=state.settlements + (result,))
        if kind == "GameEnded":
            return replace(state, phase=FINISHED)
        return state

    # -- reading ----------------------------------------------------------
    def to_act(self, state: State) -> frozenset[int]:
        if state.phase == ANNOUNCE:
            return frozenset({announcement.announcer(state)})
        if state.phase == NAMING:
            return frozenset({state.namers[0]})
        if state.phase == PLAY:
            return frozenset({state.trick.next_to_play(PLAYERS)})
        return frozenset()

    def legal_commands(self, state: State, seat: int) -> list[dict]:
        if seat not in self.to_act(state):
            return []
        if state.phase == ANNOUNCE:
            return announcement.announce_commands(state, seat)
        if state.phase == NAMING:
            return announcement.naming_commands(state, seat)
        return [{"type": "play", "card": card} for card in self._legal_cards(state, seat)]

    def view(self, state: State, seat: int | None) -> dict:
        out = build_view(state, seat, finished=self.is_finished(state))
        out["to_act"] = sorted(self.to_act(state))
        out["scores"] = self.scores(state)
        return out

    def is_finished(self, state: State) -> bool:
        return state.phase == FINISHED

    def scores(self, state: State) -> dict:
        out: dict[str, Any] = {"totals": list(state.totals),
                               "deals": [list(s.payments) for s in state.settlements]}
        if self.is_finished(state):
            out["ranking"] = rank_places(list(state.totals))
        return out
