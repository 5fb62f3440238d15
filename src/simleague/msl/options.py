"""Settings of the MSL middleware, one dataclass with the defaults the command line shows."""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field
from pathlib import Path

#: The RefBox's default port and the addresses it gives the two sides (msl.md: two rows of
#: msl_teams.json, one per source address).
REFBOX_PORT = 28097
ADDRESSES = {"cyan": "224.16.32.201", "magenta": "224.16.32.202"}
SOURCES = {"cyan": "127.0.1.1", "magenta": "127.0.2.1"}


@dataclass
class MiddlewareOptions:
    """Settings of :class:`Middleware` (the command line's options).

    Ports: ``team_port``/``pauser_port`` on ``team_host``/``pauser_host`` (default ``host``; port 0:
    any free one). Thesis 4.2-4.3: ``buffer`` (N), ``eps1``/``eps2`` (s); ``horizon``: furthest
    extrapolation past a team's newest state (s, default ``eps1``). Lifecycle (wall seconds):
    ``hello_timeout``, ``heartbeat``, ``timeout`` (silence of a running team), ``away`` (how long a
    team waits paused for its opponent to come back), ``linger`` (after the end, before stopping).
    Trust: ``tokens`` side -> token (empty: none asked), ``names`` side -> the only teamName allowed
    there, ``tls`` a server SSL context.
    Referee: ``referee`` "none", "auto" or "refbox"; ``half``, ``delay``, ``pause`` of the auto
    referee (s of simulation time); ``refbox_host``/``refbox_port``, ``addresses`` (side -> the
    RefBox's targetTeam for it), ``sources`` (side -> local address to connect from, or None);
    ``lead`` (s): how far past the newest reported time a command takes effect. Output: ``log``
    (event log), ``record`` (run log of the merged world), ``web`` (a WebViewer to show it).
    """

    host: str = "127.0.0.1"
    team_port: int = 28100
    pauser_port: int = 28101
    buffer: int = 25
    eps1: float = 0.2
    eps2: float = 0.05
    seed: int = 0
    hello_timeout: float = 10.0
    log: Path | None = None
    team_host: str | None = None
    pauser_host: str | None = None
    horizon: float | None = None
    heartbeat: float = 1.0
    timeout: float = 5.0
    away: float = 10.0
    linger: float = 2.0
    tokens: dict = field(default_factory=dict)
    names: dict = field(default_factory=dict)
    tls: ssl.SSLContext | None = None
    referee: str = "none"
    half: float = 60.0
    delay: float = 2.0
    pause: float = 5.0
    refbox_host: str = "127.0.0.1"
    refbox_port: int = REFBOX_PORT
    addresses: dict = field(default_factory=lambda: dict(ADDRESSES))
    sources: dict = field(default_factory=lambda: dict(SOURCES))
    lead: float = 0.25
    record: Path | None = None
    web: object | None = None
