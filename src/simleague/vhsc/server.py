"""The humanoid virtual soccer API server: one TCP port per robot (red 10001.., blue 10021.. by
default), 4-byte big-endian framed protobuf both ways (seed 000 "Protocol"; specs/vhsc.md).

A client connects to its robot's port and gets ``Welcome\\0`` when its address is allowed for the
robot's team, else ``Refused\\0`` and the connection is closed; while another client holds the
port it waits, unanswered, until the port is free (as the original, which accepts one client at a
time; at most ``MAX_WAITING`` wait, more are refused); every attempt is logged. Each basic step (8 ms) the server applies every complete
``ActuatorRequests`` that arrived, steps the world and sends each connected robot one
``SensorMeasurements``. Pacing (the league's ``maximum_real_time_factor``): a step ends no earlier
than 8 ms / factor of wall time after the last one was due; lateness of less than one step (a timer
that woke late) is made up by the next, more is not: a machine that stalls or cannot keep up makes
the simulation fall behind, as the original's does (teams reported real-time factors of 0.25-0.7,
specs/vhsc.md), and never runs steps back to back to catch up, which no robot's controller can
follow (the one step after a step that overran follows it at once). Factor 0 runs
as fast as the world steps.

Unlike the original, a client that does not read never slows the simulation: a measurement that
finds more than ``max_unsent`` bytes still waiting for the client is dropped (the newest is kept,
and the next one sent carries a WARNING saying how many were dropped), and a client that had
``max_dropped`` messages dropped in a row (10 s by default) is disconnected
(:class:`simleague.wire.limits.SlowReader`, the rule every server applies). The bandwidth quota (350 MB/s per team,
divided among its players, over the last second) replaces a message over budget by one with only
the time and the original's ERROR text. Garbage or an oversized frame gets an ERROR message and
the connection is closed; the robot keeps its state for a reconnection.
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
from ..soccer.cameras import CameraError, Cameras
from ..wire.framing import FrameDecoder, FrameError, encode
from ..wire.limits import LogLimiter, SlowReader, Verdict
from . import messages as M
from .gamecontroller import RETURN_ALIVE, ReturnData
from .options import COLOURS, MB, ServerOptions
from .referee import Action, FieldView, PlaceBall, PlaceRobot, SwitchRobot
from .robot import BASIC_STEP_MS, TEAM_RENDER_QUOTA, RobotSession

log = logging.getLogger("simleague.vhsc")

WELCOME, REFUSED = b"Welcome\0", b"Refused\0"
MAX_REQUEST_FRAME = 1 << 20        # bytes of one ActuatorRequests
MAX_QUEUED = 16                    # requests kept per robot between two steps
SEND_BUFFER = 256 * 1024           # bytes of kernel send buffer per robot connection
MAX_RETURN_LINES = 10              # log lines a second about RGrt packets
MAX_WAITING = 4                    # clients waiting for a robot's port to be free
MAX_CLIENT_LINES = 10              # log lines a second about one robot port's clients


@dataclass
class CycleReport:
    """What a cycle (one basic step, 8 ms) did, for viewers, recorders and progress displays: the
    cycles run after it, the world, and the real-time factor over the last second of wall time."""

    cycle: int
    world: object
    real_time_factor: float


def field_view(world, sessions: dict[tuple[str, int], RobotSession]) -> FieldView:
    """What the referee looks at in ``world`` (a :class:`~simleague.soccer.humanoids.HumanoidWorld`),
    ``sessions`` mapping ("red"|"blue", number) to the robots' sessions."""
    by_rid = {session.rid: key for key, session in sessions.items()}
    poses, upright, velocities, extremities = {}, {}, {}, {}
    for key, session in sessions.items():
        (x, y, _), yaw = world.pose(session.rid)[0], world.heading(session.rid)
        poses[key], upright[key] = (float(x), float(y), yaw), world.upright(session.rid)
        extremities[key] = world.extremities(session.rid).tolist()
        vx, vy, _ = world.velocity(session.rid)
        velocities[key] = (float(vx), float(vy))
    ground, pairs = world.contacts()
    footprints = {by_rid[rid]: points.tolist() for rid, points in ground.items() if rid in by_rid}
    contacts = frozenset((by_rid[a], by_rid[b]) for a, b in pairs if a in by_rid and b in by_rid)
    touching = frozenset(by_rid[rid] for rid in world.ball_touchers() if rid in by_rid)
    return FieldView(tuple(float(v) for v in world.ball()[0]), touching, poses, upright, footprints, velocities,
                     contacts, extremities)


