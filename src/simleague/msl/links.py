"""The middleware's connections: a team's or a pauser's :class:`Link` (what it is sent, bounded
for a peer that stops reading) and :class:`Lines`, the messages read from a stream a batch at a
time."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

import msgspec

from ..wire.limits import SlowReader, Verdict
from .messages import MessageSplitter, encode

#: Messages of one team waiting to be handled; beyond this the middleware stops reading its socket.
QUEUE_MAX = 256
#: Bytes the middleware lets pile up unread on a connection before dropping it.
MAX_UNREAD_OUT = 1 << 20
#: Bytes read from a socket at a time.
READ_CHUNK = 64 * 1024


@dataclass
class Link:
    """One connected team or pauser; ``end`` is the terminator it speaks (newline or NUL)."""

    side: str
    name: str
    writer: asyncio.StreamWriter
    end: bytes = b"\n"
    address: str = ""
    heard: float = field(default_factory=time.monotonic)
    queue: asyncio.Queue = field(default_factory=lambda: asyncio.Queue(QUEUE_MAX))
    told_no_t: bool = False
    reader: SlowReader = field(default_factory=lambda: SlowReader(MAX_UNREAD_OUT))

    def send(self, message: msgspec.Struct) -> int:
        """Queue a message; its size in bytes, or 0 (and the connection closed) if the peer stopped
        reading."""
        if self.writer.is_closing():
            return 0
        if self.reader.verdict(self.writer.transport.get_write_buffer_size()) is not Verdict.SEND:
            self.writer.close()
            return 0
        data = encode(message, self.end)
        self.writer.write(data)
        return len(data)


class Lines:
    """Messages from a TCP stream, a batch (everything one read brought) at a time; None stands for
    an oversized message. ``first()`` takes one and keeps the rest of its batch for ``batch()``."""

    def __init__(self, reader: asyncio.StreamReader):
        self.reader = reader
        self.splitter = MessageSplitter()
        self.kept: list = []

    async def batch(self) -> list | None:
        """The next messages, or None once the peer closed."""
        if self.kept:
            out, self.kept = self.kept, []
            return out
        while True:
            try:
                data = await self.reader.read(READ_CHUNK)
            except (ConnectionError, OSError):
                return None
            if not data:
                return None
            lines = self.splitter.feed(data)
            if lines:
                return lines

    async def first(self):
        """The first message; raises EOFError if the peer closed before sending one."""
        lines = await self.batch()
        if lines is None:
            raise EOFError
        self.kept = lines[1:]
        return lines[0]
