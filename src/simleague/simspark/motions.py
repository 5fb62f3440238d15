"""Keyframe motions for the sample agent's Nao (robot type 0): getting up from lying on the front
and from lying on the back, and a kick with the right foot, each ending in the walk's crouch.
Each keyframe gives the joints' targets and the time to move to them from the keyframe before
(linear in between, :class:`Motion`); a target beyond a joint's range drives the joint into its
stop at full speed. The keyframes were found with CMA-ES (N. Hansen, the ``cma`` package) on our
world: the get-ups from four lying starts (other headings, other times lying first), scored by how
upright and high the torso came and whether the robot stood 1.5 s later; the kick from three
standing starts, scored by how far the ball went straight ahead, with the robot still standing;
each checked on ten other starts (``benchmarks/bench_walk.py``).

:func:`lying` tells from the accelerometer whether a robot lies on its front or back. Pure and
standard library only, as :mod:`simleague.simspark.walk`. Angles in degrees by perceptor name.
"""

from __future__ import annotations

from dataclasses import dataclass

from .walk import CYCLE

#: the joints a keyframe sets, for the right side; the left side takes the same value, negated for
#: the joints that mirror between the sides (roll and yaw: aj2, aj3, aj4, lj2, lj6)
JOINTS = ("aj1", "aj2", "aj3", "aj4", "lj1", "lj2", "lj3", "lj4", "lj5", "lj6")
MIRRORED = frozenset({"aj2", "aj3", "aj4", "lj2", "lj6"})

#: (seconds, right side's targets in the order of JOINTS)
FROM_FRONT = (
    (0.10, (237.2, -57.0, -73.0, -67.2, 18.2, -3.3, 52.1, 67.0, -60.6, -70.7)),
    (1.20, (-304.9, 63.9, 30.6, -3.2, 107.7, -6.3, -9.9, -203.3, 45.7, -44.1)),
    (0.75, (165.7, -39.5, 161.4, 134.4, 8.4, -48.4, 153.4, -211.1, 117.4, 60.2)),
    (0.10, (-400.0, -7.3, 24.9, -10.7, -22.7, 38.6, 194.5, -272.2, 101.8, -12.0)),
)
FROM_BACK = (
    (1.06, (-54.9, -115.1, 12.0, 84.8, -11.3, 39.6, 264.5, 346.5, -7.2, -11.2)),
    (0.61, (-39.6, -84.5, -20.7, -26.9, -137.7, 28.4, 242.6, -61.1, 158.2, -23.7)),
    (0.70, (12.8, -55.3, 0.2, -203.5, -235.7, -53.9, 104.0, -366.7, 210.0, -11.1)),
    (0.12, (-215.7, 123.3, -155.4, 107.1, 62.5, 18.0, -244.4, 62.1, -169.3, 82.7)),
)
#: the kick: (seconds, right leg's lj1-lj6, left (support) leg's lj2-lj6); the ball's centre 0.16 m
#: ahead of the right foot's centre, in line with it; the ball goes about 22 degrees to the right
KICK = (
    (0.04, (-25.6, 9.0, -18.4, -90.2, 20.0, -19.8), (21.6, 26.6, -55.9, 60.7, -9.7)),
    (0.05, (18.6, 8.2, 5.3, -94.4, -41.3, -2.3), (11.7, 5.9, -65.8, 62.2, 17.7)),
    (0.04, (29.5, 3.1, 66.7, -34.9, -65.6, 13.7), (6.3, -6.3, -88.1, -38.2, -0.2)),
    (0.04, (-22.2, 6.2, 66.1, -45.1, -63.0, -20.3), (7.2, -5.8, -65.4, 53.5, 15.5)),
)
KICK_BALL = (0.0, 0.16)           # m: where the ball is from the right foot's centre (x right, y forward)
KICK_SETTLE = 0.5                 # s back to the crouch after the kick


#: m/s^2 along the torso's forward axis beyond which a robot lies (gravity is 9.81 there when flat)
LYING = 6.0


def both_sides(values) -> dict[str, float]:
    """A keyframe's right-side values (order of :data:`JOINTS`) as targets for both sides."""
    out = {}
    for joint, value in zip(JOINTS, values):
        out["r" + joint] = value
        out["l" + joint] = -value if joint in MIRRORED else value
    return out


#: the pose the motion ends in (0.6 s): the crouch it was found with, arms down, head straight
FINISH = (0.6, {"hj1": 0.0, "hj2": 0.0} | both_sides((-90.0, 0.0, 0.0, 0.0, 0.0, 1.52, 23.15, -59.8, 36.65, -1.52)))


def lying(accelerometer: tuple[float, float, float]) -> str | None:
    """"front", "back" or None (not lying flat) from the torso's ``ACC`` reading (m/s^2, torso
    frame: x right, y forward, z up; (0, 0, 9.81) upright at rest)."""
    forward = accelerometer[1]
    if forward < -LYING:
        return "front"
    if forward > LYING:
        return "back"
    return None


class Motion:
    """A keyframe motion under way: ``Motion(frames, start)`` with ``frames`` a sequence of
    (seconds, targets by perceptor name, degrees) and the joint angles when it starts (degrees, by
    perceptor name; a joint no keyframe sets stays there); :meth:`step` each cycle gives the
    targets, None once the motion is over."""

    def __init__(self, frames, start: dict[str, float]):
        self._frames = list(frames)
        self._frame, self._cycle = 0, 0
        self._from = dict(start)

    @property
    def seconds(self) -> float:
        """The motion's length, s."""
        return sum(seconds for seconds, _ in self._frames)

    def step(self) -> dict[str, float] | None:
        """The targets for this cycle, or None when the motion is over."""
        if self._frame >= len(self._frames):
            return None
        seconds, target = self._frames[self._frame]
        cycles = max(1, int(seconds / CYCLE))               # whole cycles, as it was found with
        self._cycle += 1
        share = self._cycle / cycles
        joints = self._from.keys() | target.keys()
        out = {joint: self._from.get(joint, 0.0) + (target.get(joint, self._from.get(joint, 0.0))
                                                    - self._from.get(joint, 0.0)) * share
               for joint in joints}
        if self._cycle >= cycles:
            self._from.update(target)
            self._frame, self._cycle = self._frame + 1, 0
        return out


def get_up(side: str, start: dict[str, float]) -> Motion:
    """The get-up from lying on ``side`` ("front" or "back", :func:`lying`), from the joint angles
    ``start``. Raises ValueError for another side."""
    if side not in ("front", "back"):
        raise ValueError(f"a robot gets up from its front or back, not {side!r}")
    keyframes = FROM_FRONT if side == "front" else FROM_BACK
    return Motion([(seconds, both_sides(values)) for seconds, values in keyframes] + [FINISH], start)


def kick(start: dict[str, float]) -> Motion:
    """The kick with the right foot (:data:`KICK`), from the joint angles ``start`` (the robot
    standing in the crouch with the ball at :data:`KICK_BALL`), ending in the crouch."""
    frames = []
    for seconds, right, left in KICK:
        targets = {f"rlj{k}": value for k, value in enumerate(right, 1)}
        targets |= {f"llj{k}": value for k, value in enumerate(left, 2)}
        frames.append((seconds, targets))
    return Motion(frames + [(KICK_SETTLE, FINISH[1])], start)
