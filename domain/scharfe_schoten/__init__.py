"""Scharfe Schoten (Zoch, 2014; "Hot Peppers"): predict your collection, then take tricks.

``game.ScharfeSchoten`` is the decider; the other modules are its parts:
``cards`` (codes, ranking, trick winner), ``ruleset`` and ``presets``
(validation), ``deals`` (decks to hands), ``scoring``, ``state`` and ``views``.
"""
