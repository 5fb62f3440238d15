"""The middleware's wire protocol: JSON objects over TCP.

Framing: every message is one JSON object (UTF-8) followed by ``\\n``, or, as the MSL RefBox frames
its messages, by a NUL byte (``../shared/specs/msl.md``, "RefBox (RefBox2015) protocol"). A
connection speaks the framing its first message (the hello) ends with, in both directions: a team
whose hello ends with NUL gets every message NUL-terminated. A newline ends a message only where the
JSON object is complete, so pretty-printed messages are read whole either way. A message is at most
:data:`MAX_LINE` bytes. The JSON Schema of every message is ``schema.json`` beside this file
(generated from these types; a test keeps it in step).

Field names follow the MSL world-state format: ``robots`` with ``id``, ``pose`` ``[x, y, θ]``,
``velocity`` ``[ẋ, ẏ, θ̇]``, ``ballEngaged``; ``balls`` with ``position`` ``[x, y, z]`` and ``velocity``
``[ẋ, ẏ, ż]``. Units as thesis 3.1: metres, radians, seconds; the middleware sends positions and
velocities with 3 decimals and angles with 4. Times ``t`` are the sender's simulation time in
seconds.

Team -> middleware: :class:`Hello`, :class:`State` or the RefBox's own :class:`WorldState`,
:class:`Request`, :class:`Subscribe`, :class:`Heartbeat`.
Middleware -> team: :class:`Start`, :class:`Reply`, :class:`Referee`, :class:`Opponent`,
:class:`End`, :class:`Heartbeat`, :class:`Error`.
Pauser -> middleware: :class:`PauserHello`, :class:`Report`.
Middleware -> pauser: :class:`Command`, :class:`Error`.

Every decoder raises :class:`ProtocolError` (and nothing else) with a message a person can act on.
"""

from __future__ import annotations

import inspect
from typing import Annotated, Literal, Optional, Union

import msgspec

from ..errors import MslProtocolError as ProtocolError

#: Longest message accepted, in bytes (a state of 16 robots is about 2 KiB).
MAX_LINE = 64 * 1024
#: Most robots in one state (five players plus substitutes, with room to spare).
MAX_ROBOTS = 16
#: Most balls and obstacles in one RefBox world state.
MAX_BALLS, MAX_OBSTACLES = 8, 64

Side = Literal["cyan", "magenta"]
SIDES: tuple[str, str] = ("cyan", "magenta")

Coord = Annotated[float, msgspec.Meta(ge=-1e4, le=1e4)]
Vec3 = tuple[Coord, Coord, Coord]
SimTime = Annotated[float, msgspec.Meta(ge=0, le=1e9, description="simulation time, s")]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
Text = Annotated[str, msgspec.Meta(max_length=256)]
MessageId = Annotated[int, msgspec.Meta(ge=0, le=2**53)]
AgeMs = Annotated[int, msgspec.Meta(ge=0, le=60_000, description="age of the information, ms")]
Maybe = Optional[Coord]


class Robot(msgspec.Struct, frozen=True):
    """One robot as in the MSL world state: pose [x, y, θ] (m, m, rad), velocity [ẋ, ẏ, θ̇]."""

    id: Annotated[int, msgspec.Meta(ge=0, le=255)]
    pose: Vec3
    velocity: Vec3
    ballEngaged: Literal[0, 1] = 0


class Ball(msgspec.Struct, frozen=True):
    """A ball as in the MSL world state: position [x, y, z] (m), velocity [ẋ, ẏ, ż] (m/s)."""

    position: Vec3
    velocity: Vec3
    confidence: Annotated[float, msgspec.Meta(ge=0, le=1)] = 1.0


class Hello(msgspec.Struct, tag="hello", tag_field="type", frozen=True):
    """First message of a team: its name, its side (one connection per side), the match's
    ``token`` for that side when the middleware was given one, and ``address``: the RefBox
    ``targetTeam`` its software answers to (its multicast address, e.g. ``224.16.32.201``), if it
    wants referee commands named with another address than the RefBox's."""

    teamName: Name
    side: Side
    token: Text = ""
    address: Annotated[str, msgspec.Meta(max_length=64)] = ""


class State(msgspec.Struct, tag="state", tag_field="type", frozen=True):
    """A team's own robots and own ball at simulation time ``t`` (s), in the team's own frame;
    ``ageMs``: how old the information was at ``t`` (it is stored at ``t - ageMs/1000``)."""

    t: SimTime
    robots: Annotated[list[Robot], msgspec.Meta(max_length=MAX_ROBOTS)]
    balls: Annotated[list[Ball], msgspec.Meta(min_length=1, max_length=1)]
    ageMs: AgeMs = 0