def apply_actions(world, sessions: dict[tuple[str, int], RobotSession], actions: list[Action]) -> None:
    """Carry out the referee's decisions on ``world`` and the robots' sessions."""
    for action in actions:
        if isinstance(action, PlaceBall):
            world.place_ball(action.position)
        elif isinstance(action, PlaceRobot):
            rid = sessions[action.player].rid
            world.place_robot(rid, action.x, action.y, action.yaw)
            if action.rest_joints:
                world.rest_joints(rid)
        elif isinstance(action, SwitchRobot):
            session = sessions[action.player]
            session.motors_on, session.sensors_on = action.motors, action.sensors


@dataclass
class _Robot:
    """A robot's port: its session, team, the client holding it, what arrived, what was sent."""

    session: RobotSession
    team: str                       # "red" or "blue"
    player: int
    quota: float                    # bytes per second
    writer: asyncio.StreamWriter | None = None
    queued: list = field(default_factory=list)
    reader: SlowReader | None = None  # whether the client reads its measurements (one per client)
    sent: deque = field(default_factory=deque)   # (monotonic time, bytes) over the last second
    server: asyncio.AbstractServer | None = None
    port: int = 0
    connections: int = 0            # clients accepted so far
    waiting: int = 0                # clients waiting for the port to be free
    lines: LogLimiter | None = None  # what is logged about the port's clients, at most 10 lines a second
    free: asyncio.Event = field(default_factory=asyncio.Event)    # set when the client leaves


class _Returns(asyncio.DatagramProtocol):
    """The robots' ``RGrt`` packets: a valid one from an address allowed for its team goes to
    the referee (:meth:`~simleague.vhsc.referee.HumanoidReferee.robot_message`) and is kept in
    :attr:`VhscServer.returns`, and what changed the game is logged; anything else is logged
    at most ``MAX_RETURN_LINES`` lines a second (a flooding robot cannot flood the log)."""

    def __init__(self, server: VhscServer):
        self.server = server
        self.lines = LogLimiter(log, "GameController returns", MAX_RETURN_LINES)

    def datagram_received(self, data: bytes, addr) -> None:
        """Decode (the first 64 bytes read), check the sender, act."""
        try:
            packet = ReturnData.decode(data[:64])
        except ValueError as e:
            self.lines.log(logging.WARNING, f"GameController return from {addr[0]}:{addr[1]} ignored: {e}")
            return
        referee = self.server.referee
        colour = next((c for c, n in referee.numbers.items() if n == packet.team), None)
        if colour is not None and addr[0] not in self.server.allowed.get(colour, ()):
            self.lines.log(logging.WARNING, f"GameController return for {colour} {packet.player} from {addr[0]}, "
                                            f"not an address of that team: ignored")
            return
        self.server.returns.append(packet)
        changed, done, actions = referee.robot_message(packet.team, packet.player, packet.message,
                                                       self.server.field_view())
        self.server.apply(actions)
        if changed:
            log.info("%s", done)
        elif packet.message != RETURN_ALIVE:
            self.lines.log(logging.INFO, done)


