"""A Python client for agents of SimSpark servers, ours or the original rcssserver3d (TCP 3100,
4-byte length framing, S-expressions; specs/simspark.md "Agents"). Standard library only, so that
an agent process starts fast.

    from simleague.simspark.client import AgentClient

    with AgentClient("127.0.0.1", 3100) as agent:
        agent.scene(robot_type=0)
        agent.receive()
        agent.init(unum=0, team="MyTeam")
        while True:
            seen = agent.receive()                 # a Perception, every 20 ms
            if seen.unum is not None: ...          # told once, after init
            agent.act({"he1": 0.5}, syn=True)      # joint velocities, rad/s

:func:`parse_perceptors` reads a perceptor message strictly: a perceptor, field, joint or play mode
the original does not send, or a number not written as the original writes it (two decimals, no
exponent), raises :class:`ProtocolError`. Units as the original: degrees, deg/s, m/s^2, metres,
newtons, seconds.
"""

from __future__ import annotations

import re
import socket
import struct
from dataclasses import dataclass, field

from .. import errors
from ..wire.sexp import SexpError, parse

PLAY_MODES = ("BeforeKickOff KickOff_Left KickOff_Right PlayOn KickIn_Left KickIn_Right corner_kick_left "
              "corner_kick_right goal_kick_left goal_kick_right offside_left offside_right GameOver "
              "Goal_Left Goal_Right free_kick_left free_kick_right direct_free_kick_left "
              "direct_free_kick_right pass_left pass_right").split()
JOINT_PERCEPTORS = frozenset(["hj1", "hj2"] + [f"{s}aj{i}" for s in "lr" for i in range(1, 5)]
                             + [f"{s}lj{i}" for s in "lr" for i in range(1, 8)])
PRESSURE_PERCEPTORS = frozenset({"lf", "rf", "lf1", "rf1"})
LANDMARKS = frozenset({"F1L", "F2L", "F1R", "F2R", "G1L", "G2L", "G1R", "G2R"})
BODY_PARTS = frozenset({"head", "rlowerarm", "llowerarm", "rfoot", "lfoot"})
_NUMBER = re.compile(r"-?\d+\.\d\d\Z")
_MAX_MESSAGE = 1 << 20


class ProtocolError(errors.Error, ValueError):
    """A message that the original server would not send."""


@dataclass
class Seen:
    """A ``See`` perceptor: polar coordinates (distance m, horizontal and vertical angle degrees)."""

    landmarks: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    ball: tuple[float, float, float] | None = None
    players: list[tuple[str, int, dict[str, tuple[float, float, float]]]] = field(default_factory=list)
    lines: list[tuple[tuple[float, float, float], tuple[float, float, float]]] = field(default_factory=list)


@dataclass
class Perception:
    """One perceptor message. ``unum``/``side`` are set only in the message that tells them."""

    time: float = 0.0
    game_time: float = 0.0
    play_mode: str = ""
    score: tuple[int, int] = (0, 0)
    unum: int | None = None
    side: str | None = None
    gyro: tuple[float, float, float] = (0.0, 0.0, 0.0)
    acceleration: tuple[float, float, float] = (0.0, 0.0, 0.0)
    joints: dict[str, float] = field(default_factory=dict)
    pressures: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = field(default_factory=dict)
    seen: Seen | None = None
    heard: list[tuple[str, float, float | None, str]] = field(default_factory=list)


def _num(atom) -> float:
    if not isinstance(atom, str) or not _NUMBER.match(atom):
        raise ProtocolError(f"{atom!r} is not a number written with two decimals")
    return float(atom)


def _fields(items: list, names: set[str]) -> dict[str, list]:
    out = {}
    for item in items:
        if not (isinstance(item, list) and item and item[0] in names):
            raise ProtocolError(f"unexpected {item!r}; expected one of {sorted(names)}")
        out[item[0]] = item[1:]
    return out