class WsRobot(msgspec.Struct, frozen=True):
    """A robot of the RefBox world state; items may be null, as the league's schema allows."""

    id: Annotated[int, msgspec.Meta(ge=0, le=255)]
    pose: Annotated[list[Maybe], msgspec.Meta(min_length=3, max_length=3)]
    velocity: Annotated[list[Maybe], msgspec.Meta(min_length=3, max_length=3)] = (0.0, 0.0, 0.0)
    targetPose: Optional[Annotated[list[Maybe], msgspec.Meta(max_length=3)]] = None
    intention: Optional[Text] = None
    batteryLevel: Optional[float] = None
    ballEngaged: Optional[Literal[0, 1]] = 0


class WsBall(msgspec.Struct, frozen=True):
    """A ball of the RefBox world state."""

    position: Annotated[list[Maybe], msgspec.Meta(min_length=3, max_length=3)]
    velocity: Annotated[list[Maybe], msgspec.Meta(min_length=3, max_length=3)] = (0.0, 0.0, 0.0)
    confidence: Optional[float] = None


class WsObstacle(msgspec.Struct, frozen=True):
    """An obstacle of the RefBox world state (kept for the RefBox, not used by the middleware)."""

    position: Annotated[list[Maybe], msgspec.Meta(max_length=2)]
    velocity: Optional[Annotated[list[Maybe], msgspec.Meta(max_length=2)]] = None
    radius: Optional[float] = None
    confidence: Optional[float] = None


class WorldState(msgspec.Struct, tag="worldstate", tag_field="type", frozen=True):
    """The world state a team sends the MSL RefBox (``../shared/specs/msl.md``, "World state team
    -> RefBox"), accepted as the team's state. It has no simulation time of its own, so the team
    adds ``t`` (s); without it the message is only passed on to the RefBox. The robots with a
    complete pose and the ball of highest confidence are stored; the message goes to the RefBox as
    the team sent it."""

    teamName: Text
    intention: Text
    robots: Annotated[list[WsRobot], msgspec.Meta(max_length=MAX_ROBOTS)]
    balls: Annotated[list[WsBall], msgspec.Meta(max_length=MAX_BALLS)]
    obstacles: Annotated[list[WsObstacle], msgspec.Meta(max_length=MAX_OBSTACLES)]
    ageMs: AgeMs
    t: Optional[SimTime] = None

    def to_state(self) -> "State | None":
        """The message as a :class:`State` at ``t``, or None when it has no ``t``, no ball or no
        robot with a whole pose (null velocities count as 0)."""
        if self.t is None:
            return None
        balls = [b for b in self.balls if None not in b.position]
        if not balls:
            return None
        ball = max(balls, key=lambda b: b.confidence if b.confidence is not None else 0.0)
        robots = [Robot(r.id, tuple(r.pose), tuple(v or 0.0 for v in r.velocity), r.ballEngaged or 0)
                  for r in self.robots if None not in r.pose]
        return State(self.t, robots, [Ball(tuple(ball.position), tuple(v or 0.0 for v in ball.velocity))],
                     self.ageMs)


class Request(msgspec.Struct, tag="request", tag_field="type", frozen=True, omit_defaults=True):
    """Ask for the opponent and the ball at the asking time ``t`` (the asker's simulation time, s).
    ``id`` (any integer the team chooses) comes back in the reply or the error, so several
    requests can be in flight. A request does not move the asker's clock: only its states do."""

    t: SimTime
    id: Optional[MessageId] = None


class Subscribe(msgspec.Struct, tag="subscribe", tag_field="type", frozen=True):
    """Ask for a :class:`Reply` every ``period`` seconds of the team's own simulation time, sent when
    one of its states reaches that time (no request needed); ``period`` 0 ends the subscription."""

    period: Annotated[float, msgspec.Meta(ge=0, le=10)]


class Heartbeat(msgspec.Struct, tag="heartbeat", tag_field="type", frozen=True):
    """"I am still here", both ways: the middleware sends one every ``heartbeat`` seconds of wall
    time (see :class:`Start`); a team that sends nothing at all for the timeout while it is not
    paused is taken as gone."""


