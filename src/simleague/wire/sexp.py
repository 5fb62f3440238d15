"""S-expressions as SimSpark's agents, monitors and trainers write them (seed 002; specs/simspark.md):
ASCII, atoms separated by blanks or parentheses, no quoting, several expressions in one message.

An expression is an atom (``str``) or a list of expressions; :func:`parse` returns the message's
top-level expressions as a list. Every size a client controls is limited (:class:`Limits`), and
anything that is not such a message raises :class:`SexpError` naming the byte offset and the problem.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import errors

Sexp = str | list["Sexp"]

_TOKEN = re.compile(rb"(\()|(\))|([^\s()]+)")      # after the blanks are skipped
_BLANK = re.compile(rb"\s*")


class SexpError(errors.Error, ValueError):
    """Not a well-formed S-expression message, or one over a limit; ``offset`` is the byte at fault."""

    def __init__(self, message: str, offset: int):
        super().__init__(f"{message} at byte {offset}")
        self.offset = offset


@dataclass(frozen=True)
class Limits:
    """The largest message (bytes), nesting depth and number of atoms :func:`parse` accepts."""

    max_bytes: int = 1 << 20
    max_depth: int = 64
    max_atoms: int = 100_000


DEFAULT_LIMITS = Limits()


def parse(data: bytes | str, limits: Limits = DEFAULT_LIMITS) -> list[Sexp]:
    """The top-level expressions of one message (``data``; trailing NULs, as some clients send,
    are ignored). Raises :class:`SexpError` for a non-ASCII or control byte, an unbalanced
    parenthesis, an atom at the top level, or a message over ``limits``."""
    if isinstance(data, str):
        try:
            data = data.encode("ascii")
        except UnicodeEncodeError as e:
            raise SexpError("a character that is not ASCII", e.start) from None
    data = data.rstrip(b"\0")
    if len(data) > limits.max_bytes:
        raise SexpError(f"a message of {len(data)} bytes (the limit is {limits.max_bytes})", limits.max_bytes)
    bad = re.search(rb"[^\x20-\x7e\t\n\r]", data)
    if bad:
        raise SexpError(f"byte 0x{bad.group()[0]:02x}, not printable ASCII", bad.start())
    top: list[Sexp] = []
    stack: list[list[Sexp]] = []
    atoms = 0
    pos, end = 0, len(data)
    while True:
        pos = _BLANK.match(data, pos).end()
        if pos >= end:
            break
        m = _TOKEN.match(data, pos)
        if m.group(1):
            if len(stack) >= limits.max_depth:
                raise SexpError(f"nesting deeper than {limits.max_depth}", m.start(1))
            stack.append([])
        elif m.group(2):
            if not stack:
                raise SexpError("')' without a matching '('", m.start(2))
            done = stack.pop()
            (stack[-1] if stack else top).append(done)
        else:
            if not stack:
                raise SexpError(f"atom {m.group(3)[:20].decode()!r} outside parentheses", m.start(3))
            atoms += 1
            if atoms > limits.max_atoms:
                raise SexpError(f"more than {limits.max_atoms} atoms", m.start(3))
            stack[-1].append(m.group(3).decode("ascii"))
        pos = m.end()
    if stack:
        raise SexpError(f"{len(stack)} '(' not closed", end)
    return top


def dumps(expressions: list[Sexp]) -> str:
    """One message of ``expressions`` (each a list): ``(a b (c d))(e)``, atoms separated by one
    space. Raises ValueError for an atom that is empty or holds a blank or a parenthesis."""
    return "".join(_dump(e) for e in expressions)


def _dump(e: Sexp) -> str:
    if isinstance(e, str):
        if not e or re.search(r"[\s()]", e):
            raise ValueError(f"{e!r} cannot be an atom")
        return e
    return "(" + " ".join(_dump(x) for x in e) + ")"
