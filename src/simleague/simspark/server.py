"""The SimSpark server: agents on TCP 3100, monitors (and trainers) on TCP 3200, both with 4-byte
length framing (specs/simspark.md). A thin adapter (ARCHITECTURE.md rule 2): per cycle it applies
what arrived to the :class:`~simleague.simspark.game.Game`, sends every agent the perceptors made
at the end of the previous cycle, steps the game, makes the next perceptors and, every second
cycle (25 Hz), sends the monitors their message. That order is the original's (spark's
SimulationServer: StartCycle, SenseAgent, ActAgent, Step, EndCycle): an agent's answer to a
message reaches the world two steps after the state the message described, and teams tune their
motor skills to that.

Pacing (:mod:`simleague.clock`): ``realtime`` ends cycle n no earlier than n x 20 ms after the first
(a late cycle made up by the next ones, as the original's timer); ``sync`` makes a
cycle wait until every agent past its 5-cycle grace sent ``(syn)`` (at most ``sync_timeout`` s, 30
by default: an agent that never sends it is logged once and no longer waited for until it does; the
original waits for ever, and a team that starts its players one after another (FC Portugal's)
leaves each silent for seconds while the next one connects: waited for too briefly, a player ends
up answering old messages). Sync without
realtime runs as fast as the agents answer, and in real time while no agent has a robot (nothing
to wait for, and no reason to burn the processor that starting agents need).

Bad input never stops the server: a frame over the limit or a connection that breaks closes that
connection only; an effector or trainer command that cannot be understood is logged and the rest
of the message applied; a client that does not read is dropped once ``max_backlog`` bytes wait
for it, never waited for (:class:`simleague.wire.limits.SlowReader` with no patience).
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from ..clock import Clock
from ..soccer.world import CYCLE
from ..wire.framing import FrameDecoder, FrameError, encode
from ..wire.limits import LogLimiter, SlowReader, Verdict
from .game import Agent, Game
from .messages import Scene, Syn, TrainerCommand, parse_agent_message, parse_trainer_message
from .options import SimSparkOptions

log = logging.getLogger("simleague.simspark")

MONITOR_EVERY = 2                          # cycles: 25 Hz (defaults.json monitorStep 0.04)
MAX_AGENT_FRAME = 64 * 1024                # bytes an agent may send in one message
MAX_MONITOR_FRAME = 64 * 1024
MAX_PENDING = 64                           # messages an agent may queue within one cycle
READ_CHUNK = 16 * 1024                     # bytes read from a client at a time
MAX_AGENTS = 44                            # connections on the agent port
MAX_MONITORS = 8                           # connections on the monitor port
MAX_TRAINER_COMMANDS = 4                   # trainer messages a monitor may have carried out per cycle
MAX_SCENE_CHANGES = 8                      # robots joining or leaving per second (each rebuilds the world)
MONITOR_SEND_BUFFER = 256 * 1024           # bytes of kernel send buffer per monitor
MAX_PROBLEM_LINES = 10                     # log lines per client and second about its bad input
FOREVER = 10.0 ** 9                        # s: how long "wait for ever" waits
LISTEN = 1.0                               # s a sync cycle waits for any agent's message (NetControl)


@dataclass
class _Client:
    """A connection: its writer, frame decoder and, for agents, the game's agent and the messages
    waiting for the next cycle."""

    writer: asyncio.StreamWriter
    decoder: FrameDecoder
    name: str
    reader: SlowReader                      # whether it reads what it is sent
    agent: Agent | None = None
    pending: list = field(default_factory=list)
    synced: bool = False
    lagging: bool = False                   # missed a sync deadline (logged once)
    closed: bool = False
    problems: LogLimiter = field(init=False)   # log lines about its bad input, MAX_PROBLEM_LINES a second
    room: asyncio.Event = field(default_factory=asyncio.Event)   # set when its pending messages were taken

    def __post_init__(self):
        self.problems = LogLimiter(log, self.name, MAX_PROBLEM_LINES)


@dataclass
class CycleReport:
    """What a cycle did, for run logs, viewers and progress displays: the cycles run after it and
    the game."""

    cycle: int
    game: Game


class SimSparkServer:
    """``SimSparkServer(game, options, on_cycle=None)``: serves ``game`` as ``options``
    (:class:`SimSparkOptions`) say; ports 0 pick free ones (see :attr:`agent_port`,
    :attr:`monitor_port` after :meth:`start`). ``on_cycle(report)`` is called with a
    :class:`CycleReport` after every cycle (a viewer, a run log)."""

    def __init__(self, game: Game, options: SimSparkOptions = SimSparkOptions(),
                 on_cycle: Callable[[CycleReport], None] | None = None):
        self.game, self.opt = game, options
        self.host, self.agent_port, self.monitor_port = options.host, options.agent_port, options.monitor_port
        self._lockstep = Clock("lockstep", CYCLE, options.sync_timeout or FOREVER)
        self._listening = Clock("lockstep", CYCLE, LISTEN)
        self._realtime = Clock("realtime", CYCLE)
        self.agents: list[_Client] = []
        self.monitors: list[_Client] = []
        self._refusals = LogLimiter(log, "refused connections", MAX_PROBLEM_LINES)
        self._changes: deque[float] = deque()       # when robots joined or left, over the last second
        self._leaving: deque[int] = deque()         # agents gone whose robots still have to leave
        self._servers: list[asyncio.AbstractServer] = []
        self._stop = asyncio.Event()
        self._new_monitor = False
        self._handlers: set[asyncio.Task] = set()          # one reading task per connection
        self._senses: dict[int, bytes] = {}                 # aid -> perceptors made last cycle
        self.on_cycle = on_cycle

    async def start(self) -> None:
        """Listen on both ports. Raises OSError when a port is taken."""
        agents = await asyncio.start_server(self._agent, self.host, self.agent_port)
        monitors = await asyncio.start_server(self._monitor, self.host, self.monitor_port)
        self._servers = [agents, monitors]
        self.agent_port = agents.sockets[0].getsockname()[1]
        self.monitor_port = monitors.sockets[0].getsockname()[1]
        log.info("agents on %s:%d, monitors on %s:%d, %s%s", self.host, self.agent_port, self.host,
                 self.monitor_port, "sync" if self.opt.sync else "async", ", real time" if self.opt.realtime else "")

    def stop(self) -> None:
        """End :meth:`run` after the current cycle."""
        self._stop.set()
        self._lockstep.notify()
        self._listening.notify()

    async def close(self) -> None:
        """Stop listening and close every connection."""
        for server in self._servers:
            server.close()
        for client in self.agents + self.monitors:
            self._drop(client, None)
        # the connections are closed: each reading task sees the end of its stream and returns;
        # one still running after 2 s is cancelled and awaited, so that none is left for the
        # loop's end (a connection accepted meanwhile is dropped the same way)
        for _ in range(2):
            handlers = [t for t in self._handlers if t is not asyncio.current_task() and not t.done()]
            if not handlers:
                break
            _, late = await asyncio.wait(handlers, timeout=2.0)
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)
            for client in self.agents + self.monitors:
                self._drop(client, None)
        for server in self._servers:
            await server.wait_closed()

    # ------------------------------------------------------------------------------ connections
    async def _agent(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._handlers.add(asyncio.current_task())
        peer = writer.get_extra_info("peername")
        client = _Client(writer, FrameDecoder(MAX_AGENT_FRAME), f"agent {peer[0]}:{peer[1]}",
                         SlowReader(self.opt.max_backlog))
        if len(self.agents) >= MAX_AGENTS:
            self._refusals.log(logging.WARNING, f"{client.name} refused: {MAX_AGENTS} agents connected already")
            writer.close()
            self._handlers.discard(asyncio.current_task())
            return
        client.agent = self.game.connect()
        client.name = f"agent {client.agent.aid} ({peer[0]}:{peer[1]})"
        self.agents.append(client)
        log.info("%s connected", client.name)
        await self._read(client, reader, self._agent_frame)

    async def _monitor(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._handlers.add(asyncio.current_task())
        peer = writer.get_extra_info("peername")
        client = _Client(writer, FrameDecoder(MAX_MONITOR_FRAME), f"monitor {peer[0]}:{peer[1]}",
                         SlowReader(self.opt.max_backlog))
        if len(self.monitors) >= MAX_MONITORS:
            self._refusals.log(logging.WARNING, f"{client.name} refused: {MAX_MONITORS} monitors connected already")
            writer.close()
            self._handlers.discard(asyncio.current_task())
            return
        # a small kernel buffer, so that a monitor that stops reading shows in max_backlog soon
        # (the kernel would otherwise take megabytes first)
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, MONITOR_SEND_BUFFER)
        self.monitors.append(client)
        self._new_monitor = True
        log.info("%s connected", client.name)
        await self._read(client, reader, self._trainer_frame)

    async def _read(self, client: _Client, reader: asyncio.StreamReader, handle) -> None:
        try:
            while not client.closed:
                while len(client.pending) > MAX_PENDING // 2 and not client.closed:
                    client.room.clear()                 # a flood: read no more until the cycles took
                    await client.room.wait()            # half of what waits (the kernel holds the rest)
                data = await reader.read(READ_CHUNK)
                if not data:
                    break
                for frame in client.decoder.feed(data):
                    handle(client, frame)
                if client.decoder.error is not None:
                    raise client.decoder.error
        except FrameError as e:
            log.warning("%s: %s; disconnected", client.name, e)
        except (ConnectionError, OSError) as e:
            log.info("%s: %s", client.name, e)
        finally:
            self._drop(client, "left" if not client.closed else None)
            self._handlers.discard(asyncio.current_task())

    def _problem(self, client: _Client, text: str) -> None:
        """Log a line about a client's bad input, at most MAX_PROBLEM_LINES a second (then how
        many were left out), so that a client sending garbage every cycle cannot flood the log."""
        client.problems.log(logging.WARNING, f"{client.name}: {text}")

    def _agent_frame(self, client: _Client, frame: bytes) -> None:
        if len(client.pending) >= MAX_PENDING:
            self._problem(client, f"more than {MAX_PENDING} messages in one cycle; the rest are dropped")
            return
        message = parse_agent_message(frame)
        for problem in message.problems:
            self._problem(client, problem)
        client.pending.append(message.effectors)
        self._listening.notify()
        if any(isinstance(e, Syn) for e in message.effectors):
            client.synced, client.lagging = True, False
            self._lockstep.notify()

    def _trainer_frame(self, client: _Client, frame: bytes) -> None:
        """Queue a trainer message for the next cycle (at most MAX_PENDING; the rest dropped)."""
        if len(client.pending) >= MAX_PENDING:
            self._problem(client, f"more than {MAX_PENDING} messages in one cycle; the rest are dropped")
            return
        message = parse_trainer_message(frame)
        for problem in message.problems:
            self._problem(client, problem)
        client.pending.append(message.commands)

    def _trainer_commands(self) -> None:
        """Carry out the monitors' trainer messages, at most MAX_TRAINER_COMMANDS per monitor and
        cycle (a flood cannot stop the cycles; the rest wait for the next ones)."""
        for client in list(self.monitors):
            for commands in client.pending[:MAX_TRAINER_COMMANDS]:
                self._trainer(client, commands)
            del client.pending[:MAX_TRAINER_COMMANDS]
            client.room.set()

    def _trainer(self, client: _Client, commands: list[TrainerCommand]) -> None:
        replies, problems, stop = self.game.trainer(commands, self.opt.allow_kill_sim)
        for problem in problems:
            self._problem(client, problem)
        for reply in replies:
            self._send(client, reply.encode())
        if stop:
            log.info("%s: killsim", client.name)
            self.stop()

    def _drop(self, client: _Client, why: str | None) -> None:
        if client in self.agents:
            self.agents.remove(client)
            if client.agent is not None:
                self._leaving.append(client.agent.aid)        # its robot leaves in run(), within the budget
        if client in self.monitors:
            self.monitors.remove(client)
        client.room.set()
        if not client.closed:
            client.closed = True
            if why:
                log.info("%s %s", client.name, why)
            client.writer.close()

    def _send(self, client: _Client, payload: bytes) -> None:
        if client.closed:
            return
        if client.reader.verdict(client.writer.transport.get_write_buffer_size()) is not Verdict.SEND:
            self._drop(client, f"does not read ({self.opt.max_backlog} bytes wait for it); disconnected")
            return
        client.writer.write(encode(payload))

    # ------------------------------------------------------------------------------ the cycle
    async def run(self) -> None:
        """Run cycles until stopped."""
        game, opt = self.game, self.opt
        while not self._stop.is_set():
            self._realtime.begin_cycle()
            self._refusals.flush()
            if opt.sync:
                await self._wait_for_syn()
            self._trainer_commands()
            while self._leaving and self._may_change_scene():
                game.disconnect(self._leaving.popleft())
            for client in sorted(self.agents, key=lambda c: c.agent.aid):
                for n, effectors in enumerate(client.pending):
                    joins = client.agent.robot is None and any(isinstance(e, Scene) for e in effectors)
                    if joins and not self._may_change_scene():    # this and what follows: next cycle
                        del client.pending[:n]
                        break
                    for problem in game.apply(client.agent, effectors):
                        self._problem(client, problem)
                else:
                    client.pending.clear()
                client.room.set()
                client.synced = False
            for client in list(self.agents):               # what the last step left them
                text = self._senses.get(client.agent.aid)
                if text is not None:
                    self._send(client, text)
            game.step()
            self._senses = {}
            for client in list(self.agents):
                if client.agent.aid not in game.agents:       # killed by the trainer
                    self._drop(client, "killed by the trainer")
                    continue
                text = game.perceptors(client.agent)
                if text is not None:
                    self._senses[client.agent.aid] = text.encode()
            if game.world.cycle % MONITOR_EVERY == 0 and self.monitors:
                text, _ = game.monitor_message(full=self._new_monitor)
                self._new_monitor = False
                payload = text.encode()
                for client in list(self.monitors):
                    self._send(client, payload)
            for client in self.agents + self.monitors:
                if client.problems.suppressed:
                    client.problems.flush()
            if self.on_cycle is not None:
                self.on_cycle(CycleReport(game.world.cycle, game))
            if opt.cycles is not None and game.world.cycle >= opt.cycles:
                break
            idle = opt.sync and not any(c.agent.robot is not None for c in self.agents)
            if opt.realtime or idle:          # sync mode with no robot to wait for: real time
                await self._realtime.wait(lambda: True)
            else:
                await asyncio.sleep(0)

    def _may_change_scene(self) -> bool:
        """Whether a robot may join or leave now: at most MAX_SCENE_CHANGES a second, since each
        rebuilds the world (tens of ms with a full field); a burst of joins and leaves is spread
        over the next seconds instead of stopping the cycles. Counts the change when it may."""
        now = time.monotonic()
        while self._changes and now - self._changes[0] > 1.0:
            self._changes.popleft()
        if len(self._changes) >= MAX_SCENE_CHANGES:
            return False
        self._changes.append(now)
        return True

    def _waited_for(self) -> list[_Client]:
        """The agents this cycle still waits for: a robot past its grace, no (syn) yet, not lagging."""
        return [c for c in self.agents if not c.synced and not c.lagging and self.game.expects_syn(c.agent)]

    async def _wait_for_syn(self) -> None:
        """Sync mode's wait, as the original's: up to 1 s for any agent to say something (spark's
        NetControl blocks on its sockets for 1 s each cycle in sync mode, so even an agent in its
        grace cycles gets to answer each message), then up to ``sync_timeout`` s for the (syn) of
        every agent waited for."""
        if not any(c.pending for c in self.agents) and any(c.agent.robot is not None for c in self.agents):
            self._listening.begin_cycle()
            await self._listening.wait(lambda: self._stop.is_set() or any(c.pending for c in self.agents))
        if not self._waited_for():
            return
        self._lockstep.begin_cycle()
        await self._lockstep.wait(lambda: self._stop.is_set() or not self._waited_for())
        if self._stop.is_set():                  # stopping: nobody is late, the wait is just over
            return
        for client in self._waited_for():
            client.lagging = True
            log.warning("%s sent no (syn) for %.1f s; not waited for until it does",
                        client.name, self.opt.sync_timeout)