class Start(msgspec.Struct, tag="start", tag_field="type", frozen=True):
    """Both teams are connected: the match runs. Sent again to a team that reconnects.
    ``heartbeat``: the middleware's heartbeat period and ``timeout`` the silence after which a team
    is dropped (wall seconds)."""

    side: Side
    opponent: str
    heartbeat: float = 1.0
    timeout: float = 5.0


class Reply(msgspec.Struct, tag="reply", tag_field="type", frozen=True, omit_defaults=True):
    """The opponent's robots and the chosen ball at ``t``, in the asking team's frame.

    ``estimate`` says how they were obtained from the buffers: ``exact`` (a stored time),
    ``interpolated``, ``extrapolated``, ``horizon`` (``t`` is further ahead of the newest state
    than the extrapolation horizon: extrapolated to the horizon only) or ``held`` (only one state
    stored). ``ballFrom`` names the side whose ball was chosen (thesis 4.1.2), as decided at ``t``.
    ``id`` is the request's; a subscription's replies have none.
    """

    t: float
    robots: list[Robot]
    balls: list[Ball]
    ballFrom: Side
    estimate: Literal["exact", "interpolated", "extrapolated", "horizon", "held"]
    id: Optional[int] = None


class Referee(msgspec.Struct, tag="referee", tag_field="type", frozen=True, omit_defaults=True):
    """A referee command, to be carried out when the team's simulation time reaches ``t`` (s).
    Both teams get every command with the same ``t``. ``command``, ``targetTeam`` and ``robotID``
    are the RefBox's own fields (``../shared/specs/msl.md``), so a team's RefBox handler reads
    them unchanged; ``targetTeam`` is the address the team answers to for its own set pieces, or
    ``""`` for both teams. ``target`` says the same plainly: ``us``, ``them`` or ``both``.
    ``seq`` counts the commands of the match from 1."""

    seq: int
    t: float
    command: str
    targetTeam: str
    target: Literal["us", "them", "both"]
    robotID: Optional[int] = None


class Opponent(msgspec.Struct, tag="opponent", tag_field="type", frozen=True):
    """The opponent left (``present`` false: it disconnected, or sent nothing for the timeout) or
    came back; ``reason`` says which."""

    present: bool
    reason: str


class End(msgspec.Struct, tag="end", tag_field="type", frozen=True):
    """The match is over (the referee ended it, or the middleware stops): nothing will be paused
    any more. ``score`` is [ours, theirs] as the referee counted, ``reason`` says why it ended."""

    reason: str
    score: tuple[int, int] = (0, 0)


class Error(msgspec.Struct, tag="error", tag_field="type", frozen=True, omit_defaults=True):
    """What was wrong with the sender's last message of type ``inReplyTo`` ('' if it had none);
    ``id`` is the request's id when the message was a request that had one."""

    message: str
    inReplyTo: str = ""
    id: Optional[int] = None


class PauserHello(msgspec.Struct, tag="pauser_hello", tag_field="type", frozen=True):
    """First line of a pauser: the side whose simulator it pauses, and how (for the log);
    ``token`` as in :class:`Hello`."""

    side: Side
    backend: Name
    target: Name
    token: Text = ""


class Command(msgspec.Struct, tag="command", tag_field="type", frozen=True):
    """Middleware -> pauser: pause or resume the simulator; ``t1``/``t2`` are the times that caused it."""

    seq: int
    action: Literal["pause", "resume"]
    reason: str
    t1: float | None = None
    t2: float | None = None


class Report(msgspec.Struct, tag="report", tag_field="type", frozen=True):
    """Pauser -> middleware: what it did for command ``seq`` and the state it then observed."""

    seq: Annotated[int, msgspec.Meta(ge=0)]
    action: Literal["pause", "resume"]
    ok: bool
    state: Annotated[str, msgspec.Meta(max_length=64)]
    ms: Annotated[float, msgspec.Meta(ge=0, le=1e7, description="time the action took, ms")]
    detail: Annotated[str, msgspec.Meta(max_length=512)] = ""


TeamMessage = Union[Hello, State, WorldState, Request, Subscribe, Heartbeat]
ToTeam = Union[Start, Reply, Referee, Opponent, End, Heartbeat, Error]
PauserMessage = Union[PauserHello, Report]
ToPauser = Union[Command, Error]

_encoder = msgspec.json.Encoder()
_decoders = {kind: msgspec.json.Decoder(kind) for kind in (TeamMessage, ToTeam, PauserMessage, ToPauser)}


def encode(message: msgspec.Struct, end: bytes = b"\n") -> bytes:
    """One message as compact JSON and its terminator ``end`` (``\\n``, or ``\\0`` for a
    connection that speaks the RefBox's framing)."""
    return _encoder.encode(message) + end


