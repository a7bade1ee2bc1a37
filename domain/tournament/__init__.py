"""Tournaments: an aggregate of its own, decided like a table and stored in its own stream.

``Tournaments`` (``decider.py``) is the decider the command handler runs; the
rest are its parts: the configuration (``config.py``), the state
(``state.py``), the seating of each round (``seating.py``), the shared deals
of a duplicate round (``duplicate.py``) and the standings (``standings.py``).
Standard library only, like all of ``domain/``.
"""
from .decider import Tournaments
from .state import TournamentState

__all__ = ["TournamentState", "Tournaments"]
