"""Scharfe Schoten commands: predict, play, take (the cupboard colour)."""
from marshmallow import fields, validate

from .base import CommandSchema

COLOUR = validate.OneOf(["R", "G", "Y", "B"])


class PredictSchema(CommandSchema):
    most = fields.String(required=True, validate=COLOUR)
    fewest = fields.String(required=True, validate=COLOUR)


class PlaySchema(CommandSchema):
    card = fields.String(required=True, validate=validate.Length(min=2, max=4))


class TakeSchema(CommandSchema):
    colour = fields.String(required=True, validate=COLOUR)


COMMANDS = {"predict": PredictSchema, "play": PlaySchema, "take": TakeSchema}
