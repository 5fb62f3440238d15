"""What SimSpark agents (TCP 3100) and trainers (the monitor port, TCP 3200) send, parsed once into
typed effectors and trainer commands (specs/simspark.md, "Agents" and "Trainer commands"; seed 002).

A message may hold several effectors: ``(beam -14 0 0.0)(he1 0.5)(syn)``. Each is checked on its own:
:func:`parse_agent_message` returns the good ones and a line per bad one, so that a server can log
the bad ones and still apply the rest; a message that is not S-expressions at all gives only a
problem. Units: beam x, y in metres (the team's own frame), angle in degrees; joint velocities in
rad/s.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from ..soccer.rules import PlayMode, Team
from ..wire.sexp import Limits, SexpError, parse

#: the scene files an agent may ask for, and whether a robot type follows
SCENES = {"rsg/agent/nao/nao_hetero.rsg": True, "rsg/agent/nao/nao.rsg": False}
ROBOT_TYPES = range(5)
#: joint effectors of every Nao type; type 4 adds the toes (lle7, rle7)
JOINTS = ("he1", "he2", *(f"{s}ae{i}" for s in "lr" for i in range(1, 5)),
          *(f"{s}le{i}" for s in "lr" for i in range(1, 7)))
TOE_JOINTS = ("lle7", "rle7")
MAX_SAY = 20                                  # characters of a say message
MAX_TEAM_NAME = 16
#: an agent's message is small (every joint, a beam and a say: ~400 bytes)
AGENT_LIMITS = Limits(max_bytes=64 * 1024, max_depth=8, max_atoms=2000)


@dataclass(frozen=True)
class Scene:
    """``(scene rsg/agent/nao/nao_hetero.rsg T)``: build a robot of type ``robot_type`` (0-4)."""
    path: str
    robot_type: int


@dataclass(frozen=True)
class Init:
    """``(init (unum N)(teamname X))``: join team ``team`` with number ``unum`` (0: the next free)."""
    unum: int
    team: str


@dataclass(frozen=True)
class Beam:
    """``(beam x y deg)``: put the robot at (x, y) m, facing ``deg`` degrees, in its team's frame."""
    x: float
    y: float
    deg: float


@dataclass(frozen=True)
class Say:
    """``(say msg)``: at most 20 printable characters, no blank or parenthesis."""
    message: str


@dataclass(frozen=True)
class JointVelocity:
    """``(he1 v)`` and the like: the joint's target velocity, rad/s."""
    joint: str
    velocity: float


@dataclass(frozen=True)
class Syn:
    """``(syn)``: this agent is done with the cycle (sync mode)."""


@dataclass(frozen=True)
class Pass:
    """``(pass)``: ask for the pass mode."""


Effector = Scene | Init | Beam | Say | JointVelocity | Syn | Pass


@dataclass
class AgentMessage:
    """One message: the effectors understood, in order, and a line per effector that was not."""
    effectors: list[Effector] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


#: the message agents send every cycle: joint velocities and (syn), nothing else
_ROUTINE = re.compile(rb"(?:\s*\((?:(?:he[12]|[lr]ae[1-4]|[lr]le[1-7]) [-+0-9.eE]+|syn)\))+\s*")
_ROUTINE_PART = re.compile(rb"\((\w+)(?: ([^)]+))?\)")


def parse_agent_message(data: bytes, limits: Limits = AGENT_LIMITS) -> AgentMessage:
    """The effectors of one agent message (a frame's payload). Never raises for what a client
    sends: what cannot be understood is in :attr:`AgentMessage.problems`.

    The routine message of every cycle (joint velocities and ``(syn)`` only) is read by a regular
    expression, about five times faster than the general parser, with the same result."""
    if len(data) <= limits.max_bytes and _ROUTINE.fullmatch(data):
        routine = _routine(data)
        if routine is not None:
            return routine
    return parse_general(data, limits)


def parse_general(data: bytes, limits: Limits = AGENT_LIMITS) -> AgentMessage:
    """:func:`parse_agent_message` without the routine message's shortcut."""
    message = AgentMessage()
    try:
        expressions = parse(data, limits)
    except SexpError as e:
        message.problems.append(f"not an S-expression message: {e}")
        return message
    for expression in expressions:
        try:
            message.effectors.append(_effector(expression))
        except ValueError as e:
            message.problems.append(str(e))
    return message


def _routine(data: bytes) -> AgentMessage | None:
    """The routine message's effectors; None when a number is not finite (the general parser
    then words the problem)."""
    effectors: list[Effector] = []
    for name, value in _ROUTINE_PART.findall(data):
        if name == b"syn":
            effectors.append(Syn())
            continue
        try:
            v = float(value)
        except ValueError:
            return None
        if not math.isfinite(v):
            return None
        effectors.append(JointVelocity(name.decode(), v))
    return AgentMessage(effectors)


