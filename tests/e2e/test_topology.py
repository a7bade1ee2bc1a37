"""The deployment's topology without Docker: Debian's nginx in front of two API processes and two
bot workers on a local 3-master Redis Cluster, the queues on a Redis of their own (the short run
of `python -m soak --only topology`; soak/topology.py says what it does and checks).

Needs nginx (`apt-get install nginx`; `.ci/run` installs it); without it the test skips, unless
STICH_REQUIRE_NGINX=1 (CI) makes that a failure.
"""
from __future__ import annotations


import pytest

from soak import topology
from tests.prerequisites import skip_unless_required

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.serial]  # failovers within timeouts


def test_games_through_nginx_survive_a_killed_api_a_rolling_restart_and_a_drained_worker():
    if topology.find_nginx() is None:
        skip_unless_required("STICH_REQUIRE_NGINX", "no nginx for the topology test", "apt-get install nginx")
    said: list[str] = []
    figures = topology.run(2, said.append, seed=28)
    print("\n".join(said), figures)
    assert figures["games"] == 2 and figures["lost"] == 0 and figures["acknowledged_events"] > 40
    assert figures["socket_events"] >= 1  # a WebSocket through nginx (deploy/nginx/proxy.conf passes the upgrade)
    # Streams on the killed and the stopped process resumed elsewhere; commands failed over.
    assert figures["stream_resumes"] >= 2 and figures["command_failovers"] >= 2
    assert figures["worker_exit"] == 0 and figures["worker_sigterm_job"].startswith("bot-")
    assert figures["bot_turns_audited"] > 2 * 10 and figures["tournament_standings"] == 3
    assert figures["exports_verified"] == 2 + 1 + 1  # the games, the tournament's table, the v1 import
