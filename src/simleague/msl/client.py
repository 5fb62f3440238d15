"""Team client library: what a team's simulator (or its info exchanger) needs to play through the
middleware. Plain sockets, no threads, so the same idea ports to C++.

Example::

    from simleague.msl.client import TeamClient
    from simleague.msl.messages import Ball, Robot

    client = TeamClient("Tech United", "cyan", port=28100, token="...")
    client.connect()                                   # hello, then wait for the start signal
    client.subscribe(0.02)                             # the opponent every 20 ms of our time
    while not client.ended:
        sim.step()
        client.send_state(sim.t, [Robot(1, (x, y, th), (vx, vy, w), 0)],
                          Ball((bx, by, bz), (bvx, bvy, bvz)))
        client.poll()                                  # whatever arrived, without waiting
        if client.latest is not None:                  # newest opponent robots and ball, our frame
            use(client.latest.robots, client.latest.balls[0], client.latest.ballFrom)
        for command in client.due(sim.t):              # referee commands whose time has come
            sim.obey(command.command, command.target)

Two ways to get the opponent: :meth:`subscribe` (the middleware pushes a reply every period of our
simulation time: nothing to wait for, the way to play over a slow network), or :meth:`ask` (send a
request with an id, pick the reply up later with :meth:`poll`) and its blocking form
:meth:`request`. Referee commands arrive stamped with the simulation time at which both teams carry
them out; :meth:`due` hands them over when our simulation reaches it.

Positions in metres, angles in radians, times in seconds of the team's simulation time, which must
increase (thesis 4.2). A lost connection is re-established (for up to ``reconnect`` seconds) and the
call is repeated once; :class:`ConnectionLost` is raised when that fails.
"""

from __future__ import annotations

import logging
import select
import socket
import ssl
import time
from collections import deque
from collections.abc import Callable

from .. import errors
from .messages import (Ball, End, Error, Heartbeat, Hello, MessageSplitter, Opponent, Referee, Reply, Request,
                       Robot, Start, State, Subscribe, decode_to_team, encode)

log = logging.getLogger("simleague.msl.client")

#: Replies kept for :meth:`TeamClient.poll` callers that asked by id and have not taken them yet.
MAX_WAITING_REPLIES = 1000


class MiddlewareError(errors.Error, RuntimeError):
    """The middleware answered with an error message (``.in_reply_to`` names the message type,
    ``.id`` the request's id when it had one)."""

    def __init__(self, message: str, in_reply_to: str = "", request_id: int | None = None):
        super().__init__(message)
        self.in_reply_to, self.id = in_reply_to, request_id


class ConnectionLost(errors.Error, ConnectionError):
    """The middleware could not be reached again within the reconnect time."""


