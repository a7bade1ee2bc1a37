"""Scharwenzel: the decider (commands -> events) and the fold (events -> state)."""
from __future__ import annotations

import json
from ..frozen import replace
from typing import Any, Mapping, Sequence

from .. import errors
from ..event import Event, per_seat
from ..game import DealRequest, Game, Setup, rank_places
from ..record import DealRecord, Match
from ..trick import Trick, best_play, cards_following, remove_card
from . import record
from .bidding import Bid, check_bid, bid_options, trump_options
from .cards import SUITS, Ranking, deck
from .deal import deal_packets
from .presets import validate_presets
from .ruleset import validate_rules
from .scoring import score_deal, side_of, threads_won
from .state import Preset, Sheet, State
from .transcript import transcript
from .view import render_view

# Fields each command may carry besides "type".
FIELDS = {
    "deal": {"deal", "decks"}, "bid": {"value", "besser"}, "pass": set(),
    "name_trumps": {"suit"}, "announce_tout": set(), "no_tout": set(), "play": {"card"},
}
PHASE = {"bid": "bidding", "pass": "bidding", "name_trumps": "naming",
         "announce_tout": "tout", "no_tout": "tout", "play": "playing"}


def _plain(data: Any) -> Any:
    """JSON-shaped copy, equal to what a replay reads back from the store."""
    return json.loads(json.dumps(data))


