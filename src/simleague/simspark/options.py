"""How a SimSpark server runs: one dataclass, with the defaults the command line shows (light, so
the command line reads them without loading the physics)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SimSparkOptions:
    """How a SimSpark server runs: bind ``host`` and the ``agent_port`` and ``monitor_port`` (0 = any
    free port); ``sync`` (wait for every agent's ``(syn)``, at most ``sync_timeout`` s; 0: for ever,
    as the original, whose teams start their players expecting it) and
    ``realtime`` (20 ms cycles against the wall clock) pacing; ``allow_kill_sim`` (a trainer's ``killsim``
    stops the server); ``max_backlog`` (bytes waiting for a client that does not read before it is
    dropped); ``cycles`` (stop after this many; None: until :meth:`SimSparkServer.stop`)."""

    host: str = "127.0.0.1"
    agent_port: int = 3100
    monitor_port: int = 3200
    sync: bool = False
    realtime: bool = True
    sync_timeout: float = 30.0
    allow_kill_sim: bool = False
    max_backlog: int = 2 * 1024 * 1024
    cycles: int | None = None
