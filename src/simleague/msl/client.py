"""Team client library: what a team's simulator (or its info exchanger) needs to play through the
middleware. Blocking sockets, no threads, about a hundred lines, so the same idea ports to C++.

Example::

    from simleague.msl.client import TeamClient
    from simleague.msl.messages import Ball, Robot

    client = TeamClient("Tech United", "cyan", port=28100)
    client.connect()                                   # hello, then wait for the start signal
    while running:
        sim.step()
        client.send_state(sim.t, [Robot(1, (x, y, th), (vx, vy, w), 0)],
                          Ball((bx, by, bz), (bvx, bvy, bvz)))
        reply = client.request(sim.t)                  # opponent robots and the ball, our frame
        # reply.robots, reply.balls[0], reply.ballFrom

Positions in metres, angles in radians, times in seconds of the team's simulation time, which must
increase (thesis 4.2). A lost connection is re-established (for up to ``reconnect`` seconds) and the
call is repeated once; :class:`ConnectionLost` is raised when that fails.
"""

from __future__ import annotations

import logging
import socket
import time
from collections import deque
from collections.abc import Callable

from .messages import Ball, Error, Hello, LineSplitter, Reply, Request, Robot, Start, State
from .messages import decode_to_team, encode

log = logging.getLogger("simleague.msl.client")


class MiddlewareError(RuntimeError):
    """The middleware answered with an error message (``.in_reply_to`` names the message type)."""

    def __init__(self, message: str, in_reply_to: str = ""):
        super().__init__(message)
        self.in_reply_to = in_reply_to


class ConnectionLost(ConnectionError):
    """The middleware could not be reached again within the reconnect time."""


class TeamClient:
    """One team's connection to the middleware at ``host:port`` as ``team_name`` on ``side``
    ('cyan' or 'magenta'). ``errors`` keeps the last 100 error messages about sent states;
    ``latencies`` the round-trip times (s) of the last 100,000 requests."""

    def __init__(self, team_name: str, side: str, host: str = "127.0.0.1", port: int = 28100,
                 reconnect: float = 10.0):
        self.hello = Hello(team_name, side)
        self.host, self.port, self.reconnect = host, port, reconnect
        self.sock: socket.socket | None = None
        self.start: Start | None = None
        self.errors: deque[str] = deque(maxlen=100)
        self.latencies: deque[float] = deque(maxlen=100_000)
        self.reconnects = 0
        self._splitter = LineSplitter()
        self._lines: deque[bytes | None] = deque()

    def connect(self, waiting: Callable[[str], None] | None = None) -> Start:
        """Connect, say hello and wait for the start signal. Retries for ``reconnect`` seconds while
        the middleware is not there (or still holds our side), calling ``waiting(what)`` once with
        what it waits for; raises :class:`ConnectionLost`, or :class:`MiddlewareError` if it
        refuses us for another reason."""
        deadline = time.monotonic() + self.reconnect
        told = False
        while True:
            try:
                return self._try_connect()
            except (OSError, MiddlewareError) as exc:
                retry = isinstance(exc, OSError) or "connected already" in str(exc)
                self.close()
                if not retry:
                    raise
                if time.monotonic() > deadline:
                    raise ConnectionLost(f"no middleware at {self.host}:{self.port} in {self.reconnect:g} s: "
                                         f"{exc}") from None
                if waiting is not None and not told:
                    waiting(f"the middleware at {self.host}:{self.port} (gives up after {self.reconnect:g} s)")
                    told = True
                time.sleep(0.05)

    def _try_connect(self) -> Start:
        self.sock = socket.create_connection((self.host, self.port), timeout=self.reconnect)
        self.sock.settimeout(None)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._splitter, self._lines = LineSplitter(), deque()
        self.sock.sendall(encode(self.hello))
        message = self._read()
        if isinstance(message, Error):
            raise MiddlewareError(message.message, message.inReplyTo)
        if not isinstance(message, Start):
            raise MiddlewareError(f"expected the start signal, got {type(message).__name__}")
        self.start = message
        return message

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def _read(self):
        while not self._lines:
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionResetError("the middleware closed the connection")
            self._lines.extend(self._splitter.feed(data))
        line = self._lines.popleft()
        if line is None:
            raise MiddlewareError("the middleware sent an oversized line")
        return decode_to_team(line)

    def _again(self, action):
        """Run ``action``; after a lost connection reconnect and run it once more."""
        try:
            if self.sock is None:
                raise ConnectionResetError("not connected")
            return action()
        except OSError as exc:
            log.warning("connection to the middleware lost (%s): reconnecting", exc)
            self.close()
            self.connect()
            self.reconnects += 1
            return action()

    def send_state(self, t: float, robots: list[Robot], ball: Ball) -> None:
        """Send our robots and our ball at simulation time ``t`` (s), in our own frame."""
        data = encode(State(t, robots, [ball]))
        self._again(lambda: self.sock.sendall(data))

    def request(self, t: float) -> Reply:
        """The opponent's robots and the agreed ball at our simulation time ``t``, in our frame.
        Raises :class:`MiddlewareError` if the middleware cannot answer (e.g. no opponent state yet)."""
        data = encode(Request(t))

        def ask() -> Reply:
            sent = time.perf_counter()
            self.sock.sendall(data)
            while True:
                message = self._read()
                if isinstance(message, Reply):
                    self.latencies.append(time.perf_counter() - sent)
                    return message
                if isinstance(message, Error):
                    if message.inReplyTo == "request":
                        raise MiddlewareError(message.message, "request")
                    self.errors.append(message.message)
                    log.warning("middleware: %s", message.message)

        return self._again(ask)
