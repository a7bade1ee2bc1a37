"""Inference: how likely a sampled deal makes what the seat saw the others do (policy-based).

A sampled deal (``determinize.Draw``: the hands as dealt) is replayed from the deal's start
through the simulator, action by action as the seat's history shows them: Doppeln, the
Hochzeit offer, "Ich spiele"/"Weiter", the game named (or not), the auction's bids and passes,
then the Stöße given and the Kontra (Re...) a seat could give before its card and did not. At
each public choice of another seat the heuristic is asked what it would have done with the
sampled hand there (``rollout.talk_action``, ``rollout.wants_stoss``): the same choice keeps
the weight, another multiplies it by ``FLOOR`` (people, and other bots, do not play like the
heuristic: no world gets weight 0 for that). A choice the sampled hand could not make at all
(naming a Rufspiel without a card of the called suit, an offer without exactly one trump) makes
the world impossible: weight 0.

Only the seat's own history is read (``Decision.history``: public choices and its own cards):
the weights are a function of the draw and of what the seat saw. The card play is not weighed
(the voids and the called Ace already constrain the draw, and a card-play likelihood per past
card and per draw would cost more than the playouts it steers).

``pick`` draws a few deals and keeps one with probability proportional to its weight
(sampling-importance-resampling): the playouts then go to likely worlds, unweighted.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..auction import STEP
from ..simulator import INDEX, Simulator, from_state, mask_of
from ..state import DOPPELN, WIN
from ..talk_simulator import BID, BID_PASS, DOUBLE, I_PLAY, NO_DOUBLE, OFFER, PASS, WITHDRAW, name_action
from .rollout import talk_action, wants_stoss

FLOOR = 0.1  # a public choice the heuristic would not have made, with the sampled hand
POOL = 4  # draws weighed for each world kept
STOSS_TRICKS = 3  # Kontra and Re are given before a seat's first or second card: the first tricks tell
UNSUPPORTED = ("HochzeitSpoken", "SchieberSpoken", "CardsPushed", "ObersHandedOver")


def _talk(raw: dict) -> int | None:
    kind, data = raw["type"], raw["data"]
    if kind == "DoppelnDeclared":
        return DOUBLE if data["double"] else NO_DOUBLE
    if kind == "HochzeitOffered":
        return OFFER
    if kind == "AnnouncementMade":
        return I_PLAY if data["intent"] == "play" else PASS
    if kind == "GameNamed":
        return name_action(data["game"], data.get("suit"))
    if kind == "PlayWithdrawn":
        return WITHDRAW
    if kind == "BidMade":
        return BID + (data["target"] - WIN) // STEP - 1
    if kind == "BidPassed":
        return BID_PASS
    return None


@dataclass
class Observed:
    """What the seat saw said in this deal, as simulator actions, and the play that followed."""
    talk: list[tuple[int, int]]  # (seat, action) in order
    play: list[tuple[str, int, str | None]]  # ("card", seat, card) / ("stoss", seat, None), the first tricks
    complete: bool  # False: the deal has a step the replay does not model (a Schieberrunde, ...)

    @classmethod
    def of(cls, deal_events) -> "Observed":
        talk, play, complete, cards = [], [], True, 0
        for raw in deal_events:
            kind = raw["type"]
            if kind in UNSUPPORTED or (kind == "HandsDealt" and raw["data"].get("schieberrunde")):
                complete = False
                break
            if kind == "HochzeitCardGiven":
                break  # the exchange's card is hidden: the talk ends there, the play is not replayed
            action = _talk(raw)
            if action is not None:
                talk.append((raw["data"]["seat"], action))
            elif kind == "StossGiven":
                play.append(("stoss", raw["data"]["seat"], None))
            elif kind == "CardPlayed":
                cards += 1
                if cards > 4 * STOSS_TRICKS:
                    break
                play.append(("card", raw["data"]["seat"], raw["data"]["card"]))
        return cls(talk, play, complete)


class Prior:
    """The deal's start for one decision: a simulator right after the deal, reseated per draw."""

    def __init__(self, world, me: int, rng, before_pickup: bool = False, floor: float = FLOOR):
        self.world, self.me, self.floor, self.before_pickup = world, me, floor, before_pickup
        draw = self.draw(rng)
        self.template = from_state(world.start(draw).inner)
        self.observed = Observed.of(world.deal)

    def draw(self, rng):
        return self.world.draw_before_pickup(rng) if self.before_pickup else self.world.draw(rng)

    def seated(self, draw) -> Simulator:
        sim = self.template.copy()
        before_pickup = sim.talk.phase == DOPPELN
        for seat in range(len(sim.hands)):
            whole, first = mask_of(draw.dealt[seat]), mask_of(draw.firsts[seat])
            sim.hands[seat] = first if before_pickup else whole
            sim.talk.held[seat] = whole & ~first if before_pickup else 0
        return sim

    def replay(self, draw, play: bool) -> tuple[float, Simulator | None]:
        """(weight, the simulator after what was said): weight 0 and None when the draw cannot have
        said it. With ``play``, the first tricks' Stöße (given and not) weigh it too."""
        sim = self.seated(draw)
        weight, me, floor = 1.0, self.me, self.floor
        for seat, action in self.observed.talk:
            if sim.talk is None or sim.to_move() != seat:
                return 0.0, None
            legal = sim.legal()
            if not legal >> action & 1:
                return 0.0, None
            if seat != me and legal & (legal - 1) and talk_action(sim, seat, legal) != action:
                weight *= floor
            sim.apply(action)
        if play and sim.talk is None and self.observed.complete:
            weight *= self._stoss_weight(sim.copy())
        return weight, sim

    def _stoss_weight(self, sim: Simulator) -> float:
        weight, me, floor = 1.0, self.me, self.floor
        for kind, seat, card in self.observed.play:
            if kind == "stoss":
                if seat != me and not wants_stoss(sim, seat):  # the seat need not be the one to move
                    weight *= floor
                sim.stoss()
                continue
            if sim.to_move() != seat or not sim.legal() >> INDEX[card] & 1:
                return weight  # not this deal's play (never seen): stop weighing here
            if seat != me and sim.may_stoss() and wants_stoss(sim, seat):
                weight *= floor  # it could give the (next) Stoß before its card and did not
            sim.apply(INDEX[card])
        return weight


def pick(prior: Prior, rng, play: bool, pool: int = POOL):
    """One draw of ``pool``, by weight: (draw, its simulator after the talk) or None when none fits.
    Without inference (``prior.floor`` 1) the first draw that fits."""
    draws = []
    total = 0.0
    for _ in range(pool):
        draw = prior.draw(rng)
        weight, sim = prior.replay(draw, play)
        if weight > 0 and prior.floor >= 1.0:
            return draw, sim
        if weight > 0:
            draws.append((weight, draw, sim))
            total += weight
    if not draws:
        return None
    mark = rng.random() * total
    for weight, draw, sim in draws:
        mark -= weight
        if mark < 0:
            return draw, sim
    return draws[-1][1], draws[-1][2]
