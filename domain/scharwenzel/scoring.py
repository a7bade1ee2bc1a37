"""Scoring a deal (SW-4, SW-5, SW-7) and the score sheet's threads (SW-6)."""
from __future__ import annotations

from .cards import matador_order

THREAD_AT = 24
BOCK_VALUES = ("game", "game_and_matadors")


def side_of(seat: int) -> int:
    """Partners sit alternately: even seats are side 0, odd seats side 1."""
    return seat % 2


def majority(tricks: int) -> int:
    """5 of 8, 4 of 6, 3 of 4."""
    return tricks // 2 + 1


def game_points(trumps: str, after_all_passed: bool) -> int:
    return 4 if trumps == "C" and not after_all_passed else 2


def matadors(held, trumps: str) -> list[str]:
    """The matadors a side held: QC, Nillje and QS, then the Jacks in unbroken order."""
    order = matador_order(trumps)
    if not all(card in held for card in order[:3]):
        return []
    run = list(order[:3])
    for card in order[3:]:
        if card not in held:
            break
        run.append(card)
    return run


def score_deal(*, trumps: str, after_all_passed: bool, starting_hands, trick_sides,
               tout_side: int | None, bock_in: int, bock_value: str = "game") -> dict:
    """The full, public breakdown of one deal (the data of ``DealScored`` without ``deal``).

    ``trick_sides`` lists the side that took each trick in order; ``tout_side`` is
    the side that announced tout, if any.
    """
    held = [set(), set()]
    for seat, hand in enumerate(starting_hands):
        held[side_of(seat)].update(hand)
    head = list(trick_sides[:majority(len(trick_sides))])
    return settle(trumps=trumps, after_all_passed=after_all_passed,
                  tricks=[trick_sides.count(0), trick_sides.count(1)],
                  first_side=head[0] if head and head.count(head[0]) == len(head) else None,
                  runs=(matadors(held[0], trumps), matadors(held[1], trumps)),
                  tout_side=tout_side, bock_in=bock_in, bock_value=bock_value)


def settle(*, trumps: str, after_all_passed: bool, tricks: list[int], first_side: int | None,
           runs: tuple[list[str], list[str]], tout_side: int | None, bock_in: int, bock_value: str) -> dict:
    """``score_deal`` from the deal's facts: the tricks per side, the side that took all of the
    first majority of tricks (if one did) and each side's matadors. The simulator
    (``simulator.py``) scores with this too, from its bitmasks."""
    total = tricks[0] + tricks[1]
    game = game_points(trumps, after_all_passed)
    out = {
        "trumps": trumps, "after_all_passed": after_all_passed, "tricks": list(tricks),
        "majority_side": None, "winner": None, "game": 0, "first": 0,
        "matadors": 0, "matador_cards": [], "bock_in": bock_in, "bock_out": 0,
        "bock": False, "tout": False, "announced_tout": tout_side, "tout_made": None,
        "points": [0, 0], "hooks": [0, 0],
    }
    for side in (0, 1):
        if tricks[side] >= majority(total):
            out["majority_side"] = side
    if tout_side is not None:
        made = tricks[tout_side] == total
        out["tout_made"] = made
        if made:
            out.update(winner=tout_side, tout=True, game=game)
            out["points"][tout_side] = game + bock_in
            out["hooks"][tout_side] = 2
        else:
            # SW-7: the opponents get four hooks; they win the deal, so a carried Bock is theirs.
            other = 1 - tout_side
            out["winner"] = other
            out["points"][other] = bock_in
            out["hooks"][other] = 4
        return out
    side = out["majority_side"]
    if side is None:
        # SW-5: nobody scores; the deal's value carries to the next deal.
        value = game
        if bock_value == "game_and_matadors":
            value += max(len(runs[0]), len(runs[1]))
        out.update(bock=True, bock_out=bock_in + value)
        return out
    out.update(winner=side, game=game)
    if tricks[side] == total:
        out["tout"] = True
        out["points"][side] = game + bock_in
        out["hooks"][side] = 1
        return out
    first = 2 if first_side == side else 0
    run = list(runs[side])
    out.update(first=first, matadors=len(run), matador_cards=run)
    out["points"][side] = game + first + len(run) + bock_in
    return out


def threads_won(points: tuple[int, int]) -> tuple[int, int, bool] | None:
    """(side, threads, petersdorfer) when a side has reached 24 points, else None."""
    for side in (0, 1):
        if points[side] >= THREAD_AT:
            petersdorfer = points[1 - side] == 0
            return side, 2 if petersdorfer else 1, petersdorfer
    return None
