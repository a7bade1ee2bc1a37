"""What is said before the first card of a Schafkopf deal, for the simulator (``simulator.py``).

``Talk`` keeps it phase by phase as the decider does: Doppeln, the announcement with the
Hochzeit offer, the naming round, the auction, the Hochzeit's exchange, the all-pass rules and
the Schieberrunde. ``simulator.py`` holds a ``Talk`` until the first card and documents the
actions (the ints defined here, past the cards' 0-31).
"""
from __future__ import annotations

from functools import lru_cache

from ..bitmask import members
from .auction import MAX_TARGET, STEP
from .cards import DECK, INDEX, PLAYERS, SUITS
from . import game_types
from .game_types import BAND, CALLABLE_SUITS, PRECEDENCE, SIE_HAND, beats, order, outranks
from .scoring import thrown_in
from .state import ANNOUNCE, AUCTION, DOPPELN, EXCHANGE, NAMING, PUSH, SCHIEBER, WIN, Contract


# Actions before the first card (see the module's docstring); every one is >= PASS, past the cards.
PASS, I_PLAY, OFFER = 32, 33, 34  # the announcement: "Weiter", "Ich spiele", the Hochzeit offer
DOUBLE, NO_DOUBLE = 35, 36  # Doppeln
WITHDRAW = 37  # the naming round's "Weiter"
SCHIEBER_PLAY, SCHIEBER_NO = 38, 39  # the Schieberrunde: "Ich spiele", "Ich spiele nicht"
BID_PASS = 40  # the auction's pass
BID = 41  # BID + k bids the target WIN + STEP * (k + 1): 71 ... 111
NAME = BID + 5  # NAME + 5 * game + suit: game in ``GAMES`` order, suit in ``cards.SUITS`` order, 4 = none
GAMES = PRECEDENCE + ("hochzeit",)
GIVE = NAME + 5 * len(GAMES)  # GIVE + card: the Hochzeit's card given for the offered trump
PASS_ON = GIVE + len(DECK)  # PASS_ON + 32 * a + b (a < b): the Schieberrunde's two cards passed on
SUIT_INDEX = {suit: i for i, suit in enumerate(SUITS)}
SUIT_INDEX[None] = 4
RUF_TRUMPS = sum(1 << INDEX[c] for c in order("rufspiel", None).trumps)  # also the Hochzeit's and Ramsch's
CALLABLE = tuple((s, sum(1 << INDEX[c] for c in DECK if c[0] == s and c not in SIE_HAND), 1 << INDEX[s + "A"])
                 for s in CALLABLE_SUITS)  # (suit, its plain cards, its Ace)
SCHIEBER_OBERS = sum(1 << INDEX[c] for c in ("EO", "GO"))
EICHEL_OBER = 1 << INDEX["EO"]


def name_action(game: str, suit: str | None) -> int:
    return NAME + 5 * GAMES.index(game) + SUIT_INDEX[suit]


def callable_suits(hand: int) -> list[str]:
    """SK-5 (``game_types.callable_suits``): a plain suit held without its Ace."""
    return [s for s, plain, ace in CALLABLE if hand & plain and not hand & ace]


def renonce_calls(hand: int) -> list[tuple[str, str]]:
    """``game_types.renonce_calls``: a void suit's Ace, else a missing Ten, else a missing King."""
    void = [(s, s + "A") for s, plain, _ in CALLABLE if not hand & plain]
    if void:
        return void
    for rank in ("A", "10", "K"):
        missing = [(s, s + rank) for s in CALLABLE_SUITS if not hand >> INDEX[s + rank] & 1]
        if missing:
            return missing
    return []


def contracts_for(hand: int, allowed) -> list[tuple[str, str | None]]:
    """``game_types.contracts_for`` on a mask (a fresh list: callers add to it)."""
    return list(_contracts_for(hand, tuple(allowed)))


@lru_cache(maxsize=1 << 14)  # a search's playouts ask it for the same few hands again and again
def _contracts_for(hand: int, allowed: tuple[str, ...]) -> tuple[tuple[str, str | None], ...]:
    return tuple(game_types.contracts_for([DECK[card] for card in members(hand)], allowed))


