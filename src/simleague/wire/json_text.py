"""JSON text from files and clients, read with every failure as one error a person can act on:
broken syntax (line and column), nesting deeper than the reader can follow, and numbers with more
digits than Python converts (its 4300-digit limit) all raise :class:`JsonTextError` instead of
``RecursionError`` or a bare ``ValueError``.
"""

from __future__ import annotations

import json


class JsonTextError(ValueError):
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
