"""The rules of stich's games: pure, deterministic, standard library only.

Nothing here reads a clock, touches the network or draws unseeded randomness.
Randomness enters as data (the shuffled decks of a ``deal`` command), so the
same events always fold to the same state.
"""
