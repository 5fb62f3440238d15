"""Run logs: one JSON object per line (JSON Lines), gzip-compressed when the name ends in ``.gz``.

The first line is a header (``{"kind": "header", "format": ..., "version": 1, ...}``), then one
``{"kind": "cycle", ...}`` line per simulation step, then an optional ``{"kind": "result", ...}``.
Nothing in a log depends on the wall clock, so two identical runs write identical logs.
"""

from __future__ import annotations

import gzip
import logging
import io
import json
import zlib
from pathlib import Path

from . import errors
from .wire.json_text import JsonTextError, parse_json

FORMAT_VERSION = 1


log = logging.getLogger("simleague.recorder")
FLUSH_EVERY = 25                 # records between two pushes to the file (25 Hz logs: one a second)


class LogError(errors.Error):
    """A log that cannot be read: names the file, the line and the problem."""


def open_log(path: str | Path, mode: str, binary: bool = False):
    """A log file opened for reading (``mode`` "r") or writing ("w"), gzip-compressed when the
    name ends in ``.gz``; text in UTF-8 unless ``binary``. Raises OSError."""
    path = Path(path)
    if path.suffix == ".gz":
        raw = gzip.open(path, mode + "b")
        return raw if binary else io.TextIOWrapper(raw, encoding="utf-8")
    return open(path, mode + "b") if binary else open(path, mode, encoding="utf-8")


class Recorder:
    """Writes a run log. ``Recorder(path, header_dict)``; use :meth:`cycle` and :meth:`close`.

    ``header`` must be JSON-serialisable; ``format`` names the competition log format.
    Raises OSError when the file cannot be written.
    """

    def __init__(self, path: str | Path, fmt: str, header: dict):
        self.path = Path(path)
        self._file = open_log(self.path, "w")
        self._records = 0
        self._write({"kind": "header", "format": fmt, "version": FORMAT_VERSION, **header})

    def _write(self, obj: dict) -> None:
        self._file.write(json.dumps(obj, separators=(",", ":"), sort_keys=True) + "\n")

    def cycle(self, record: dict) -> None:
        """Append one step's record; about once a second (FLUSH_EVERY records) what was written
        is pushed to the file, so a writer killed outright leaves a readable log up to there."""
        self._write({"kind": "cycle", **record})
        self._records += 1
        if self._records % FLUSH_EVERY == 0:
            self._file.flush()

    def result(self, record: dict) -> None:
        """Append the final result."""
        self._write({"kind": "result", **record})

    def close(self) -> None:
        """Finish the log (the gzip stream's end is written here)."""
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def read_log(path: str | Path, fmt: str | None = None,
             notes: list[str] | None = None) -> tuple[dict, list[dict], dict | None]:
    """Read a log back: (header, cycle records, result or None). A log whose writer was killed
    (a gzip stream without its end, a last line cut off) gives what it holds, and a line saying
    where it stops is logged as a warning (and added to ``notes``). Raises :class:`LogError`."""
    path = Path(path)
    header, cycles, result = None, [], None
    n = 0
    try:
        with open_log(path, "r") as f:
            for n, line in enumerate(f, 1):
                if not line.endswith("\n") and header is not None:     # cut off mid-line by a kill
                    raise EOFError("the last line is incomplete")
                try:
                    obj = parse_json(line, f"{path}:{n}")
                except JsonTextError as exc:
                    raise LogError(f"{exc} (not a JSON line)") from None
                kind = obj.get("kind") if isinstance(obj, dict) else None
                if n == 1:
                    if kind != "header" or (fmt and obj.get("format") != fmt):
                        raise LogError(f"{path}:1: not a {fmt or 'simleague'} log header")
                    header = obj
                elif kind == "cycle":
                    cycles.append(obj)
                elif kind == "result":
                    result = obj
                else:
                    raise LogError(f"{path}:{n}: unknown record kind {kind!r}")
    except (EOFError, gzip.BadGzipFile, zlib.error, UnicodeDecodeError) as exc:
        if header is None:
            raise LogError(f"{path}: not a readable log ({exc})") from None
        note = (f"{path}: the log stops early after line {len(cycles) + 1} ({exc}); "
                f"reading the {len(cycles)} records before it")
        log.warning("%s", note)
        if notes is not None:
            notes.append(note)
    except OSError as exc:
        raise LogError(f"{path}: cannot read the log: {exc.strerror}") from None
    if header is None:
        raise LogError(f"{path}: the log is empty")
    return header, cycles, result
