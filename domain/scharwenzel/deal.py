"""How a shuffled deck becomes hands (documented in docs/games/scharwenzel.md for auditors)."""
from __future__ import annotations

# Packet sizes of one deal, dealt round by round clockwise from forehand (the dealer last).
PACKETS = {4: (3, 2, 3), 6: (2, 2, 2), 8: (2, 2)}


def deal_packets(cards, dealer: int, players: int) -> list[list[str]]:
    """Hands from a shuffled deck: for each packet size in ``PACKETS``, each seat from
    forehand (dealer + 1) round to the dealer takes the next that many cards."""
    hands: list[list[str]] = [[] for _ in range(players)]
    pos = 0
    for size in PACKETS[players]:
        for i in range(players):
            seat = (dealer + 1 + i) % players
            hands[seat].extend(cards[pos:pos + size])
            pos += size
    return hands
