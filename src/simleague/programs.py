"""Teams' programs as the competitions start them (CiberRato trials, SimSpark matches, the checks
before a competition): placeholders in their command lines, and the PATH they run with."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def fill(words, values: dict[str, object]) -> list[str]:
    """``words`` (a command line, split) with each ``{key}`` of ``values`` replaced by its value;
    placeholders not in ``values`` stay, for a later fill (a trial's port is known once its server
    is bound)."""
    out = []
    for word in words:
        for key, value in values.items():
            word = word.replace("{" + key + "}", str(value))
        out.append(word)
    return out


def search_path() -> str:
    """The PATH a team's program is looked up and run with: this interpreter's folder first, so
    that ``python`` and ``simleague`` in a team's command are the ones running the competition."""
    return os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])


def environment() -> dict[str, str]:
    """The environment a team's program runs in: ours, with :func:`search_path`."""
    return dict(os.environ, PATH=search_path())
