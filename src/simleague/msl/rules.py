"""The two decisions the middleware takes: whose ball counts (thesis 4.1.2) and which simulator
to pause or resume (thesis 4.3, Table 1, Algorithm 1). Both are pure: no sockets, no clocks."""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

import numpy as np

from .buffer import Snapshot
from .messages import SIDES


class BallArbiter:
    """Which team's ball is used (thesis 4.1.2).

    The ball of the team in possession (a robot with ``ballEngaged``), else of the team last in
    possession; when robots of both teams claim the ball, the team whose claiming robot is closer
    (x-y distance) to its own ball; an exact tie is drawn with ``rng``. Before any robot has engaged
    the ball, ``first`` (cyan by default) is used: the thesis leaves that case open.
    """

    def __init__(self, rng: np.random.Generator, first: str = "cyan"):
        self.rng = rng
        self.owner: str | None = None
        self.first = first

    @property
    def side(self) -> str:
        """The side whose ball is used now."""
        return self.owner or self.first

    @staticmethod
    def claim_distance(snap: Snapshot) -> float | None:
        """Distance (m) from the team's closest ball-engaged robot to its own ball, None if no claim."""
        best = None
        for row, engaged in zip(snap.robots, snap.engaged):
            if engaged:
                d = math.hypot(row[0] - snap.ball[0], row[1] - snap.ball[1])
                best = d if best is None else min(best, d)
        return best

    def update(self, latest: dict[str, Snapshot]) -> str:
        """Decide from each side's latest snapshot; returns the side whose ball is used."""
        claims = {side: self.claim_distance(snap) for side, snap in latest.items()}
        claims = {side: d for side, d in claims.items() if d is not None}
        if len(claims) == 1:
            self.owner = next(iter(claims))
        elif len(claims) == 2:
            d1, d2 = claims[SIDES[0]], claims[SIDES[1]]
            if d1 != d2:
                self.owner = SIDES[0] if d1 < d2 else SIDES[1]
            else:
                self.owner = SIDES[int(self.rng.integers(2))]
        return self.side


class SyncState(enum.Enum):
    """The three states of thesis Fig. 4."""

    BOTH_ACTIVE = "both active"
    S1_PAUSED = "S1 paused"
    S2_PAUSED = "S2 paused"


@dataclass(frozen=True)
class Transition:
    """What one update decided: the event of Table 1 (``e1``..``e6``, or None for "nothing
    changes"), the Algorithm 1 line that matched, and the actions as (simulator 1 or 2, 'pause' or
    'resume')."""

    event: str | None
    line: int
    actions: tuple[tuple[int, str], ...]


class TimeSync:
    """The time synchronisation protocol (thesis 4.3, Table 1, Algorithm 1) as a state machine.

    ``update(t1, t2)`` takes the latest simulation times (s) of simulators S1 and S2 and returns the
    :class:`Transition`; ``state`` is where it is now. Thresholds in seconds of simulation time;
    raises ValueError unless ``eps1 > eps2 >= 0`` (the thesis used 0.2 and 0.05).
    """

    def __init__(self, eps1: float = 0.2, eps2: float = 0.05):
        if not (eps1 > eps2 >= 0):
            raise ValueError(f"thresholds need eps1 > eps2 >= 0, got eps1={eps1}, eps2={eps2}")
        self.eps1, self.eps2 = eps1, eps2
        self.state = SyncState.BOTH_ACTIVE

    def paused(self, simulator: int) -> bool:
        """Whether simulator 1 or 2 is paused in the current state."""
        return self.state is (SyncState.S1_PAUSED if simulator == 1 else SyncState.S2_PAUSED)

    def update(self, t1: float, t2: float) -> Transition:
        d = abs(t1 - t2)
        s = self.state
        if s is SyncState.BOTH_ACTIVE:
            if d <= self.eps1:
                return Transition(None, 1, ())
            if t1 > t2:
                return self._go(SyncState.S1_PAUSED, Transition("e1", 3, ((1, "pause"),)))
            return self._go(SyncState.S2_PAUSED, Transition("e2", 5, ((2, "pause"),)))
        if s is SyncState.S1_PAUSED:
            if d <= self.eps2:
                return self._go(SyncState.BOTH_ACTIVE, Transition("e3", 11, ((1, "resume"),)))
            if t1 > t2:
                return Transition(None, 7, ())
            return self._go(SyncState.S2_PAUSED, Transition("e5", 15, ((1, "resume"), (2, "pause"))))
        if d <= self.eps2:
            return self._go(SyncState.BOTH_ACTIVE, Transition("e4", 13, ((2, "resume"),)))
        if t2 > t1:
            return Transition(None, 9, ())
        return self._go(SyncState.S1_PAUSED, Transition("e6", 17, ((1, "pause"), (2, "resume"))))

    def _go(self, state: SyncState, transition: Transition) -> Transition:
        self.state = state
        return transition
