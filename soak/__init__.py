"""``python -m soak``: the long versions of the reliability proofs, outside the test suite.

Each scenario is its own module with a ``run(size, say, ...) -> dict`` that
returns its figures, or raises ``Violation`` with the first broken invariant.
"""


class Violation(Exception):
    """An invariant broke: the message names the first violation seen; ``figures``, what was
    measured up to it (when the scenario could tell)."""

    def __init__(self, message: str, figures: dict | None = None):
        super().__init__(message)
        self.figures = figures or {}
