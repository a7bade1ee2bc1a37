"""What a test needs from the machine (a browser, nginx, Docker, npm packages): without it the test
is skipped, saying what is missing and how to install it, unless the run sets the flag that CI sets
(``STICH_REQUIRE_BROWSER=1`` …), where a missing prerequisite is a failure and never a silent skip."""
from __future__ import annotations

import os
from typing import NoReturn

import pytest


def skip_unless_required(flag: str, missing: str, hint: str) -> NoReturn:
    if os.environ.get(flag) == "1":
        pytest.fail(f"{flag}=1 but {missing} ({hint})")
    pytest.skip(f"{missing} ({hint})")
