"""Text and JSON from files and clients, read with every failure as one error a person can act
on: a file over its size limit, unreadable or not UTF-8 (:func:`read_text`, :class:`TextFileError`);
broken JSON syntax (line and column), nesting deeper than the reader can follow, and numbers with
more digits than Python converts (its 4300-digit limit) (:func:`parse_json`, :class:`JsonTextError`)
instead of ``RecursionError`` or a bare ``ValueError``.
"""

from __future__ import annotations

import json
from pathlib import Path

from .. import errors


class TextFileError(errors.Error, ValueError):
    """A file that cannot be read as text; ``str()`` names the file and why."""


def read_text(path: Path, what: str, max_bytes: int) -> str:
    """The UTF-8 text of ``path`` (``what`` it is, e.g. "a PROTO file", for the message), at most
    ``max_bytes`` bytes. Raises :class:`TextFileError`."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise TextFileError(f"{path}: {size} bytes; {what} is at most {max_bytes}")
        return path.read_text(encoding="utf-8")
    except OSError as e:
        raise TextFileError(f"{path}: cannot read it: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise TextFileError(f"{path}: not UTF-8 text (byte {e.start})") from None


class JsonTextError(errors.Error, ValueError):
    """Text that is not usable JSON; ``str()`` says where and why, after the given source."""


def parse_json(text: str | bytes, source: str) -> object:
    """The value of JSON ``text``; ``source`` (a file name, "line 3 of x.log") starts every
    message. Raises :class:`JsonTextError`."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise JsonTextError(f"{source}: line {e.lineno}, column {e.colno}: not valid JSON: {e.msg}") from None
    except RecursionError:
        raise JsonTextError(f"{source}: not valid JSON here: nested too deeply to read") from None
    except ValueError as e:                        # e.g. an integer of more than 4300 digits
        raise JsonTextError(f"{source}: not valid JSON here: {str(e).split(';')[0]}") from None
