"""The pure core of the MSL match middleware (thesis 4.2-4.3, 5.3): what the two teams' states
become for each other. :class:`Match` keeps each team's state buffer, chooses the ball (ball
arbitration), answers a team's request with the opponent's robots and the ball at the asking
time, mirrored into the asker's frame, and decides pauses and resumes (time synchronisation). No
I/O: :mod:`simleague.msl.middleware` is the TCP server around it, as the CiberRato world and its
server are kept apart.
"""

from __future__ import annotations

import numpy as np

from .buffer import Snapshot, StateBuffer, mirror
from .messages import SIDES, Reply, Request, State
from .rules import BallArbiter, TimeSync, Transition


def other(side: str) -> str:
    """The opposing side."""
    return SIDES[1] if side == SIDES[0] else SIDES[0]


class Match:
    """The middleware's state for one match, without any I/O.

    ``buffer`` is N of thesis 4.2; ``eps1``/``eps2`` the thresholds of 4.3 (s); ``seed`` seeds the
    draw that settles an exact tie in ball arbitration. Raises ValueError on bad settings.
    """

    def __init__(self, buffer: int = 25, eps1: float = 0.2, eps2: float = 0.05, seed: int = 0):
        self.buffers = {side: StateBuffer(buffer) for side in SIDES}
        self.arbiter = BallArbiter(np.random.default_rng(seed))
        self.sync = TimeSync(eps1, eps2)
        self.times: dict[str, float] = {}

    def note_time(self, side: str, t: float) -> None:
        """Remember the latest simulation time a side reported (by a state or a request)."""
        if t > self.times.get(side, -1.0):
            self.times[side] = t

    def on_state(self, side: str, state: State) -> str:
        """Store a state. Returns the side whose ball is used afterwards. Raises TimeOrderError
        (time not increasing) or ValueError (repeated robot ids); nothing is stored then."""
        self.buffers[side].push(Snapshot.from_state(state))
        self.note_time(side, state.t)
        latest = {s: b.newest for s, b in self.buffers.items() if b.newest is not None}
        return self.arbiter.update(latest)

    def on_request(self, side: str, request: Request) -> Reply:
        """The opponent's robots and the chosen ball at the asking time, in the asker's frame.
        Raises LookupError if the opponent (or the chosen ball's team) has sent no state yet."""
        self.note_time(side, request.t)
        opponent = other(side)
        if not len(self.buffers[opponent]):
            raise LookupError(f"no state from the {opponent} team yet")
        snapshot, estimate = self.buffers[opponent].at(request.t)
        theirs = mirror(snapshot)
        ball_side = self.arbiter.side
        if not len(self.buffers[ball_side]):
            ball_side = opponent  # the asker has sent nothing yet: the only ball there is
        ball = theirs if ball_side == opponent else self.buffers[side].at(request.t)[0]
        return Reply(request.t, theirs.robot_messages(), [ball.ball_message()], ball_side, estimate)

    def synchronise(self) -> Transition | None:
        """The time-synchronisation phase: None until both sides reported a time."""
        if len(self.times) < 2:
            return None
        return self.sync.update(self.times[SIDES[0]], self.times[SIDES[1]])
