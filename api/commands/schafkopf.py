"""Schafkopf commands (shapes only; the decider judges).

announce, name_game, withdraw, play; with the house rules also doppeln
(``rules.doppeln``), stoss (``rules.stoss`` > 0), give_card and the
announce intent ``hochzeit`` (``rules.hochzeit``), bid and pass
(``rules.auction``), schieber and push (``rules.schieberrunde``).
"""
from marshmallow import fields, validate

from .base import CommandSchema, StrictBoolean, StrictSchema

GAMES = ["sie", "solo_tout", "wenz_tout", "farbwenz_tout", "geier_tout", "farbgeier_tout",
         "solo", "wenz", "farbwenz", "geier", "farbgeier", "bettel", "rufspiel", "hochzeit"]
CARD = validate.Regexp(r"^[EGHS](A|10|K|O|U|9|8|7)$")



class AnnounceSchema(CommandSchema):
    # "pass" = "Weiter"; "play" = "Ich spiele" (or "Ich spiele auch" after another);
    # "hochzeit" = "Ich biete eine Hochzeit an" (rules.hochzeit, holding exactly one trump).
    intent = fields.String(required=True, validate=validate.OneOf(["pass", "play", "hochzeit"]))


class NameGameSchema(CommandSchema):
    game = fields.String(required=True, validate=validate.OneOf(GAMES))
    # The called Ace's suit (Rufspiel) or the trump suit; absent for Wenz, Geier, Bettel, Sie.
    suit = fields.String(allow_none=True, validate=validate.OneOf(["E", "G", "H", "S"]))


class WithdrawSchema(CommandSchema):
    pass


class PlaySchema(CommandSchema):
    card = fields.String(required=True, validate=validate.Length(min=2, max=3))


class DoppelnSchema(CommandSchema):
    # true = "Ich dopple", false = "Weiter" (after the first half of the cards).
    double = StrictBoolean(required=True)


class GiveCardSchema(CommandSchema):
    # Hochzeit: the marrying player's non-trump card, given face down for the trump.
    card = fields.String(required=True, validate=CARD)


class StossSchema(CommandSchema):
    # Kontra, Re, Supra or Resupra: the level follows from the Stöße already given.
    pass


class BidSchema(CommandSchema):
    # Auction: the points the bidder's side will need (71 for a bid of "70", ... 111).
    target = fields.Integer(required=True, strict=True, validate=validate.OneOf([71, 81, 91, 101, 111]))


class PassSchema(CommandSchema):
    # Auction: out of the bidding.
    pass


class SchieberSchema(CommandSchema):
    # Schieberrunde: true = "Ich spiele" (a Solo), false = "Ich spiele nicht".
    play = StrictBoolean(required=True)


class HintSchema(StrictSchema):
    # rules.schieberrunde_hinting: one of the passed cards, and how many suits above its suit trumps are hinted.
    card = fields.String(required=True, validate=CARD)
    above = fields.Integer(required=True, strict=True, validate=validate.Range(min=0, max=3))


class PushSchema(CommandSchema):
    # Schieberrunde: the two cards passed to the next seat, in deck order; Mittelhand's may hint.
    cards = fields.List(fields.String(validate=CARD), required=True, validate=validate.Length(equal=2))
    hint = fields.Nested(HintSchema)


COMMANDS = {
    "announce": AnnounceSchema,
    "name_game": NameGameSchema,
    "withdraw": WithdrawSchema,
    "play": PlaySchema,
    "doppeln": DoppelnSchema,
    "stoss": StossSchema,
    "give_card": GiveCardSchema,
    "bid": BidSchema,
    "pass": PassSchema,
    "schieber": SchieberSchema,
    "push": PushSchema,
}
