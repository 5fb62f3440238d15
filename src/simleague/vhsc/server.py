"""The humanoid virtual soccer API server: one TCP port per robot (red 10001.., blue 10021.. by
default), 4-byte big-endian framed protobuf both ways (seed 000 "Protocol"; specs/vhsc.md).

A client connects to its robot's port and gets ``Welcome\\0`` when its address is allowed for the
robot's team and no other client holds the port, else ``Refused\\0`` and the connection is closed;
every attempt is logged. Each basic step (8 ms; at least 8 ms of wall time in real time, none in
fast mode) the server applies every complete ``ActuatorRequests`` that arrived, steps the world and
sends each connected robot one ``SensorMeasurements``.

Unlike the original, a client that does not read never slows the simulation: a measurement that
finds more than ``max_unsent`` bytes still waiting for the client is dropped (the newest is kept,
and the next one sent carries a WARNING saying how many were dropped), and a client that had
``max_dropped`` messages dropped in a row (10 s by default) is disconnected. The bandwidth quota (350 MB/s per team,
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
from dataclasses import dataclass, field

from ..soccer.cameras import CameraError, Cameras
from ..wire.framing import FrameDecoder, FrameError, encode
from ..wire.limits import LogLimiter
from . import messages as M
from .gamecontroller import RETURN_ALIVE, ReturnData
from .robot import BASIC_STEP_MS, RobotSession

log = logging.getLogger("simleague.vhsc")

WELCOME, REFUSED = b"Welcome\0", b"Refused\0"
TEAM_QUOTA = 350e6                 # bytes per second per team
MAX_REQUEST_FRAME = 1 << 20        # bytes of one ActuatorRequests
MAX_QUEUED = 16                    # requests kept per robot between two steps
SEND_BUFFER = 256 * 1024           # bytes of kernel send buffer per robot connection
MAX_RETURN_LINES = 10              # log lines a second about RGrt packets


@dataclass
class _Robot:
    """A robot's port: its session, team, the client holding it, what arrived, what was sent."""

    session: RobotSession
    team: str                       # "red" or "blue"
    player: int
    quota: float                    # bytes per second
    writer: asyncio.StreamWriter | None = None
    queued: list = field(default_factory=list)
    dropped: int = 0                # measurements not sent since the last one that was
    sent: deque = field(default_factory=deque)   # (monotonic time, bytes) over the last second
    server: asyncio.AbstractServer | None = None
    port: int = 0
    connections: int = 0            # clients accepted so far


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
        changed, done = referee.robot_message(packet.team, packet.player, packet.message)
        if changed:
            log.info("%s", done)
        elif packet.message != RETURN_ALIVE:
            self.lines.log(logging.INFO, done)