class TeamClient:
    """One team's connection to the middleware at ``host:port`` as ``team_name`` on ``side``
    ('cyan' or 'magenta'), with the match's ``token`` for that side if it has one. ``address`` is
    the RefBox ``targetTeam`` our software answers to ('' : the RefBox's own for our side); ``tls``
    an SSL context to speak TLS (e.g. ``ssl.create_default_context(cafile=...)``).

    Kept for the caller: ``latest`` (the newest :class:`Reply`), ``replies`` (replies to
    :meth:`ask` by id), ``errors`` (the last 100 error messages not tied to a request),
    ``latencies`` (round trips of the last 100,000 requests, s), ``opponent_present``, ``ended``
    (the :class:`End` message once the match is over).
    """

    def __init__(self, team_name: str, side: str, host: str = "127.0.0.1", port: int = 28100,
                 reconnect: float = 10.0, token: str = "", address: str = "", tls: ssl.SSLContext | None = None):
        self.hello = Hello(team_name, side, token, address)
        self.host, self.port, self.reconnect, self.tls = host, port, reconnect, tls
        self.sock: socket.socket | None = None
        self.start: Start | None = None
        self.latest: Reply | None = None
        self.replies: dict[int, Reply | MiddlewareError] = {}
        self.errors: deque[str] = deque(maxlen=100)
        self.latencies: deque[float] = deque(maxlen=100_000)
        self.commands: deque[Referee] = deque(maxlen=10_000)
        self.opponent_present = True
        self.ended: End | None = None
        self.reconnects = 0
        self._sent: dict[int, float] = {}
        self._next_id = 0
        self._period = 0.0
        self._splitter = MessageSplitter()
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
        sock = socket.create_connection((self.host, self.port), timeout=self.reconnect)
        if self.tls is not None:
            sock = self.tls.wrap_socket(sock, server_hostname=self.host)
        self.sock = sock
        self.sock.settimeout(None)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._splitter, self._lines = MessageSplitter(), deque()
        self.sock.sendall(encode(self.hello))
        while True:
            message = self._read()
            if isinstance(message, Error):
                raise MiddlewareError(message.message, message.inReplyTo)
            if isinstance(message, Start):
                break
            if not isinstance(message, Heartbeat):
                raise MiddlewareError(f"expected the start signal, got {type(message).__name__}")
        self.start = message
        if self._period:
            self.sock.sendall(encode(Subscribe(self._period)))
        return message

    def close(self) -> None:
        """Close the connection (the middleware takes the team as gone; :meth:`connect` again to
        come back)."""
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def _read(self, block: bool = True):
        """The next message, or None when ``block`` is false and none is complete yet."""
        while not self._lines:
            if not block and not (isinstance(self.sock, ssl.SSLSocket) and self.sock.pending()):
                if not select.select([self.sock], [], [], 0)[0]:
                    return None
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionResetError("the middleware closed the connection")
            self._lines.extend(self._splitter.feed(data))
        line = self._lines.popleft()
        if line is None:
            raise MiddlewareError("the middleware sent an oversized message")
        return decode_to_team(line)

    def _take(self, message) -> None:
        """Keep what a message says (a reply, a referee command, the opponent's presence, the end)."""
        if isinstance(message, Reply):
            self.latest = message
            if message.id is not None:
                sent = self._sent.pop(message.id, None)
                if sent is not None:
                    self.latencies.append(time.perf_counter() - sent)
                    self.replies[message.id] = message
        elif isinstance(message, Error):
            if message.id is not None and self._sent.pop(message.id, None) is not None:
                self.replies[message.id] = MiddlewareError(message.message, message.inReplyTo, message.id)
            else:
                self.errors.append(message.message)
                log.warning("middleware: %s", message.message)
        elif isinstance(message, Referee):
            self.commands.append(message)
        elif isinstance(message, Opponent):
            self.opponent_present = message.present
        elif isinstance(message, End):
            self.ended = message
        elif isinstance(message, Start):
            self.start = message
        while len(self.replies) > MAX_WAITING_REPLIES:
            del self.replies[next(iter(self.replies))]

    def _again(self, action):
        """Run ``action``; after a lost connection reconnect and run it once more."""
        try:
            if self.sock is None:
                raise ConnectionResetError("not connected")
            return action()
        except OSError as exc:
            if self.ended:
                raise ConnectionLost("the match is over and the middleware has gone") from None
            log.warning("connection to the middleware lost (%s): reconnecting", exc)
            self.close()
            self.connect()
            self.reconnects += 1
            return action()

    def poll(self) -> int:
        """Take every message that has arrived, without waiting; returns how many."""
        def drain() -> int:
            n = 0
            while (message := self._read(block=False)) is not None:
                self._take(message)
                n += 1
            return n
        return self._again(drain)

    def send_state(self, t: float, robots: list[Robot], ball: Ball, age_ms: int = 0) -> None:
        """Send our robots and our ball at simulation time ``t`` (s), in our own frame; ``age_ms``:
        how old that information is."""
        data = encode(State(t, robots, [ball], age_ms))
        self._again(lambda: self.sock.sendall(data))

    def subscribe(self, period: float) -> None:
        """Have the opponent pushed every ``period`` s of our simulation time (0: stop); the newest
        is :attr:`latest` after :meth:`poll`. Kept across reconnects."""
        self._period = period
        self._again(lambda: self.sock.sendall(encode(Subscribe(period))))

    def heartbeat(self) -> None:
        """Tell the middleware we are alive (any message does; this one when there is nothing else)."""
        self._again(lambda: self.sock.sendall(encode(Heartbeat())))

    def ask(self, t: float) -> int:
        """Send a request for time ``t`` (s) without waiting; returns its id. The answer appears in
        :attr:`replies` under that id (a :class:`Reply` or a :class:`MiddlewareError`) after a
        :meth:`poll`."""
        self._next_id += 1
        rid = self._next_id
        data = encode(Request(t, rid))

        def send() -> int:
            self._sent[rid] = time.perf_counter()
            if len(self._sent) > MAX_WAITING_REPLIES:
                del self._sent[next(iter(self._sent))]
            self.sock.sendall(data)
            return rid
        return self._again(send)

    def request(self, t: float) -> Reply:
        """The opponent's robots and the agreed ball at our simulation time ``t``, in our frame,
        waiting for the answer. Raises :class:`MiddlewareError` if the middleware cannot answer
        (e.g. no opponent state yet)."""
        def ask_and_wait() -> Reply:
            rid = self.ask(t)
            while rid not in self.replies:
                self._take(self._read())
            answer = self.replies.pop(rid)
            if isinstance(answer, MiddlewareError):
                raise answer
            return answer
        return self._again(ask_and_wait)

    def due(self, t: float) -> list[Referee]:
        """The referee commands received whose time has come at our simulation time ``t`` (s), in
        order, each handed over once. Call :meth:`poll` first."""
        out = []
        while self.commands and self.commands[0].t <= t + 1e-9:
            out.append(self.commands.popleft())
        return out
