"""Client addresses for tests whose limits and quotas count per address.

Each is drawn from 2**64 unique-local IPv6 addresses, so two tests (or two runs sharing one Redis within a
window) never share a counter by chance, as two draws from 62,500 IPv4 addresses once did in CI.
"""
from __future__ import annotations

import secrets


def fresh_address() -> str:
    return "fd00::" + ":".join(secrets.token_hex(2) for _ in range(4))