def _triple(values: list) -> tuple[float, float, float]:
    if len(values) != 3:
        raise ProtocolError(f"three numbers expected, not {values!r}")
    return (_num(values[0]), _num(values[1]), _num(values[2]))


def _pol(item) -> tuple[float, float, float]:
    if not (isinstance(item, list) and item and item[0] == "pol"):
        raise ProtocolError(f"(pol d h v) expected, not {item!r}")
    return _triple(item[1:])


def parse_perceptors(text: str | bytes) -> Perception:
    """The :class:`Perception` of one perceptor message; :class:`ProtocolError` for anything the
    original would not send."""
    try:
        expressions = parse(text)
    except SexpError as e:
        raise ProtocolError(str(e)) from None
    p = Perception()
    for e in expressions:
        if not e or not isinstance(e[0], str):
            raise ProtocolError(f"a perceptor without a name: {e!r}")
        name, args = e[0], e[1:]
        if name == "time":
            p.time = _num(_fields(args, {"now"})["now"][0])
        elif name == "GS":
            f = _fields(args, {"unum", "team", "sl", "sr", "t", "pm"})
            if f.keys() - {"unum", "team"} != {"sl", "sr", "t", "pm"}:
                raise ProtocolError(f"GS without sl, sr, t or pm: {e!r}")
            if f["pm"][0] not in PLAY_MODES:
                raise ProtocolError(f"unknown play mode {f['pm'][0]!r}")
            p.play_mode, p.game_time = f["pm"][0], _num(f["t"][0])
            p.score = (int(f["sl"][0]), int(f["sr"][0]))
            if "unum" in f:
                p.unum = int(f["unum"][0])
                if not 1 <= p.unum <= 11 or f.get("team", [""])[0] not in ("left", "right"):
                    raise ProtocolError(f"GS with unum {p.unum} and team {f.get('team')}")
                p.side = f["team"][0]
        elif name == "GYR":
            p.gyro = _triple(_fields(args, {"n", "rt"})["rt"])
        elif name == "ACC":
            p.acceleration = _triple(_fields(args, {"n", "a"})["a"])
        elif name == "HJ":
            f = _fields(args, {"n", "ax"})
            if f["n"][0] not in JOINT_PERCEPTORS:
                raise ProtocolError(f"unknown joint {f['n'][0]!r}")
            p.joints[f["n"][0]] = _num(f["ax"][0])
        elif name == "FRP":
            f = _fields(args, {"n", "c", "f"})
            if f["n"][0] not in PRESSURE_PERCEPTORS:
                raise ProtocolError(f"unknown force resistance perceptor {f['n'][0]!r}")
            p.pressures[f["n"][0]] = (_triple(f["c"]), _triple(f["f"]))
        elif name == "hear":
            if len(args) != 4:
                raise ProtocolError(f"(hear TEAM TIME DIRECTION MESSAGE) expected: {e!r}")
            direction = None if args[2] == "self" else _num(args[2])
            p.heard.append((args[0], _num(args[1]), direction, args[3]))
        elif name == "See":
            p.seen = _see(args)
        else:
            raise ProtocolError(f"unknown perceptor {name!r}")
    return p


def _see(items: list) -> Seen:
    seen = Seen()
    for item in items:
        if not (isinstance(item, list) and item and isinstance(item[0], str)):
            raise ProtocolError(f"unexpected {item!r} in See")
        kind = item[0]
        if kind in LANDMARKS:
            seen.landmarks[kind] = _pol(item[1])
        elif kind == "B":
            seen.ball = _pol(item[1])
        elif kind == "L":
            if len(item) != 3:
                raise ProtocolError(f"a line has two ends: {item!r}")
            seen.lines.append((_pol(item[1]), _pol(item[2])))
        elif kind == "P":
            f = {x[0]: x[1:] for x in item[1:] if isinstance(x, list) and x}
            if "team" not in f or "id" not in f:
                raise ProtocolError(f"a player without team or id: {item!r}")
            unum = int(f["id"][0])
            if not 1 <= unum <= 11:
                raise ProtocolError(f"player id {unum} outside 1-11")
            parts = {}
            for part, value in f.items():
                if part in ("team", "id"):
                    continue
                if part not in BODY_PARTS:
                    raise ProtocolError(f"unknown body part {part!r}")
                parts[part] = _pol(value[0])
            seen.players.append((f["team"][0], unum, parts))
        else:
            raise ProtocolError(f"unknown object {kind!r} in See")
    return seen


