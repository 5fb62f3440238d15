"""The match middleware (thesis 5.3): shares robot and ball states between two teams' simulators
and keeps their simulation times together by having pausers pause the one that runs ahead.

:class:`~simleague.msl.exchange.Match` is the pure core (buffers, ball arbitration, time
synchronisation); :class:`Middleware` is the asyncio TCP server around it: initialisation (two pausers, then two teams, then a start signal
to both), then alternating communication phases (every message that arrived from either team is
handled, taken in turns so neither team starves the other) and time-synchronisation phases.

Every event is written to a JSON-lines log: ``{"wall": unix seconds, "ev": kind, ...}``; kinds are
``listening``, ``pauser_connected``/``pauser_disconnected``/``pauser_report``, ``team_connected``/
``team_disconnected``/``team_refused``, ``start``, ``in`` and ``out`` (per message, with its size in
bytes and times), ``error``, ``ball`` (a change of the ball used), ``command`` (a pause or resume
with the event of Table 1 and the times t1, t2 that caused it), ``stopped``.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from .buffer import TimeOrderError
from .exchange import Match, other
from .messages import (MAX_LINE, SIDES, Command, Error, Hello, LineSplitter, PauserHello, ProtocolError,
                       Report, Request, Start, State, decode_pauser, decode_team, encode)

log = logging.getLogger("simleague.msl.middleware")

#: Messages of one team handled in one communication phase at most; more wait for the next phase.
PHASE_MAX = 64
#: Messages of one team waiting to be handled; beyond this the middleware stops reading its socket.
QUEUE_MAX = 256
#: Bytes the middleware lets pile up unread on a connection before dropping it.
MAX_UNREAD_OUT = 1 << 20
MAX_TEAM_MESSAGES = 1000        # messages a second read from one team; beyond, its socket waits (none lost)
MAX_LOG_BYTES = 64 << 20        # of per-message events in the event log; then only the others
#: Bytes read from a socket at a time.
READ_CHUNK = 64 * 1024


class EventLog:
    """The middleware's JSON-lines log (one object per line, ``wall`` and ``ev`` first). Per-message
    events are flushed at the end of each phase, every other event at once."""

    def __init__(self, path: Path | None, max_bytes: int = MAX_LOG_BYTES):
        self._file = open(path, "ab") if path else None
        self._enc = msgspec.json.Encoder()
        self.max_bytes, self.written, self.left_out = max_bytes, 0, 0

    def __call__(self, ev: str, **fields) -> None:
        if self._file:
            per_message = ev in ("in", "out")
            if per_message and self.written >= self.max_bytes:   # a bounded log: rare events only
                if not self.left_out:
                    self._write({"wall": round(time.time(), 6), "ev": "log_full", "bytes": self.written,
                                 "note": "per-message events (in, out) are no longer written"})
                self.left_out += 1
                return
            self._write({"wall": round(time.time(), 6), "ev": ev, **fields})
            if not per_message:  # rare events at once; per-message ones at the end of a phase
                self._file.flush()

    def _write(self, record: dict) -> None:
        line = self._enc.encode(record) + b"\n"
        self.written += len(line)
        self._file.write(line)

    def flush(self) -> None:
        if self._file:
            self._file.flush()

    def close(self) -> None:
        if self._file:
            if self.left_out:
                self._write({"wall": round(time.time(), 6), "ev": "log_full", "left_out": self.left_out})
            self._file.flush()
            self._file.close()
            self._file = None


@dataclass
class Link:
    """One connected team or pauser."""

    side: str
    name: str
    writer: asyncio.StreamWriter
    queue: asyncio.Queue = field(default_factory=lambda: asyncio.Queue(QUEUE_MAX))

    def send(self, data: bytes) -> bool:
        """Queue bytes for sending; False (and the connection closed) if the peer stopped reading."""
        if self.writer.is_closing():
            return False
        if self.writer.transport.get_write_buffer_size() > MAX_UNREAD_OUT:
            self.writer.close()
            return False
        self.writer.write(data)
        return True


@dataclass
class MiddlewareOptions:
    """Settings of :class:`Middleware` (the command line's options)."""

    host: str = "127.0.0.1"
    team_port: int = 28100
    pauser_port: int = 28101
    buffer: int = 25
    eps1: float = 0.2
    eps2: float = 0.05
    seed: int = 0
    hello_timeout: float = 10.0
    log: Path | None = None


class _Lines:
    """Lines from a TCP stream, a batch (everything one read brought) at a time; None stands for an
    oversized line. ``first()`` takes one line and keeps the rest of its batch for ``batch()``."""

    def __init__(self, reader: asyncio.StreamReader):
        self.reader = reader
        self.splitter = LineSplitter()
        self.kept: list = []

    async def batch(self) -> list | None:
        """The next lines, or None once the peer closed."""
        if self.kept:
            out, self.kept = self.kept, []
            return out
        while True:
            try:
                data = await self.reader.read(READ_CHUNK)
            except (ConnectionError, OSError):
                return None
            if not data:
                return None
            lines = self.splitter.feed(data)
            if lines:
                return lines

    async def first(self):
        """The first line; raises EOFError if the peer closed before sending one."""
        lines = await self.batch()
        if lines is None:
            raise EOFError
        self.kept = lines[1:]
        return lines[0]


class Middleware:
    """The middleware server. ``await start()`` binds both ports (``team_port``/``pauser_port``
    are then the real ones, useful with port 0), ``await run()`` serves until :meth:`stop`.
    Raises OSError from ``start`` if a port cannot be bound."""

    def __init__(self, options: MiddlewareOptions):
        self.options = options
        self.match = Match(options.buffer, options.eps1, options.eps2, options.seed)
        self.log = EventLog(options.log)
        self.teams: dict[str, Link] = {}
        self.pausers: dict[str, Link] = {}
        self.team_names: dict[str, str] = {}
        self.started = False
        self.paused = {side: False for side in SIDES}
        self._seq = 0
        self._phase_due = False
        self._stop = asyncio.Event()
        self._pausers_ready = asyncio.Event()
        self._ball_side: str | None = None
        self._handlers: set[asyncio.Task] = set()
        self.team_port = self.pauser_port = 0

    async def start(self) -> None:
        o = self.options
        self._pauser_server = await asyncio.start_server(self._pauser_conn, o.host, o.pauser_port, limit=MAX_LINE)
        self._team_server = await asyncio.start_server(self._team_conn, o.host, o.team_port, limit=MAX_LINE,
                                                       start_serving=False)
        self.pauser_port = self._pauser_server.sockets[0].getsockname()[1]
        self.team_port = self._team_server.sockets[0].getsockname()[1]
        self.log("listening", host=o.host, teamPort=self.team_port, pauserPort=self.pauser_port,
                 buffer=o.buffer, eps1=o.eps1, eps2=o.eps2, seed=o.seed)

    def stop(self) -> None:
        """Ask :meth:`run` to end (resuming both simulators first)."""
        self._stop.set()

    async def run(self) -> None:
        try:
            await self._serve()
        finally:
            await self._shutdown()

    async def _serve(self) -> None:
        # Initialisation: the team socket opens once both pausers are in (thesis 5.3).
        waiter = asyncio.ensure_future(self._pausers_ready.wait())
        stopper = asyncio.ensure_future(self._stop.wait())
        await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel(), stopper.cancel()
        if self._stop.is_set():
            return
        await self._team_server.start_serving()
        self.log("teams_open", teamPort=self.team_port)
        await self._stop.wait()

    def _phase(self) -> None:
        """One communication phase and one time-synchronisation phase (thesis 5.3). Runs as soon
        as a team's bytes were read; if messages are left over (more than PHASE_MAX from one team),
        another phase is scheduled after the other connections had their turn."""
        self._phase_due = False
        if self._stop.is_set():
            return
        more = self._communication_phase()
        self._synchronisation_phase()
        self.log.flush()
        if more:
            self._schedule_phase()

    def _schedule_phase(self) -> None:
        if not self._phase_due:
            self._phase_due = True
            asyncio.get_running_loop().call_soon(self._phase)

    # -- communication phase ------------------------------------------------------------------

    def _communication_phase(self) -> bool:
        """Handle what arrived, one message per team in turn, at most PHASE_MAX per team.
        Returns whether messages are still waiting."""
        for _ in range(PHASE_MAX):
            handled = False
            for side in SIDES:
                link = self.teams.get(side)
                if link is not None and not link.queue.empty():
                    self._handle(link, *link.queue.get_nowait())
                    handled = True
            if not handled:
                return False
        return True

    def _handle(self, link: Link, item, size: int) -> None:
        side = link.side
        if isinstance(item, str):
            self.log("in", side=side, type="invalid", bytes=size)
            return self._error(link, item, "")
        kind = type(item).__name__.lower()
        self.log("in", side=side, type=kind, bytes=size, t=getattr(item, "t", None),
                 tOther=self.match.times.get(other(side)))
        if isinstance(item, State):
            try:
                ball_side = self.match.on_state(side, item)
            except (TimeOrderError, ValueError) as exc:
                return self._error(link, str(exc), "state")
            if ball_side != self._ball_side:
                self._ball_side = ball_side
                self.log("ball", side=ball_side, t=item.t, by=side)
        elif isinstance(item, Request):
            try:
                reply = self.match.on_request(side, item)
            except LookupError as exc:
                return self._error(link, f"cannot answer yet: {exc}", "request")
            data = encode(reply)
            link.send(data)
            self.log("out", side=side, type="reply", bytes=len(data), t=item.t,
                     estimate=reply.estimate, ballFrom=reply.ballFrom)
        else:
            self._error(link, "hello was already received on this connection", "hello")

    def _error(self, link: Link, message: str, in_reply_to: str) -> None:
        data = encode(Error(message, in_reply_to))
        link.send(data)
        self.log("error", side=link.side, message=message, inReplyTo=in_reply_to, bytes=len(data))

    # -- time-synchronisation phase -----------------------------------------------------------

    def _synchronisation_phase(self) -> None:
        transition = self.match.synchronise()
        if transition is not None and transition.event:
            self.log("transition", event=transition.event, line=transition.line,
                     t1=self.match.times[SIDES[0]], t2=self.match.times[SIDES[1]])
        self._command_pausers(transition.event if transition else None)

    def _wanted_paused(self, side: str) -> bool:
        if self.started and other(side) not in self.teams:
            return True  # the other team is away (thesis 5.3)
        return self.match.sync.paused(SIDES.index(side) + 1)

    def _command_pausers(self, event: str | None) -> None:
        if self._stop.is_set():
            return  # _shutdown resumes both
        for side in SIDES:
            want = self._wanted_paused(side)
            if want != self.paused[side]:
                self.paused[side] = want
                reason = event or ("opponent away" if want else "opponent back")
                self._send_command(side, "pause" if want else "resume", reason)

    def _send_command(self, side: str, action: str, reason: str) -> None:
        self._seq += 1
        t1, t2 = self.match.times.get(SIDES[0]), self.match.times.get(SIDES[1])
        pauser = self.pausers.get(side)
        self.log("command", side=side, action=action, reason=reason, seq=self._seq, t1=t1, t2=t2,
                 delivered=pauser is not None)
        if pauser is not None:
            pauser.send(encode(Command(self._seq, action, reason, t1, t2)))

    # -- connections ----------------------------------------------------------------------------

    async def _hello(self, reader, decode):
        """The first message of a connection with the connection's :class:`_Lines`, or None and
        what was wrong (no hello within the timeout, a closed stream, an invalid line)."""
        lines = _Lines(reader)
        try:
            line = await asyncio.wait_for(lines.first(), self.options.hello_timeout)
        except asyncio.TimeoutError:
            return None, lines, "no hello within %.0f s" % self.options.hello_timeout
        except EOFError:
            return None, lines, "closed before saying hello"
        if line is None:
            return None, lines, f"line longer than {MAX_LINE} bytes"
        try:
            return decode(line), lines, ""
        except ProtocolError as exc:
            return None, lines, str(exc)

    async def _refuse(self, writer, peer, message: str, what: str) -> None:
        self.log(f"{what}_refused", peer=peer, message=message)
        try:
            writer.write(encode(Error(message, "hello")))
            await asyncio.wait_for(writer.drain(), 1.0)
        except (ConnectionError, OSError, asyncio.TimeoutError):
            pass
        writer.close()

    def _track(self) -> None:
        task = asyncio.current_task()
        self._handlers.add(task)
        task.add_done_callback(self._handlers.discard)

    async def _pauser_conn(self, reader, writer) -> None:
        self._track()
        peer = "%s:%s" % writer.get_extra_info("peername")[:2]
        hello, lines, problem = await self._hello(reader, decode_pauser)
        if hello is not None and not isinstance(hello, PauserHello):
            hello, problem = None, "the first line of a pauser must be a pauser_hello"
        if hello is not None and hello.side in self.pausers:
            hello, problem = None, f"a pauser for {hello.side} is connected already"
        if hello is None:
            return await self._refuse(writer, peer, problem, "pauser")
        link = Link(hello.side, f"{hello.backend}:{hello.target}", writer)
        self.pausers[hello.side] = link
        self.log("pauser_connected", side=hello.side, backend=hello.backend, target=hello.target, peer=peer)
        if len(self.pausers) == 2:
            self._pausers_ready.set()
        if self.paused[hello.side]:  # a pauser that came back: tell it what is wanted now
            self._send_command(hello.side, "pause", "pauser reconnected")
        while (batch := await lines.batch()) is not None:
            for line in batch:
                try:
                    report = decode_pauser(line) if line is not None else None
                except ProtocolError as exc:
                    report, problem = None, str(exc)
                else:
                    problem = f"line longer than {MAX_LINE} bytes" if line is None else ""
                if isinstance(report, Report):
                    self.log("pauser_report", side=link.side, **msgspec.structs.asdict(report))
                else:
                    link.send(encode(Error(problem or "a pauser sends only reports after its hello", "")))
                    self.log("error", side=link.side, pauser=True, message=problem or "unexpected message")
        del self.pausers[link.side]
        self.log("pauser_disconnected", side=link.side)
        writer.close()

    async def _team_conn(self, reader, writer) -> None:
        """A team's connection; cut short at shutdown (a flooding team may still have a backlog),
        it ends quietly with its socket closed."""
        try:
            await self._serve_team(reader, writer)
        except asyncio.CancelledError:
            writer.close()

    async def _serve_team(self, reader, writer) -> None:
        self._track()
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        peer = "%s:%s" % writer.get_extra_info("peername")[:2]
        hello, lines, problem = await self._hello(reader, decode_team)
        if hello is not None and not isinstance(hello, Hello):
            hello, problem = None, "the first line of a team must be a hello"
        if hello is not None:
            if hello.side in self.teams:
                hello, problem = None, f"the {hello.side} side is connected already"
            elif self.team_names.get(hello.side, hello.teamName) != hello.teamName:
                hello, problem = None, (f"the {hello.side} side belongs to {self.team_names[hello.side]!r}; "
                                        f"{hello.teamName!r} cannot take it")
        if hello is None:
            return await self._refuse(writer, peer, problem, "team")
        side = hello.side
        link = Link(side, hello.teamName, writer)
        back = side in self.team_names
        self.team_names[side] = hello.teamName
        self.teams[side] = link
        self.log("team_connected", side=side, teamName=hello.teamName, peer=peer, reconnect=back)
        if not self.started and len(self.teams) == 2:
            self.started = True
            for s, team in self.teams.items():
                team.send(encode(Start(s, self.team_names[other(s)])))
            self.log("start")
        elif self.started:
            link.send(encode(Start(side, self.team_names.get(other(side), ""))))
        self._command_pausers(None)
        window, count = time.monotonic(), 0          # the team's messages this second
        while (batch := await lines.batch()) is not None:
            count += len(batch)
            if count > MAX_TEAM_MESSAGES:            # read no more of this team until the second is over
                try:                                 # (or the middleware stops)
                    await asyncio.wait_for(self._stop.wait(), max(0.0, window + 1.0 - time.monotonic()))
                except TimeoutError:
                    pass
            if time.monotonic() - window >= 1.0:
                window, count = time.monotonic(), 0
            for line in batch:
                if line is None:
                    item, size = f"line longer than {MAX_LINE} bytes: dropped", MAX_LINE
                else:
                    size = len(line) + 1
                    try:
                        item = decode_team(line)
                    except ProtocolError as exc:
                        item = f"invalid message: {exc}"
                if link.queue.full():
                    self._schedule_phase()
                    await link.queue.put((item, size))  # stops reading this socket until drained
                else:
                    link.queue.put_nowait((item, size))
            self._phase()  # everything this read brought is queued: handle it now
        # Let the main loop handle what is still queued before the side is freed.
        while not link.queue.empty() and not self._stop.is_set():
            self._schedule_phase()
            await asyncio.sleep(0.001)
        del self.teams[side]
        self.log("team_disconnected", side=side, teamName=hello.teamName)
        writer.close()
        self._command_pausers(None)
        self.log.flush()

    async def _shutdown(self) -> None:
        """Resume both simulators, close every connection, flush the log."""
        for side in SIDES:
            if self.paused[side]:
                self.paused[side] = False
                self._send_command(side, "resume", "middleware stopping")
        for link in list(self.pausers.values()) + list(self.teams.values()):
            try:
                await asyncio.wait_for(link.writer.drain(), 1.0)
            except (ConnectionError, OSError, asyncio.TimeoutError):
                pass
            link.writer.close()
        self._team_server.close()
        self._pauser_server.close()
        pending = [t for t in self._handlers if t is not asyncio.current_task() and not t.done()]
        if pending:  # closed writers end their reads; give the handlers a moment to log it
            done, still = await asyncio.wait(pending, timeout=1.0)
            for task in still:
                task.cancel()
            await asyncio.gather(*still, return_exceptions=True)
        self.log("stopped")
        self.log.close()