def _effector(e: list) -> Effector:
    head = e[0] if e and isinstance(e[0], str) else None
    args = e[1:]
    if head in JOINTS or head in TOE_JOINTS:
        (value,) = _numbers(head, args, 1)
        return JointVelocity(head, value)
    if head == "syn":
        _arity(head, args, 0)
        return Syn()
    if head == "beam":
        return Beam(*_numbers(head, args, 3))
    if head == "say":
        _arity(head, args, 1)
        text = args[0]
        if not isinstance(text, str) or len(text) > MAX_SAY:
            raise ValueError(f"say: a message of at most {MAX_SAY} characters without blanks or parentheses")
        return Say(text)
    if head == "scene":
        return _scene(args)
    if head == "init":
        return _init(args)
    if head == "pass":
        _arity(head, args, 0)
        return Pass()
    shown = head if head is not None else "(...)"
    raise ValueError(f"unknown effector {shown!r}")


def _arity(head: str, args: list, n: int) -> None:
    if len(args) != n:
        raise ValueError(f"{head}: {n} argument{'s' if n != 1 else ''} expected, {len(args)} given")


def _numbers(head: str, args: list, n: int) -> list[float]:
    _arity(head, args, n)
    values = []
    for a in args:
        try:
            v = float(a) if isinstance(a, str) else math.nan
        except ValueError:
            v = math.nan
        if not math.isfinite(v):
            raise ValueError(f"{head}: {a if isinstance(a, str) else '(...)'!r} is not a finite number")
        values.append(v)
    return values


def _scene(args: list) -> Scene:
    path = args[0] if args and isinstance(args[0], str) else None
    if path not in SCENES:
        raise ValueError(f"scene: unknown scene {path!r}; one of {', '.join(SCENES)}")
    if not SCENES[path]:
        _arity("scene", args, 1)
        return Scene(path, 0)
    _arity("scene", args, 2)
    if args[1] not in {str(t) for t in ROBOT_TYPES}:
        raise ValueError(f"scene: robot type {args[1]!r}; one of 0-4")
    return Scene(path, int(args[1]))


def _init(args: list) -> Init:
    fields = {}
    for a in args:
        if not (isinstance(a, list) and len(a) == 2 and all(isinstance(x, str) for x in a)):
            raise ValueError("init: (init (unum N)(teamname NAME)) expected")
        fields[a[0]] = a[1]
    if set(fields) != {"unum", "teamname"}:
        raise ValueError("init: (init (unum N)(teamname NAME)) expected")
    if fields["unum"] not in {str(n) for n in range(12)}:
        raise ValueError(f"init: unum {fields['unum']!r}; 0 (the next free) to 11")
    if len(fields["teamname"]) > MAX_TEAM_NAME:
        raise ValueError(f"init: a team name of at most {MAX_TEAM_NAME} characters")
    return Init(int(fields["unum"]), fields["teamname"])


# ------------------------------------------------------------------------------ trainer commands
#: a trainer's message (monitor port) is small: a few commands
TRAINER_LIMITS = Limits(max_bytes=64 * 1024, max_depth=8, max_atoms=1000)


@dataclass(frozen=True)
class Who:
    """A robot a trainer names: ``(unum N) (team Left|Right)``; ``team`` None when not given."""
    unum: int
    team: Team | None


@dataclass(frozen=True)
class MonitorHello:
    """``(init)``: what a monitor (rcssmonitor3d) sends when it connects; nothing to do."""


@dataclass(frozen=True)
class GetAck:
    """``(getAck TOKEN)``: answer ``(ack TOKEN)``."""
    token: str


@dataclass(frozen=True)
class RequestFullState:
    """``(reqfullstate)``: the next monitor message is a full one."""


@dataclass(frozen=True)
class SetPlayMode:
    """``(playMode NAME)``."""
    mode: PlayMode


@dataclass(frozen=True)
class KickOff:
    """``(kickOff Left|Right|None)``: ``side`` None is a coin toss."""
    side: Team | None


@dataclass(frozen=True)
class DropBall:
    """``(dropBall)``."""


@dataclass(frozen=True)
class MoveBall:
    """``(ball (pos x y z) (vel x y z))``: m and m/s; either part may be left out (None)."""
    position: tuple[float, float, float] | None
    velocity: tuple[float, float, float] | None


@dataclass(frozen=True)
class SetTime:
    """``(time T)``: the game time, s."""
    seconds: float


@dataclass(frozen=True)
class SetScore:
    """``(score (left N) (right N))``; either may be left out (None)."""
    left: int | None
    right: int | None


@dataclass(frozen=True)
class MoveAgent:
    """``(agent [(unum N) (team T)] (pos x y z) (move x y z deg) (battery B) (temperature T))``:
    ``who`` None means the selected robot; ``position`` (m) puts the torso there as it is,
    ``move`` (m, degrees) puts it there upright with the torso turned ``deg`` about z, so the robot
    faces ``deg + 90`` (the original's MoveAndRotateAgent); battery and temperature are accepted
    (the Nao model has neither)."""
    who: Who | None
    position: tuple[float, float, float] | None
    move: tuple[float, float, float, float] | None