def _decode(kind, line: bytes):
    try:
        return _decoders[kind].decode(line)
    except msgspec.ValidationError as exc:
        raise ProtocolError(str(exc)) from None
    except msgspec.DecodeError as exc:
        raise ProtocolError(f"not a JSON object: {exc}") from None


def decode_team(line: bytes) -> Hello | State | WorldState | Request | Subscribe | Heartbeat:
    """Parse one line from a team. Raises :class:`ProtocolError` naming the field and the problem."""
    return _decode(TeamMessage, line)


def decode_to_team(line: bytes) -> Start | Reply | Referee | Opponent | End | Heartbeat | Error:
    """Parse one line the middleware sent to a team (used by the team client)."""
    return _decode(ToTeam, line)


def decode_pauser(line: bytes) -> PauserHello | Report:
    """Parse one line from a pauser."""
    return _decode(PauserMessage, line)


def decode_to_pauser(line: bytes) -> Command | Error:
    """Parse one line the middleware sent to a pauser (used by the pauser)."""
    return _decode(ToPauser, line)


def schema() -> dict:
    """The JSON Schema of every message of the protocol (what ``schema.json`` holds). The messages'
    descriptions are their docstrings without the source's indentation (msgspec 0.23 strips it,
    earlier versions did not: the schema is the same with either)."""
    every = Union[Hello, State, WorldState, Request, Subscribe, Heartbeat, Start, Reply, Referee, Opponent, End,
                  Error, PauserHello, Command, Report]
    doc = msgspec.json.schema(every)
    for definition in doc["$defs"].values():
        if "description" in definition:
            definition["description"] = inspect.cleandoc(definition["description"])
    doc["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    doc["title"] = "simleague MSL middleware protocol (JSON messages over TCP, newline- or NUL-terminated)"
    return doc


def _incomplete(candidate: bytes) -> bool:
    """Whether text that ends at a newline is the first part of a JSON object written over several
    lines (pretty-printed), which the newline does not end: JSON that stops short, as opposed to
    JSON that is whole or broken."""
    text = candidate.strip()
    if not text.startswith(b"{"):
        return False                                     # not JSON at all: a message, refused as such
    if text.endswith(b"}") and b"\n" not in text:
        return False                                     # one line, braces at both ends: a whole object
    try:
        msgspec.json.decode(text)
    except msgspec.DecodeError as exc:
        return "truncated" in str(exc)
    return False


class MessageSplitter:
    """Cut a TCP byte stream into messages of at most ``limit`` bytes.

    A message ends at a NUL byte, or at a newline where the JSON object before it is complete (a
    pretty-printed object spans several lines). ``feed(data)`` returns the messages completed
    (without their terminator, blank ones left out) and, for each message longer than the limit,
    ``None`` in its place: such a message is skipped to its end without being kept, so a 100 MB
    message costs no memory. :attr:`terminator` is what ended the first message (``b"\\n"`` or
    ``b"\\0"``; None before), the framing a connection answers in.
    """

    def __init__(self, limit: int = MAX_LINE):
        self.limit = limit
        self.terminator: bytes | None = None
        self._buf = bytearray()
        self._skipping = False

    def _next_end(self, data: bytes, start: int) -> int:
        nl, nul = data.find(b"\n", start), data.find(b"\0", start)
        if nl < 0 or nul < 0:
            return max(nl, nul)
        return min(nl, nul)

    def feed(self, data: bytes) -> list[bytes | None]:
        """The messages ``data`` completes, in order (see the class docstring)."""
        out: list[bytes | None] = []
        start = scan = 0
        while (end := self._next_end(data, scan)) >= 0:
            scan = end + 1
            if self._skipping:                           # the terminator ends what is skipped
                self._skipping = False
                out.append(None)
                start = scan
                continue
            if len(self._buf) + end - start > self.limit:
                self._buf.clear()
                out.append(None)
                start = scan
                continue
            message = bytes(self._buf) + data[start:end] if self._buf else data[start:end]
            if data[end] == 10 and _incomplete(message):
                continue                                 # a newline inside a pretty-printed object
            self._buf.clear()
            start = scan
            message = message.strip()
            if message:
                if self.terminator is None:
                    self.terminator = data[end:end + 1]
                out.append(message)
        rest = data[start:]
        if not self._skipping:
            if len(self._buf) + len(rest) > self.limit:
                self._buf.clear()
                self._skipping = True
            else:
                self._buf += rest
        return out
