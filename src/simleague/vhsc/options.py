"""How one humanoid game is played and served: the robot ports' :class:`ServerOptions`, the team
colours (the league's vocabulary, as ``msl.messages`` has the MSL's sides and ``soccer.rules.Team``
SimSpark's), the referee's :class:`GameOptions` and the league's durations they default to (the
league's GameController and referee). Light (no physics), so that the command line reads its
defaults from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from .gamecontroller import RETURN_PORT

if TYPE_CHECKING:
    from .setup import Markings

Colour = Literal["red", "blue"]
COLOURS: tuple[Colour, Colour] = ("red", "blue")    # the league's order: red first

MB = 1 << 20                  # the original counts megabytes of 2^20 bytes
TEAM_QUOTA = 350 * MB         # bytes per second per team (seed 000)
RED_BASE, BLUE_BASE = 10000, 10020   # robot N of a team listens on its base + N (the league's ports)

FALLEN_TIMEOUT = 20.0         # s lying down before a robot is removed as incapable
IN_PLAY_TIMEOUT = 10.0        # s after which a kick-off's or set play's ball is in play even if not touched
HALF_TIME_BREAK = 15.0        # s in initial between two halves
OVERTIME_HALF = 300.0         # s of a knockout game's overtime half (the GameController's 5 min)
SET_PLAY_TIMES = (5.0, 15.0, 1.0)   # s of phases 0, 1 and 2 of a set play


@dataclass(frozen=True)
class GameOptions:
    """How one game is played, as the league's GameController is set up for it (the defaults are
    the league's and the command line's).

    Attributes:
        team_numbers: the colours' GameController team numbers (red 1, blue 2).
        left: the colour starting on the left (defending x < 0).
        kick_off: the colour kicking off the first half.
        ready_time, set_time: s of the ``ready`` and ``set`` states (30, 5).
        half_time: s of game time of a half (600); halves: 1 or 2.
        overtime: a knockout game (two overtime halves of ``overtime_time`` s after a draw).
        break_time: s in ``initial`` between two halves (15).
        set_play_times: s of a set play's phases 0, 1, 2 (5, 15, 1).
        in_play_timeout: s after which a kick-off's or set play's ball is in play (10).
        fallen_timeout: s lying down before a robot is penalised (20).
        markings: the field's areas, circle and penalty mark (kid size when None).
        shootout: the game is a penalty shoot-out (the league's PENALTY games).

    Raises ValueError for ``halves`` other than 1 or 2 or a colour that is not red or blue.
    """

    team_numbers: dict[Colour, int] = field(default_factory=lambda: {"red": 1, "blue": 2})
    left: Colour = "red"
    kick_off: Colour = "red"
    ready_time: float = 30.0
    set_time: float = 5.0
    half_time: float = 600.0
    halves: int = 2
    overtime: bool = False
    overtime_time: float = OVERTIME_HALF
    break_time: float = HALF_TIME_BREAK
    set_play_times: tuple[float, ...] = SET_PLAY_TIMES
    in_play_timeout: float = IN_PLAY_TIMEOUT
    fallen_timeout: float = FALLEN_TIMEOUT
    markings: Markings | None = None
    shootout: bool = False

    def __post_init__(self):
        if self.halves not in (1, 2):
            raise ValueError(f"a game has 1 or 2 halves, not {self.halves}")
        if self.left not in COLOURS or self.kick_off not in COLOURS:
            raise ValueError(f"left and kick_off are red or blue, not {self.left!r} and {self.kick_off!r}")


def other(colour: Colour) -> Colour:
    """The other team's colour."""
    return "blue" if colour == "red" else "red"


@dataclass
class ServerOptions:
    """How a server runs: bind ``host``; robot N of a team listens on ``red_base`` + N or
    ``blue_base`` + N (a base of 0: ports picked by the system); ``max_real_time_factor`` paces
    the steps (1.0: real time; 0: as fast as possible); a client with more than ``max_unsent``
    bytes waiting has its measurements dropped and is cut off after ``max_dropped`` in a row
    (1250 steps = 10 s of simulated time); ``team_quota`` bytes per second per team (350 MB/s,
    seed 000); ``game_controller`` = (address, port) the ``RGme`` packets go to (a broadcast
    address is allowed) and ``return_port`` where ``RGrt`` packets are read; ``ports`` gives
    robots their own port instead (the league's game file), by ("red"|"blue", number)."""

    host: str = "127.0.0.1"
    red_base: int = RED_BASE
    blue_base: int = BLUE_BASE
    max_real_time_factor: float = 1.0
    max_unsent: int = 4 << 20
    max_dropped: int = 1250
    team_quota: float = TEAM_QUOTA
    game_controller: tuple[str, int] | None = None
    return_port: int = RETURN_PORT
    ports: dict[tuple[str, int], int] = field(default_factory=dict)
