"""Settlement of a played deal: card points, SK-7 goals, SK-9 Laufende, SK-8 prices.

Partner game (Rufspiel, Hochzeit): each loser pays one winner the game
value. Lone games: each of the three opponents pays the lone player the
value, or is paid it by him. The value is multiplied by the deal's
multiplier (2 per Doppeln, per Stoß and per doubled-after-all-pass). The
Stock (pot) then changes hands (see ``stock_change``); a deal's payments
plus the pot's change sum to zero.
"""
from __future__ import annotations

from .cards import DECKS, PLAYERS, total_points
from .game_types import TARIFF_OF, TOUTS, goal, order
from .ruleset import Config
from .state import WIN, Contract, Settlement
DECLARER_SCHNEIDER = 91  # the declarers win Schneider with 91+
DEFENDER_SCHNEIDER = 90  # the defenders need only 90 (SK-7's asymmetry)


PARTNERSHIP = ("rufspiel", "hochzeit")


def laufende(dealt: tuple[tuple[str, ...], ...], contract: Contract, declarers: tuple[int, ...],
             deck: str = "long") -> int:
    """SK-9: the unbroken run of top trumps held by one side (with or without)."""
    in_deck = set(DECKS[deck])
    trumps = [card for card in order(contract.game, contract.suit).trumps if card in in_deck]
    if not trumps:
        return 0
    held = set(card for seat in declarers for card in dealt[seat])
    side = trumps[0] in held
    run = 0
    for card in trumps:
        if (card in held) != side:
            break
        run += 1
    return run


def stock_change(stock: int, won: bool, declarers: tuple[int, ...], contract: Contract,
                 config: Config) -> tuple[int, list[int]]:
    """The Stock (seed, "The Pot"): (pot change, payment per seat).

    Only a partnership game wins it (lone games too with
    ``stock_lone_games``). Won, the game-maker takes the whole Stock
    (``stock_winner: "declarer"``) or shares it with his partner
    (``"declarer_and_partner"``, the odd unit to the game-maker); lost, the
    same seat(s) pay the Stock's amount again into it: it doubles.
    """
    flows = [0] * PLAYERS
    if stock <= 0 or not (contract.game in PARTNERSHIP or config.stock_lone_games):
        return 0, flows
    takers = declarers if config.stock_winner == "declarer_and_partner" else (contract.declarer,)
    share = stock // len(takers)
    for seat in takers:
        flows[seat] = share
    flows[contract.declarer] += stock - share * len(takers)
    if won:
        return -stock, flows
    return stock, [-f for f in flows]


def settle(deal: int, dealt, tricks, contract: Contract, partner: int | None, config: Config,
           multiplier: int = 1, stock: int = 0, target: int | None = None) -> Settlement:
    """``target``: the points the declarers need (default the contract's auction target, else 61).

    Schneider keeps its thresholds (91 / 90) whatever the target: the rulebook
    moves only "the relevant target for winning" (a won bid of 91+ is
    therefore always Schneider).
    """
    target = target if target is not None else (contract.target or WIN)
    declarers = tuple(sorted({contract.declarer} | ({partner} if partner is not None else set())))
    taken = [0, 0]  # tricks: declaring side, defenders
    points = [0, 0]
    for winner, trick in tricks:
        side = 0 if winner in declarers else 1
        taken[side] += 1
        points[side] += total_points(trick.cards)
    kind = goal(contract.game)
    tariff = config.tariff(TARIFF_OF[contract.game])
    schneider = schwarz = False
    runs = 0
    if kind == "no_tricks":  # Bettel: no points, no Laufende
        won = taken[0] == 0
        value = tariff.base
    elif kind == "all_tricks":  # Tout and Sie: no Schneider/Schwarz, Laufende doubled with the base
        won = taken[1] == 0
        runs = laufende(dealt, contract, declarers, config.deck)
        if runs < tariff.laufende_min:
            runs = 0
        factor = config.tout_factor if contract.game in TOUTS else config.sie_factor
        value = (tariff.base + runs * tariff.laufende) * factor
    else:
        won = points[0] >= target
        schneider = points[0] >= DECLARER_SCHNEIDER if won else points[1] >= DEFENDER_SCHNEIDER
        schwarz = taken[1] == 0 if won else taken[0] == 0
        runs = laufende(dealt, contract, declarers, config.deck)
        if runs < tariff.laufende_min:
            runs = 0
        value = (tariff.base + (tariff.schneider if schneider else 0)
                 + (tariff.schwarz if schwarz else 0) + runs * tariff.laufende)
    value *= multiplier
    sign = 1 if won else -1
    payments = []
    for seat in range(PLAYERS):
        if seat in declarers:
            # A lone player collects from (or pays) all three opponents.
            share = value if len(declarers) == 2 else value * (PLAYERS - 1)
            payments.append(sign * share)
        else:
            payments.append(-sign * value)
    pot, flows = stock_change(stock, won, declarers, contract, config)
    payments = [p + f for p, f in zip(payments, flows)]
    return Settlement(deal=deal, game=contract.game, declarers=declarers,
                      card_points=(points[0], points[1]), tricks=(taken[0], taken[1]),
                      won=won, schneider=schneider, schwarz=schwarz, laufende=runs,
                      value=value, payments=tuple(payments), multiplier=multiplier, stock=pot,
                      target=contract.target, declarer=contract.declarer, suit=contract.suit)