class VhscServer:
    """``VhscServer(world, robots, allowed, host, red_base, blue_base, realtime, max_unsent,
    max_dropped, team_quota, referee, game_controller)``; ``team_quota`` in bytes per second
    (350 MB/s); with a :class:`~simleague.vhsc.referee.HumanoidReferee`, ``game_controller`` =
    (host, 3838, 3939) sends its ``RGme`` packets there and reads ``RGrt`` packets.

    ``robots`` maps (team, player) to a :class:`~simleague.vhsc.robot.RobotSession`; ``allowed``
    maps a team to the client addresses allowed on its ports; ports ``red_base + player`` and
    ``blue_base + player`` (0 as a base: ports picked by the system, see :attr:`ports`)."""

    def __init__(self, world, robots: dict[tuple[str, int], RobotSession], allowed: dict[str, set[str]],
                 host: str = "127.0.0.1", red_base: int = 10000, blue_base: int = 10020, realtime: bool = True,
                 max_unsent: int = 4 << 20, max_dropped: int = 1250, team_quota: float = TEAM_QUOTA,
                 referee=None, game_controller: tuple[str, int, int] | None = None):
        self.world, self.allowed, self.host = world, allowed, host
        self.bases = {"red": red_base, "blue": blue_base}
        self.realtime, self.max_unsent, self.max_dropped = realtime, max_unsent, max_dropped
        size = {team: sum(1 for t, _ in robots if t == team) for team in ("red", "blue")}
        self.robots = {key: _Robot(session, key[0], key[1], team_quota / max(size[key[0]], 1))
                       for key, session in robots.items()}
        for team in ("red", "blue"):
            mates = [session for (t, _), session in robots.items() if t == team]
            for session in mates:
                session.team = mates
        self.cameras = Cameras(world)
        self.referee = referee
        self.game_controller = game_controller          # (host, RGme port, RGrt port)
        self._gc_send = self._gc_receive = None
        self._gc_packets, self._gc_sent_at = 0, -1.0
        self.returns: deque = deque(maxlen=1000)         # the last RGrt packets taken
        self.on_step = None                              # called with the step count after each step
        self.step = 0
        self._stop = asyncio.Event()
        self._handlers: set[asyncio.Task] = set()

    @property
    def ports(self) -> dict[tuple[str, int], int]:
        """The port of each robot, once started."""
        return {key: robot.port for key, robot in self.robots.items()}

    async def start(self) -> None:
        """Listen on every robot's port (and, with a referee, send ``RGme`` and read ``RGrt``).
        Raises OSError when a port is taken."""
        if self.referee is not None and self.game_controller is not None:
            loop = asyncio.get_running_loop()
            host, game_port, return_port = self.game_controller
            self._gc_send, _ = await loop.create_datagram_endpoint(asyncio.DatagramProtocol,
                                                                   remote_addr=(host, game_port))
            self._gc_receive, _ = await loop.create_datagram_endpoint(
                lambda: _Returns(self), local_addr=(host, return_port))
        for robot in self.robots.values():
            base = self.bases[robot.team]
            port = base + robot.player if base else 0
            robot.server = await asyncio.start_server(
                lambda r, w, robot=robot: self._connect(robot, r, w), self.host, port)
            robot.port = robot.server.sockets[0].getsockname()[1]
            log.info("%s %d on %s:%d", robot.team, robot.player, self.host, robot.port)

    def stop(self) -> None:
        """End :meth:`run` after the current step."""
        self._stop.set()

    async def close(self) -> None:
        """Stop listening and close every connection (their reading tasks end with them)."""
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
            log.warning("connection to %s refused: address not allowed for the %s team", who, robot.team)
            writer.write(REFUSED)
            writer.close()
            return
        if robot.writer is not None:
            log.warning("connection to %s refused: the robot has a client already", who)
            writer.write(REFUSED)
            writer.close()
            return
        log.info("connection to %s accepted", who)
        sock = writer.get_extra_info("socket")
        if sock is not None:              # a small kernel buffer: a slow reader shows up soon, and
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)   # never gets stale data
        writer.write(WELCOME)
        robot.writer, robot.dropped = writer, 0
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
            log.warning("%s: %s; disconnected", who, e)
            message = M.SensorMeasurements(time=self.step * BASIC_STEP_MS, real_time=int(time.time() * 1000))
            message.messages.add(message_type=M.ERROR_MESSAGE, text=f"{e}; disconnected")
            writer.write(encode(message.SerializeToString()))
        except (ConnectionError, OSError) as e:
            log.info("%s: %s", who, e)
        finally:
            if robot.writer is writer:
                robot.writer = None
                log.info("%s left", who)
            writer.close()

    # ------------------------------------------------------------------------------ steps
    async def run(self, steps: int | None = None) -> None:
        """Run basic steps until stopped, ``steps`` of them, or the referee finished the game."""
        while not self._stop.is_set() and (steps is None or self.step < steps):
            started = time.monotonic()
            for robot in self.robots.values():
                for requests in robot.queued:
                    robot.session.apply(requests, self.step)
                robot.queued.clear()
            self.world.step()
            if self.referee is not None:
                self.referee.step(BASIC_STEP_MS / 1000)
                self._game_controller()
            now_ms = int(time.time() * 1000)
            for robot in self.robots.values():
                if robot.writer is not None:
                    self._send(robot, robot.session.measurements(self.step, now_ms, self._images(robot)))
            self.step += 1
            if self.on_step is not None:
                self.on_step(self.step)
            if self.referee is not None and self.referee.game_over:
                break                                   # the game is over
            if self.realtime:
                await asyncio.sleep(max(0.0, BASIC_STEP_MS / 1000 - (time.monotonic() - started)))
            else:
                await asyncio.sleep(0)

    def _game_controller(self) -> None:
        """Send ``RGme`` once a second of simulated time and whenever the game changed."""
        now = self.step * BASIC_STEP_MS / 1000
        if self._gc_send is None or not (self.referee.changed or now - self._gc_sent_at >= 1.0):
            return
        self._gc_send.sendto(self.referee.game_data(self._gc_packets).encode())
        self._gc_packets += 1
        self._gc_sent_at = now

    def _images(self, robot: _Robot) -> dict[str, bytes]:
        """The images of the robot's cameras that report after this step."""
        images = {}
        for sensor in robot.session.due(self.step):
            if sensor.kind == "camera":
                try:
                    images[sensor.name] = self.cameras.image(robot.session.rid, sensor.source, sensor.width,
                                                             sensor.height)
                except CameraError as e:
                    robot.session.errors.append(str(e))
        return images

    def _send(self, robot: _Robot, message) -> None:
        waiting = robot.writer.transport.get_write_buffer_size()
        if waiting > self.max_unsent:
            robot.dropped += 1
            if robot.dropped > self.max_dropped:
                log.warning("%s %d does not read (%d messages dropped in a row); disconnected",
                            robot.team, robot.player, robot.dropped - 1)
                robot.writer.close()
                robot.writer = None
            return
        if robot.dropped:
            message.messages.add(message_type=M.WARNING_MESSAGE,
                                 text=f"{robot.dropped} messages dropped: the client does not read them in time")
            robot.dropped = 0
        payload = message.SerializeToString()
        now = time.monotonic()
        while robot.sent and now - robot.sent[0][0] > 1.0:
            robot.sent.popleft()
        used = sum(n for _, n in robot.sent)
        if used + len(payload) > robot.quota:
            over = M.SensorMeasurements(time=message.time, real_time=message.real_time)
            over.messages.add(message_type=M.ERROR_MESSAGE, text=f"{robot.quota / 1e6:f} MB/s quota exceeded.")
            payload = over.SerializeToString()
        robot.sent.append((now, len(payload)))
        robot.writer.write(encode(payload))
