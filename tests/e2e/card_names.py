"""Cards and Schafkopf's games as a person reads them on /play's table: a card code's rank, the suit
printed on its face and its name, a game's announced name, Scharfe Schoten's colour counts. The
browser tests hold the page to these (tests/e2e/play_page.py)."""
from __future__ import annotations


COLOURS = {"R": "Red", "G": "Green", "Y": "Yellow", "B": "Black"}


SK_SUITS = {"E": "Eichel", "G": "Gras", "H": "Herz", "S": "Schellen"}


SK_RANKS = {"A": "Sau", "10": "Zehn", "K": "König", "O": "Ober", "U": "Unter", "9": "Neun", "8": "Acht", "7": "Sieben"}


SW_SUITS = {"C": ("♣", "clubs"), "S": ("♠", "spades"), "H": ("♥", "hearts"), "D": ("♦", "diamonds")}


SK_GAMES = {"rufspiel": "Rufspiel", "solo": "Solo", "wenz": "Wenz", "solo_tout": "Solo Tout", "wenz_tout": "Wenz Tout",
            "sie": "Sie", "farbwenz": "Farbwenz", "geier": "Geier", "farbgeier": "Farbgeier", "bettel": "Bettel",
            "hochzeit": "Hochzeit", "ramsch": "Ramsch"}


def face(game: str, code: str) -> tuple[str, str, str]:
    """(rank, suit as printed on the face, the card's name) of a card code, as a person reads them."""
    if game == "scharfe-schoten":
        return code[1:], code[0], f"{COLOURS[code[0]]} {code[1:]}"
    if game == "schafkopf":
        return code[1:], code[0], f"{SK_SUITS[code[0]]} {SK_RANKS[code[1:]]}"
    symbol, name = SW_SUITS[code[-1]]
    return code[:-1], symbol, f"{code[:-1]} of {name}"


def sk_game(game: str, suit: str | None) -> str:
    name = SK_GAMES[game]
    if not suit:
        return name
    return f"{name} auf die {SK_SUITS[suit]}-Sau" if game == "rufspiel" else f"{SK_SUITS[suit]}-{name}"


def counts(colours: dict) -> str:
    return " · ".join(f"{COLOURS[c]} {colours.get(c, 0)}" for c in "RGYB")
