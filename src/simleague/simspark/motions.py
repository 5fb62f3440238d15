"""Keyframe motions for the sample agent's Nao (robot type 0): getting up from lying on the front
and from lying on the back, and a kick with the right foot, each ending in a crouch (:data:`FINISH`).
Each keyframe gives the joints' targets and the time to move to them from the keyframe before
(linear in between, in whole cycles: :class:`Motion`); a target beyond a joint's range drives the
joint into its stop at full speed. The keyframes were found with CMA-ES (N. Hansen, the ``cma``
package) on our world, driven as through our server (the agent's answer acts two cycles after
what it read; ``benchmarks/bench_walk.py``'s ``Agent``): the get-ups from six lying starts (other
headings, other times lying first), scored by how upright and high the torso came and whether the
robot stood 1.5 s later; the kick from four standing starts (the ball 1 cm nearer to 1 cm
further), scored by how far the ball went straight ahead, with the robot still standing; each
checked on ten other starts (``benchmarks/bench_walk.py``).

:func:`lying` tells from the accelerometer whether a robot lies on its front or back. Pure and
standard library only, as :mod:`simleague.simspark.walk`. Angles in degrees by perceptor name.
"""

from __future__ import annotations

from .walk import CYCLE

#: the joints a keyframe sets, for the right side; the left side takes the same value, negated for
#: the joints that mirror between the sides (roll and yaw: aj2, aj3, aj4, lj2, lj6)
JOINTS = ("aj1", "aj2", "aj3", "aj4", "lj1", "lj2", "lj3", "lj4", "lj5", "lj6")
MIRRORED = frozenset({"aj2", "aj3", "aj4", "lj2", "lj6"})

#: (seconds, right side's targets in the order of JOINTS)
FROM_FRONT = (
    (0.08, (299.7, -1.3, -114.3, -119.0, 29.4, -11.5, 64.6, 27.3, 18.1, -47.2)),
    (1.2, (-321.2, 38.2, 18.4, -116.5, 62.2, 8.0, 74.5, -220.4, 68.9, 29.7)),
    (0.74, (72.2, -26.2, 188.9, 189.1, -47.9, -33.8, 200.1, -234.6, 126.2, 73.4)),
    (0.04, (-423.2, 79.8, -29.4, -40.9, -25.3, 35.5, 107.1, -180.1, 137.2, -60.4)),
)
FROM_BACK = (
    (0.04, (20.3, -132.0, -3.2, 65.6, 43.3, 82.5, 268.0, 286.2, -29.9, -11.4)),
    (0.04, (-44.4, -108.5, -48.9, 1.2, -201.6, -36.7, 196.4, 45.0, 320.4, -44.2)),
    (0.5, (70.1, -105.2, -57.9, -170.2, -254.8, -105.2, 76.8, -269.2, 246.7, 12.6)),
    (0.3, (-195.2, 43.7, -331.8, 70.7, 90.1, 26.2, -445.6, 138.5, -136.2, 106.4)),
)
#: the kick: (seconds, right leg's lj1-lj6, left (support) leg's lj2-lj6); the ball's centre 0.16 m
#: ahead of the right foot's centre, in line with it; the ball goes about 10 degrees off straight ahead
KICK = (
    (0.04, (-29.3, 11.0, -14.2, -87.4, -4.4, -16.1), (9.5, 23.9, -67.8, 76.7, 8.6)),
    (0.04, (19.2, 9.4, 39.0, -146.2, -85.2, 5.0), (22.8, 18.2, -79.1, 53.2, 22.9)),
    (0.04, (20.4, 17.8, 52.1, -59.5, -52.8, 8.0), (-3.6, -12.6, -118.5, -30.3, 11.6)),
    (0.04, (-20.5, 12.7, 58.8, -24.2, -28.5, -23.7), (6.1, -17.2, -66.7, 65.2, 4.6)),
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


#: the pose every motion ends in (over 0.6 s after a get-up, 0.5 s after the kick): knees bent,
#: arms down, head straight
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
        cycles = max(1, round(seconds / CYCLE))             # whole cycles
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
