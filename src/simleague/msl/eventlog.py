"""The middleware's event log: JSON lines, one object per event, ``wall`` (unix seconds) and
``ev`` (the kind) first. Kinds are listed in :mod:`simleague.msl.middleware`."""

from __future__ import annotations

import time
from pathlib import Path

import msgspec

MAX_LOG_BYTES = 64 << 20        # of per-message events in the event log; then only the others


class EventLog:
    """The middleware's JSON-lines log (one object per line, ``wall`` and ``ev`` first). Per-message
    events are flushed at the end of each phase, every other event at once."""

    def __init__(self, path: Path | None, max_bytes: int = MAX_LOG_BYTES):
        self._file = open(path, "ab") if path else None
        self._enc = msgspec.json.Encoder()
        self.max_bytes, self.written, self.left_out = max_bytes, 0, 0

    def __call__(self, ev: str, **fields) -> None:
        if self._file:
            per_message = ev in ("in", "out")
            if per_message and self.written >= self.max_bytes:   # a bounded log: rare events only
                if not self.left_out:
                    self._write({"wall": round(time.time(), 6), "ev": "log_full", "bytes": self.written,
                                 "note": "per-message events (in, out) are no longer written"})
                self.left_out += 1
                return
            self._write({"wall": round(time.time(), 6), "ev": ev, **fields})
            if not per_message:  # rare events at once; per-message ones at the end of a phase
                self._file.flush()

    def _write(self, record: dict) -> None:
        line = self._enc.encode(record) + b"\n"
        self.written += len(line)
        self._file.write(line)

    def flush(self) -> None:
        if self._file:
            self._file.flush()

    def close(self) -> None:
        if self._file:
            if self.left_out:
                self._write({"wall": round(time.time(), 6), "ev": "log_full", "left_out": self.left_out})
            self._file.flush()
            self._file.close()
            self._file = None
