"""A client library for CiberRato agents written in Python.

It speaks the original protocol (spec "Wire"), so an agent written with it runs against the
original simulator as well as ours. Typical use::

    from simleague.ciberrato.client import Client

    with Client("my-robot", pos=1, port=6000) as robot:
        while True:
            m = robot.read()                       # blocks for the next Measures
            if not m.buttons[0]:                   # Start button not pressed yet
                continue
            robot.act(left=0.1, right=0.1, requests=("IRSensor0", "Compass"))

``read()`` returns an :class:`~simleague.ciberrato.world.Observation` (ir, beacons, compass,
ground, collision, gps, line sensor, messages heard, LEDs and buttons). ``act()`` sends one
``<Actions>`` with whatever you pass: motor powers in [-0.15, 0.15], LEDs on/off, sensor requests
(``IRSensor0..3``, ``Beacon0..``, ``Ground``, ``Compass``), ``say`` (at most 100 characters, heard by
robots within 8 u_m).
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

from .. import errors
from . import messages as M
from .options import REGISTRATION_PORT
from .types import Action, Observation


WAIT_NOTICE = 2.0               # s between two "still waiting" notices while registering


class ClientError(errors.Error):
    """Registration refused, simulator silent, or an unreadable answer; ``str()`` says which."""


class Client:
    """One robot's connection. ``Client(name, pos=0, host, port, ir_angles=None, timeout=5.0)``.

    ``pos`` is the grid position (0: first free); ``ir_angles`` maps obstacle sensor id -> degrees;
    ``timeout`` (s) is the longest :meth:`read` waits before raising :class:`ClientError`.
    """

    def __init__(self, name: str, pos: int = 0, host: str = "127.0.0.1", port: int = REGISTRATION_PORT,
                 ir_angles: dict[int, float] | None = None, timeout: float = 5.0):
        self.name, self.pos, self.host, self.port = name, pos, host, port
        self.ir_angles = ir_angles or {}
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.settimeout(timeout)
        self.sim_addr = None
        self.params: dict[str, str] = {}

    def register(self, waiting: Callable[[float], None] | None = None) -> dict[str, str]:
        """Register and return the simulator's parameters (attribute name -> text); up to the
        timeout for the answer, calling ``waiting(seconds so far)`` every WAIT_NOTICE s while
        there is none. Raises :class:`ClientError`."""
        msg = M.format_register(M.Register(self.name, self.pos, self.ir_angles))
        self.sock.sendto(msg.encode() + b"\0", (self.host, self.port))
        timeout, began = self.sock.gettimeout() or 5.0, time.monotonic()
        while True:
            waited = time.monotonic() - began
            self.sock.settimeout(max(0.01, min(WAIT_NOTICE, timeout - waited)))
            try:
                data, addr = self.sock.recvfrom(1024)
                break
            except socket.timeout:
                waited = time.monotonic() - began
                if waited >= timeout - 1e-3:
                    raise ClientError(f"no answer from the simulator at {self.host}:{self.port} "
                                      f"in {timeout:g} s") from None
                if waiting is not None:
                    waiting(waited)
            finally:
                self.sock.settimeout(timeout)
        try:
            params = M.parse_reply(data)
        except M.MessageError as exc:
            raise ClientError(f"unreadable registration reply: {exc}") from None
        if params is None:
            raise ClientError(f"registration of {self.name!r} at position {self.pos} was refused")
        self.sim_addr, self.params = addr, params
        return params

    def read(self) -> Observation:
        """The next Measures (blocks up to the timeout)."""
        while True:
            try:
                data, addr = self.sock.recvfrom(65536)
            except socket.timeout:
                raise ClientError("the simulator has been silent for too long") from None
            if addr != self.sim_addr:
                continue
            try:
                return M.parse_measures(data)
            except M.MessageError as exc:
                raise ClientError(f"unreadable Measures: {exc}") from None

    def act(self, left: float | None = None, right: float | None = None, *, visiting: bool | None = None,
            returning: bool | None = None, end: bool | None = None, requests: tuple[str, ...] = (),
            say: str | None = None) -> None:
        """Send one ``<Actions>`` datagram (only the fields given)."""
        self.send(Action(left, right, visiting, returning, end, tuple(requests), say))

    def send(self, action: Action) -> None:
        """Send an :class:`Action` as is."""
        if self.sim_addr is None:
            raise ClientError("register() first")
        self.sock.sendto(M.format_action(action).encode() + b"\0", self.sim_addr)

    def close(self) -> None:
        """Close the robot's socket (the simulator is not told: it notices the silence)."""
        self.sock.close()

    def __enter__(self):
        """The connection, registered unless :meth:`register` was called already."""
        if self.sim_addr is None:
            self.register()
        return self

    def __exit__(self, *exc):
        self.close()
