"""Cycle pacing shared by the servers: ``realtime``, ``lockstep`` and ``fast``.

* ``realtime``: cycle n ends no earlier than n cycle times after the first began (wall clock), as
  the originals' timers do (CiberRato's cycle timer, rcssserver3d's real-time step, Webots'
  real-time factor): a cycle that took longer is made up by the next ones, so the run does not
  drift; a debt of more than ``max_lag_s`` (a stalled machine, a pause) is forgiven.
* ``lockstep``: a cycle ends as soon as every expected client has answered the last cycle's
  message, or ``timeout`` seconds after that message was sent, so that a client slower than the
  clock is never skipped and a dead one cannot stall the run for ever.
* ``fast``: no waiting at all beyond letting pending network input in.

Time is read through ``now`` and waited through ``sleep``, both injectable (as the SSL game
controller's time provider), so that pacing is tested on a fake clock without sleeping.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

MODES = ("realtime", "lockstep", "fast")
MAX_LAG_S = 0.5                    # s a real-time run may fall behind and make up


class Clock:
    """Paces cycles. ``Clock(mode, cycle_s, timeout_s, max_lag_s=, now=, sleep=)``.

    ``cycle_s`` is the cycle time in seconds (realtime), ``timeout_s`` the longest a lockstep cycle
    waits for its clients, ``max_lag_s`` the largest real-time debt made up; ``now()`` returns
    seconds (default :func:`time.monotonic`), ``sleep(s)`` waits that long (default
    :func:`asyncio.sleep`). Raises ValueError for an unknown mode or a negative cycle time.
    """

    def __init__(self, mode: str, cycle_s: float, timeout_s: float = 2.0, *, max_lag_s: float = MAX_LAG_S,
                 now: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep):
        if mode not in MODES:
            raise ValueError(f"unknown clock mode {mode!r}; choose one of {', '.join(MODES)}")
        if not cycle_s >= 0:
            raise ValueError(f"a cycle time cannot be below 0 s: {cycle_s}")
        self.mode, self.cycle_s, self.timeout_s, self.max_lag_s = mode, cycle_s, timeout_s, max_lag_s
        self._now, self._sleep = now, sleep
        self._started = now()
        self._due: float | None = None              # when the last real-time cycle was to end
        self._waiter: asyncio.Future | None = None
        self._ready: Callable[[], bool] | None = None

    def begin_cycle(self) -> None:
        """Mark the start of a cycle (after the messages of the previous one were sent)."""
        self._started = self._now()

    def notify(self) -> None:
        """A client answered: a lockstep wait ends if now everyone has (checked here, so the
        waiting server wakes once per cycle, not once per datagram)."""
        if self._waiter is not None and not self._waiter.done() and self._ready():
            self._waiter.set_result(None)

    async def wait(self, everyone_answered: Callable[[], bool]) -> None:
        """Return when the cycle may end, according to the mode."""
        if self.mode == "fast":
            await self._sleep(0)
        elif self.mode == "realtime":
            if self._due is None or self._due < self._started - self.max_lag_s:
                self._due = self._started             # the first cycle, or a debt too large to make up
            self._due += self.cycle_s
            await self._sleep(max(0.0, self._due - self._now()))
        elif not everyone_answered():
            await self._lockstep(everyone_answered)

    async def _lockstep(self, everyone_answered: Callable[[], bool]) -> None:
        # counted from now, when the messages have been sent: a slow step of the server itself
        # (a pause of the machine, a first compilation) must not cut the clients' time short
        self._waiter, self._ready = asyncio.get_running_loop().create_future(), everyone_answered
        timer = asyncio.ensure_future(self._time_out(self._waiter))
        try:
            await self._waiter
        finally:
            timer.cancel()
            self._waiter = self._ready = None

    async def _time_out(self, waiter: asyncio.Future) -> None:
        await self._sleep(self.timeout_s)
        if not waiter.done():
            waiter.set_result(None)