class VhscServer:
    """The humanoid API's robot ports, stepping ``world`` (see the module's text).

    Args:
        world: the :class:`~simleague.soccer.humanoids.HumanoidWorld` served.
        robots: ("red"|"blue", player number) -> its :class:`~simleague.vhsc.robot.RobotSession`.
        allowed: a team's colour -> the client addresses allowed on its robots' ports.
        options: how it runs (:class:`ServerOptions`); the ports once started in :attr:`ports`.
        referee: a :class:`~simleague.vhsc.referee.HumanoidReferee`, whose decisions are applied each
            cycle; with ``options.game_controller`` its ``RGme`` packets are sent and ``RGrt`` read.
        on_cycle: called with a :class:`CycleReport` after every cycle (a basic step, 8 ms).
    """

    def __init__(self, world, robots: dict[tuple[str, int], RobotSession], allowed: dict[str, set[str]],
                 options: ServerOptions | None = None, referee=None,
                 on_cycle: Callable[[CycleReport], None] | None = None):
        self.opt = options = options or ServerOptions()
        self.world, self.allowed, self.host = world, allowed, options.host
        self.bases = {"red": options.red_base, "blue": options.blue_base}
        size = {team: sum(1 for t, _ in robots if t == team) for team in COLOURS}
        self.robots = {key: _Robot(session, key[0], key[1], options.team_quota / max(size[key[0]], 1))
                       for key, session in robots.items()}
        self.sessions = robots
        for (team, _), session in robots.items():     # each robot its share of the team's quota
            session.render_limit = min(session.render_limit, TEAM_RENDER_QUOTA / max(size[team], 1))
        self.cameras = Cameras(world)
        self._camera_failed = False                    # told the operator once that images cannot be made
        self.referee = referee
        self._gc_send = self._gc_receive = None
        self._gc_packets, self._gc_sent_at = 0, -1.0
        self.returns: deque = deque(maxlen=1000)         # the last RGrt packets taken
        self.on_cycle = on_cycle
        self.cycle = 0
        self._recent: deque = deque()                    # (wall time, step) over the last second
        self._stop = asyncio.Event()
        self._handlers: set[asyncio.Task] = set()

    @property
    def ports(self) -> dict[tuple[str, int], int]:
        """The port of each robot, once started."""
        return {key: robot.port for key, robot in self.robots.items()}

    async def start(self) -> None:
        """Listen on every robot's port (and, with a referee, send ``RGme`` and read ``RGrt``).
        Raises OSError when a port is taken."""
        if self.referee is not None and self.opt.game_controller is not None:
            loop = asyncio.get_running_loop()
            self._gc_send, _ = await loop.create_datagram_endpoint(
                asyncio.DatagramProtocol, remote_addr=self.opt.game_controller, allow_broadcast=True)
            try:
                self._gc_receive, _ = await loop.create_datagram_endpoint(
                    lambda: _Returns(self), local_addr=(self.host, self.opt.return_port))
            except OSError as e:
                raise OSError(e.errno, f"{self.host}:{self.opt.return_port} (UDP, the robots' RGrt packets): "
                                       f"{e.strerror}") from None
        for robot in self.robots.values():
            base = self.bases[robot.team]
            port = self.opt.ports.get((robot.team, robot.player), base + robot.player if base else 0)
            robot.lines = LogLimiter(log, f"{robot.team} {robot.player}'s port", MAX_CLIENT_LINES)
            try:
                robot.server = await asyncio.start_server(
                    lambda r, w, robot=robot: self._connect(robot, r, w), self.host, port)
            except OSError as e:
                raise OSError(e.errno, f"{self.host}:{port} ({robot.team} {robot.player}): {e.strerror}") from None
            robot.port = robot.server.sockets[0].getsockname()[1]
            log.info("%s %d on %s:%d", robot.team, robot.player, self.host, robot.port)

    def field_view(self) -> FieldView:
        """What the referee sees now."""
        return field_view(self.world, self.sessions)

    def apply(self, actions: list[Action]) -> None:
        """Carry out the referee's decisions."""
        apply_actions(self.world, self.sessions, actions)

    def start_game(self) -> None:
        """The referee leaves ``initial``: the robots get ``ready``."""
        self.apply(self.referee.start(self.field_view()))

    def stop(self) -> None:
        """End :meth:`run` after the current step."""
        self._stop.set()

    async def close(self) -> None:
        """Stop listening and close every connection (their reading tasks end with them)."""
        self._stop.set()
        for robot in self.robots.values():
            robot.free.set()                             # clients waiting for a port give up
        self.cameras.close()
        for endpoint in (self._gc_send, self._gc_receive):
            if endpoint is not None:
                endpoint.close()
        for robot in self.robots.values():
            if robot.writer is not None:
                robot.writer.close()
            robot.server.close()
        handlers = [t for t in self._handlers if not t.done()]
        if handlers:
            _, late = await asyncio.wait(handlers, timeout=2.0)
            for task in late:
                task.cancel()
        for robot in self.robots.values():
            await robot.server.wait_closed()

    # ------------------------------------------------------------------------------ clients
    async def _connect(self, robot: _Robot, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        self._handlers.add(task)
        try:
            await self._serve(robot, reader, writer)
        finally:
            self._handlers.discard(task)

    async def _serve(self, robot: _Robot, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        address = writer.get_extra_info("peername")[0]
        who = f"{robot.team} {robot.player} from {address}"
        if address not in self.allowed.get(robot.team, set()):
            robot.lines.log(logging.WARNING, f"connection to {who} refused: address not allowed for the {robot.team} team")
            writer.write(REFUSED)
            writer.close()
            return
        if robot.writer is not None:
            if robot.waiting >= MAX_WAITING:
                robot.lines.log(logging.WARNING,
                                f"connection to {who} refused: the robot has a client and {robot.waiting} waiting")
                writer.write(REFUSED)
                writer.close()
                return
            robot.lines.log(logging.INFO, f"connection to {who} waits: the robot has a client")
            robot.waiting += 1
            try:
                while robot.writer is not None and not self._stop.is_set():
                    robot.free.clear()
                    await robot.free.wait()
            finally:
                robot.waiting -= 1
            if self._stop.is_set():
                writer.close()
                return
        robot.lines.log(logging.INFO, f"connection to {who} accepted")
        sock = writer.get_extra_info("socket")
        if sock is not None:              # a small kernel buffer: a slow reader shows up soon, and
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)   # never gets stale data
        robot.writer, robot.reader = writer, SlowReader(self.opt.max_unsent, self.opt.max_dropped)
        writer.write(WELCOME)             # the robot's state complete before its client hears of it
        robot.connections += 1
        decoder = FrameDecoder(MAX_REQUEST_FRAME)
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                for frame in decoder.feed(data):
                    try:
                        requests = M.parse_requests(frame)
                    except M.RequestError as e:
                        raise FrameError(str(e)) from None
                    if len(robot.queued) >= MAX_QUEUED:
                        robot.queued.pop(0)                       # the newest requests win
                    robot.queued.append(requests)
                if decoder.error is not None:
                    raise decoder.error
        except FrameError as e:
            robot.lines.log(logging.WARNING, f"{who}: {e}; disconnected")
            message = M.SensorMeasurements(time=self.cycle * BASIC_STEP_MS, real_time=int(time.time() * 1000))
            message.messages.add(message_type=M.ERROR_MESSAGE, text=f"{e}; disconnected")
            writer.write(encode(message.SerializeToString()))
        except (ConnectionError, OSError) as e:
            robot.lines.log(logging.INFO, f"{who}: {e}")
        finally:
            if robot.writer is writer:
                robot.writer = None
                robot.free.set()
                robot.lines.log(logging.INFO, f"{who} left")
            writer.close()

    # ------------------------------------------------------------------------------ steps
    async def run(self, cycles: int | None = None) -> None:
        """Run cycles (basic steps) until stopped, ``cycles`` of them, or the referee finished the game."""
        factor = self.opt.max_real_time_factor
        if factor > 0:
            step_s = BASIC_STEP_MS / 1000 / factor
            clock = Clock("realtime", step_s, max_lag_s=step_s)
        else:
            clock = Clock("fast", 0.0)
        while not self._stop.is_set() and (cycles is None or self.cycle < cycles):
            clock.begin_cycle()
            for robot in self.robots.values():
                for requests in robot.queued:
                    robot.session.apply(requests, self.cycle)
                robot.queued.clear()
            self.world.step()
            if self.referee is not None:
                self.apply(self.referee.step(BASIC_STEP_MS / 1000, self.field_view()))
                self._game_controller()
            now_ms = int(time.time() * 1000)
            connected = [robot for robot in self.robots.values() if robot.writer is not None]
            for robot, images in zip(connected, self._images(connected)):
                self._send(robot, robot.session.measurements(self.cycle, now_ms, images))
            self.cycle += 1
            if self.on_cycle is not None:
                self.on_cycle(CycleReport(self.cycle, self.world, self.real_time_factor()))
            if self.referee is not None and self.referee.game_over:
                break                                   # the game is over
            await clock.wait(lambda: True)

    def real_time_factor(self) -> float:
        """Simulated over wall time across the last second (0 before two steps)."""
        now = time.monotonic()
        self._recent.append((now, self.cycle))
        while now - self._recent[0][0] > 1.0:
            self._recent.popleft()
        (t0, s0), (t1, s1) = self._recent[0], self._recent[-1]
        return (s1 - s0) * BASIC_STEP_MS / 1000 / (t1 - t0) if t1 > t0 else 0.0

    def _game_controller(self) -> None:
        """Send ``RGme`` once a second of simulated time and whenever the game changed."""
        now = self.cycle * BASIC_STEP_MS / 1000
        if self._gc_send is None or not (self.referee.changed or now - self._gc_sent_at >= 1.0):
            return
        self._gc_send.sendto(self.referee.game_data(self._gc_packets).encode())
        self._gc_packets += 1
        self._gc_sent_at = now

    def _images(self, robots: list[_Robot]) -> list[dict[str, bytes]]:
        """The images of each robot's cameras that report after this step (camera name -> raw
        image), rendered together (:meth:`Cameras.images`). Without an OpenGL platform each robot
        that asked for images gets the error in its next measurements instead."""
        shots = [(i, sensor) for i, robot in enumerate(robots) for sensor in robot.session.due(self.cycle)
                 if sensor.kind == "camera"]
        images: list[dict[str, bytes]] = [{} for _ in robots]
        if not shots:
            return images
        try:
            rendered = self.cameras.images([(robots[i].session.rid, sensor.source, sensor.width, sensor.height)
                                            for i, sensor in shots])
        except CameraError as e:
            for i, _ in shots:
                robots[i].session.errors.append(str(e))
            if not self._camera_failed:                    # the robots play blind: say so where it is run
                self._camera_failed = True
                log.error("%s; robots that asked for camera images get this error instead", e)
            return images
        for (i, sensor), image in zip(shots, rendered):
            images[i][sensor.name] = image
        return images

    def _send(self, robot: _Robot, message) -> None:
        verdict = robot.reader.verdict(robot.writer.transport.get_write_buffer_size())
        if verdict is Verdict.DISCONNECT:
            log.warning("%s %d does not read (%d messages dropped in a row); disconnected",
                        robot.team, robot.player, robot.reader.dropped - 1)
            robot.writer.close()
            robot.writer = None
            robot.free.set()
        if verdict is not Verdict.SEND:
            return
        if robot.reader.missed:
            message.messages.add(message_type=M.WARNING_MESSAGE,
                                 text=f"{robot.reader.missed} messages dropped: the client does not read them in time")
        payload = message.SerializeToString()
        now = time.monotonic()
        while robot.sent and now - robot.sent[0][0] > 1.0:
            robot.sent.popleft()
        used = sum(n for _, n in robot.sent)
        if used + len(payload) > robot.quota:
            over = M.SensorMeasurements(time=message.time, real_time=message.real_time)
            over.messages.add(message_type=M.ERROR_MESSAGE, text=f"{robot.quota / MB:f} MB/s quota exceeded.")
            payload = over.SerializeToString()
        robot.sent.append((now, len(payload)))
        robot.writer.write(encode(payload))
