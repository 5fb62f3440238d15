"""World states in time: the circular buffer with linear inter- and extrapolation (thesis 4.2).

A :class:`Snapshot` is one team's state at one simulation time: ``robots`` is a tuple of
``(x, y, θ, ẋ, ẏ, θ̇)`` rows (m, m, rad, m/s, m/s, rad/s) and ``ball`` is ``(x, y, z, ẋ, ẏ, ż)``.
Plain tuples, not numpy: a team has five robots, and on arrays that small numpy's per-call cost
made a request cost several times more (profiled with py-spy: numpy ops were the largest part of
the middleware's time per message).
"""

from __future__ import annotations

import bisect
import math
from collections import deque
from dataclasses import dataclass

from ..angles import TWO_PI, wrap
from .. import errors
from .messages import Ball, Robot, State

Row = tuple[float, float, float, float, float, float]


def heading(angle: float) -> float:
    """An angle in [0, 2π) (rad); a tiny negative angle modulo 2π is 2π in floating point: 0."""
    angle %= TWO_PI
    return 0.0 if angle >= TWO_PI else angle


class TimeOrderError(errors.Error, ValueError):
    """A state whose time is not after the newest stored one (thesis 4.2: times increase)."""


@dataclass(frozen=True, eq=False)
class Snapshot:
    """One team's robots and ball at simulation time ``t`` (s), in that team's frame."""

    t: float
    ids: tuple[int, ...]
    robots: tuple[Row, ...]
    engaged: tuple[bool, ...]
    ball: Row

    @classmethod
    def from_state(cls, state: State) -> "Snapshot":
        """From a decoded :class:`State`. Raises ValueError on repeated robot ids."""
        ids = tuple(r.id for r in state.robots)
        if len(set(ids)) != len(ids):
            raise ValueError(f"robot ids repeat in one state: {sorted(ids)}")
        robots = tuple((x, y, heading(th), vx, vy, w)
                       for (x, y, th), (vx, vy, w) in ((r.pose, r.velocity) for r in state.robots))
        b = state.balls[0]
        return cls(state.t, ids, robots, tuple(bool(r.ballEngaged) for r in state.robots),
                   b.position + b.velocity)

    def robot_messages(self) -> list[Robot]:
        """The robots as messages, rounded as thesis 3.1 asks (3 decimals; angles 4)."""
        out = []
        for rid, (x, y, th, vx, vy, w), engaged in zip(self.ids, self.robots, self.engaged):
            th = round(th, 4)
            if th >= 6.2832:  # 2π - ε rounds up to 2π: that is 0
                th = 0.0
            out.append(Robot(rid, (round(x, 3), round(y, 3), th),
                             (round(vx, 3), round(vy, 3), round(w, 4)), int(engaged)))
        return out

    def ball_message(self) -> Ball:
        """The ball as a message, 3 decimals."""
        x, y, z, vx, vy, vz = (round(v, 3) for v in self.ball)
        return Ball((x, y, z), (vx, vy, vz))


def _line(a: Row, b: Row, w: float, angle: int | None) -> Row:
    """a + (b - a) w, element by element; element ``angle`` the short way round, in [0, 2π)."""
    out = [va + (vb - va) * w for va, vb in zip(a, b)]
    if angle is not None:
        out[angle] = heading(a[angle] + wrap(b[angle] - a[angle]) * w)
    return tuple(out)


def blend(a: Snapshot, b: Snapshot, t: float) -> Snapshot:
    """The line through ``a`` and ``b`` evaluated at ``t``: interpolation for a.t < t < b.t,
    extrapolation outside (thesis 4.2). Headings follow the shorter way round and end in [0, 2π).

    Robots in both snapshots are blended; a robot in only one of them is taken unchanged from the
    snapshot nearer to ``t`` (and left out if that snapshot lacks it). ``ballEngaged`` flags come from
    the nearer snapshot.
    """
    w = (t - a.t) / (b.t - a.t)
    near = a if abs(t - a.t) <= abs(t - b.t) else b
    if a.ids == b.ids:
        robots = tuple(_line(ra, rb, w, 2) for ra, rb in zip(a.robots, b.robots))
    else:
        rows_a, rows_b = dict(zip(a.ids, a.robots)), dict(zip(b.ids, b.robots))
        robots = tuple(_line(rows_a[rid], rows_b[rid], w, 2) if rid in rows_a and rid in rows_b else row
                       for rid, row in zip(near.ids, near.robots))
    return Snapshot(t, near.ids, robots, near.engaged, _line(a.ball, b.ball, w, None))


class StateBuffer:
    """The last ``capacity`` snapshots of one team, oldest first (thesis 4.2, N = 25 by default).

    Raises ValueError for a capacity below 2 (extrapolation needs two states) or above 10,000.
    """

    def __init__(self, capacity: int = 25):
        if not 2 <= capacity <= 10_000:
            raise ValueError(f"buffer length must be 2..10000, not {capacity}")
        self._items: deque[Snapshot] = deque(maxlen=capacity)
        self._times: deque[float] = deque(maxlen=capacity)

    def __len__(self) -> int:
        return len(self._items)

    @property
    def newest(self) -> Snapshot | None:
        return self._items[-1] if self._items else None

    def push(self, snap: Snapshot) -> None:
        """Store ``snap``; the oldest falls out when full. Raises :class:`TimeOrderError` if
        ``snap.t`` is not after the newest stored time (nothing is stored then)."""
        if self._times and snap.t <= self._times[-1]:
            raise TimeOrderError(f"time {snap.t} is not after the last state's time {self._times[-1]}; "
                                 "simulation time must increase (thesis 4.2), state not stored")
        self._items.append(snap)
        self._times.append(snap.t)

    def at(self, t: float) -> tuple[Snapshot, str]:
        """The state at asking time ``t`` and how it was obtained: ``exact`` (a stored time, the
        stored state unchanged), ``interpolated`` (between two stored times), ``extrapolated`` (from
        the two oldest or the two newest) or ``held`` (only one state stored: it is returned as is).
        Raises LookupError when the buffer is empty."""
        items, times = self._items, self._times
        if not items:
            raise LookupError("no state stored yet")
        i = bisect.bisect_left(times, t)
        if i < len(times) and times[i] == t:
            return items[i], "exact"
        if len(items) == 1:
            return items[0], "held"
        if i == 0:
            return blend(items[0], items[1], t), "extrapolated"
        if i == len(items):
            return blend(items[-2], items[-1], t), "extrapolated"
        return blend(items[i - 1], items[i], t), "interpolated"


def mirror(snap: Snapshot) -> Snapshot:
    """The snapshot in the other team's frame (thesis 3.1): x, y, ẋ, ẏ negated, θ + π (mod 2π);
    z, ż and θ̇ unchanged (a rotation by π about the z axis)."""
    robots = tuple((-x, -y, heading(th + math.pi), -vx, -vy, w) for x, y, th, vx, vy, w in snap.robots)
    x, y, z, vx, vy, vz = snap.ball
    return Snapshot(snap.t, snap.ids, robots, snap.engaged, (-x, -y, z, -vx, -vy, vz))
