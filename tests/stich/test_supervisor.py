"""The supervisor's back-off and hang detection, on a fake child and a fake clock."""
from __future__ import annotations

import os
import time

from stich.supervisor import (FIRST_DELAY_S, FIRST_PULSE_WITHIN_S, HUNG_AFTER_S, LONGEST_DELAY_S, STEADY_AFTER_S,
                              Supervised)


class FakeChild:
    def __init__(self, pulse=None, steady_after=STEADY_AFTER_S):
        self.running = False
        self.starts = self.kills = 0
        self.said: list[str] = []
        self.supervised = Supervised("fake", self.start, lambda: self.running, self.kill, kill=self.kill,
                                     pulse=pulse, steady_after=steady_after)
        self.supervised.started_at = 0.0

    def start(self):
        self.running = True
        self.starts += 1

    def kill(self):
        self.running = False
        self.kills += 1

    def check(self, now, wall=None):
        self.supervised.check(now, self.said.append, wall=wall if wall is not None else time.time())


def run_and_die(child: FakeChild, now: float, ran_for: float) -> float:
    """The child runs ``ran_for`` seconds (checked every 0.2 s), dies, is restarted; the time after."""
    child.supervised.started_at = now
    child.running = True
    t = now
    while t < now + ran_for:
        child.check(t)
        t += 0.2
    child.running = False
    child.check(t)  # noticed
    delay = round(child.supervised.due - t, 6)
    child.check(child.supervised.due)  # restarted
    return delay


def test_a_child_that_ran_well_for_a_few_seconds_restarts_at_the_first_delay_every_time():
    child = FakeChild()
    delays = []
    now = 0.0
    for _ in range(6):  # killed over and over, each time after a good run of a few seconds
        delays.append(run_and_die(child, now, STEADY_AFTER_S + 1))
        now += STEADY_AFTER_S + 3
    assert delays == [FIRST_DELAY_S] * 6  # under HEAD's 60 s rule: 0.5, 1, 2, 4, 8, 16


def test_a_child_that_dies_at_once_backs_off_up_to_the_longest_delay():
    child = FakeChild()
    delays, now = [], 0.0
    for _ in range(10):
        delays.append(run_and_die(child, now, 0.4))
        now += 100
    assert delays[:4] == [0.5, 1.0, 2.0, 4.0] and delays[-1] == LONGEST_DELAY_S


def test_the_store_counts_as_steady_after_one_second():
    child = FakeChild(steady_after=1.0)
    now, delays = 0.0, []
    for _ in range(20):  # the e2e test's rhythm: killed every 2 to 5 s
        delays.append(run_and_die(child, now, 1.6))
        now += 3
    assert set(delays) == {FIRST_DELAY_S}


def test_a_child_whose_pulse_stops_is_killed_and_restarted(tmp_path):
    pulse = tmp_path / "worker.pulse"
    child = FakeChild(pulse=pulse)
    child.running = True
    wall = time.time()
    child.supervised.started_wall = wall
    pulse.touch()
    os.utime(pulse, (wall, wall))
    child.check(1.0, wall=wall + HUNG_AFTER_S - 0.5)  # quiet, but not yet for long
    assert child.kills == 0 and child.running
    child.check(2.0, wall=wall + HUNG_AFTER_S + 0.5)
    assert child.kills == 1 and not child.running and child.supervised.hangs == 1
    assert any("no sign of life" in line for line in child.said)
    child.check(2.0 + FIRST_DELAY_S, wall=wall + HUNG_AFTER_S + 1)
    assert child.starts == 1 and child.running


def test_a_child_that_has_not_pulsed_yet_is_given_its_boot_time(tmp_path):
    # A worker booting on a busy machine: slower than a pulse, but not hung
    child = FakeChild(pulse=tmp_path / "never.pulse")
    child.running = True
    wall = time.time()
    child.supervised.started_wall = wall
    child.check(1.0, wall=wall + HUNG_AFTER_S + 1)
    assert child.kills == 0
    child.check(2.0, wall=wall + FIRST_PULSE_WITHIN_S - 1)
    assert child.kills == 0
    child.check(3.0, wall=wall + FIRST_PULSE_WITHIN_S + 1)
    assert child.kills == 1


def test_a_hung_child_does_not_reset_its_back_off(tmp_path):
    """Alive but silent is not "well": its delay keeps doubling."""
    child = FakeChild(pulse=tmp_path / "silent.pulse")
    child.supervised.delay = 4.0
    child.running = True
    wall = time.time()
    child.supervised.started_wall = wall - 100
    child.supervised.started_at = 0.0
    child.check(100.0, wall=wall)  # long alive, never pulsed
    assert child.kills == 1 and child.supervised.due == 104.0
