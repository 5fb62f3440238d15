"""Match files of the MSL middleware (TOML, validated with pydantic): who may play which side, and
the referee.

    [cyan]
    team = "Tech United"          # the teamName its hello must give (optional)
    token = "a-long-secret"       # its hello and its pauser's hello must carry it (optional)
    address = "224.16.32.201"     # the RefBox's targetTeam for this side
    source = "127.0.1.1"          # local address the middleware connects to the RefBox from

    [magenta]
    team = "Falcons"
    token = "another-secret"

    [referee]
    mode = "auto"                 # none, auto or refbox
    half = 600.0                  # s of simulation time per half (auto)
    refbox = "192.168.1.10:28097" # the RefBox (refbox)

:func:`load_match` returns a :class:`MatchFile`; anything unusable raises :class:`MatchFileError`
naming the file, the key and the problem.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import Error
from ..wire.toml_text import TomlTextError, first_problem, read_toml

MAX_FILE_BYTES = 64 * 1024


class MatchFileError(Error, ValueError):
    """Raised for a match file that cannot be used; ``str()`` names the file, the key and why."""


class SideEntry(BaseModel):
    """One side of the match (see the module docstring)."""

    model_config = ConfigDict(extra="forbid")
    team: Optional[str] = Field(None, min_length=1, max_length=64)
    token: str = Field("", max_length=256)
    address: Optional[str] = Field(None, min_length=1, max_length=64)
    source: Optional[str] = Field(None, min_length=1, max_length=64)


class RefereeEntry(BaseModel):
    """The referee: ``mode`` none/auto/refbox; ``half``, ``delay``, ``pause`` (s of simulation time)
    for the auto referee; ``refbox`` as HOST:PORT."""

    model_config = ConfigDict(extra="forbid")
    mode: Literal["none", "auto", "refbox"] = "none"
    half: float = Field(60.0, gt=0, le=86_400)
    delay: float = Field(2.0, ge=0, le=600)
    pause: float = Field(5.0, ge=0, le=3600)
    refbox: Optional[str] = Field(None, pattern=r"^[^:\s]+:\d{1,5}$")


class MatchFile(BaseModel):
    """A whole match file."""

    model_config = ConfigDict(extra="forbid")
    cyan: SideEntry = SideEntry()
    magenta: SideEntry = SideEntry()
    referee: RefereeEntry = RefereeEntry()


def load_match(path: Path) -> MatchFile:
    """Read and check a match file. Raises :class:`MatchFileError`."""
    try:
        return MatchFile.model_validate(read_toml(path, MAX_FILE_BYTES))
    except TomlTextError as exc:
        raise MatchFileError(str(exc)) from None
    except ValidationError as exc:
        raise MatchFileError(first_problem(path, exc)) from None
