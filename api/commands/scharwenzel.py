"""Scharwenzel commands: bid, pass, name_trumps, announce_tout, no_tout, play."""
from marshmallow import RAISE, Schema, fields, validate

SUIT = validate.OneOf(["C", "S", "H", "D"])


class _Strict(Schema):
    class Meta:
        unknown = RAISE

    type = fields.String(required=True)


class BidSchema(_Strict):
    value = fields.Integer(required=True, strict=True, validate=validate.Range(min=1, max=8))
    besser = fields.Boolean()


class PassSchema(_Strict):
    pass


class NameTrumpsSchema(_Strict):
    suit = fields.String(required=True, validate=SUIT)


class AnnounceToutSchema(_Strict):
    pass


class NoToutSchema(_Strict):
    pass


class PlaySchema(_Strict):
    card = fields.String(required=True, validate=validate.Length(min=2, max=3))


COMMANDS = {
    "bid": BidSchema,
    "pass": PassSchema,
    "name_trumps": NameTrumpsSchema,
    "announce_tout": AnnounceToutSchema,
    "no_tout": NoToutSchema,
    "play": PlaySchema,
}
