"""Referee commands of an MSL match: the RefBox's vocabulary, the game state they lead to, and a
built-in referee for matches without a RefBox. Pure: no sockets, no clocks; times are simulation
seconds.

The commands and their targets are those of RefBox2015 version 2 (``../shared/specs/msl.md``,
"Commands RefBox -> team"); the game flow follows "Game flow the RefBox enforces". The older
one-letter protocol (before 2020) is not spoken.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import msgspec

from .messages import SIDES

#: Commands the RefBox sends to both teams (``targetTeam`` "").
BOTH = frozenset({"STOP", "START", "WELCOME", "RESET", "TESTMODE_ON", "TESTMODE_OFF", "FIRST_HALF",
                  "SECOND_HALF", "FIRST_HALF_OVERTIME", "SECOND_HALF_OVERTIME", "HALF_TIME", "END_GAME",
                  "GAMEOVER", "PARK", "DROP_BALL", "END_PART"})
#: Commands for one team (``targetTeam`` that team's address); the last two carry ``robotID``.
TARGETED = frozenset({"KICKOFF", "FREEKICK", "GOALKICK", "THROWIN", "CORNER", "PENALTY", "GOAL", "SUBGOAL",
                      "REPAIR", "REPAIR_END", "YELLOW_CARD", "DOUBLE_YELLOW", "RED_CARD", "WELCOME",
                      "SUBSTITUTION", "IS_ALIVE"})
COMMANDS = BOTH | TARGETED

#: Field of the MSL rules (m): length along y, width along x, goal mouth, ball radius.
FIELD_LENGTH, FIELD_WIDTH, GOAL_WIDTH, BALL_RADIUS = 18.0, 12.0, 2.0, 0.11

_PARTS = {"FIRST_HALF": "1st half", "SECOND_HALF": "2nd half", "FIRST_HALF_OVERTIME": "overtime 1st half",
          "SECOND_HALF_OVERTIME": "overtime 2nd half", "END_GAME": "end of regular time", "GAMEOVER": "game over"}


class RefboxCommand(msgspec.Struct, frozen=True, omit_defaults=True):
    """One RefBox message: ``{"command": NAME, "targetTeam": ADDRESS}``, plus ``robotID`` for
    ``SUBSTITUTION`` and ``IS_ALIVE``; ``targetTeam`` "" means both teams."""

    command: str
    targetTeam: str = ""
    robotID: Optional[int] = None


@dataclass(frozen=True)
class Call:
    """A command the referee gives: ``command`` (a RefBox name), ``side`` it targets (None for
    both teams), ``robot`` for the commands that name one."""

    command: str
    side: str | None = None
    robot: int | None = None


@dataclass
class GameState:
    """What the commands so far make of the game, as the RefBox shows it: the part being played
    (``pre-game``, ``1st half``, ``half time``, ``2nd half`` ...), whether play runs, the score
    per side and the last command. :meth:`apply` follows a RefBox's or the built-in referee's
    commands alike."""

    part: str = "pre-game"
    running: bool = False
    score: dict = field(default_factory=lambda: {side: 0 for side in SIDES})
    last: str = ""

    def apply(self, call: Call) -> None:
        """Take one command into account (GOAL adds one for its side, SUBGOAL takes it back)."""
        name = call.command
        self.last = name + (f" {call.side}" if call.side else "")
        if name == "START":
            self.running = True
        elif name in ("STOP", "HALF_TIME", "END_GAME", "GAMEOVER", "PARK"):
            self.running = False
        if name in _PARTS:
            self.part = _PARTS[name]
        elif name == "HALF_TIME":
            self.part = "overtime half time" if "overtime" in self.part else "half time"
        elif name == "RESET":
            self.part, self.running, self.score = "pre-game", False, {side: 0 for side in SIDES}
        elif name in ("GOAL", "SUBGOAL") and call.side in self.score:
            self.score[call.side] = max(0, self.score[call.side] + (1 if name == "GOAL" else -1))

    @property
    def over(self) -> bool:
        """True after GAMEOVER (a RefBox's) or the built-in referee's END_GAME."""
        return self.part == "game over"

    def label(self) -> str:
        """One line for a viewer: ``1st half, running (last: START)``."""
        return f"{self.part}, {'running' if self.running else 'stopped'}" + (f" (last: {self.last})" if self.last else "")


def addressed(call: Call, side: str, ours: str, theirs: str, raw_target: str | None = None) -> tuple[str, str]:
    """How ``side`` is told ``call``: (``targetTeam``, ``target``). ``ours`` is the address that
    side's software answers to, ``theirs`` the opponent's. A command for both teams keeps the
    RefBox's ``targetTeam`` (``raw_target``, "" when there is none); a command for the opponent
    whose address is the same as ours gets ``:1`` added, as RefBox2015 tells apart two teams of
    one row of ``msl_teams.json`` (msl.md, "How teams are identified")."""
    if call.side is None:
        return raw_target or "", "both"
    if call.side == side:
        return ours, "us"
    return (theirs + ":1" if theirs == ours else theirs), "them"


def ball_in_goal(x: float, y: float) -> str | None:
    """The side that scored if the ball at (x, y), in cyan's frame (m; cyan's own goal at negative
    y, MSL field 18 x 12 m, goal mouth 2 m), is wholly over a goal line between the posts."""
    if abs(x) >= GOAL_WIDTH / 2:
        return None
    if y > FIELD_LENGTH / 2 + BALL_RADIUS:
        return SIDES[0]
    if y < -FIELD_LENGTH / 2 - BALL_RADIUS:
        return SIDES[1]
    return None


class AutoReferee:
    """The referee of ``--referee auto``: the basic sequence of a match with no RefBox.

    Kick-off for cyan, ``FIRST_HALF`` and ``START`` after ``delay`` s; a goal (the arbitrated ball
    wholly in a goal, :func:`ball_in_goal`) stops play: ``STOP``, ``GOAL`` for the scorer, after
    ``delay`` the other team's ``KICKOFF`` and after another ``delay`` ``START``. When ``half`` s of
    play have run: ``STOP`` and ``HALF_TIME``; after ``pause`` s magenta kicks off the second half
    (``KICKOFF``, ``SECOND_HALF``, ``START``); after its ``half`` s ``STOP``, ``END_GAME`` and
    ``GAMEOVER`` (no overtime), and :attr:`finished` is set. Raises ValueError for a non-positive ``half`` or negative delays.

    ``update(t, ball)`` takes the common simulation time (s) and the arbitrated ball (x, y) in
    cyan's frame, or None before there is one, and returns the :class:`Call` list due. The referee
    decides, the caller applies: it reads ``game`` (the match's :class:`GameState`, its own if none
    is given) and the caller applies each call to it (:meth:`GameState.apply`) before the next update.
    """

    def __init__(self, half: float = 60.0, delay: float = 2.0, pause: float = 5.0, game: GameState | None = None):
        if half <= 0 or delay < 0 or pause < 0:
            raise ValueError(f"the auto referee needs half > 0 and delays >= 0 (half {half}, delay {delay}, "
                             f"pause {pause})")
        self.half, self.delay, self.pause = half, delay, pause
        self.game = game if game is not None else GameState()
        self.finished = False
        self._plan: list[tuple[float, Call]] = []     # calls due at a time, in order
        self._half = 0
        self._played = 0.0
        self._last_t: float | None = None

    def _then(self, t: float, *calls: Call) -> None:
        self._plan.extend((t, call) for call in calls)

    def update(self, t: float, ball: tuple[float, float] | None) -> list[Call]:
        """The calls due at common simulation time ``t`` (s) with the arbitrated ball at ``ball``
        ((x, y) m in cyan's frame, None before there is one)."""
        out: list[Call] = []
        if self.finished:
            return out
        if self._last_t is None:                                   # the first update: the match starts
            self._last_t = t
            self._half = 1
            self._then(t, Call("KICKOFF", SIDES[0]))
            self._then(t + self.delay, Call("FIRST_HALF"), Call("START"))
        if self.game.running:
            self._played += max(0.0, t - self._last_t)
        self._last_t = t
        while self._plan and self._plan[0][0] <= t:
            out.append(self._plan.pop(0)[1])
        after = GameState(self.game.part, self.game.running, dict(self.game.score))   # once the caller applied them
        for call in out:
            after.apply(call)
        if not after.running or self._plan:
            return out
        if self._played >= self.half:
            self._played = 0.0
            if self._half == 1:
                self._half = 2
                calls = [Call("STOP"), Call("HALF_TIME")]
                self._then(t + self.pause, Call("KICKOFF", SIDES[1]))
                self._then(t + self.pause + self.delay, Call("SECOND_HALF"), Call("START"))
            else:
                calls = [Call("STOP"), Call("END_GAME"), Call("GAMEOVER")]
                self.finished = True
        elif ball is not None and (scorer := ball_in_goal(*ball)):
            calls = [Call("STOP"), Call("GOAL", scorer)]
            self._then(t + self.delay, Call("KICKOFF", SIDES[1] if scorer == SIDES[0] else SIDES[0]))
            self._then(t + 2 * self.delay, Call("START"))
        else:
            return out
        return out + calls
