"""Limits on what a client controls that are not about framing: how much of the log its bad input
may fill, and how much may wait for it when it does not read (ARCHITECTURE.md rule 5, "every rate a
client controls has a limit").
"""

from __future__ import annotations

import enum
import logging
import time


class LogLimiter:
    """At most ``per_second`` log lines a second about one source (a client, a port), through
    ``logger``; lines over that are counted, and the count is logged as ``"<who>: N more
    problems in the last second not logged"`` once the next second begins. Used by every server:
    CiberRato per client and for registrations, SimSpark per client, the humanoid API for
    GameController return packets.
    ``LogLimiter(logger, who, per_second=10)``."""

    def __init__(self, logger: logging.Logger, who: str, per_second: int = 10):
        self.logger, self.who, self.per_second = logger, who, per_second
        self.second = 0.0          # start of the second the lines below count in (monotonic s)
        self.logged = 0            # lines logged in that second
        self.suppressed = 0        # and left out, beyond per_second

    def log(self, level: int, text: str) -> None:
        """Log ``text`` at ``level`` unless this second's lines are used up (then count it)."""
        self.flush()
        if self.logged < self.per_second:
            self.logged += 1
            self.logger.log(level, "%s", text)
        else:
            self.suppressed += 1

    def flush(self) -> None:
        """Once a second has passed: say how many lines were left out, and count afresh."""
        now = time.monotonic()
        if now - self.second >= 1.0:
            if self.suppressed:
                self.logger.warning("%s: %d more problems in the last second not logged", self.who, self.suppressed)
            self.second, self.logged, self.suppressed = now, 0, 0


class Verdict(enum.Enum):
    """What to do with a message for a client: send it, drop it, or disconnect the client."""

    SEND = "send"
    DROP = "drop"
    DISCONNECT = "disconnect"


class SlowReader:
    """The one rule for a client that does not read what it is sent (ARCHITECTURE.md rule 5: a slow
    client never slows the simulation, and what waits for it is bounded). Before each message the
    server asks :meth:`verdict` with the bytes still unsent to that client (its transport's write
    buffer): SEND while they are at most ``max_unsent``; over that the message is dropped, up to
    ``patience`` in a row, and then the client is disconnected.

    ``SlowReader(max_unsent, patience=0)``. Patience 0 (disconnect at once) serves SimSpark agents and
    monitors, MSL teams and pausers and the web viewers, whose every message counts; the humanoid API
    keeps its robots' clients for ``patience`` dropped measurements (each step's supersede the last),
    and the MSL RefBox bridge, which must not lose the RefBox, never gives up (``patience=None``).
    """

    def __init__(self, max_unsent: int, patience: int | None = 0):
        self.max_unsent, self.patience = max_unsent, patience
        self.dropped = 0           # messages dropped in a row, since the last one sent
        self.missed = 0            # how many were dropped just before the last one sent

    def verdict(self, unsent: int) -> Verdict:
        """SEND, DROP or DISCONNECT for the next message, given ``unsent`` bytes waiting for the
        client; a SEND sets :attr:`missed` (to tell the client) and starts the count afresh."""
        if unsent <= self.max_unsent:
            self.missed, self.dropped = self.dropped, 0
            return Verdict.SEND
        self.dropped += 1
        if self.patience is None or self.dropped <= self.patience:
            return Verdict.DROP
        return Verdict.DISCONNECT
