"""What every game's history records and rating matches must satisfy (``domain/record.py``).

The record tests of each game (``tests/domain/<game>/test_record.py``) play games and hold what
``deal_records`` and ``rating_matches`` read from the served events to these, besides the game's own
cross-checks against its scores.
"""
from __future__ import annotations

import json

from domain.game import Game
from domain.record import DECLARER, DEFENDER, EVEN, LOST, PARTNER, PLAYER, ROLES, WON, DealRecord, Match
from domain.table import Table, TableState
from tests.domain.harness import served

OUTCOMES = (WON, LOST, EVEN)


def read(game: Game, events) -> tuple[list[DealRecord], list[Match]]:
    """What the history reads from a finished game: its records and matches, from the served events."""
    shown = served(events)
    return game.deal_records(shown), game.rating_matches(shown)


def check_records(records: list[DealRecord], players: int) -> None:
    """Every record has a role, a result and an outcome per seat; a deal with parties has one declarer."""
    deals = [r.deal for r in records]
    assert deals == sorted(set(deals)), f"deal numbers must rise: {deals}"
    for record in records:
        assert len(record.roles) == len(record.results) == len(record.outcomes) == players
        assert set(record.roles) <= set(ROLES) and set(record.outcomes) <= set(OUTCOMES)
        assert all(isinstance(r, int) and not isinstance(r, bool) for r in record.results)
        if PLAYER in record.roles:
            assert set(record.roles) == {PLAYER}, "a deal has parties or it has none"
        else:
            assert record.roles.count(DECLARER) == 1 and DEFENDER in record.roles
        declaring = [o for role, o in zip(record.roles, record.outcomes) if role in (DECLARER, PARTNER)]
        defending = [o for role, o in zip(record.roles, record.outcomes) if role == DEFENDER]
        assert len(set(declaring)) <= 1 and len(set(defending)) <= 1, "a side shares its outcome"
        assert json.loads(json.dumps(record.to_json())) == record.to_json(), "a record is JSON as it is"


def check_match(match: Match, players: int) -> None:
    """The teams partition the seats, and each has a competition rank (1 best, equal ranks tie)."""
    seats = sorted(seat for team in match.teams for seat in team)
    assert seats == list(range(players)), f"teams {match.teams} must partition the seats"
    assert len(match.ranks) == len(match.teams) >= 2
    for rank in match.ranks:
        assert rank == 1 + sum(1 for other in match.ranks if other < rank)
    assert json.loads(json.dumps(match.to_json())) == match.to_json()


def check_ranks_follow_outcomes(match: Match, record: DealRecord) -> None:
    """A seat with a better outcome of the deal (won, even, lost) has a better rank in its match."""
    order = {WON: 0, EVEN: 1, LOST: 2}
    rank_of = {seat: rank for team, rank in zip(match.teams, match.ranks) for seat in team}
    for a in rank_of:
        for b in rank_of:
            if order[record.outcomes[a]] < order[record.outcomes[b]]:
                assert rank_of[a] < rank_of[b], (match, record)


def check_game_match(matches: list[Match], ranking: list[int]) -> None:
    """A game's one match orders its teams as the table's places order their seats (the table
    places seats, so a side of two shares place 1 and the other side is 3rd: ranks 1 and 2)."""
    [match] = matches
    assert match.deal is None
    places = []
    for team in match.teams:
        [place] = {ranking[seat] for seat in team}
        places.append(place)
    for a, b in zip(match.ranks, places):
        for c, d in zip(match.ranks, places):
            assert (a < c) == (b < d) and (a == c) == (b == d), (match, ranking)


def table_ranking(table: Table, state: TableState) -> list[int]:
    """The places the table publishes for a finished game (a cut one's by its totals)."""
    return table.summary(state)["scores"]["ranking"]
