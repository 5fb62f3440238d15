"""The bridge between the middleware and an MSL RefBox (RefBox2015, ``../shared/specs/msl.md``).

Design: the middleware connects to the RefBox *as each team would* (one TCP connection per side),
and the teams get the RefBox's commands through their middleware connection, stamped with the
simulation time at which both carry them out (:class:`~simleague.msl.messages.Referee`). Only the
middleware knows both teams' simulation times, so only it can give a command the same simulation
time for both; a RefBox port offered to each team's own RefBox client would deliver in wall time,
which a paused or slower simulator sees late (the trap the spec names). The command object keeps
the RefBox's fields, so a team's RefBox handler reads it unchanged.

The RefBox names a team by the multicast address of the /24 it connects from. Two teams from one
machine share a row of ``msl_teams.json`` and are told apart only by a ``:1`` suffix, so each side's
connection can be made from its own source address (``127.0.1.1`` and ``127.0.2.1`` are both
loopback on Linux) with a row for each in the RefBox's ``msl_teams.json``; the addresses those rows
give are the ``addresses`` here.

Every command reaches every connection (the RefBox broadcasts); the bridge takes them from the
first side's connection while it is up, else from the other, so each command counts once. Each
team's world state goes to the RefBox over that team's connection, the newest at most every
``period`` s (the league asks for at least 10 Hz), unchanged when the team sent the RefBox's own
``worldstate``, converted from its ``state`` otherwise. A closed connection (the RefBox's RESET
closes both) is made again every ``retry`` s.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

import msgspec

from ..wire.limits import SlowReader, Verdict
from .messages import SIDES, MessageSplitter, State
from .referee import COMMANDS, Call, RefboxCommand

log = logging.getLogger("simleague.msl.refbox")

#: Bytes of world states that may wait unread by the RefBox before newer ones are skipped.
UNREAD_WORLD_STATES = 1 << 20

_decoder = msgspec.json.Decoder(RefboxCommand)
_encoder = msgspec.json.Encoder()


def parse_command(data: bytes, addresses: dict[str, str]) -> tuple[Call, RefboxCommand]:
    """One RefBox message (without its NUL) -> (the :class:`Call` with the side its ``targetTeam``
    names, the message). ``addresses`` maps side -> the RefBox's address for it; a ``targetTeam``
    that names neither gives side None. Raises ValueError naming the problem."""
    try:
        message = _decoder.decode(data)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise ValueError(f"not a RefBox command: {exc}") from None
    if message.command not in COMMANDS:
        raise ValueError(f"unknown RefBox command {message.command!r}")
    side = next((s for s, a in addresses.items() if a == message.targetTeam), None) if message.targetTeam else None
    return Call(message.command, side, message.robotID), message


def worldstate(team: str, state: State) -> bytes:
    """A team's :class:`State` as the RefBox's world state (JSON, no NUL): robots with their pose
    as target pose, battery 100, the ball with confidence 1, no obstacles."""
    robots = [{"id": r.id, "pose": list(r.pose), "targetPose": list(r.pose), "velocity": list(r.velocity),
               "intention": "", "batteryLevel": 100.0, "ballEngaged": r.ballEngaged} for r in state.robots]
    balls = [{"position": list(b.position), "velocity": list(b.velocity), "confidence": b.confidence}
             for b in state.balls]
    return _encoder.encode({"type": "worldstate", "teamName": team, "intention": "", "robots": robots,
                            "balls": balls, "obstacles": [], "ageMs": state.ageMs})


class RefboxBridge:
    """Connections to the RefBox at ``host:port``, one per side.

    ``addresses``: side -> the ``targetTeam`` the RefBox uses for it; ``sources``: side -> the local
    address to connect from (None: any). ``on_command(call, message)`` is called for each command,
    once. ``events(kind, **fields)`` receives ``refbox_connected``, ``refbox_disconnected`` and
    ``refbox_error`` events for the log. :meth:`run` serves until cancelled.
    """

    def __init__(self, host: str, port: int, addresses: dict[str, str], sources: dict[str, str | None],
                 on_command: Callable[[Call, RefboxCommand], None], events: Callable[..., None],
                 period: float = 0.1, retry: float = 1.0):
        self.host, self.port = host, port
        self.addresses, self.sources = addresses, sources
        self.on_command, self.events = on_command, events
        self.period, self.retry = period, retry
        self.writers: dict[str, asyncio.StreamWriter] = {}
        # a RefBox that stops reading misses world states (each is superseded); never disconnected
        self._unread = {side: SlowReader(UNREAD_WORLD_STATES, patience=None) for side in SIDES}
        self.received = 0
        self._newest: dict[str, bytes | Callable[[], bytes]] = {}

    def forward(self, side: str, data: bytes | Callable[[], bytes]) -> None:
        """Keep ``data`` (a world state, JSON without NUL, or a function that makes it: only the
        newest is ever sent, at most every ``period``) as the newest of ``side`` for the RefBox."""
        self._newest[side] = data

    def _reader(self) -> str | None:
        return next((side for side in SIDES if side in self.writers), None)

    async def run(self) -> None:
        await asyncio.gather(*(self._side(side) for side in SIDES), self._forwarder())

    async def _side(self, side: str) -> None:
        source = self.sources.get(side)
        while True:
            try:
                reader, writer = await asyncio.open_connection(
                    self.host, self.port, local_addr=(source, 0) if source else None)
            except OSError as exc:
                self.events("refbox_error", side=side, message=f"cannot connect to {self.host}:{self.port}"
                            f"{f' from {source}' if source else ''}: {exc.strerror or exc}")
                await asyncio.sleep(self.retry)
                continue
            self.writers[side] = writer
            self.events("refbox_connected", side=side, refbox=f"{self.host}:{self.port}", source=source)
            splitter = MessageSplitter()
            try:
                while data := await reader.read(65536):
                    for raw in splitter.feed(data):
                        if side != self._reader():
                            continue                            # the other connection delivers it
                        if raw is None:
                            self.events("refbox_error", side=side, message="oversized RefBox message skipped")
                            continue
                        try:
                            call, message = parse_command(raw, self.addresses)
                        except ValueError as exc:
                            self.events("refbox_error", side=side, message=str(exc))
                            continue
                        self.received += 1
                        self.on_command(call, message)
            except (ConnectionError, OSError):
                pass
            finally:
                del self.writers[side]
                writer.close()
            self.events("refbox_disconnected", side=side)
            await asyncio.sleep(self.retry)

    async def _forwarder(self) -> None:
        while True:
            await asyncio.sleep(self.period)
            for side, data in list(self._newest.items()):
                writer = self.writers.get(side)
                if writer is None or writer.is_closing():
                    continue
                if self._unread[side].verdict(writer.transport.get_write_buffer_size()) is Verdict.SEND:
                    writer.write((data if isinstance(data, bytes) else data()) + b"\0")
            self._newest.clear()

    def close(self) -> None:
        for writer in self.writers.values():
            writer.close()