_HJ = re.compile(r"\(HJ \(n (\w+)\) \(ax (-?[\d.]+)\)\)")
_GS = re.compile(r"\(GS (?:\(unum (\d+)\) \(team (\w+)\) )?\(sl (\d+)\) \(sr (\d+)\) \(t (-?[\d.]+)\) \(pm (\w+)\)\)")
_NOW = re.compile(r"\(time \(now (-?[\d.]+)\)\)")


def quick_perceptors(text: str) -> Perception:
    """Only time, game state and joint angles of a perceptor message, read with regular
    expressions: about twenty times faster than :func:`parse_perceptors` and not a check of the
    format (for agents that need no more, such as the sample agent)."""
    p = Perception()
    now = _NOW.search(text)
    if now:
        p.time = float(now.group(1))
    gs = _GS.search(text)
    if gs:
        unum, side, sl, sr, t, pm = gs.groups()
        p.score, p.game_time, p.play_mode = (int(sl), int(sr)), float(t), pm
        if unum is not None:
            p.unum, p.side = int(unum), side
    p.joints = {name: float(angle) for name, angle in _HJ.findall(text)}
    return p


class AgentClient:
    """A connection to a SimSpark agent port. Raises OSError when the server cannot be reached or
    goes away, :class:`ProtocolError` for a message the original would not send."""

    def __init__(self, host: str = "127.0.0.1", port: int = 3100, timeout: float = 30.0):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def __enter__(self) -> AgentClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection."""
        self.sock.close()

    def send(self, text: str) -> None:
        """Send one message of effectors, e.g. ``"(he1 0.5)(syn)"``."""
        payload = text.encode("ascii")
        self.sock.sendall(struct.pack(">I", len(payload)) + payload)

    def _exactly(self, n: int) -> bytes:
        data = bytearray()
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("the server closed the connection")
            data += chunk
        return bytes(data)

    def receive_text(self) -> str:
        """The next message as text."""
        (length,) = struct.unpack(">I", self._exactly(4))
        if length > _MAX_MESSAGE:
            raise ProtocolError(f"a message of {length} bytes announced")
        return self._exactly(length).decode("ascii")

    def receive(self, strict: bool = True) -> Perception:
        """The next perceptor message, parsed strictly (:func:`parse_perceptors`) or quickly
        (:func:`quick_perceptors`)."""
        text = self.receive_text()
        return parse_perceptors(text) if strict else quick_perceptors(text)

    def scene(self, robot_type: int = 0) -> None:
        """Ask for a robot of ``robot_type`` (0-4)."""
        self.send(f"(scene rsg/agent/nao/nao_hetero.rsg {robot_type})")

    def init(self, unum: int, team: str) -> None:
        """Join ``team`` as number ``unum`` (0: the next free one)."""
        self.send(f"(init (unum {unum})(teamname {team}))")

    def beam(self, x: float, y: float, direction: float) -> None:
        """Put the robot at (x, y) m of its own half facing ``direction`` degrees (before kick-off)."""
        self.send(f"(beam {x:.4f} {y:.4f} {direction:.4f})")

    def act(self, velocities: dict[str, float], say: str | None = None, syn: bool = False) -> None:
        """Joint velocities (rad/s, by effector name), an optional message to say, and ``(syn)``."""
        text = "".join(f"({name} {v:.4f})" for name, v in velocities.items())
        if say:
            text += f"(say {say})"
        if syn:
            text += "(syn)"
        self.send(text)
