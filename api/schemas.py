"""Request bodies, validated with marshmallow. Unknown fields are an error."""
from __future__ import annotations

from marshmallow import RAISE, Schema, fields, validate

from domain.seat import HANDLE
from domain.table import BOT_KINDS, BUDGET_MS_RANGE, PLAYOUTS_RANGE


class _Strict(Schema):
    class Meta:
        unknown = RAISE


class SeatSchema(_Strict):
    kind = fields.String(required=True, validate=validate.OneOf(["human", "bot"]))
    # A human seat kept for a registered player, who alone takes it (with its player token).
    handle = fields.String(validate=validate.Regexp(f"^{HANDLE.pattern}$", error="a player's handle"))
    bot = fields.String(validate=validate.OneOf(list(BOT_KINDS)))
    budget_ms = fields.Integer(strict=True, validate=validate.Range(min=BUDGET_MS_RANGE[0], max=BUDGET_MS_RANGE[1]))
    playouts = fields.Integer(strict=True, validate=validate.Range(min=PLAYOUTS_RANGE[0], max=PLAYOUTS_RANGE[1]))


class CreateGameSchema(_Strict):
    game = fields.String(required=True)
    players = fields.Integer(required=True, strict=True, validate=validate.Range(min=1, max=16))
    rules = fields.Dict(keys=fields.String(), load_default=dict)
    seats = fields.List(fields.Nested(SeatSchema), validate=validate.Length(min=1, max=16))
    preset_deals = fields.List(fields.Dict(keys=fields.String()), validate=validate.Length(max=64))
    limits = fields.Dict(keys=fields.String())  # checked by the table, which names each bad field
    clock = fields.Dict(keys=fields.String())  # turn deadlines; checked by the table (domain/clock.py)
    hints = fields.Raw()  # true or false; checked by the table (a Boolean field would take 1 and "yes")
    rated = fields.Raw()  # true or false, likewise: a rated game's human seats are players'; it moves ratings


class TakeSeatSchema(_Strict):
    entropy = fields.String(validate=validate.Regexp(r"^[A-Za-z0-9_\-]{0,64}$"), load_default="")


class CommandEnvelopeSchema(Schema):
    """Only the ``type`` is checked here; the game's own schema checks the rest."""

    class Meta:
        unknown = "include"

    type = fields.String(required=True, validate=validate.Length(min=1, max=40))