@lru_cache(maxsize=1 << 14)
def _above_rufspiel(hand: int, allowed: tuple[str, ...]) -> bool:
    """Whether the hand could name a game that outranks the Rufspiel."""
    return any(outranks(game, "rufspiel") for game, _ in _contracts_for(hand, allowed))


@lru_cache(maxsize=1 << 14)
def _naming_mask(hand: int, allowed: tuple[str, ...], hochzeit: bool, best: str | None, auction: bool,
                 no_mode: bool) -> int:
    """``Talk.nameable`` outside the Renonce, Muss and Schieberrunde rounds, as a mask of actions:
    the hand's games (and marrying an offered Hochzeit), above the standing game or joining its
    auction band."""
    out = 0
    options = _contracts_for(hand, allowed) + ((("hochzeit", None),) if hochzeit else ())
    for game, suit in options:
        if best is None or beats(game, best, auction) or (auction and no_mode and game in BAND and best in BAND):
            out |= 1 << name_action(game, suit)
    return out


class Talk:
    """Everything said before the first card, phase by phase as the decider keeps it.

    Shares the simulator's ``hands`` list (the hands change: Doppeln's second half, the
    Hochzeit's swap, the Schieberrunde's Obers and passing). ``result`` is the settlement of a
    deal that ends before play (thrown in, the Schieberrunde paid)."""

    __slots__ = ("phase", "config", "deal", "dealer", "stock", "bock", "hands", "held", "speakers", "spoken",
                 "doublers", "hochzeit", "announced", "namers", "naming", "best", "mode", "target", "holder",
                 "bidders", "calls", "pushes", "contract", "partner", "result")

    def copy(self, hands: list[int]) -> "Talk":
        other = Talk.__new__(Talk)
        for name in Talk.__slots__:
            setattr(other, name, getattr(self, name))
        other.hands, other.held = hands, self.held[:]
        other.announced, other.namers, other.naming, other.bidders = (
            self.announced[:], self.namers[:], self.naming[:], self.bidders[:])
        return other

    @property
    def vorhand(self) -> int:
        return (self.dealer + 1) % PLAYERS

    def seat(self) -> int:
        phase = self.phase
        if self.result is not None:
            return -1
        if phase == DOPPELN:
            return self.speakers[self.spoken]
        if phase == ANNOUNCE:
            return (self.vorhand + len(self.announced)) % PLAYERS
        if phase == NAMING:
            return self.namers[0]
        if phase == AUCTION:
            return self.bidders[0]
        if phase == EXCHANGE:
            return self.contract.declarer
        if phase == SCHIEBER:
            return self.dealer if self.calls else self.vorhand
        return (self.vorhand + self.pushes) % PLAYERS  # PUSH

    # -- what may be said ------------------------------------------------------------------
    def options(self, seat: int) -> list[tuple[str, str | None]]:
        """``announcement.options_for``: every (game, suit) the seat could name."""
        out = contracts_for(self.hands[seat], self.config.allowed_games)
        if self.hochzeit is not None and seat != self.hochzeit and self.hands[seat] & ~RUF_TRUMPS:
            out.append(("hochzeit", None))
        return out

    def nameable(self, seat: int) -> list[tuple[str, str | None]]:
        hand, mode = self.hands[seat], self.mode
        if mode == "renonce":
            if self.best is not None or callable_suits(hand):
                return []
            return [("rufspiel", s) for s, _ in renonce_calls(hand)]
        if mode == "muss":
            return [("rufspiel", s) for s in callable_suits(hand) or [s for s, _ in renonce_calls(hand)]]
        if mode == "schieber":
            return [("solo", s) for s in SUITS]
        options = self.options(seat)
        if self.best is None:
            return options
        auction = self.config.auction
        return [(game, suit) for game, suit in options
                if beats(game, self.best[1], auction) or self.joins_auction(game)]

    def joins_auction(self, game: str) -> bool:
        return (self.config.auction and self.mode is None and self.best is not None
                and game in BAND and self.best[1] in BAND)

    def legal(self) -> int:
        seat, phase = self.seat(), self.phase
        if self.result is not None:
            return 0
        if phase == DOPPELN:
            return (1 << DOUBLE) | (1 << NO_DOUBLE)
        if phase == ANNOUNCE:
            out = 1 << PASS
            if "play" in self.announced:  # only a game above the Rufspiel (a Hochzeit ranks like one)
                can_play = _above_rufspiel(self.hands[seat], tuple(self.config.allowed_games))
            else:
                can_play = bool(self.options(seat))
            if can_play:
                out |= 1 << I_PLAY
            if (self.config.hochzeit and self.hochzeit is None
                    and (self.hands[seat] & RUF_TRUMPS).bit_count() == 1):
                out |= 1 << OFFER
            return out
        if phase == NAMING:
            if self.mode in ("renonce", "muss", "schieber"):
                out = 0
                for game, suit in self.nameable(seat):
                    out |= 1 << name_action(game, suit)
            else:  # the usual naming round: a function of a few values, asked again and again by a search
                hand = self.hands[seat]
                out = _naming_mask(hand, tuple(self.config.allowed_games),
                                   self.hochzeit is not None and seat != self.hochzeit and bool(hand & ~RUF_TRUMPS),
                                   None if self.best is None else self.best[1], self.config.auction,
                                   self.mode is None)
            if (self.mode == "renonce") if self.mode is not None else (self.best is not None or len(self.namers) > 1):
                out |= 1 << WITHDRAW
            return out
        if phase == AUCTION:
            out = 1 << BID_PASS
            for k in range((self.target - WIN) // STEP, (MAX_TARGET - WIN) // STEP):
                out |= 1 << (BID + k)
            return out
        if phase == EXCHANGE:
            return (self.hands[seat] & ~RUF_TRUMPS) << GIVE
        if phase == SCHIEBER:
            return (1 << SCHIEBER_PLAY) | (1 << SCHIEBER_NO)
        cards = members(self.hands[seat])  # PUSH
        out = 0
        for i, a in enumerate(cards):
            for b in cards[i + 1:]:
                out |= 1 << (PASS_ON + len(DECK) * a + b)
        return out

    # -- saying it -------------------------------------------------------------------------
    def apply(self, action: int) -> bool:
        """Take ``action`` for the seat to act; True when card play begins."""
        seat, phase = self.seat(), self.phase
        if phase == DOPPELN:
            self.spoken += 1
            self.doublers += action == DOUBLE
            if self.spoken == len(self.speakers):  # the second half is picked up
                self.hands[:] = [h | extra for h, extra in zip(self.hands, self.held)]
                self.held = [0] * PLAYERS
                self.phase = ANNOUNCE
            return False
        if phase == ANNOUNCE:
            if action == OFFER:  # the offer voids what was said: Vorhand speaks again
                self.hochzeit, self.announced = seat, []
                return False
            self.announced.append("play" if action == I_PLAY else "pass")
            if len(self.announced) < PLAYERS:
                return False
            namers = [(self.vorhand + i) % PLAYERS for i, said in enumerate(self.announced) if said == "play"]
            if namers:
                self.phase, self.namers = NAMING, namers
                return False
            if self.config.renonce and "rufspiel" in self.config.allowed_games:
                self.phase, self.mode = NAMING, "renonce"
                self.namers = [(self.vorhand + i) % PLAYERS for i in range(PLAYERS)]
                return False
            return self.all_pass()
        if phase == NAMING:
            return self.name(seat, action)
        if phase == AUCTION:
            if action == BID_PASS:
                last = len(self.bidders) == 1
                self.bidders.pop(0)
                if last:
                    holder = self.holder
                    game, suit = next((g, s) for who, g, s in self.naming if who == holder and g in BAND)
                    return self.declare(holder, game, suit, self.target)
                return False
            self.bidders = self.bidders[1:] + [self.holder]
            self.target, self.holder = WIN + STEP * (action - BID + 1), seat
            return False
        if phase == EXCHANGE:
            card = 1 << (action - GIVE)
            giver, receiver = seat, self.hochzeit
            trump = self.hands[receiver] & RUF_TRUMPS
            self.hands[giver] ^= card | trump
            self.hands[receiver] ^= card | trump
            return True
        if phase == SCHIEBER:
            self.calls += 1
            play = action == SCHIEBER_PLAY
            if seat == self.vorhand:
                if play:
                    self.phase = PUSH
                return False
            if play:  # the dealer takes the two Obers and names his Solo, without passing
                self.hands[self.vorhand] ^= SCHIEBER_OBERS
                self.hands[seat] |= SCHIEBER_OBERS
                self.phase, self.namers, self.mode = NAMING, [seat], "schieber"
                return False
            price = self.config.tariff("solo").base
            payers = (self.vorhand, self.dealer)
            self.result = thrown_in(self.deal, tuple(-2 * price if s in payers else 2 * price
                                                     for s in range(PLAYERS)))
            return False
        a, b = divmod(action - PASS_ON, len(DECK))  # PUSH
        cards = (1 << a) | (1 << b)
        self.hands[seat] ^= cards
        self.hands[(seat + 1) % PLAYERS] |= cards
        self.pushes += 1
        if self.pushes == PLAYERS - 1:
            self.phase, self.namers, self.mode = NAMING, [self.vorhand], "schieber"
        return False

    def name(self, seat: int, action: int) -> bool:
        self.namers.pop(0)
        if action == WITHDRAW:
            self.naming.append((seat, None, None))
            if self.namers:
                return False
            return self.all_pass() if self.best is None else self.round_over()
        g, s = divmod(action - NAME, 5)
        game, suit = GAMES[g], (SUITS[s] if s < 4 else None)
        if not self.joins_auction(game):
            self.best = (seat, game, suit)
        self.naming.append((seat, game, suit))
        if self.mode is not None:
            return self.declare(seat, game, suit)
        return False if self.namers else self.round_over()

    def round_over(self) -> bool:
        """The naming round is over: the auction opens, or the standing highest is declared."""
        best = self.best
        contenders = [who for who, game, _ in self.naming if game in BAND]
        if self.config.auction and best[1] in BAND and len(contenders) >= 2:
            self.phase, self.holder, self.target = AUCTION, contenders[0], WIN
            self.bidders = [who for who in contenders if who != contenders[0]]
            return False
        return self.declare(*best)

    def all_pass(self) -> bool:
        """``all_pass.apply_option``: Muss, Ramsch, or the deal thrown in."""
        option = self.config.all_pass
        if option == "muss":
            holder = next(s for s in range(PLAYERS) if self.hands[s] & EICHEL_OBER)
            self.phase, self.namers, self.mode = NAMING, [holder], "muss"
            return False
        if option == "ramsch":
            self.contract, self.partner = Contract("ramsch", None, None), None
            return True
        payments, stock = (0,) * PLAYERS, 0
        if option in ("stock", "stock_double"):
            each = self.config.stock_price * 2 ** self.doublers * (2 if option == "stock_double" else 1)
            payments, stock = (-each,) * PLAYERS, each * PLAYERS
        self.result = thrown_in(self.deal, payments, stock)
        return False

    def declare(self, declarer: int, game: str, suit: str | None, target: int | None = None) -> bool:
        """``announcement.declared`` folded: the contract, and play (or the Hochzeit's exchange)."""
        call = renonce = None
        if game == "rufspiel":
            hand = self.hands[declarer]
            if suit in callable_suits(hand):
                call = suit + "A"
            else:
                call, renonce = next(card for s, card in renonce_calls(hand) if s == suit), True
        if self.config.auction and game in BAND and self.mode is None:
            target = target or WIN
        else:
            target = None
        self.contract = Contract(game, suit, declarer, call=call if call != (suit or "") + "A" else None,
                                 renonce=bool(renonce), target=target)
        if game == "hochzeit":
            self.partner, self.phase = self.hochzeit, EXCHANGE
            return False
        self.partner = None
        if call is not None:
            bit = 1 << INDEX[call]
            self.partner = next((s for s in range(PLAYERS) if self.hands[s] & bit), None)
        return True
