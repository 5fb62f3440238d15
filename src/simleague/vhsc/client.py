"""A Python client for robot control software of the humanoid virtual soccer API (seed 000
"Protocol"): connect to the robot's port, read ``Welcome``, send ``ActuatorRequests``, receive
``SensorMeasurements``. Works against simleague's server and the original alike.

    from simleague.vhsc.client import RobotClient

    with RobotClient() as robot:                  # ROBOCUP_SIMULATOR_ADDR, e.g. 127.0.0.1:10001
        robot.send(robot.requests(time_steps={"gyro": 8}, positions={"head_yaw": 0.5}))
        while True:
            measurements = robot.receive()        # every 8 ms
"""

from __future__ import annotations

import os
import socket
import struct

from . import messages as M

MAX_MESSAGE = 64 << 20


class RobotClient:
    """A connection to a robot's port: ``address`` "host:port" (default: the environment's
    ``ROBOCUP_SIMULATOR_ADDR``). Raises ConnectionRefusedError on ``Refused``, OSError when the
    server cannot be reached, ValueError for an address that is not host:port."""

    def __init__(self, address: str | None = None, timeout: float = 30.0):
        address = address or os.environ.get("ROBOCUP_SIMULATOR_ADDR", "127.0.0.1:10001")
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"{address!r} is not host:port")
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        answer = self._exactly(8)
        if answer != b"Welcome\0":
            self.sock.close()
            raise ConnectionRefusedError(f"{address} answered {answer!r}")

    def __enter__(self) -> RobotClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection."""
        self.sock.close()

    def _exactly(self, n: int) -> bytes:
        data = bytearray()
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("the simulator closed the connection")
            data += chunk
        return bytes(data)

    @staticmethod
    def requests(positions: dict[str, float] | None = None, velocities: dict[str, float] | None = None,
                 torques: dict[str, float] | None = None, time_steps: dict[str, int] | None = None):
        """An ``ActuatorRequests`` from dictionaries by device name (rad, rad/s, N m, ms)."""
        r = M.ActuatorRequests()
        for name, value in (positions or {}).items():
            r.motor_positions.add(name=name, position=value)
        for name, value in (velocities or {}).items():
            r.motor_velocities.add(name=name, velocity=value)
        for name, value in (torques or {}).items():
            r.motor_torques.add(name=name, torque=value)
        for name, value in (time_steps or {}).items():
            r.sensor_time_steps.add(name=name, timeStep=value)
        return r

    def send(self, requests) -> None:
        """Send one ``ActuatorRequests``."""
        data = requests.SerializeToString()
        self.sock.sendall(struct.pack(">I", len(data)) + data)

    def receive(self):
        """The next ``SensorMeasurements``."""
        (n,) = struct.unpack(">I", self._exactly(4))
        if n > MAX_MESSAGE:
            raise ValueError(f"a message of {n} bytes announced")
        return M.SensorMeasurements.FromString(self._exactly(n))
