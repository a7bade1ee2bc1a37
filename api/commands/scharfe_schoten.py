"""Scharfe Schoten commands: predict, play, take (the cupboard colour)."""
from marshmallow import RAISE, Schema, fields, validate

COLOUR = validate.OneOf(["R", "G", "Y", "B"])


class _Strict(Schema):
    class Meta:
        unknown = RAISE

    type = fields.String(required=True)


class PredictSchema(_Strict):
    most = fields.String(required=True, validate=COLOUR)
    fewest = fields.String(required=True, validate=COLOUR)


class PlaySchema(_Strict):
    card = fields.String(required=True, validate=validate.Length(min=2, max=4))


class TakeSchema(_Strict):
    colour = fields.String(required=True, validate=COLOUR)


COMMANDS = {"predict": PredictSchema, "play": PlaySchema, "take": TakeSchema}
