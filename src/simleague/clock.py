"""Cycle pacing shared by the servers: ``realtime``, ``lockstep`` and ``fast``.

* ``realtime``: each cycle lasts at least the cycle time (wall clock), as the original simulators.
* ``lockstep``: a cycle ends as soon as every expected client has answered the last cycle's
  message, or ``timeout`` seconds after that message was sent, so that a client slower than the
  clock is never skipped and a dead one cannot stall the run for ever.
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
        self._started = time.monotonic()
        self._waiter: asyncio.Future | None = None
        self._ready: Callable[[], bool] | None = None

    def begin_cycle(self) -> None:
        """Mark the start of a cycle (after the messages of the previous one were sent)."""
        self._started = time.monotonic()

    def notify(self) -> None:
        """A client answered: a lockstep wait ends if now everyone has (checked here, so the
        waiting server wakes once per cycle, not once per datagram)."""
        if self._waiter is not None and not self._waiter.done() and self._ready():
            self._waiter.set_result(None)

    async def wait(self, everyone_answered: Callable[[], bool]) -> None:
        """Return when the cycle may end, according to the mode."""
        if self.mode == "fast":
            await asyncio.sleep(0)
            return
        if self.mode == "realtime":
            remaining = self.cycle_s - (time.monotonic() - self._started)
            await asyncio.sleep(max(0.0, remaining))
            return
        if everyone_answered():
            return
        # counted from now, when the messages have been sent: a slow step of the server itself
        # (a pause of the machine, a first compilation) must not cut the clients' time short
        remaining = self.timeout_s
        loop = asyncio.get_running_loop()
        self._waiter, self._ready = loop.create_future(), everyone_answered
        timer = loop.call_later(remaining, lambda w=self._waiter: w.done() or w.set_result(None))
        try:
            await self._waiter
        finally:
            timer.cancel()
            self._waiter = self._ready = None