@dataclass(frozen=True)
class SelectAgent:
    """``(select (unum N) (team T))``."""
    who: Who | None


@dataclass(frozen=True)
class KillAgent:
    """``(kill [(unum N) (team T)])``: take the robot off and close its connection."""
    who: Who | None


@dataclass(frozen=True)
class ReposAgent:
    """``(repos [(unum N) (team T)])``: put the robot back in front of its own goal."""
    who: Who | None


@dataclass(frozen=True)
class KillSim:
    """``(killsim)``: stop the simulator (only where the server allows it)."""


TrainerCommand = (MonitorHello | GetAck | RequestFullState | SetPlayMode | KickOff | DropBall | MoveBall
                  | SetTime | SetScore | MoveAgent | SelectAgent | KillAgent | ReposAgent | KillSim)


@dataclass
class TrainerMessage:
    """One trainer message: the commands understood, in order, and a line per one that was not."""
    commands: list[TrainerCommand] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def parse_trainer_message(data: bytes, limits: Limits = TRAINER_LIMITS) -> TrainerMessage:
    """The commands of one trainer message (seed 002 "Trainer commands"; specs/simspark.md). Never
    raises for what a client sends: what cannot be understood is in
    :attr:`TrainerMessage.problems`, a line each, as ``trainer: <command>: <why>``."""
    message = TrainerMessage()
    try:
        expressions = parse(data, limits)
    except SexpError as e:
        message.problems.append(f"trainer: not an S-expression message: {e}")
        return message
    for expression in expressions:
        try:
            message.commands.append(_trainer_command(expression))
        except ValueError as e:
            message.problems.append(f"trainer: {_show(expression)}: {e}")
    return message


def _trainer_command(c) -> TrainerCommand:
    if not isinstance(c, list) or not c or not isinstance(c[0], str):
        raise ValueError("a command starts with its name")
    name, args = c[0], c[1:]
    fields = {a[0]: a[1:] for a in args if isinstance(a, list) and a and isinstance(a[0], str)}
    simple = {"init": MonitorHello, "reqfullstate": RequestFullState, "dropBall": DropBall, "killsim": KillSim}
    if name in simple:
        return simple[name]()
    if name == "getAck":
        return GetAck(_atom(args, 0))
    if name == "playMode":
        return SetPlayMode(PlayMode.from_wire(_atom(args, 0)))
    if name == "kickOff":
        side = _atom(args, 0)
        if side not in ("Left", "Right", "None"):
            raise ValueError(f"kickOff {side}: Left, Right or None (a coin toss)")
        return KickOff({"Left": Team.LEFT, "Right": Team.RIGHT, "None": None}[side])
    if name == "ball":
        return MoveBall(_floats(fields["pos"], 3) if "pos" in fields else None,
                        _floats(fields["vel"], 3) if "vel" in fields else None)
    if name == "time":
        (seconds,) = _floats(args, 1)
        if seconds < 0:
            raise ValueError("time: not below 0")
        return SetTime(seconds)
    if name == "score":
        return SetScore(_count(fields["left"]) if "left" in fields else None,
                        _count(fields["right"]) if "right" in fields else None)
    who = _who(fields) if "unum" in fields else None
    if name == "agent":
        for key in ("battery", "temperature"):
            if key in fields:
                _floats(fields[key], 1)
        return MoveAgent(who, _floats(fields["pos"], 3) if "pos" in fields else None,
                         _floats(fields["move"], 4) if "move" in fields else None)
    if name in ("select", "kill", "repos"):
        return {"select": SelectAgent, "kill": KillAgent, "repos": ReposAgent}[name](who)
    raise ValueError("unknown command")


def _who(fields: dict) -> Who:
    side = _atom(fields["team"], 0).lower() if "team" in fields else ""
    return Who(_count(fields["unum"]), {"left": Team.LEFT, "right": Team.RIGHT}.get(side))


def _atom(args: list, i: int) -> str:
    if len(args) <= i or not isinstance(args[i], str):
        raise ValueError("a word expected")
    return args[i]


def _floats(args: list, n: int) -> tuple[float, ...]:
    if len(args) != n or not all(isinstance(a, str) for a in args):
        raise ValueError(f"{n} numbers expected")
    try:
        values = tuple(float(a) for a in args)
    except ValueError:
        raise ValueError(f"{n} numbers expected") from None
    if not all(math.isfinite(v) for v in values):
        raise ValueError("numbers must be finite")
    return values


def _count(args: list) -> int:
    try:
        value = int(_atom(args, 0))
    except ValueError:
        raise ValueError("a whole number expected") from None
    if value < 0:
        raise ValueError("not below 0")
    return value


def _show(command) -> str:
    text = str(command)
    return text if len(text) < 60 else text[:57] + "..."
