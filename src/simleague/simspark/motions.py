"""Keyframe motions for the sample agent's Nao (robot type 0): getting up from lying on the front
and from lying on the back, and a kick with the right foot (mirrored for the left), each ending in
a crouch (:data:`FINISH`).
Each keyframe gives the joints' targets and the time to move to them from the keyframe before
(linear in between, in whole cycles: :class:`Motion`); a target beyond a joint's range drives the
joint into its stop at full speed. The keyframes were found with CMA-ES (N. Hansen, the ``cma``
package) on our world, driven as through our server (the agent's answer acts two cycles after
what it read; ``benchmarks/bench_walk.py``'s ``Agent``): the get-ups from twelve falls (the
robot knocked over from its crouch, pushed harder or softer and a little to a side, then lying
still with its arms down, as the sample player lies before it gets up), scored by how upright and
high the torso came and whether the robot stood 1.5 s later, having walked on the spot; the kick from four standing starts (the ball 1 cm nearer to 1 cm
further), scored by how far the ball went straight ahead, with the robot still standing; each
checked on ten other starts (``benchmarks/bench_walk.py``).

:func:`lying` tells from the accelerometer whether a robot lies on its front, back or a side; a
robot on a side rolls onto its front first (:data:`FROM_SIDE`, found by trying poses on robots laid
on either side, tilted either way). Pure and standard library only, as
:mod:`simleague.simspark.walk`. Angles in degrees by perceptor name.
"""

from __future__ import annotations

from ..walking import Motion
from .walk import CYCLE

#: the joints a keyframe sets, for the right side; the left side takes the same value, negated for
#: the joints that mirror between the sides (roll and yaw: aj2, aj3, aj4, lj2, lj6)
JOINTS = ("aj1", "aj2", "aj3", "aj4", "lj1", "lj2", "lj3", "lj4", "lj5", "lj6")
MIRRORED = frozenset({"aj2", "aj3", "aj4", "lj2", "lj6"})

#: (seconds, right side's targets in the order of JOINTS)
FROM_FRONT = (
    (0.26, (206.7, -2.6, -110.7, -166.4, -7.4, -45.8, 93.0, 55.0, 14.1, -47.4)),
    (1.08, (-387.1, 12.8, 47.6, -119.2, 54.1, 16.1, -55.5, -261.5, 137.9, -8.2)),
    (0.76, (118.6, -52.6, 156.9, 163.5, -62.3, -35.4, 133.6, -214.3, 130.2, 76.4)),
    (0.04, (-271.7, -9.4, -32.6, -92.7, -19.5, 6.7, 143.2, -193.1, 87.1, -73.2)),
)
FROM_BACK = (
    (0.04, (202.3, -120.1, 43.0, 67.2, 16.7, -16.6, 79.7, 310.3, 78.7, -38.7)),
    (0.12, (-70.8, -84.2, -16.7, 75.2, -237.2, -51.6, 227.1, 169.1, 330.6, -42.9)),
    (0.3, (172.0, -229.3, -79.3, -217.4, -257.0, -116.9, -1.1, -352.2, 335.8, -59.4)),
    (0.04, (-216.4, 21.9, -263.7, 35.8, 107.9, 78.0, -509.9, 112.1, -192.5, 139.2)),
)
#: type 0's last keyframe from the back: the finishing crouch (:data:`FINISH`) with the hips 30
#: degrees further back (``lj3``), in 0.3 s. Without it robots often rose and fell back within 2 s:
#: with it 92 of 100 knocked over stand within 4 s (83 without), 92 after the first motion (73),
#: and 50 of 60 other falls (50), 50 after the first motion (35); hips 5 to 35 degrees back did
#: about as well (87 to 92 of 100), 40 degrees 59 (``benchmarks/bench_walk.py --wide``). Types 2
#: and 4 stood less often with it (16 and 19 of 50 falls, 41 and 31 without): theirs end as found
#: the finishing crouch, right side's values in the order of :data:`JOINTS` (:data:`FINISH`)
CROUCH = (-90.0, 0.0, 0.0, 0.0, 0.0, 1.52, 23.15, -59.8, 36.65, -1.52)
BACK_SETTLE = (0.3, CROUCH[:6] + (CROUCH[6] - 30.0,) + CROUCH[7:])
#: the get-ups (from the front, from the back) of each robot type that has its own: types 2 and 4
#: (type 0's legs; type 2's ankles faster in pitch, slower in roll; type 4 with toes) get up from
#: the back by keyframes tuned for them from type 0's, and from the front as type 0
GET_UPS = {0: (FROM_FRONT, FROM_BACK + (BACK_SETTLE,)),
           2: (FROM_FRONT, (
               (0.04, (157.2, -147.2, 52.8, 62.4, 6.6, -23.3, 85.1, 273.6, 95.1, -38.1)),
               (0.32, (-33.5, -83.1, -35.4, 13.6, -259.4, -49.6, 279.2, 186.2, 304.1, -44.6)),
               (0.24, (171.4, -224.4, -57.1, -216.3, -248.4, -132.2, 28.7, -343.2, 285.5, -52.2)),
               (0.04, (-245.9, -20.1, -313.1, 17.8, 127.7, 83.0, -497.3, 74.9, -184.1, 113.0)),
           )),
           4: (FROM_FRONT, (
               (0.04, (179.3, -142.2, 84.0, 88.1, 21.2, 4.9, 81.4, 266.5, 70.9, -46.6)),
               (0.28, (-12.7, -117.8, -45.1, 58.2, -244.8, -64.3, 210.0, 229.2, 313.4, -56.1)),
               (0.3, (178.1, -256.4, -110.4, -267.8, -255.8, -122.9, 13.7, -363.8, 348.8, -58.4)),
               (0.04, (-207.5, 66.1, -287.2, -2.2, 114.0, 74.6, -517.7, 26.7, -205.3, 139.5)),
           ))}
