"""The middleware's wire protocol: JSON objects over TCP, one per line.

Framing: every message is one JSON object (UTF-8) followed by ``\\n``; a line is at most
:data:`MAX_LINE` bytes. Newline framing was chosen over the RefBox's NUL bytes because every language
reads a line with its standard library (``std::getline``, ``readline``). The JSON Schema of every
message is ``schema.json`` beside this file (generated from these types; a test keeps it in step).

Field names follow the MSL world-state format (``../shared/specs/msl.md``): ``robots`` with ``id``,
``pose`` ``[x, y, θ]``, ``velocity`` ``[ẋ, ẏ, θ̇]``, ``ballEngaged``; ``balls`` with ``position``
``[x, y, z]`` and ``velocity`` ``[ẋ, ẏ, ż]``. Units as thesis 3.1: metres, radians, seconds; the
middleware sends positions and velocities with 3 decimals and angles with 4.

Team -> middleware: :class:`Hello`, :class:`State`, :class:`Request`.
Middleware -> team: :class:`Start`, :class:`Reply`, :class:`Error`.
Pauser -> middleware: :class:`PauserHello`, :class:`Report`.
Middleware -> pauser: :class:`Command`, :class:`Error`.

Every decoder raises :class:`ProtocolError` (and nothing else) with a message a person can act on.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

import msgspec

#: Longest line accepted, in bytes (a state of 16 robots is about 2 KiB).
MAX_LINE = 64 * 1024
#: Most robots in one state (five players plus substitutes, with room to spare).
MAX_ROBOTS = 16

Side = Literal["cyan", "magenta"]
SIDES: tuple[str, str] = ("cyan", "magenta")

Coord = Annotated[float, msgspec.Meta(ge=-1e4, le=1e4)]
Vec3 = tuple[Coord, Coord, Coord]
SimTime = Annotated[float, msgspec.Meta(ge=0, le=1e9, description="simulation time, s")]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]


class ProtocolError(ValueError):
    """A line that is not a valid message of this protocol; the text says what is wrong."""


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
    """First line of a team: its name and its side (one connection per side)."""

    teamName: Name
    side: Side


class State(msgspec.Struct, tag="state", tag_field="type", frozen=True):
    """A team's own robots and own ball at simulation time ``t`` (s), in the team's own frame."""

    t: SimTime
    robots: Annotated[list[Robot], msgspec.Meta(max_length=MAX_ROBOTS)]
    balls: Annotated[list[Ball], msgspec.Meta(min_length=1, max_length=1)]


class Request(msgspec.Struct, tag="request", tag_field="type", frozen=True):
    """Ask for the opponent and the ball at the asking time ``t`` (the asker's simulation time, s)."""

    t: SimTime


class Start(msgspec.Struct, tag="start", tag_field="type", frozen=True):
    """Both teams are connected: the match runs. Sent again to a team that reconnects."""

    side: Side
    opponent: str


class Reply(msgspec.Struct, tag="reply", tag_field="type", frozen=True):
    """The opponent's robots and the chosen ball at ``t``, in the asking team's frame.

    ``estimate`` says how they were obtained from the buffers: ``exact`` (a stored time),
    ``interpolated``, ``extrapolated`` or ``held`` (only one state stored). ``ballFrom`` names the
    side whose ball was chosen (thesis 4.1.2).
    """

    t: float
    robots: list[Robot]
    balls: list[Ball]
    ballFrom: Side
    estimate: Literal["exact", "interpolated", "extrapolated", "held"]


class Error(msgspec.Struct, tag="error", tag_field="type", frozen=True):
    """What was wrong with the sender's last message of type ``inReplyTo`` ('' if it had none)."""

    message: str
    inReplyTo: str = ""


class PauserHello(msgspec.Struct, tag="pauser_hello", tag_field="type", frozen=True):
    """First line of a pauser: the side whose simulator it pauses, and how (for the log)."""

    side: Side
    backend: Name
    target: Name


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


TeamMessage = Union[Hello, State, Request]
ToTeam = Union[Start, Reply, Error]
PauserMessage = Union[PauserHello, Report]
ToPauser = Union[Command, Error]

_encoder = msgspec.json.Encoder()
_decoders = {kind: msgspec.json.Decoder(kind) for kind in (TeamMessage, ToTeam, PauserMessage, ToPauser)}


def encode(message: msgspec.Struct) -> bytes:
    """One message as a line: compact JSON and ``\\n``."""
    return _encoder.encode(message) + b"\n"


def _decode(kind, line: bytes):
    try:
        return _decoders[kind].decode(line)
    except msgspec.ValidationError as exc:
        raise ProtocolError(str(exc)) from None
    except msgspec.DecodeError as exc:
        raise ProtocolError(f"not a JSON object: {exc}") from None


def decode_team(line: bytes) -> Hello | State | Request:
    """Parse one line from a team. Raises :class:`ProtocolError` naming the field and the problem."""
    return _decode(TeamMessage, line)


def decode_to_team(line: bytes) -> Start | Reply | Error:
    """Parse one line the middleware sent to a team (used by the team client)."""
    return _decode(ToTeam, line)


def decode_pauser(line: bytes) -> PauserHello | Report:
    """Parse one line from a pauser."""
    return _decode(PauserMessage, line)


def decode_to_pauser(line: bytes) -> Command | Error:
    """Parse one line the middleware sent to a pauser (used by the pauser)."""
    return _decode(ToPauser, line)


def schema() -> dict:
    """The JSON Schema of every message of the protocol (what ``schema.json`` holds)."""
    every = Union[Hello, State, Request, Start, Reply, Error, PauserHello, Command, Report]
    doc = msgspec.json.schema(every)
    doc["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    doc["title"] = "simleague MSL middleware protocol (JSON lines over TCP)"
    return doc


class LineSplitter:
    """Cut a TCP byte stream into lines of at most ``limit`` bytes.

    ``feed(data)`` returns the complete lines (without ``\\n``) and, for each line longer than the
    limit, ``None`` in its place: such a line is skipped up to its ``\\n`` without being kept, so a
    100 MB line costs no memory. ``\\r`` before ``\\n`` is stripped.
    """

    def __init__(self, limit: int = MAX_LINE):
        self.limit = limit
        self._buf = bytearray()
        self._skipping = False

    def feed(self, data: bytes) -> list[bytes | None]:
        out: list[bytes | None] = []
        start = 0
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                break
            if self._skipping:
                self._skipping = False
                out.append(None)
            elif len(self._buf) + end - start > self.limit:
                self._buf.clear()
                out.append(None)
            else:
                line = bytes(self._buf) + data[start:end] if self._buf else data[start:end]
                self._buf.clear()
                out.append(line.rstrip(b"\r"))
            start = end + 1
        rest = data[start:]
        if not self._skipping:
            if len(self._buf) + len(rest) > self.limit:
                self._buf.clear()
                self._skipping = True
            else:
                self._buf += rest
        return out
