"""Schafkopf commands: announce, name_game, withdraw, play (shapes only; the decider judges)."""
from marshmallow import RAISE, Schema, fields, validate

GAMES = ["sie", "solo_tout", "wenz_tout", "farbwenz_tout", "geier_tout", "farbgeier_tout",
         "solo", "wenz", "farbwenz", "geier", "farbgeier", "bettel", "rufspiel"]


class _Strict(Schema):
    class Meta:
        unknown = RAISE

    type = fields.String(required=True)


class AnnounceSchema(_Strict):
    # "pass" = "Weiter"; "play" = "Ich spiele" (or "Ich spiele auch" after another).
    intent = fields.String(required=True, validate=validate.OneOf(["pass", "play"]))


class NameGameSchema(_Strict):
    game = fields.String(required=True, validate=validate.OneOf(GAMES))
    # The called Ace's suit (Rufspiel) or the trump suit; absent for Wenz, Geier, Bettel, Sie.
    suit = fields.String(allow_none=True, validate=validate.OneOf(["E", "G", "H", "S"]))


class WithdrawSchema(_Strict):
    pass


class PlaySchema(_Strict):
    card = fields.String(required=True, validate=validate.Length(min=2, max=3))


COMMANDS = {
    "announce": AnnounceSchema,
    "name_game": NameGameSchema,
    "withdraw": WithdrawSchema,
    "play": PlaySchema,
}
