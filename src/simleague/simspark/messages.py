"""What SimSpark agents send (TCP 3100), parsed once into typed effectors (specs/simspark.md,
"Agents"; seed 002).

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
