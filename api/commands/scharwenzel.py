"""Scharwenzel commands: bid, pass, name_trumps, announce_tout, no_tout, play."""
from marshmallow import fields, validate

from .base import CommandSchema, StrictBoolean

SUIT = validate.OneOf(["C", "S", "H", "D"])


class BidSchema(CommandSchema):
    value = fields.Integer(required=True, strict=True, validate=validate.Range(min=1, max=8))
    besser = StrictBoolean()


class PassSchema(CommandSchema):
    pass


class NameTrumpsSchema(CommandSchema):
    suit = fields.String(required=True, validate=SUIT)


class AnnounceToutSchema(CommandSchema):
    pass


class NoToutSchema(CommandSchema):
    pass


class PlaySchema(CommandSchema):
    card = fields.String(required=True, validate=validate.Length(min=2, max=3))


COMMANDS = {
    "bid": BidSchema,
    "pass": PassSchema,
    "name_trumps": NameTrumpsSchema,
    "announce_tout": AnnounceToutSchema,
    "no_tout": NoToutSchema,
    "play": PlaySchema,
}
