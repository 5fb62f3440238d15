"""4-byte big-endian length-prefixed frames, as SimSpark's agent (3100) and monitor (3200) ports and
the humanoid API's robot ports use them (specs/simspark.md "Framing", specs/vhsc.md).

A frame's length is set by the client, so the decoder refuses a length above its limit before it
buffers anything: a 100 MB prefix is an error, not 100 MB of memory.
"""

from __future__ import annotations

import struct

from .. import errors

_PREFIX = struct.Struct(">I")


class FrameError(errors.Error, ValueError):
    """The stream cannot be cut into frames any more (a length over the limit); the connection
    should be closed, since where the next frame starts is unknown."""


def encode(payload: bytes) -> bytes:
    """``payload`` with its 4-byte big-endian length in front; ValueError over 4 GiB - 1."""
    if len(payload) > 0xFFFFFFFF:
        raise ValueError(f"a frame holds at most 4 GiB - 1, not {len(payload)} bytes")
    return _PREFIX.pack(len(payload)) + payload


class FrameDecoder:
    """Cuts a byte stream into frames. ``FrameDecoder(max_frame)``: the longest payload accepted, in
    bytes. :meth:`feed` takes whatever arrived and returns the frames it completed; at most
    ``max_frame + 3`` bytes wait in between."""

    def __init__(self, max_frame: int):
        if max_frame < 0:
            raise ValueError(f"max_frame must be 0 or more, not {max_frame}")
        self.max_frame = max_frame
        self._buffer = bytearray()
        self._broken: FrameError | None = None

    def feed(self, data: bytes) -> list[bytes]:
        """The frames completed by ``data`` (payloads, in order). When a length prefix exceeds
        ``max_frame``, the frames completed before it are still returned and :attr:`error` is set;
        this call raises :class:`FrameError` if there were none, and every later call does."""
        if self._broken is not None:
            raise self._broken
        self._buffer += data
        frames = []
        while len(self._buffer) >= 4:
            (length,) = _PREFIX.unpack_from(self._buffer)
            if length > self.max_frame:
                self._buffer.clear()
                self._broken = FrameError(f"a frame of {length} bytes announced; the limit is {self.max_frame}")
                if not frames:
                    raise self._broken
                break
            if len(self._buffer) < 4 + length:
                break
            frames.append(bytes(self._buffer[4:4 + length]))
            del self._buffer[:4 + length]
        return frames

    @property
    def error(self) -> FrameError | None:
        """Why the stream cannot be cut into frames any more (None while it can)."""
        return self._broken

    @property
    def pending(self) -> int:
        """Bytes received that do not make a whole frame yet."""
        return len(self._buffer)
