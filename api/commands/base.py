"""The base every command schema shares: a ``type`` and no unknown fields."""
from marshmallow import RAISE, Schema, fields


class StrictSchema(Schema):
    """No unknown fields (a command's nested objects too)."""
    class Meta:
        unknown = RAISE


class CommandSchema(StrictSchema):
    type = fields.String(required=True)


class StrictBoolean(fields.Boolean):
    """Only JSON true/false: marshmallow's Boolean also takes 1, "yes", "on"…
    (and ``1 == True`` slips through even a ``truthy={True}``)."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value
