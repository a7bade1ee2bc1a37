"""The simulator agrees with the decider on random deals, card by card.

At every card-play decision: the simulator built from the decider's state and the one carried
along from the deal's first card both offer exactly the decider's legal cards for the seat to
move; playing the chosen card gives the same trick winner (or none) and the same end of the
deal; the last trick's settlement equals the decider's ``Settlement`` field by field (payments,
card points, tricks, Schneider, Schwarz, Laufende, value, multiplier, the Stock, Ramsch's
loser, Durchmarsch and Jungfrauen). A Stoß during play doubles the carried simulator's price.

Every option set that changes card play or settlement is driven: every game type, the
tournament preset, the short deck, Ramsch with each Durchmarsch and Jungfrau rule, Bettel
with Stichzwang, Hochzeit, the auction, Muss-Spiel with As-Renonce, the Stock, Doppeln, the
Schieberrunde and the Sie (from preset deals). ``STICH_SIMULATOR_DEALS=10000`` checks that many
deals per set.
"""
from __future__ import annotations

import random

import pytest

from domain.schafkopf.game_types import PRECEDENCE, SIE_HAND
from domain.schafkopf.simulator import INDEX, from_state, mask_of
from domain.schafkopf.state import PLAY
from tests.domain.agreement import deals_wanted, drive

from .helpers import GAME
from .test_playout import chooser, sie_presets

ALL = {"allowed_games": list(PRECEDENCE), "deals": 40}
OPTION_SETS = {
    "every_game_type": (ALL, 0.5, 0.0),
    "tournament": (dict(ALL, preset="tournament"), 0.5, 0.0),
    "short_deck": ({"deck": "short", "allowed_games": ["solo", "wenz", "geier", "farbwenz", "farbgeier",
                                                       "rufspiel", "solo_tout", "wenz_tout"], "deals": 40},
                   0.5, 0.0),
    "ramsch": ({"all_pass": "ramsch", "deals": 40}, 0.15, 0.0),
    "ramsch_all_points_jungfrau_all": ({"all_pass": "ramsch", "ramsch_durchmarsch": "all_points",
                                        "ramsch_jungfrau": "double_all", "deals": 40}, 0.15, 0.0),
    "ramsch_no_durchmarsch_jungfrau_multiple": ({"all_pass": "ramsch", "ramsch_durchmarsch": "off",
                                                 "ramsch_jungfrau": "double_individually_multiple",
                                                 "deals": 40}, 0.15, 0.0),
    "ramsch_jungfrau_each": ({"all_pass": "ramsch", "ramsch_jungfrau": "double_individually", "deals": 40},
                             0.15, 0.0),
    "bettel_stichzwang": ({"bettel_stichzwang": True, "allowed_games": ["bettel", "rufspiel"], "deals": 40},
                          0.5, 0.0),
    "hochzeit": ({"hochzeit": True, "allowed_games": ["rufspiel", "solo"], "deals": 40}, 0.7, 0.0),
    "auction": (dict(ALL, auction=True), 0.6, 0.0),
    "muss_renonce": ({"all_pass": "muss", "renonce": True, "deals": 40}, 0.1, 0.0),
    "stock_lone": ({"all_pass": "stock_double", "stock_lone_games": True, "stock_winner": "declarer",
                    "deals": 40}, 0.25, 0.0),
    "stock_partners": ({"all_pass": "stock", "doppeln": "all", "deals": 40}, 0.25, 0.0),
    "schieberrunde": ({"schieberrunde": True, "allowed_games": ["solo", "rufspiel", "wenz"], "deals": 40},
                      0.6, 0.7),
    "sie": (dict(ALL, deals=4), 0.5, 0.0),
}


class Checker:
    """Compares the simulator with the decider at every command (see the module's docstring)."""

    def __init__(self):
        self.deals = self.cards = 0
        self.carried = None
        self.games: dict[str, int] = {}
        self.features: dict[str, int] = {}  # deals with a rule at work that the game type does not show

    def step(self, state, seat, legal, command, events, after) -> None:
        if state.phase != PLAY:
            return
        fresh = from_state(state)
        if self.carried is None:
            self.carried = fresh.copy()
        carried = self.carried
        plays = mask_of(c["card"] for c in legal if c["type"] == "play")
        assert fresh.to_move() == carried.to_move() == seat
        assert fresh.legal() == carried.legal() == plays, (state.contract, state.hands[seat], state.trick)
        if command["type"] == "stoss":
            carried.stoss()
            return
        card = INDEX[command["card"]]
        winners = {carried.apply(card), fresh.apply(card)}
        self.cards += 1
        taken = [e.data["seat"] for e in events if e.type == "TrickTaken"]
        assert winners == {taken[0] if taken else -1}
        settled = [e for e in events if e.type == "DealSettled"]
        assert carried.is_over() == fresh.is_over() == bool(settled)
        if settled:
            assert carried.settlement() == fresh.settlement() == after.settlements[-1]
            self.deals += 1
            self.games[state.contract.game] = self.games.get(state.contract.game, 0) + 1
            settled = after.settlements[-1]
            for feature, shown in (("schieberrunde", state.schieber), ("stoss", bool(state.stoss)),
                                   ("doubled", settled.multiplier > 1), ("stock", settled.stock != 0),
                                   ("renonce", state.contract.renonce), ("called_ten_or_king", bool(state.contract.call)),
                                   ("ran_away", state.ace_free), ("target_above_61", (settled.target or 0) > 61),
                                   ("durchmarsch", settled.durchmarsch), ("jungfrau", bool(settled.jungfrauen)),
                                   ("schwarz", settled.schwarz), ("laufende", settled.laufende > 0)):
                if shown:
                    self.features[feature] = self.features.get(feature, 0) + 1
            self.carried = None
        elif after.phase == PLAY:
            assert carried.to_move() == min(GAME.to_act(after))


def sie_chooser(rng: random.Random, state, seat: int, legal: list[dict]) -> dict:
    """The Sie's holder announces and names it; everybody else as ``chooser``."""
    if state.phase != PLAY and state.hands and SIE_HAND <= set(state.hands[seat]):
        pick = next((c for c in legal if c.get("intent") == "play" or c.get("game") == "sie"), None)
        if pick is not None:
            return pick
    return chooser()(rng, seat, legal)


def check(name: str, deals: int, seed: int = 1) -> Checker:
    rules, play_rate, herz_solo = OPTION_SETS[name]
    seed += list(OPTION_SETS).index(name)
    checker = Checker()
    if name == "sie":
        drive(GAME, 4, rules, seed, deals, checker, sie_chooser, presets=lambda rng: sie_presets(rng, 4))
    else:
        pick = chooser(play_rate, herz_solo)
        drive(GAME, 4, rules, seed, deals, checker, lambda rng, state, seat, legal: pick(rng, seat, legal))
    return checker


@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_simulator_agrees_with_the_decider(name):
    deals = deals_wanted(25)
    checker = check(name, deals)
    assert checker.deals >= deals
    if name == "sie":
        assert checker.games.get("sie", 0) >= 1


def test_every_game_type_was_checked():
    games = set(check("every_game_type", deals_wanted(25) * 4, seed=2).games)
    games |= set(check("ramsch", 10).games) | set(check("hochzeit", 60).games)
    assert set(PRECEDENCE) - {"sie"} | {"ramsch", "hochzeit"} <= games | {"sie"}
