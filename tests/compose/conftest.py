"""The Compose recipes started for real (marker `compose`, deselected by default; `.ci/run` runs them
after the suite, docs/deployment.md#the-compose-files-started-for-real says how by hand). Without
Docker the tests skip with the reason, unless STICH_REQUIRE_DOCKER=1 (CI) makes that a failure."""
from __future__ import annotations


import pytest

from .stack import HEAD_IMAGE, Stack, build_base_images, docker_problem
from tests.prerequisites import skip_unless_required


@pytest.fixture(scope="session")
def compose_images() -> dict:
    """The Debian stand-ins for the public images, and stich's image of this checkout built by Compose;
    the seconds each step took."""
    problem = docker_problem()
    if problem:
        skip_unless_required("STICH_REQUIRE_DOCKER", f"Docker cannot run the Compose files: {problem}",
                             "apt-get install docker.io docker-compose debootstrap")
    timings: dict = {}
    build_base_images(timings)
    Stack("docker-compose.yml", "stich-compose-build", HEAD_IMAGE, timings).build()
    return timings


@pytest.fixture
def timings(compose_images) -> dict:
    """This test's seconds per step, beginning with the session's image builds; printed at its end."""
    figures = dict(compose_images)
    yield figures
    print("compose timings (s):", figures)
