"""The pure core of the MSL match middleware (thesis 4.2-4.3, 5.3): what the two teams' states
become for each other. :class:`Match` keeps each team's state buffer, chooses the ball (ball
arbitration), answers a team's request with the opponent's robots and the ball at the asking
time, mirrored into the asker's frame, and decides pauses and resumes (time synchronisation). No
I/O: :mod:`simleague.msl.middleware` is the TCP server around it, as the CiberRato world and its
server are kept apart.

Three rules keep one team from moving the other's view (issue 34, "Trust"):

- a team's clock is the time of its newest state; a request's time does not move it;
- the opponent is extrapolated at most ``horizon`` seconds past its newest state (thesis 4.2
  extrapolates without bound; a request far ahead would otherwise throw the ball through the floor);
- the ball is arbitrated at the *common* time, the newest time both teams have reached, from both
  buffers at that same time, and a reply uses the decision in force at its own time: both teams see
  possession change at the same simulation time.
"""

from __future__ import annotations

import bisect

import numpy as np

from .buffer import Snapshot, StateBuffer, mirror
from .messages import SIDES, Reply, Request, State
from .rules import BallArbiter, TimeSync, Transition

#: Ball-possession decisions kept (a decision per change of owner; a match has a few hundred).
MAX_DECISIONS = 10_000


def other(side: str) -> str:
    """The opposing side."""
    return SIDES[1] if side == SIDES[0] else SIDES[0]


class Match:
    """The middleware's state for one match, without any I/O.

    ``buffer`` is N of thesis 4.2; ``eps1``/``eps2`` the thresholds of 4.3 (s); ``horizon`` the
    furthest extrapolation past a team's newest state (s, default ``eps1``); ``seed`` seeds the
    draw that settles an exact tie in ball arbitration. Raises ValueError on bad settings.
    """

    def __init__(self, buffer: int = 25, eps1: float = 0.2, eps2: float = 0.05, seed: int = 0,
                 horizon: float | None = None):
        self.buffers = {side: StateBuffer(buffer) for side in SIDES}
        self.arbiter = BallArbiter(np.random.default_rng(seed))
        self.sync = TimeSync(eps1, eps2)
        self.horizon = eps1 if horizon is None else horizon
        if not 0 <= self.horizon <= 60:
            raise ValueError(f"the extrapolation horizon must be 0..60 s, not {self.horizon}")
        self.times: dict[str, float] = {}
        self.common = -1.0                      # the newest time both teams' states have reached
        #: both teams' states at :attr:`common` (each in its own frame), None until both sent one
        self.common_states: dict[str, Snapshot] | None = None
        self._owner_times: list[float] = []     # ball possession: (time, side) of each change
        self._owners: list[str] = []
        self._subscriptions: dict[str, tuple[float, float]] = {}   # side -> (period, next due time)

    def on_state(self, side: str, state: State) -> str:
        """Store a state (at ``t - ageMs``); the team's clock becomes ``t``. Returns the side whose
        ball is used at the common time afterwards. Raises TimeOrderError (time not increasing) or
        ValueError (repeated robot ids); nothing is stored then."""
        snap = Snapshot.from_state(state)
        if state.ageMs:
            snap = Snapshot(round(state.t - state.ageMs / 1000.0, 9), snap.ids, snap.robots, snap.engaged, snap.ball)
        self.buffers[side].push(snap)
        self.times[side] = max(state.t, self.times.get(side, 0.0))
        self._arbitrate()
        return self.owner_at(self.common)

    def _arbitrate(self) -> None:
        """Decide possession at the common time when it moved (thesis 4.1.2, on both teams' states
        at one time)."""
        newest = [b.newest for b in self.buffers.values()]
        if None in newest:
            return
        common = min(s.t for s in newest)
        if common <= self.common:
            return
        self.common = common
        self.common_states = {side: self._at(side, common)[0] for side in SIDES}
        owner = self.arbiter.update(self.common_states)
        if not self._owners or self._owners[-1] != owner:
            self._owner_times.append(common)
            self._owners.append(owner)
            if len(self._owners) > MAX_DECISIONS:
                del self._owner_times[0], self._owners[0]

    def owner_at(self, t: float) -> str:
        """The side whose ball counts at simulation time ``t``: the decision in force then (the
        first one for a time before it; cyan before any, as :class:`BallArbiter`)."""
        if not self._owners:
            return self.arbiter.side
        i = bisect.bisect_right(self._owner_times, t) - 1
        return self._owners[max(i, 0)]

    def _at(self, side: str, t: float) -> tuple[Snapshot, str]:
        """A side's state at ``t``, extrapolated no further than the horizon past its newest."""
        buffer = self.buffers[side]
        limit = buffer.newest.t + self.horizon
        if t > limit:
            snap, _ = buffer.at(limit)
            return snap, "horizon"
        return buffer.at(t)

    def on_request(self, side: str, request: Request) -> Reply:
        """The opponent's robots and the chosen ball at the asking time, in the asker's frame.
        Raises LookupError if the opponent (or the chosen ball's team) has sent no state yet."""
        return self.reply(side, request.t, request.id)

    def reply(self, side: str, t: float, request_id: int | None = None) -> Reply:
        """What :meth:`on_request` answers, for time ``t`` (s). Raises LookupError."""
        opponent = other(side)
        if not len(self.buffers[opponent]):
            raise LookupError(f"no state from the {opponent} team yet")
        snapshot, estimate = self._at(opponent, t)
        theirs = mirror(snapshot)
        ball_side = self.owner_at(t)
        if not len(self.buffers[ball_side]):
            ball_side = opponent  # the asker has sent nothing yet: the only ball there is
        ball = theirs if ball_side == opponent else self._at(side, t)[0]
        return Reply(t, theirs.robot_messages(), [ball.ball_message()], ball_side, estimate, request_id)

    def subscribe(self, side: str, period: float) -> None:
        """Push a reply to ``side`` every ``period`` s of its simulation time (0: stop)."""
        if period <= 0:
            self._subscriptions.pop(side, None)
        else:
            self._subscriptions[side] = (period, self.times.get(side, 0.0))

    def pushed(self, side: str) -> Reply | None:
        """The subscription's reply due now that ``side``'s clock moved, or None (not subscribed,
        not due yet, or no opponent state yet)."""
        if side not in self._subscriptions or side not in self.times:
            return None
        period, due = self._subscriptions[side]
        now = self.times[side]
        if now + 1e-9 < due:
            return None
        try:
            reply = self.reply(side, now)
        except LookupError:
            return None
        self._subscriptions[side] = (period, max(due + period, now + period / 2))
        return reply

    def synchronise(self) -> Transition | None:
        """The time-synchronisation phase: None until both sides reported a time."""
        if len(self.times) < 2:
            return None
        return self.sync.update(self.times[SIDES[0]], self.times[SIDES[1]])
