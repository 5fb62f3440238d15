"""Limits on what a client controls that are not about bytes: how much of the log its bad input
may fill (ARCHITECTURE.md rule 5, "every rate a client controls has a limit").
"""

from __future__ import annotations

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