def thrown_in(deal: int, payments=(0,) * PLAYERS, stock: int = 0) -> Settlement:
    return Settlement(deal=deal, game=None, declarers=(), card_points=(0, 0), tricks=(0, 0),
                      won=False, schneider=False, schwarz=False, laufende=0, value=0,
                      payments=tuple(payments), stock=stock)


def deal_line(settlement: Settlement) -> dict:
    """A deal's line in the money list (the view's ``deal_results``): what was played, by whom, and
    whether it was won; a deal thrown in has no game. All of it public once the deal is settled."""
    return {"game": settlement.game, "suit": settlement.suit, "declarer": settlement.declarer,
            "declarers": list(settlement.declarers), "won": settlement.won,
            "schneider": settlement.schneider, "schwarz": settlement.schwarz}


def to_json(settlement: Settlement, contract: Contract | None = None) -> dict:
    out = {
        "deal": settlement.deal,
        "game": settlement.game,
        "declarers": list(settlement.declarers),
        "card_points": {"declarers": settlement.card_points[0], "defenders": settlement.card_points[1]},
        "tricks": {"declarers": settlement.tricks[0], "defenders": settlement.tricks[1]},
        "won": settlement.won,
        "schneider": settlement.schneider,
        "schwarz": settlement.schwarz,
        "laufende": settlement.laufende,
        "value": settlement.value,
        "payments": list(settlement.payments),
        "multiplier": settlement.multiplier,
        "stock": settlement.stock,
    }
    if settlement.game == "ramsch":
        out["seat_points"] = list(settlement.seat_points)
        out["durchmarsch"] = settlement.durchmarsch
        out["jungfrauen"] = list(settlement.jungfrauen)
    if settlement.target is not None:
        out["target"] = settlement.target
    if contract is not None:
        out["declarer"] = contract.declarer
        out["suit"] = contract.suit
    elif settlement.declarer is not None:  # the view's last_deal, rebuilt from the event
        out["declarer"] = settlement.declarer
        out["suit"] = settlement.suit
    return out


def from_json(data: dict) -> Settlement:
    return Settlement(
        deal=data["deal"], game=data["game"], declarers=tuple(data["declarers"]),
        card_points=(data["card_points"]["declarers"], data["card_points"]["defenders"]),
        tricks=(data["tricks"]["declarers"], data["tricks"]["defenders"]),
        won=data["won"], schneider=data["schneider"], schwarz=data["schwarz"],
        laufende=data["laufende"], value=data["value"], payments=tuple(data["payments"]),
        multiplier=data.get("multiplier", 1), stock=data.get("stock", 0),
        seat_points=tuple(data.get("seat_points", ())), durchmarsch=data.get("durchmarsch", False),
        jungfrauen=tuple(data.get("jungfrauen", ())), target=data.get("target"),
        declarer=data.get("declarer"), suit=data.get("suit"),
    )