#: from lying on a side, onto the front: the arms swung back over the head, the knees bent and the
#: hips stretched, held, then every joint back to the lying pose (arms down) so that the robot soon
#: lies still. Of 28 robots laid on a side (either, two headings, tilted -0.3 to 0.2 rad) types 0
#: and 2 stand 28 times after it and the get-up from the front, type 4 14; rolled onto the back
#: instead (the hips bent forward), type 0 stood 10 times (``benchmarks/bench_walk.py --wide``)
FROM_SIDE = (
    (0.3, (-120.0, 0.0, 0.0, 0.0, 0.0, 0.0, -25.0, -90.0, 0.0, 0.0)),
    (0.4, (-120.0, 0.0, 0.0, 0.0, 0.0, 0.0, -25.0, -90.0, 0.0, 0.0)),
    (0.3, (-90.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)),
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
FINISH = (0.6, {"hj1": 0.0, "hj2": 0.0} | both_sides(CROUCH))


def lying(accelerometer: tuple[float, float, float]) -> str | None:
    """"front", "back", "side" or None (not lying) from the torso's ``ACC`` reading (m/s^2, torso
    frame: x right, y forward, z up; (0, 0, 9.81) upright at rest): gravity beyond :data:`LYING`
    along the forward axis, else along the sideways one."""
    forward, sideways = accelerometer[1], accelerometer[0]
    if forward < -LYING:
        return "front"
    if forward > LYING:
        return "back"
    if abs(sideways) > LYING:
        return "side"
    return None


def get_up(side: str, start: dict[str, float], robot_type: int = 0) -> Motion:
    """The get-up of a robot of ``robot_type`` from lying on ``side`` ("front", "back" or "side",
    :func:`lying`), from the joint angles ``start`` (:data:`GET_UPS`; a type without keyframes of
    its own takes type 0's); from a side, the roll onto the front (:data:`FROM_SIDE`), after which
    the robot lies on its front and gets up from there. Raises ValueError for another side."""
    if side == "side":
        return Motion([(seconds, both_sides(values)) for seconds, values in FROM_SIDE], start, CYCLE)
    if side not in ("front", "back"):
        raise ValueError(f"a robot gets up from its front, back or side, not {side!r}")
    front, back = GET_UPS.get(robot_type, GET_UPS[0])
    keyframes = front if side == "front" else back
    return Motion([(seconds, both_sides(values)) for seconds, values in keyframes] + [FINISH], start, CYCLE)


def kick(start: dict[str, float], foot: str = "right") -> Motion:
    """The kick with ``foot`` ("right": :data:`KICK`; "left": the same mirrored, the Nao being
    symmetric), from the joint angles ``start`` (the robot standing in the crouch with the ball at
    :data:`KICK_BALL` before that foot), ending in the crouch. Raises ValueError for another foot."""
    if foot not in ("right", "left"):
        raise ValueError(f"a Nao kicks with its right or left foot, not {foot!r}")
    kicker, support = ("r", "l") if foot == "right" else ("l", "r")
    sign = {"right": 1.0, "left": -1.0}[foot]
    frames = []
    for seconds, right, left in KICK:
        targets = {f"{kicker}lj{k}": sign * v if f"lj{k}" in MIRRORED else v for k, v in enumerate(right, 1)}
        targets |= {f"{support}lj{k}": sign * v if f"lj{k}" in MIRRORED else v for k, v in enumerate(left, 2)}
        frames.append((seconds, targets))
    return Motion(frames + [(KICK_SETTLE, FINISH[1])], start, CYCLE)
