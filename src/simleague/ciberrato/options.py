"""How a CiberRato server runs: one dataclass, with the defaults the command line shows (light, so
the command line reads them without loading the world)."""

from __future__ import annotations

from dataclasses import dataclass

#: The original simulator's UDP registration port.
REGISTRATION_PORT = 6000


@dataclass
class ServerOptions:
    """How a server runs: bind ``host``/``port`` (0 = any free port), clock ``mode``,
    ``autostart`` (start when that many robots registered; 0 = wait for a viewer's Start),
    ``lockstep_timeout`` (s), ``stop_when_finished`` (leave :meth:`Server.run` at the end)."""

    host: str = "127.0.0.1"
    port: int = REGISTRATION_PORT
    mode: str = "realtime"
    autostart: int = 0
    lockstep_timeout: float = 2.0
    stop_when_finished: bool = False
