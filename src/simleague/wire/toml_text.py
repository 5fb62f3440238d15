"""TOML files (competition files, match files) read into one-line errors: a file over its size
limit, unreadable, not UTF-8 or not TOML (:func:`read_toml`), and the first problem pydantic found
in it, with its key (:func:`first_problem`)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from .. import errors


class TomlTextError(errors.Error, ValueError):
    """A file that cannot be read as TOML; ``str()`` names the file and why."""


def read_toml(path: Path, max_bytes: int) -> dict:
    """The table of the TOML file ``path`` of at most ``max_bytes`` bytes. Raises
    :class:`TomlTextError`."""
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise TomlTextError(f"{path}: cannot read: {e.strerror}") from None
    if len(raw) > max_bytes:
        raise TomlTextError(f"{path}: {len(raw)} bytes, more than the {max_bytes} a file may have")
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise TomlTextError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as e:
        raise TomlTextError(f"{path}: not TOML: {e}") from None


def first_problem(path: Path, error) -> str:
    """``path: key: message (and N more)`` for a pydantic ``ValidationError``."""
    first = error.errors()[0]
    key = ".".join(str(p) for p in first["loc"]) or "(top)"
    message = first["msg"].removeprefix("Value error, ")
    more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
    return f"{path}: {key}: {message}{more}"
