"""Rule violations: typed errors with stable machine codes.

The API maps every ``RuleViolation`` to an RFC 9457 problem with ``code`` and
``detail``; clients branch on ``code``, so codes never change once published.
"""
from __future__ import annotations


class RuleViolation(Exception):
    """A command that the rules do not allow in the current state."""

    code = "rule_violation"

    def __init__(self, detail: str, **context):
        super().__init__(detail)
        self.detail = detail
        self.context = context


class NotYourTurn(RuleViolation):
    code = "not_your_turn"


class WrongPhase(RuleViolation):
    """The command type exists but is not accepted in this phase."""

    code = "wrong_phase"


class UnknownCommand(RuleViolation):
    code = "unknown_command"


class InvalidCommand(RuleViolation):
    """The command is malformed for this game (missing or bad field)."""

    code = "invalid_command"


class UnknownCard(RuleViolation):
    code = "unknown_card"


class CardNotInHand(RuleViolation):
    code = "card_not_in_hand"


class MustFollowSuit(RuleViolation):
    code = "must_follow_suit"


class IllegalCard(RuleViolation):
    """A card that is in hand but may not be played now for another reason."""

    code = "illegal_card"


class IllegalChoice(RuleViolation):
    """An announcement, prediction, bid or other choice the rules forbid."""

    code = "illegal_choice"


class AlreadyDone(RuleViolation):
    """The seat already acted in a simultaneous phase (e.g. predicted)."""

    code = "already_done"


class GameFinished(RuleViolation):
    code = "game_finished"


class GameNotStarted(RuleViolation):
    code = "game_not_started"


class SeatTaken(RuleViolation):
    code = "seat_taken"


class InvalidSetup(Exception):
    """Rules, seats or preset deals a game cannot be created with.

    ``errors`` maps a field path (``rules.rounds``, ``preset_deals[0].hands``)
    to a list of messages, so clients can show each next to its input.
    """

    code = "invalid_setup"

    def __init__(self, errors: dict[str, list[str]]):
        super().__init__("; ".join(f"{k}: {', '.join(v)}" for k, v in errors.items()))
        self.errors = errors
