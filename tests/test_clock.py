"""Cycle pacing (simleague.clock), on a fake clock: nothing here sleeps."""

import asyncio
import heapq
import itertools
import random

import pytest

from simleague.clock import MAX_LAG_S, Clock


class FakeTime:
    """Virtual seconds for a :class:`Clock`: ``sleep`` ends when :meth:`run` has moved time to its end
    (plus ``oversleep``, as an OS timer wakes late); :meth:`work` is a server step that takes time;
    :meth:`call_later` schedules a client's answer."""

    def __init__(self, oversleep: float = 0.0):
        self.t, self.oversleep = 0.0, oversleep
        self._events: list = []                           # (when, order, callback)
        self._order = itertools.count()

    def now(self) -> float:
        return self.t

    def work(self, seconds: float) -> None:
        self.t += seconds

    def call_later(self, seconds: float, callback) -> None:
        heapq.heappush(self._events, (self.t + seconds, next(self._order), callback))

    async def sleep(self, seconds: float) -> None:
        woken = asyncio.get_running_loop().create_future()
        late = self.oversleep if seconds > 0 else 0.0
        self.call_later(seconds + late, lambda: woken.done() or woken.set_result(None))
        await woken

    def run(self, coroutine):
        async def main():
            task = asyncio.ensure_future(coroutine)
            while not task.done():
                for _ in range(10):                       # let everything that can run, run
                    await asyncio.sleep(0)
                if self._events and not task.done():
                    when, _, callback = heapq.heappop(self._events)
                    self.t = max(self.t, when)
                    callback()
            return task.result()
        return asyncio.run(main())


def clock(fake: FakeTime, mode: str, cycle_s: float, timeout_s: float = 2.0) -> Clock:
    return Clock(mode, cycle_s, timeout_s, now=fake.now, sleep=fake.sleep)


def test_realtime_cycles_do_not_drift_when_steps_vary_and_timers_wake_late():
    """Cycle n ends no earlier than n cycle times after the start, and a timer that wakes 1 ms late
    every cycle (the humanoid server's old "step minus elapsed" sleep ran at 0.88-0.92 of real
    time) does not add up: 1000 cycles of 8 ms take 8 s and a millisecond."""
    fake, steps = FakeTime(oversleep=0.001), random.Random(4)
    c = clock(fake, "realtime", 0.008)

    async def run():
        ends = []
        for _ in range(1000):
            c.begin_cycle()
            fake.work(steps.uniform(0.0, 0.012))          # some steps take longer than a cycle
            await c.wait(lambda: True)
            ends.append(fake.now())
        return ends

    ends = fake.run(run())
    assert all(end >= 0.008 * (n + 1) - 1e-9 for n, end in enumerate(ends))
    assert ends[-1] == pytest.approx(8.0, abs=0.0125)


def test_realtime_makes_up_a_short_delay_and_forgives_a_stall():
    fake = FakeTime()
    c = clock(fake, "realtime", 0.02)

    async def cycles(n, stall_at=None, stall=0.0):
        for k in range(n):
            c.begin_cycle()
            if k == stall_at:
                fake.work(stall)
            await c.wait(lambda: True)
        return fake.now()

    assert fake.run(cycles(100, stall_at=10, stall=0.3)) == pytest.approx(2.0)   # made up: 100 x 20 ms
    start = fake.now()
    # 1.5 s of stall is more than MAX_LAG_S: forgiven, the cycles after it keep their 20 ms
    assert fake.run(cycles(100, stall_at=10, stall=1.5)) - start == pytest.approx(99 * 0.02 + 1.5)
    assert MAX_LAG_S < 1.5


def test_lockstep_waits_for_answers_even_after_a_slow_step():
    """The timeout counts from when the messages were sent: a server step that took longer than
    the timeout (a first compilation, a pause of the machine) must not skip the clients."""
    fake, answered = FakeTime(), []
    c = clock(fake, "lockstep", 0.05, timeout_s=0.3)

    async def cycle():
        c.begin_cycle()
        fake.work(0.4)                        # the server's own step was slower than the timeout
        fake.call_later(0.25, lambda: answered.append(True) or c.notify())
        await c.wait(lambda: bool(answered))
        return fake.now()

    assert fake.run(cycle()) == pytest.approx(0.65) and answered == [True]


def test_lockstep_gives_up_on_a_silent_client_after_its_timeout():
    fake = FakeTime()
    c = clock(fake, "lockstep", 0.05, timeout_s=0.2)

    async def cycle():
        c.begin_cycle()
        await c.wait(lambda: False)           # returns by its own timeout
        c.notify()                            # a late answer after the wait is harmless
        return fake.now()

    assert fake.run(cycle()) == pytest.approx(0.2)


def test_fast_does_not_wait_and_bad_clocks_are_refused():
    fake = FakeTime()
    c = clock(fake, "fast", 0.05)

    async def cycles():
        for _ in range(50):
            c.begin_cycle()
            await c.wait(lambda: False)
        return fake.now()

    assert fake.run(cycles()) == 0.0
    with pytest.raises(ValueError, match="unknown clock mode 'slow'"):
        Clock("slow", 0.05)
    with pytest.raises(ValueError, match="cannot be below 0 s"):
        Clock("realtime", -0.01)
