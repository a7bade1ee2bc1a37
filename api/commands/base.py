"""The base every command schema shares: a ``type`` and no unknown fields."""
from marshmallow import RAISE, Schema, fields


class CommandSchema(Schema):
    class Meta:
        unknown = RAISE

    type = fields.String(required=True)
