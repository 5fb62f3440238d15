"""Cycle pacing shared by the servers: ``realtime``, ``lockstep`` and ``fast``.

* ``realtime``: each cycle lasts at least the cycle time (wall clock), as the original simulators.
* ``lockstep``: a cycle ends as soon as every expected client has answered the last cycle's
  message, or after ``timeout`` seconds, so that a client slower than the clock is never skipped
  and a dead one cannot stall the run for ever.
* ``fast``: no waiting at all beyond letting pending network input in.
"""

from __future__ import annotations

import asyncio
import time
from typing import Callable

MODES = ("realtime", "lockstep", "fast")


class Clock:
    """Paces cycles. ``Clock(mode, cycle_s, timeout_s)``; ValueError for an unknown mode.

    ``cycle_s`` is the cycle time in seconds (realtime), ``timeout_s`` the longest a lockstep cycle
    waits for its clients.
    """

    def __init__(self, mode: str, cycle_s: float, timeout_s: float = 2.0):
        if mode not in MODES:
            raise ValueError(f"unknown clock mode {mode!r}; choose one of {', '.join(MODES)}")
        self.mode, self.cycle_s, self.timeout_s = mode, cycle_s, timeout_s
        self._wake = asyncio.Event()
        self._started = time.monotonic()

    def begin_cycle(self) -> None:
        """Mark the start of a cycle (after the messages of the previous one were sent)."""
        self._started = time.monotonic()
        self._wake.clear()

    def notify(self) -> None:
        """A client answered: a lockstep wait re-checks whether everyone has."""
        self._wake.set()

    async def wait(self, everyone_answered: Callable[[], bool]) -> None:
        """Return when the cycle may end, according to the mode."""
        if self.mode == "fast":
            await asyncio.sleep(0)
            return
        if self.mode == "realtime":
            remaining = self.cycle_s - (time.monotonic() - self._started)
            await asyncio.sleep(max(0.0, remaining))
            return
        deadline = self._started + self.timeout_s
        while not everyone_answered():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            try:
                await asyncio.wait_for(self._wake.wait(), remaining)
            except asyncio.TimeoutError:
                return
            self._wake.clear()
