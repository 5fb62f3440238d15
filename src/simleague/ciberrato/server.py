"""The CiberRato simulator server: asyncio UDP, the original's protocol (spec "Wire").

A thin adapter around :class:`~simleague.ciberrato.world.World`. Per cycle: handle queued
registrations and viewer commands, parse the datagrams each robot sent (at most
``MAX_DATAGRAMS_PER_CYCLE`` kept per robot, newest last), step the world, send every robot its
Measures and every viewer one status per robot, then wait as the clock mode says.

* Registration port (6000 by default): ``<Robot>``, ``<RobotBeacon>``, ``<View/>``. The reply comes
  from a new UDP port dedicated to that client; everything afterwards goes there.
* A malformed or oversized datagram is logged (rate-limited) and dropped; the sender keeps its
  place. Datagrams from another address than the registered client are ignored.
* ``realtime`` steps from the first registration on, as the original does. ``lockstep`` and
  ``fast`` do not step until the trial starts (``autostart`` robots registered, or a viewer's
  Start); meanwhile registered robots get a stopped Measures every cycle time so their clients
  keep waiting. That makes the run depend only on the seed and the agents' answers.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable

from ..clock import Clock
from ..wire.limits import LogLimiter
from . import messages as M
from .world import Action, Observation, RegistrationRefused, World
from .options import ServerOptions

log = logging.getLogger("simleague.ciberrato.server")

MAX_DATAGRAMS_PER_CYCLE = 16
MAX_PENDING_REGISTRATIONS = 64
MAX_VIEWERS = 32
MAX_MISSED_CYCLES = 10         # lockstep cycles a robot may leave unanswered before it is no longer waited for
MAX_REGISTRATION_LINES = 10    # log lines a second about registrations
PROBLEM_LINES = 1              # log lines a second about one client's (or the registration port's) bad input
MAX_PENDING_COMMANDS = 64      # commands from other front ends (the web panel) between two cycles
MEASURES_BUFFER = 4096         # the original clients' receive buffer for Measures
START_SETTLE_S = 0.2          # quiet time between the last keep-alive and the first step


class _Endpoint(asyncio.DatagramProtocol):
    """A dedicated UDP port for one robot or viewer: keeps the newest datagrams from its peer."""

    def __init__(self, peer, label: str, on_datagram: Callable[[], None], connected: bool = False):
        self.peer, self.label, self.on_datagram, self.connected = peer, label, on_datagram, connected
        self.inbox: deque[bytes] = deque(maxlen=MAX_DATAGRAMS_PER_CYCLE)
        self.transport: asyncio.DatagramTransport | None = None
        self.received = 0          # datagrams since the last cycle
        self.dropped = 0
        self.missed = 0            # lockstep cycles in a row it did not answer
        self.heard = time.monotonic()  # when it last sent a datagram (or registered)
        self.gone = False          # its port is closed (a connected endpoint learns it from ICMP)
        self.problems = LogLimiter(log, label, PROBLEM_LINES)

    def connection_made(self, transport):
        self.transport = transport

    def datagram_received(self, data: bytes, addr):
        if addr[:2] != self.peer[:2]:
            return
        self.received += 1
        self.heard = time.monotonic()
        if len(self.inbox) == self.inbox.maxlen:
            self.dropped += 1
        self.inbox.append(data)
        self.on_datagram()

    def error_received(self, exc):
        if self.connected and isinstance(exc, ConnectionRefusedError):
            self.gone = True
            return
        self.problems.log(logging.WARNING, f"{self.label}: socket error {exc}")

    def send(self, text: str) -> None:
        if self.transport is not None and not self.transport.is_closing():
            data = text.encode("utf-8", "replace") + b"\0"
            self.transport.sendto(data) if self.connected else self.transport.sendto(data, self.peer)

    def take(self) -> list[bytes]:
        items = list(self.inbox)
        self.inbox.clear()
        if self.dropped:
            self.problems.log(logging.WARNING, f"{self.label} sent {self.received} datagrams in one cycle; "
                                               f"kept the newest {MAX_DATAGRAMS_PER_CYCLE}")
        self.received = self.dropped = 0
        return items

    def close(self):
        if self.transport is not None:
            self.transport.close()


class _Registrar(asyncio.DatagramProtocol):
    def __init__(self, server: "Server"):
        self.server = server
        self.problems = LogLimiter(log, "registration port", PROBLEM_LINES)

    def datagram_received(self, data: bytes, addr):
        pending = self.server._pending
        if len(pending) >= MAX_PENDING_REGISTRATIONS:
            self.problems.log(logging.WARNING, f"registration queue full: dropped a datagram from {addr}")
            return
        pending.append((data, addr))


@dataclass
class CycleReport:
    """What a step did, for recorders and progress displays: the world and the actions applied."""

    world: World
    actions: dict[int, Action] = field(default_factory=dict)


class Server:
    """``Server(world, options, on_cycle=None)``; ``await server.start()`` binds, ``await server.run()``
    serves until the trial ends (with ``stop_when_finished``) or :meth:`close`.

    ``on_cycle(report)`` is called after every world step. Raises OSError when the port cannot be bound.
    """

    def __init__(self, world: World, options: ServerOptions, on_cycle: Callable[[CycleReport], None] | None = None):
        self.world, self.opt, self.on_cycle = world, options, on_cycle
        self.clock = Clock(options.mode, world.params.cycle_time / 1000.0, options.lockstep_timeout)
        self._pending: deque = deque()
        self._lines = LogLimiter(log, "registrations", MAX_REGISTRATION_LINES)
        self._commands: deque[M.ViewerCommand] = deque(maxlen=MAX_PENDING_COMMANDS)
        self.robots: dict[int, _Endpoint] = {}
        self.viewers: list[_Endpoint] = []
        self._registrar_transport = None
        self._closing = False
        self._stepping = options.mode == "realtime"
        self._started = False          # Start pressed (by autostart or a viewer) since the last reset
        self.port = options.port
        self.malformed = 0

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._registrar_transport, _ = await loop.create_datagram_endpoint(
            lambda: _Registrar(self), local_addr=(self.opt.host, self.opt.port))
        self.port = self._registrar_transport.get_extra_info("sockname")[1]
        log.info("CiberRato simulator listening on %s:%d (%s mode)", self.opt.host, self.port, self.opt.mode)

    def close(self) -> None:
        self._closing = True
        for ep in list(self.robots.values()) + self.viewers:
            ep.close()
        if self._registrar_transport is not None:
            self._registrar_transport.close()

    async def _open_endpoint(self, peer, label: str, connected: bool = False) -> _Endpoint:
        """A port of its own for ``peer``; ``connected`` (viewers) lets the kernel tell when the
        peer's port is closed, so that a viewer that went away frees its place."""
        loop = asyncio.get_running_loop()
        _, ep = await loop.create_datagram_endpoint(
            lambda: _Endpoint(peer, label, self.clock.notify, connected), local_addr=(self.opt.host, 0),
            remote_addr=peer if connected else None)
        return ep

    async def _handle_registrations(self) -> None:
        while self._pending:
            data, addr = self._pending.popleft()
            try:
                req = M.parse_request(data)
            except M.MessageError as exc:
                self._lines.log(logging.WARNING, f"registration from {addr[0]}:{addr[1]} refused: {exc}")
                self._refuse(addr)
                continue
            if isinstance(req, M.ViewerHello):
                self._drop_gone_viewers()
                if len(self.viewers) >= MAX_VIEWERS:           # the one heard from least recently makes room
                    quiet = min(self.viewers, key=lambda v: v.heard)
                    self._lines.log(logging.WARNING, f"{quiet.label} let go: {MAX_VIEWERS} viewers and a new one")
                    quiet.close()
                    self.viewers.remove(quiet)
                ep = await self._open_endpoint(addr, f"viewer {addr[0]}:{addr[1]}", connected=True)
                self.viewers.append(ep)
                ep.send(M.format_reply(self.world.params, len(self.world.lab.beacons)))
                continue
            if isinstance(req, M.RegisterBeacon):
                self._lines.log(logging.WARNING, f"robot {req.name!r} with a beacon refused: beacon robots are "
                                                 f"not supported")
                self._refuse(addr)
                continue
            if any(ep.peer == addr for ep in self.robots.values()):
                self._lines.log(logging.WARNING, f"robot {req.name!r} at {addr} refused: that address already "
                                                 f"has a robot")
                self._refuse(addr)
                continue
            try:
                rid = self.world.add_robot(req.name, req.id, req.ir_angles)
            except RegistrationRefused as exc:
                self._lines.log(logging.WARNING, f"robot {req.name!r} (Id={req.id}) refused: {exc}")
                self._refuse(addr)
                continue
            ep = await self._open_endpoint(addr, f"robot {rid} ({req.name})")
            self.robots[rid] = ep
            ep.send(M.format_reply(self.world.params, len(self.world.lab.beacons)))
            log.info("robot %r registered at grid position %d from %s:%d", req.name, rid, addr[0], addr[1])

    def _drop_gone_viewers(self) -> None:
        """Viewers whose port closed leave (their place is free for another)."""
        for viewer in [v for v in self.viewers if v.gone]:
            self._lines.log(logging.INFO, f"{viewer.label} left (its port is closed)")
            viewer.close()
            self.viewers.remove(viewer)

    def _count_missed(self) -> None:
        """After a lockstep cycle: a robot that left ``MAX_MISSED_CYCLES`` in a row unanswered is no
        longer waited for (logged) until it answers again."""
        for rid, ep in self.robots.items():
            if self.world.records[rid].state in ("Finished", "Removed"):
                continue
            if ep.received > 0 or len(ep.inbox) > 0:
                if ep.missed >= MAX_MISSED_CYCLES:
                    log.info("%s answers again: waited for again", ep.label)
                ep.missed = 0
            else:
                ep.missed += 1
                if ep.missed == MAX_MISSED_CYCLES:
                    log.warning("%s left %d cycles unanswered: no longer waited for until it answers",
                                ep.label, MAX_MISSED_CYCLES)

    def _refuse(self, addr) -> None:
        if self._registrar_transport is not None:
            self._registrar_transport.sendto(M.REFUSED.encode() + b"\0", addr)

    def submit(self, cmd: M.ViewerCommand) -> None:
        """Queue a viewer command from another front end (the web panel); it is carried out at
        the start of the next cycle, exactly as a UDP viewer's. At most ``MAX_PENDING_COMMANDS``
        wait; older ones are dropped beyond that."""
        self._commands.append(cmd)

    def _handle_viewers(self) -> None:
        while self._commands:
            self.command(self._commands.popleft())
        for viewer in self.viewers:
            for data in viewer.take():
                try:
                    cmd = M.parse_viewer(data)
                except M.MessageError as exc:
                    viewer.problems.log(logging.WARNING, f"{viewer.label}: dropped a datagram: {exc}")
                    continue
                self.command(cmd, viewer)

    def command(self, cmd: M.ViewerCommand, viewer: _Endpoint | None = None) -> None:
        """Carry out a viewer command at once; ``viewer`` is the UDP viewer that asked (it gets
        the answer to LabReq and GridReq). Other front ends use :meth:`submit`."""
        if cmd.kind == "LabReq" and viewer:
            viewer.send(M.format_lab(self.world.lab))
        elif cmd.kind == "GridReq" and viewer:
            viewer.send(M.format_grid(self.world.scenario.grid))
        elif cmd.kind == "Start":
            self.world.start()
            self._stepping = self._started = True
        elif cmd.kind == "Stop":
            self.world.stop()
        elif cmd.kind in ("Reset", "Restart"):
            for ep in self.robots.values():
                ep.close()
            self.robots.clear()
            self.world = World(self.world.scenario, self.world.seed, self.world.rules.name,
                               tuple(self.world.gps_offset))
            self._stepping = self.opt.mode == "realtime"
            self._started = False
        elif cmd.kind == "Remove":
            self.world.remove_robot(cmd.robot_id)
            ep = self.robots.pop(cmd.robot_id, None)
            if ep:
                ep.close()

    def _collect_actions(self) -> dict[int, Action]:
        actions: dict[int, Action] = {}
        for rid, ep in self.robots.items():
            merged = None
            for data in ep.take():
                try:
                    action = M.parse_action(data)
                except M.MessageError as exc:
                    self.malformed += 1
                    ep.problems.log(logging.WARNING, f"{ep.label}: dropped a datagram: {exc}")
                    continue
                merged = action if merged is None else merged.merged(action)
            if merged is not None:
                actions[rid] = merged
        return actions

    def _send_final(self) -> None:
        """Tell every robot the trial is over before the server goes away: the last Measures again
        with both buttons off, as the original shows a finished simulation."""
        for rid, ep in self.robots.items():
            obs = self.world.observe(rid)
            obs.buttons, obs.messages = (False, False), []
            ep.send(M.format_measures(obs))

    def _send(self) -> None:
        world = self.world
        for rid, ep in self.robots.items():
            obs = world.observe(rid)
            text = M.format_measures(obs)
            while obs.messages and len(text) >= MEASURES_BUFFER:   # fit the clients' 4096-byte buffer
                obs.messages.pop()
                text = M.format_measures(obs)
            ep.send(text)
        self._drop_gone_viewers()
        if self.viewers:
            statuses = [M.format_status(world.status(rid), world.cycle) for rid in sorted(world.robots)]
            for viewer in self.viewers:
                for text in statuses:
                    viewer.send(text)

    def _send_waiting(self) -> None:
        """Keep registered clients waiting before the start (lockstep and fast modes)."""
        obs = Observation(0, None, None, None, {}, {}, None, None, None, [], (False, False, False), (False, True))
        text = M.format_measures(obs)
        for ep in self.robots.values():
            ep.take()
            ep.send(text)

    def _everyone_answered(self) -> bool:
        return all(ep.received > 0 or len(ep.inbox) > 0
                   for rid, ep in self.robots.items()
                   if self.world.records[rid].state not in ("Finished", "Removed") and ep.missed < MAX_MISSED_CYCLES)

    async def run(self) -> None:
        """Serve cycles until the trial is over (``stop_when_finished``) or :meth:`close`."""
        if self._registrar_transport is None:
            await self.start()
        while not self._closing:
            self.clock.begin_cycle()
            self._lines.flush()                      # the count of what a flood kept out of the log
            await self._handle_registrations()
            self._handle_viewers()
            if not self._started and self.opt.autostart and len(self.robots) >= self.opt.autostart:
                if not self._stepping:
                    # Let the answers to the last keep-alive arrive and drop them, so that the first
                    # step sees only answers to real Measures: the run then depends on the seed alone.
                    await asyncio.sleep(START_SETTLE_S)
                    for ep in self.robots.values():
                        ep.take()
                self.world.start()
                self._stepping = self._started = True
            if self._stepping and self.robots:
                actions = self._collect_actions()
                self.world.step(actions)
                self._send()
                if self.on_cycle:
                    self.on_cycle(CycleReport(self.world, actions))
                if self.opt.stop_when_finished and self.world.finished:
                    self._send_final()
                    break
                await self.clock.wait(self._everyone_answered)
                if self.opt.mode == "lockstep":
                    self._count_missed()
            else:
                self._send_waiting()
                idle = self.clock.cycle_s if self.opt.mode == "realtime" else min(self.clock.cycle_s, 0.05)
                await asyncio.sleep(idle)
