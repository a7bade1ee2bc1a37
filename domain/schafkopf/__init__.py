"""Bavarian Schafkopf: 4 players, long deck (32 cards), a session of N deals."""