class Scharwenzel(Game):
    name = "scharwenzel"
    title = "Scharwenzel"
    player_counts = (4, 6, 8)

    # -- configuration -------------------------------------------------------
    def setup(self, players, rules, preset_deals) -> Setup:
        ruleset = validate_rules(rules if rules is not None else {})
        presets = validate_presets(players, preset_deals)
        return Setup(players, ruleset, presets)

    def initial_state(self, setup: Setup) -> State:
        rules = setup.rules
        presets = tuple(Preset(tuple(tuple(h) for h in p["hands"]), p.get("dealer"))
                        for p in setup.preset_deals)
        return State(players=setup.players, deals=rules["deals"], threads=rules["threads"],
                     announced_tout=rules["announced_tout"], bock_value=rules["bock_value"],
                     presets=presets)

    def pending_deal(self, state: State) -> DealRequest | None:
        if state.phase != "dealing":
            return None
        decks = {"cards": deck(state.players)}
        if state.deal == 0:
            decks["seats"] = tuple(str(s) for s in range(state.players))
        return DealRequest(index=state.deal, decks=decks)

    # -- deciding --------------------------------------------------------------
    def decide(self, state: State, actor: int | None, command: Mapping[str, Any]) -> list[Event]:
        if not isinstance(command, Mapping):
            raise errors.InvalidCommand("a command is an object with a type")
        kind = command.get("type")
        if kind not in FIELDS:
            raise errors.UnknownCommand(f"unknown command {kind!r}; one of {', '.join(FIELDS)}")
        extra = sorted(set(command) - FIELDS[kind] - {"type"})
        if extra:
            raise errors.InvalidCommand(f"{kind} does not take {', '.join(extra)}")
        if state.finished:
            raise errors.WrongPhase("the game has finished")
        if kind == "deal":
            return self._deal(state, actor, command)
        if actor is None:
            raise errors.InvalidCommand(f"{kind} is a player's command")
        if state.phase != PHASE[kind]:
            raise errors.WrongPhase(f"{kind} is not accepted now (phase: {state.phase})")
        if actor not in self.to_act(state):
            raise errors.NotYourTurn(f"it is seat {sorted(self.to_act(state))}'s turn, not seat {actor}'s")
        return getattr(self, "_" + kind)(state, actor, command)

    def _deal(self, state: State, actor, command) -> list[Event]:
        if actor is not None:
            raise errors.NotYourTurn("only the system deals")
        if state.phase != "dealing":
            raise errors.WrongPhase("the cards are already dealt")
        if command.get("deal") != state.deal:
            raise errors.InvalidCommand(f"the next deal is {state.deal}, not {command.get('deal')!r}")
        n = state.players
        preset = state.presets[state.deal] if state.deal < len(state.presets) else None
        if preset is not None:
            hands = [list(h) for h in preset.hands]
            dealer = state.dealer if state.dealer is not None else (
                preset.dealer if preset.dealer is not None else n - 1)
        else:
            decks = command.get("decks") or {}
            cards = decks.get("cards")
            if not isinstance(cards, list) or sorted(cards) != sorted(deck(n)):
                raise errors.InvalidCommand(f"decks.cards must be the {len(deck(n))}-card deck, shuffled")
            dealer = state.dealer
            if dealer is None:
                seats = decks.get("seats")
                if not isinstance(seats, list) or sorted(seats) != sorted(str(s) for s in range(n)):
                    raise errors.InvalidCommand("deal 0 needs decks.seats, the seat numbers shuffled")
                dealer = int(seats[0])
            hands = deal_packets(cards, dealer, n)
        data = {"deal": state.deal, "dealer": dealer, "forehand": (dealer + 1) % n,
                "hand_sizes": [len(h) for h in hands], "preset": preset is not None, "hands": hands}
        return [Event("HandsDealt", data, per_seat("hands"))]

    def _bid(self, state: State, seat: int, command) -> list[Event]:
        besser = command.get("besser", False)
        if not isinstance(besser, bool):
            raise errors.InvalidCommand("besser must be true or false")
        value = command.get("value")
        check_bid(state.hands[seat], value, besser, state.high_bid)
        return self._after_bidding(state, Event("BidMade", {"seat": seat, "value": value, "besser": besser}))

    def _pass(self, state: State, seat: int, command) -> list[Event]:
        return self._after_bidding(state, Event("Passed", {"seat": seat}))

    def _after_bidding(self, state: State, event: Event) -> list[Event]:
        events = [event]
        state = self.evolve(state, event)
        if len(state.bids) < state.players:
            return events
        high = state.high_bid
        if high is None:
            events.append(Event("TrumpsNamed", {"seat": None, "suit": "C", "after_all_passed": True, "bid": None}))
        elif high.besser:
            events.append(Event("TrumpsNamed", {"seat": high.seat, "suit": "C", "after_all_passed": False,
                                                "bid": {"value": high.value, "besser": True}}))
        return events

    def _name_trumps(self, state: State, seat: int, command) -> list[Event]:
        suit = command.get("suit")
        if suit not in SUITS:
            raise errors.InvalidCommand(f"suit must be one of {', '.join(SUITS)}")
        high = state.high_bid
        options = trump_options(state.hands[seat], high)
        if suit not in options:
            raise errors.IllegalChoice(
                f"after a bid of {high.value} you name a suit of exactly {high.value} cards "
                f"(not counting QC, QS and the Jacks): {', '.join(options)}")
        return [Event("TrumpsNamed", {"seat": seat, "suit": suit, "after_all_passed": False,
                                      "bid": {"value": high.value, "besser": False}})]

    def _announce_tout(self, state: State, seat: int, command) -> list[Event]:
        return [Event("ToutAnnounced", {"seat": seat, "side": side_of(seat)})]

    def _no_tout(self, state: State, seat: int, command) -> list[Event]:
        return [Event("ToutDeclined", {"seat": seat})]

    def _play(self, state: State, seat: int, command) -> list[Event]:
        card = command.get("card")
        if not isinstance(card, str):
            raise errors.InvalidCommand("card must be a card code such as QC or 10H")
        if card not in deck(state.players):
            raise errors.UnknownCard(f"{card!r} is not a card of the {len(deck(state.players))}-card deck")
        hand = state.hands[seat]
        if card not in hand:
            raise errors.CardNotInHand(f"{card} is not in your hand")
        if card not in self._playable(state, seat):
            ranking = Ranking(state.trumps, state.players)
            led = ranking.follow_suit(state.trick.led)
            what = "trumps (QC, QS and the Jacks are trumps)" if led == "T" else f"{led} (the Jack and black Queens are trumps)"
            raise errors.MustFollowSuit(f"you must follow suit: play {what}")
        events = [Event("CardPlayed", {"seat": seat, "card": card})]
        state = self.evolve(state, events[0])
        if not state.trick.is_complete(state.players):
            return events
        ranking = Ranking(state.trumps, state.players)
        led = ranking.follow_suit(state.trick.led)
        winner, _ = best_play(state.trick.plays, lambda c: ranking.strength(c, led))
        taken = Event("TrickTaken", {"seat": winner, "side": side_of(winner),
                                     "trick": len(state.trick_sides) + 1, "cards": list(state.trick.cards)})
        events.append(taken)
        state = self.evolve(state, taken)
        if any(state.hands):
            return events
        return events + self._end_of_deal(state)

    def _end_of_deal(self, state: State) -> list[Event]:
        data = score_deal(trumps=state.trumps, after_all_passed=state.after_all_passed,
                          starting_hands=state.starting, trick_sides=state.trick_sides,
                          tout_side=state.tout_side, bock_in=state.sheet.bock, bock_value=state.bock_value)
        high = state.high_bid
        data = {"deal": state.deal, "named_by": state.named_by,
                "bid": None if high is None else {"seat": high.seat, "value": high.value, "besser": high.besser},
                **data}
        events = [Event("DealScored", data)]
        state = self.evolve(state, events[0])
        won = threads_won(state.sheet.points)
        if won is not None:
            side, count, petersdorfer = won
            thread = Event("ThreadWon", {"side": side, "threads": count, "petersdorfer": petersdorfer,
                                         "points": list(state.sheet.points)})
            events.append(thread)
            state = self.evolve(state, thread)
        totals = state.sheet.totals
        if (state.deals is not None and state.deal >= state.deals) or (
                state.threads is not None and sum(totals) >= state.threads):
            winner = None if totals[0] == totals[1] else (0 if totals[0] > totals[1] else 1)
            events.append(Event("GameEnded", {"threads": list(totals), "winner": winner, "deals": state.deal}))
        return events

    def _playable(self, state: State, seat: int) -> list[str]:
        ranking = Ranking(state.trumps, state.players)
        led = ranking.follow_suit(state.trick.led) if state.trick.plays else None
        return cards_following(state.hands[seat], led, ranking.follow_suit)

    # -- folding ----------------------------------------------------------------
    def evolve(self, state: State, event: Event) -> State:
        d = event.data
        kind = event.type
        if kind == "HandsDealt":
            hands = tuple(tuple(h) for h in d["hands"])
            return replace(state, phase="bidding", dealer=d["dealer"], hands=hands, starting=hands, bids=(),
                           trumps=None, named_by=None, after_all_passed=False, tout_asked=0, tout_by=None,
                           trick=None, last_trick=None, last_winner=None, trick_sides=())
        if kind in ("BidMade", "Passed"):
            bid = Bid(d["seat"], d.get("value"), bool(d.get("besser", False)))
            bids = state.bids + (bid,)
            return replace(state, bids=bids, phase="naming" if len(bids) == state.players else "bidding")
        if kind == "TrumpsNamed":
            return replace(state, trumps=d["suit"], named_by=d["seat"], after_all_passed=d["after_all_passed"],
                           phase="tout" if state.announced_tout else "playing", trick=Trick(state.forehand))
        if kind == "ToutAnnounced":
            return replace(state, tout_by=d["seat"], phase="playing")
        if kind == "ToutDeclined":
            asked = state.tout_asked + 1
            return replace(state, tout_asked=asked, phase="playing" if asked == state.players else "tout")
        if kind == "CardPlayed":
            hands = list(state.hands)
            hands[d["seat"]] = remove_card(hands[d["seat"]], d["card"])
            return replace(state, hands=tuple(hands), trick=state.trick.with_play(d["seat"], d["card"]))
        if kind == "TrickTaken":
            return replace(state, last_trick=state.trick, last_winner=d["seat"], trick=Trick(d["seat"]),
                           trick_sides=state.trick_sides + (d["side"],))
        if kind == "DealScored":
            s = state.sheet
            sheet = Sheet(points=(s.points[0] + d["points"][0], s.points[1] + d["points"][1]),
                          threads=s.threads, hooks=(s.hooks[0] + d["hooks"][0], s.hooks[1] + d["hooks"][1]),
                          bock=d["bock_out"])
            return replace(state, sheet=sheet, last_score=_plain(d), phase="dealing", deal=state.deal + 1,
                           dealer=(state.dealer + 1) % state.players, trick=None)
        if kind == "ThreadWon":
            s = state.sheet
            threads = list(s.threads)
            threads[d["side"]] += d["threads"]
            return replace(state, sheet=replace(s, points=(0, 0), threads=tuple(threads)))
        if kind == "GameEnded":
            return replace(state, phase="finished", winner=d["winner"])
        return state

    # -- reading -----------------------------------------------------------------
    def to_act(self, state: State) -> frozenset[int]:
        n = state.players
        if state.phase == "bidding":
            return frozenset({(state.forehand + len(state.bids)) % n})
        if state.phase == "naming":  # inside the last pass's events (a past view) nobody has bid yet
            return frozenset({state.high_bid.seat}) if state.high_bid is not None else frozenset()
        if state.phase == "tout":
            return frozenset({(state.forehand + state.tout_asked) % n})
        if state.phase == "playing":
            return frozenset({state.trick.next_to_play(n)})
        return frozenset()

    def legal_commands(self, state: State, seat: int) -> list[dict]:
        if seat not in self.to_act(state):
            return []
        if state.phase == "bidding":
            out = [{"type": "pass"}]
            for value, besser in bid_options(state.hands[seat], state.high_bid):
                out.append({"type": "bid", "value": value, "besser": True} if besser
                           else {"type": "bid", "value": value})
            return out
        if state.phase == "naming":
            return [{"type": "name_trumps", "suit": s} for s in trump_options(state.hands[seat], state.high_bid)]
        if state.phase == "tout":
            return [{"type": "announce_tout"}, {"type": "no_tout"}]
        if state.phase == "playing":
            return [{"type": "play", "card": c} for c in self._playable(state, seat)]
        return []

    def view(self, state: State, seat: int | None, reveal: bool = False) -> dict:
        out = render_view(state, seat, reveal)
        out["to_act"] = sorted(self.to_act(state))
        return out

    def deal_records(self, events: Sequence[Mapping[str, Any]]) -> list[DealRecord]:
        return record.deal_records(events)

    def rating_matches(self, events: Sequence[Mapping[str, Any]]) -> list[Match]:
        return record.rating_matches(events)

    def transcript(self, events: Sequence[Mapping[str, Any]]) -> list[str]:
        return transcript(events)

    def deal_ceiling(self, setup: Setup) -> int:
        # By threads, a deal may score little: 40 deals a thread is far more than any game took.
        deals, threads = setup.rules["deals"], setup.rules["threads"]
        return 4 * deals + 16 if deals is not None else 40 * threads + 16

    def is_finished(self, state: State) -> bool:
        return state.finished

    def scores(self, state: State) -> dict:
        totals = [state.sheet.totals[side_of(s)] for s in range(state.players)]
        out = {"totals": totals, "sides": state.sheet.to_json()}
        if state.finished:
            out["ranking"] = rank_places(totals)
            out["winner"] = state.winner
        return out

