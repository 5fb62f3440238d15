"""The match middleware (thesis 5.3): shares robot and ball states between two teams' simulators,
keeps their simulation times together by having pausers pause the one that runs ahead, and relays
the referee's commands to both at the same simulation time.

:class:`~simleague.msl.exchange.Match` is the pure core (buffers, ball arbitration, time
synchronisation) and :mod:`simleague.msl.referee` the referee's rules; :class:`Middleware` is the
asyncio TCP server around them: initialisation (two pausers, then two teams, then a start signal
to both), then alternating communication phases (every message that arrived from either team is
handled, taken in turns so neither team starves the other) and time-synchronisation phases.

Referee: ``referee="auto"`` runs :class:`~simleague.msl.referee.AutoReferee` on the common
simulation time and the arbitrated ball; ``referee="refbox"`` takes the commands of an MSL RefBox
through :class:`~simleague.msl.refbox.RefboxBridge`. Either way each command goes to both teams as a
:class:`~simleague.msl.messages.Referee` message stamped ``t`` = the newest time either team has
reported + ``lead``: both carry it out when their simulation reaches ``t``, which neither has yet.
The referee's end of the match (the auto referee's ``END_GAME``, a RefBox's ``GAMEOVER``) sends
:class:`~simleague.msl.messages.End` to both and resumes both.

Lifecycle: a heartbeat to each team every ``heartbeat`` s; a team that sends nothing for
``timeout`` s while it is not paused is dropped. When a team is away (dropped or disconnected) the
other is told (:class:`~simleague.msl.messages.Opponent`) and paused to wait for it, for at most
``away`` s (not at all after a timeout), then resumed.

Trust: a per-side ``token`` that the team's hello and its pauser's hello must carry, compared in
constant time; optional TLS for both ports; team and pauser ports bound to their own addresses.

Every event is written to a JSON-lines log (:class:`~simleague.msl.eventlog.EventLog`): kinds are
``listening``, ``teams_open``, ``pauser_connected``/``pauser_disconnected``/``pauser_report``/
``pauser_refused``, ``team_connected``/``team_disconnected``/``team_refused``/``team_timeout``,
``start``, ``in`` and ``out`` (per message, with its size in bytes and times), ``error``, ``ball``
(a change of the ball used), ``transition`` and ``command`` (a pause or resume with the event of
Table 1 and the times t1, t2 that caused it), ``referee`` (a command and its time), ``refbox_*``,
``end``, ``stopped``.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import socket
import time

import msgspec

from .buffer import TimeOrderError
from .eventlog import EventLog
from .exchange import Match, other
from .links import Lines, Link
from .messages import (MAX_LINE, SIDES, Command, End, Error, Heartbeat, Hello, Opponent, PauserHello, ProtocolError,
                       Referee, Report, Request, Start, State, Subscribe, WorldState, decode_pauser, decode_team,
                       encode)
from .options import ADDRESSES, REFBOX_PORT, SOURCES, MiddlewareOptions
from .referee import AutoReferee, Call, GameState, RefboxCommand, addressed
from .refbox import RefboxBridge, worldstate
from .web import MatchView

__all__ = ["ADDRESSES", "REFBOX_PORT", "SOURCES", "Middleware", "MiddlewareOptions"]

log = logging.getLogger("simleague.msl.middleware")

#: Messages of one team handled in one communication phase at most; more wait for the next phase.
PHASE_MAX = 64
MAX_TEAM_MESSAGES = 1000        # messages a second read from one team; beyond, its socket waits (none lost)


class Middleware:
    """The middleware server. ``await start()`` binds both ports (``team_port``/``pauser_port``
    are then the real ones, useful with port 0), ``await run()`` serves until :meth:`stop` or the
    end of the match. Raises OSError from ``start`` if a port cannot be bound, ValueError for
    inconsistent options."""

    def __init__(self, options: MiddlewareOptions):
        if options.referee not in ("none", "auto", "refbox"):
            raise ValueError(f"referee must be none, auto or refbox, not {options.referee!r}")
        self.options = options
        self.match = Match(options.buffer, options.eps1, options.eps2, options.seed, options.horizon)
        self.log = EventLog(options.log)
        self.teams: dict[str, Link] = {}
        self.pausers: dict[str, Link] = {}
        self.team_names: dict[str, str] = {}
        self.started = False
        self.ended = False
        self.paused = {side: False for side in SIDES}
        self.resumed_at = {side: time.monotonic() for side in SIDES}
        self.away_since: dict[str, float] = {}
        self.timed_out: set[str] = set()
        self.game = GameState()                 # what the referee's commands made of the match
        self.auto = AutoReferee(options.half, options.delay, options.pause, self.game) \
            if options.referee == "auto" else None
        self.refbox: RefboxBridge | None = None
        self.view: MatchView | None = None
        self.calls = 0
        self._seq = 0
        self._phase_due = False
        self._stop = asyncio.Event()
        self._pausers_ready = asyncio.Event()
        self._ball_side: str | None = None
        self._handlers: set[asyncio.Task] = set()
        self._tasks: list[asyncio.Task] = []
        self.team_port = self.pauser_port = 0

    async def start(self) -> None:
        """Bind the pauser port (serving) and the team port (opened once both pausers are in)."""
        o = self.options
        self._pauser_server = await asyncio.start_server(self._pauser_conn, o.pauser_host or o.host, o.pauser_port,
                                                         limit=MAX_LINE, ssl=o.tls)
        self._team_server = await asyncio.start_server(self._team_conn, o.team_host or o.host, o.team_port,
                                                       limit=MAX_LINE, start_serving=False, ssl=o.tls)
        self.pauser_port = self._pauser_server.sockets[0].getsockname()[1]
        self.team_port = self._team_server.sockets[0].getsockname()[1]
        self.log("listening", host=o.team_host or o.host, pauserHost=o.pauser_host or o.host,
                 teamPort=self.team_port, pauserPort=self.pauser_port, buffer=o.buffer, eps1=o.eps1, eps2=o.eps2,
                 horizon=self.match.horizon, seed=o.seed, referee=o.referee, tls=o.tls is not None,
                 tokens=sorted(o.tokens))

    def stop(self) -> None:
        """Ask :meth:`run` to end (resuming both simulators first)."""
        self._stop.set()

    async def run(self) -> None:
        """Serve until :meth:`stop` or the end of the match, then resume both simulators and close."""
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
        self._tasks.append(asyncio.ensure_future(self._ticker()))
        o = self.options
        if o.referee == "refbox":
            self.refbox = RefboxBridge(o.refbox_host, o.refbox_port, o.addresses, o.sources, self._refbox_command,
                                       self.log)
            self._tasks.append(asyncio.ensure_future(self.refbox.run()))
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

    def _handle(self, link: Link, item, size: int, raw: bytes | None) -> None:
        side = link.side
        if isinstance(item, str):
            self.log("in", side=side, type="invalid", bytes=size)
            return self._error(link, item, "")
        kind = type(item).__name__.lower()
        self.log("in", side=side, type=kind, bytes=size, t=getattr(item, "t", None),
                 tOther=self.match.times.get(other(side)))
        if isinstance(item, (State, WorldState)):
            self._on_state(link, item, raw)
        elif isinstance(item, Request):
            try:
                reply = self.match.on_request(side, item)
            except LookupError as exc:
                return self._error(link, f"cannot answer yet: {exc}", "request", item.id)
            size = link.send(reply)
            self.log("out", side=side, type="reply", bytes=size, t=item.t, id=item.id,
                     estimate=reply.estimate, ballFrom=reply.ballFrom)
        elif isinstance(item, Subscribe):
            self.match.subscribe(side, item.period)
            self.log("subscribe", side=side, period=item.period)
        elif isinstance(item, Hello):
            self._error(link, "hello was already received on this connection", "hello")

    def _on_state(self, link: Link, item: State | WorldState, raw: bytes | None) -> None:
        side = link.side
        if isinstance(item, WorldState):
            if self.refbox is not None and raw is not None:
                self.refbox.forward(side, raw)          # to the RefBox as the team sent it
            state = item.to_state()
            if state is None:
                if item.t is None and not link.told_no_t:
                    link.told_no_t = True
                    self._error(link, "a worldstate without t (the team's simulation time, s) is passed on to "
                                "the RefBox but not stored: add t to share it with the opponent", "worldstate")
                return
        else:
            state = item
            if self.refbox is not None:
                self.refbox.forward(side, lambda name=link.name, state=state: worldstate(name, state))
        common = self.match.common
        try:
            ball_side = self.match.on_state(side, state)
        except (TimeOrderError, ValueError) as exc:
            return self._error(link, str(exc), "state" if isinstance(item, State) else "worldstate")
        if ball_side != self._ball_side:
            self._ball_side = ball_side
            self.log("ball", side=ball_side, t=self.match.common, by=side)
        pushed = self.match.pushed(side)
        if pushed is not None:
            size = link.send(pushed)
            self.log("out", side=side, type="reply", bytes=size, t=pushed.t, estimate=pushed.estimate,
                     ballFrom=pushed.ballFrom, pushed=True)
        if self.match.common > common:
            self._common_moved(self.match.common)

    def _common_moved(self, t: float) -> None:
        """Both teams have reached ``t``: the auto referee looks at the ball, the view draws (both
        from the states at ``t`` the ball's arbitration used)."""
        states = self.match.common_states
        owner = self.match.owner_at(t)
        if self.auto is not None and not self.ended:
            ball = states[owner].ball if owner == SIDES[0] else tuple(-v for v in states[owner].ball[:2])
            for call in self.auto.update(t, (ball[0], ball[1])):
                self._call(call)
            if self.game.over and not self.ended:
                self._end("the auto referee ended the game")
        if self.view is not None:
            self.view.update(t, states, owner, self.team_names, self.game)

    def _error(self, link: Link, message: str, in_reply_to: str, request_id: int | None = None) -> None:
        size = link.send(Error(message, in_reply_to, request_id))
        self.log("error", side=link.side, message=message, inReplyTo=in_reply_to, id=request_id, bytes=size)

    # -- referee ----------------------------------------------------------------------------------

    def _refbox_command(self, call: Call, message: RefboxCommand) -> None:
        if call.side is None and message.targetTeam:
            self.log("refbox_error", message=f"{message.command} for {message.targetTeam!r}, which is neither "
                     f"side's address ({self.options.addresses}): sent to both teams as it is")
        self._call(call, message.targetTeam)
        if self.game.over and not self.ended:
            self._end("the RefBox ended the game")

    def _address(self, side: str) -> str:
        """The address ``side``'s software answers to: its hello's, else the RefBox's for it."""
        link = self.teams.get(side)
        return (link.address if link is not None and link.address else "") or self.options.addresses[side]

    def _call(self, call: Call, raw_target: str | None = None) -> None:
        """Send a referee command to both teams, stamped with one simulation time."""
        self.calls += 1
        t = round(max(self.match.times.values(), default=0.0) + self.options.lead, 6)
        self.game.apply(call)
        self.log("referee", seq=self.calls, t=t, command=call.command, target=call.side, robotID=call.robot,
                 state=self.game.label())
        for side, link in self.teams.items():
            address, target = addressed(call, side, self._address(side), self._address(other(side)), raw_target)
            link.send(Referee(self.calls, t, call.command, address, target, call.robot))

    def _end(self, reason: str) -> None:
        """The match is over: tell both teams, resume both, stop after ``linger`` s."""
        self.ended = True
        self.log("end", reason=reason, score=self.game.score, t1=self.match.times.get(SIDES[0]),
                 t2=self.match.times.get(SIDES[1]))
        for side, link in self.teams.items():
            link.send(End(reason, (self.game.score[side], self.game.score[other(side)])))
        self._command_pausers("match over")
        if self.view is not None:
            t, states = self.match.common, self.match.common_states
            if states is not None:                                     # the last frame shows the end
                self.view.update(t, states, self.match.owner_at(t), self.team_names, self.game, force=True)
            self.view.close({"score": self.game.score, "reason": reason})
        asyncio.get_running_loop().call_later(self.options.linger, self._stop.set)

    # -- time-synchronisation phase -----------------------------------------------------------

    def _synchronisation_phase(self) -> None:
        transition = self.match.synchronise()
        if transition is not None and transition.event:
            self.log("transition", event=transition.event, line=transition.line,
                     t1=self.match.times[SIDES[0]], t2=self.match.times[SIDES[1]])
        self._command_pausers(transition.event if transition else None)

    def _wanted_paused(self, side: str) -> bool:
        if self.ended:
            return False
        opponent = other(side)
        if self.started and opponent not in self.teams:
            # the other team is away (thesis 5.3): wait for it, but not for ever
            return opponent not in self.timed_out and \
                time.monotonic() - self.away_since.get(opponent, 0.0) < self.options.away
        return self.match.sync.paused(SIDES.index(side) + 1)

    def _command_pausers(self, event: str | None) -> None:
        if self._stop.is_set():
            return  # _shutdown resumes both
        for side in SIDES:
            want = self._wanted_paused(side)
            if want != self.paused[side]:
                self.paused[side] = want
                if not want:
                    self.resumed_at[side] = time.monotonic()
                reason = event or ("opponent away" if want else "opponent back" if other(side) in self.teams
                                   else "opponent gone")
                self._send_command(side, "pause" if want else "resume", reason)

    def _send_command(self, side: str, action: str, reason: str) -> None:
        self._seq += 1
        t1, t2 = self.match.times.get(SIDES[0]), self.match.times.get(SIDES[1])
        pauser = self.pausers.get(side)
        self.log("command", side=side, action=action, reason=reason, seq=self._seq, t1=t1, t2=t2,
                 delivered=pauser is not None)
        if pauser is not None:
            pauser.send(Command(self._seq, action, reason, t1, t2))

    # -- heartbeats and timeouts --------------------------------------------------------------------

    async def _ticker(self) -> None:
        """Every tenth of a second: heartbeats when due, silent teams dropped, away waits ended."""
        o, beat = self.options, 0.0
        while not self._stop.is_set():
            await asyncio.sleep(0.1)
            now = time.monotonic()
            if now - beat >= o.heartbeat:
                beat = now
                for link in self.teams.values():
                    link.send(Heartbeat())
            for side, link in list(self.teams.items()):
                quiet = now - max(link.heard, self.resumed_at[side])
                if self.started and not self.paused[side] and not self.ended and quiet > o.timeout:
                    self.log("team_timeout", side=side, teamName=link.name, silentFor=round(quiet, 3))
                    self.timed_out.add(side)
                    link.writer.close()
            self._command_pausers(None)
            self.log.flush()

    # -- connections ----------------------------------------------------------------------------

    async def _hello(self, reader, decode):
        """The first message of a connection with the connection's :class:`Lines`, or None and
        what was wrong (no hello within the timeout, a closed stream, an invalid message)."""
        lines = Lines(reader)
        try:
            line = await asyncio.wait_for(lines.first(), self.options.hello_timeout)
        except asyncio.TimeoutError:
            return None, lines, "no hello within %.0f s" % self.options.hello_timeout
        except EOFError:
            return None, lines, "closed before saying hello"
        if line is None:
            return None, lines, f"message longer than {MAX_LINE} bytes"
        try:
            return decode(line), lines, ""
        except ProtocolError as exc:
            return None, lines, str(exc)

    def _token_problem(self, side: str, token: str) -> str:
        want = self.options.tokens.get(side)
        if want and not hmac.compare_digest(want.encode(), token.encode()):
            return f"wrong or missing token for the {side} side"
        return ""

    async def _refuse(self, writer, peer, message: str, what: str, end: bytes = b"\n") -> None:
        self.log(f"{what}_refused", peer=peer, message=message)
        try:
            writer.write(encode(Error(message, "hello"), end))
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
        if hello is not None and (problem := self._token_problem(hello.side, hello.token)):
            hello = None
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
                    link.send(Error(problem or "a pauser sends only reports after its hello", ""))
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

    def _check_hello(self, hello) -> str:
        if not isinstance(hello, Hello):
            return "the first message of a team must be a hello"
        if problem := self._token_problem(hello.side, hello.token):
            return problem
        if self.options.names.get(hello.side, hello.teamName) != hello.teamName:
            return f"the {hello.side} side is {self.options.names[hello.side]!r}'s in this match, not {hello.teamName!r}'s"
        if hello.side in self.teams:
            return f"the {hello.side} side is connected already"
        if self.team_names.get(hello.side, hello.teamName) != hello.teamName:
            return f"the {hello.side} side belongs to {self.team_names[hello.side]!r}; {hello.teamName!r} cannot take it"
        if self.ended:
            return "the match is over"
        return ""

    def _begin(self) -> None:
        """Both teams are in for the first time: the start signal, and the view of the match."""
        self.started = True
        o = self.options
        for s, team in self.teams.items():
            team.send(Start(s, self.team_names[other(s)], o.heartbeat, o.timeout))
        self.log("start", teams=self.team_names)
        if o.record is not None or o.web is not None:
            self.view = MatchView(o.web, o.record, {"teams": self.team_names, "referee": o.referee,
                                                    "seed": o.seed, "eps1": o.eps1, "eps2": o.eps2})

    async def _serve_team(self, reader, writer) -> None:
        self._track()
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        peer = "%s:%s" % writer.get_extra_info("peername")[:2]
        hello, lines, problem = await self._hello(reader, decode_team)
        end = lines.splitter.terminator or b"\n"
        if hello is not None:
            problem = self._check_hello(hello)
        if problem:
            return await self._refuse(writer, peer, problem, "team", end)
        side = hello.side
        link = Link(side, hello.teamName, writer, end, hello.address)
        back = side in self.team_names
        self.team_names[side] = hello.teamName
        self.teams[side] = link
        self.away_since.pop(side, None)
        self.timed_out.discard(side)
        self.log("team_connected", side=side, teamName=hello.teamName, peer=peer, reconnect=back,
                 framing="nul" if end == b"\0" else "newline")
        if not self.started and len(self.teams) == 2:
            self._begin()
        elif self.started:
            link.send(Start(side, self.team_names.get(other(side), ""), self.options.heartbeat, self.options.timeout))
            if other(side) in self.teams:
                self.teams[other(side)].send(Opponent(True, "reconnected"))
        self._command_pausers(None)
        await self._read_team(link, lines)
        # Let the main loop handle what is still queued before the side is freed.
        while not link.queue.empty() and not self._stop.is_set():
            self._schedule_phase()
            await asyncio.sleep(0.001)
        del self.teams[side]
        self.away_since[side] = time.monotonic()
        self.log("team_disconnected", side=side, teamName=hello.teamName)
        writer.close()
        if other(side) in self.teams and not self.ended:
            reason = "sent nothing for %g s" % self.options.timeout if side in self.timed_out else "disconnected"
            self.teams[other(side)].send(Opponent(False, reason))
        self._command_pausers(None)
        self.log.flush()

    async def _read_team(self, link: Link, lines: Lines) -> None:
        window, count = time.monotonic(), 0          # the team's messages this second
        while (batch := await lines.batch()) is not None:
            link.heard = time.monotonic()
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
                    item, size = f"message longer than {MAX_LINE} bytes: dropped", MAX_LINE
                else:
                    size = len(line) + 1
                    try:
                        item = decode_team(line)
                    except ProtocolError as exc:
                        item = f"invalid message: {exc}"
                entry = (item, size, line if isinstance(item, WorldState) else None)
                if link.queue.full():
                    self._schedule_phase()
                    await link.queue.put(entry)  # stops reading this socket until drained
                else:
                    link.queue.put_nowait(entry)
            self._phase()  # everything this read brought is queued: handle it now

    async def _shutdown(self) -> None:
        """Resume both simulators, tell the teams, close every connection, flush the logs."""
        for side in SIDES:
            if self.paused[side]:
                self.paused[side] = False
                self._send_command(side, "resume", "middleware stopping")
        if not self.ended:
            for side, link in self.teams.items():
                link.send(End("the middleware stops", (self.game.score[side], self.game.score[other(side)])))
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.refbox is not None:
            self.refbox.close()
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
        if self.view is not None:
            self.view.close()
        self.log("stopped")
        self.log.close()
