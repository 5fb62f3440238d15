"""Cycle pacing: the lockstep wait."""

import asyncio
import time

from simleague.clock import Clock


def test_lockstep_waits_for_answers_even_after_a_slow_step():
    """The timeout counts from when the messages were sent: a server step that took longer than
    the timeout (a first compilation, a pause of the machine) must not skip the clients."""
    async def main():
        clock = Clock("lockstep", 0.05, timeout_s=0.3)
        answered = []
        clock.begin_cycle()
        time.sleep(0.4)                       # the server's own step was slower than the timeout
        loop = asyncio.get_running_loop()

        def answer():
            answered.append(True)
            clock.notify()

        loop.call_later(0.1, answer)
        await clock.wait(lambda: bool(answered))
        return answered

    assert asyncio.run(main()) == [True]


def test_lockstep_gives_up_on_a_silent_client():
    async def main():
        clock = Clock("lockstep", 0.05, timeout_s=0.2)
        clock.begin_cycle()
        await asyncio.wait_for(clock.wait(lambda: False), timeout=5)  # returns by its own timeout
        clock.notify()                        # a late answer after the wait is harmless
        return True

    assert asyncio.run(main())
