"""The sample player's robot, simleague's kid (``soccer/robots/kid.xml``): its legs for
:mod:`simleague.walking`, the gait found for it, its kick and its get-ups. Joint names are the model's;
angles in radians with the model's signs, which are :mod:`simleague.walking`'s (every joint turns
about the robot's x, y or z axis: x forward, y to the left, z up).

The gait (:data:`KID_GAIT`), the kick and parts of the get-ups were found with CMA-ES (N. Hansen, the ``cma`` package)
on our world, driven as through our server (the answer acting two to four steps after what it
read): the gait first walking ahead, turning and stepping sideways under commands that change
every 1.5 s, then steered by the sample player itself to random places (head sweeping, arms
down), a fall costing more than any distance or place reached; the kick (a weight shift onto the
left foot, the right foot drawn back, swung and put down, the weight shifted back) from twelve
standing starts, scored by how far the ball went, a fall costing 4 m; the get-ups (:func:`get_up`)
from six or eight falls of the walking kid pushed onto its front or back, scored by whether and
how soon it stood, else how high it came and how near its weight was to its feet at the crouch
on hands and feet. ``benchmarks/bench_kid.py`` measures all three.

Pure and standard library only.
"""

from __future__ import annotations

import math

from .. import walking

MODEL = "kid"
STEP = 0.008                     # s: the API's basic step, the control cycle
GYRO = "gyro"                    # the model's gyro
BEND = 0.0                       # s: from the model's pose into the walking crouch (at once)
#: the model's joints
JOINTS = ["head_yaw", "head_pitch"] + [f"{side}_{joint}" for side in ("left", "right") for joint in (
    "shoulder_pitch", "shoulder_roll", "elbow", "hip_yaw", "hip_roll", "hip_pitch", "knee",
    "ankle_pitch", "ankle_roll")]
KID_LEG = walking.Leg(knee=(0.0, 0.15), shank=0.15)       # kid.xml: thigh and shank 0.15 m
#: each leg's joints in :class:`simleague.walking.LegPose`'s order
LEG_JOINTS = {leg: tuple(f"{side}_{joint}" for joint in ("hip_yaw", "hip_roll", "hip_pitch", "knee", "ankle_pitch",
                                                          "ankle_roll"))
              for leg, side in (("l", "left"), ("r", "right"))}
#: the gait found for the kid (module docstring): 0.45 m/s ahead, about 35 deg/s turning
KID_GAIT = walking.Gait(period=0.14, height=0.2772, sway=0.009818, lift=0.05023, stride=0.121, side=0.04164,
                        turn=0.5806, lean=0.0565, pitch_gain=0.01391, roll_gain=0.01859, width=-0.01)
SOLE = 0.045                     # m: the ankle's axis above the sole
HIP = 0.10                       # m: the hip pivots below the torso's centre
TORSO_HEIGHT = SOLE + KID_GAIT.height + HIP                # m: the torso's centre above the ground, walking
CAMERA_HEIGHT = TORSO_HEIGHT + 0.13 + 0.03 + 0.05          # m: the camera above the ground, head level
#: how fast the gait goes at full speed on our world (m/s forward, m/s sideways), for odometry
#: (measured as ``benchmarks/bench_kid.py`` walks it)
FULL_SPEED = (0.48, 0.08)
FULL_TURN = 0.88                 # rad/s turning on the spot at full speed, once there (measured the same way;
                                 # at lower shares slower than in proportion: 8, 11, 18, 32 deg/s at 0.25,
                                 # 0.4, 0.5, 0.7)
TURN_SLOWS = 1.0                 # a turn at share t of full speed walks 1 - t as far forward
SPEED_CHANGE = 0.05              # most a speed (share of full) changes a step: full speed in about 3 s
                                 # (faster, the kid falls when it starts off turning)
ARMS = {"left_shoulder_pitch": 0.0, "right_shoulder_pitch": 0.0, "left_shoulder_roll": 0.1,
        "right_shoulder_roll": -0.1, "left_elbow": -0.3, "right_elbow": -0.3}
MOST_BACKWARDS = -0.3           # share of full speed: faster backwards, the gait falls from standing
LYING = 6.0                      # m/s^2 along the torso's forward axis beyond which a robot lies
#: the kick with the right foot: (seconds, right ankle (x, y, z) m from its hip pivot, left ankle
#: the same): the weight shifted over the left foot, the right foot drawn back and lifted, swung
#: forward, brought back and put down, held, the weight shifted back; the ball's centre
#: :data:`KICK_BALL` from the right ankle; the ball goes about 2.6 m, :data:`KICK_OFF_LINE` to the
#: left of straight ahead
KICK = (
    (0.638, (0.0000, -0.0513, -0.2772), (0.0000, -0.0513, -0.2772)),
    (0.192, (-0.0995, -0.0513, -0.2003), (0.0000, -0.0513, -0.2772)),
    (0.096, (0.2276, -0.0513, -0.2103), (0.0000, -0.0513, -0.2772)),
    (0.253, (0.0000, -0.0513, -0.2003), (0.0000, -0.0513, -0.2772)),
    (0.250, (0.0000, -0.0513, -0.2772), (0.0000, -0.0513, -0.2772)),
    (1.346, (0.0000, -0.0513, -0.2772), (0.0000, -0.0513, -0.2772)),
    (0.638, (0.0000, 0.0000, -0.2772), (0.0000, 0.0000, -0.2772)),
)
KICK_BALL = (0.150, 0.0)         # m: the ball's centre ahead of (x) and left of (y) the right ankle
KICK_LEAN = 0.0427               # rad: the legs' lean the kick was found with
KICK_OFF_LINE = 0.13             # rad: the ball goes this far to the left of straight ahead


def walk() -> walking.Walk:
    """A new walk of the kid at the API's step, its speeds kept within :func:`command`."""
    return walking.Walk(KID_LEG, KID_GAIT, STEP, limit=command, speed_change=SPEED_CHANGE)


def stopping_speed(remaining: float, full: float) -> float:
    """The largest speed (share of full, at most 1) from which the walk stops within
    ``remaining`` (m, or rad for a turn), slowing by :data:`SPEED_CHANGE` a step of
    :data:`KID_GAIT`'s period, for a walk that goes ``full`` (m/s or rad/s) at share 1 and in
    proportion below: from share v it covers ``full * v ** 2 / (2 * rate)`` more, with ``rate``
    the shares lost a second. Walking at full speed the kid needs 0.67 m to stop, turning at
    full speed 1.2 rad (:data:`FULL_TURN`): more than it turns, since it turns slower than in
    proportion at lower shares, which makes up for the step a new speed waits for."""
    rate = SPEED_CHANGE / KID_GAIT.period
    return min(1.0, math.sqrt(2.0 * rate * max(0.0, remaining) / full))


def command(forward: float, sideways: float, turn: float) -> tuple[float, float, float]:
    """The wanted (forward, sideways, turn) speeds (fractions of full) brought within what the
    kid's gait walks without falling (measured on our world under changing commands): backwards
    at most :data:`MOST_BACKWARDS`; a turn beyond half speed on the spot (forward at most 0.2);
    forward and turn together at most 1 (walking at full speed and turning at 0.4 it falls)."""
    forward = max(MOST_BACKWARDS, min(1.0, forward))
    sideways, turn = max(-1.0, min(1.0, sideways)), max(-1.0, min(1.0, turn))
    if abs(turn) > 0.5:
        forward = max(-0.2, min(0.2, forward))
    elif abs(forward) + abs(turn) > 1.0:
        forward = (1.0 - abs(turn)) * (1.0 if forward > 0 else -1.0)
    return forward, sideways, turn


def leg_targets(legs: dict[str, walking.LegPose]) -> dict[str, float]:
    """The legs' joint targets (rad by joint name) for :class:`simleague.walking.Walk`'s pose."""
    return walking.joint_targets(legs, LEG_JOINTS)


def stand(gait_walk: walking.Walk) -> dict[str, float]:
    """Every joint's target standing in the walking crouch, arms down, head straight."""
    return leg_targets(gait_walk.stand()) | ARMS | {"head_yaw": 0.0, "head_pitch": 0.0}


def odometry(gait_walk: walking.Walk) -> tuple[float, float]:
    """The robot's (forward, leftward) speed in m/s the walk's step under way gives, as measured
    (:data:`FULL_SPEED`, :data:`TURN_SLOWS`)."""
    forward, sideways, turn = gait_walk.speed
    return forward * FULL_SPEED[0] * max(0.0, 1.0 - TURN_SLOWS * abs(turn)), sideways * FULL_SPEED[1]


def lying(accelerometer) -> str | None:
    """"front", "back" or None (not lying flat) from the torso's accelerometer (m/s^2, torso
    frame x forward, y left, z up; (0, 0, 9.81) upright at rest)."""
    forward = accelerometer[0]
    if forward < -LYING:
        return "front"
    if forward > LYING:
        return "back"
    return None


FINISH = 0.5                     # s to the walking crouch after a motion


def kick(start: dict[str, float], foot: str = "right") -> walking.Motion:
    """The kick with ``foot`` ("right" or "left"; :data:`KICK` with the right, mirrored left to
    right for the left: the kid is symmetric), from the joint angles ``start`` (the robot standing
    in the walking crouch, the ball at :data:`KICK_BALL` from that foot's ankle, mirrored), ending
    in the crouch. The left foot's ball goes :data:`KICK_OFF_LINE` to the right. Raises ValueError
    for another foot."""
    if foot not in ("right", "left"):
        raise ValueError(f"the kid kicks with its right or left foot, not {foot!r}")
    frames = []
    for seconds, right, left in KICK:
        if foot == "left":
            (rx, ry, rz), (lx, ly, lz) = right, left
            right, left = (lx, -ly, lz), (rx, -ry, rz)
        legs = {}
        for leg, ankle in (("r", right), ("l", left)):
            roll, pitch, knee, ankle_pitch, ankle_roll = KID_LEG.angles(*ankle)
            legs[leg] = walking.LegPose(0.0, roll, pitch - KICK_LEAN, knee, ankle_pitch + KICK_LEAN, ankle_roll)
        frames.append((seconds, leg_targets(legs)))
    return walking.Motion(frames + [(FINISH, stand(walk()))], start, STEP)


#: the joints a get-up moves, each the same on both sides (the right shoulder's roll mirrored):
#: the columns of :data:`GET_UP_FRONT` and :data:`GET_UP_BACK` after the seconds
GET_UP_JOINTS = ("shoulder_pitch", "shoulder_roll", "elbow", "hip_pitch", "knee", "ankle_pitch")
#: the crouches from the one on hands and feet (the get-ups' last keyframe) up to the walking
#: crouch whose weight stays over the ankles, worked out from the model: (hip pitch, knee, ankle
#: pitch) rad of both legs, the arms down; a get-up rises through them at :data:`RISE`'s seconds each
RISING = ((-2.636, 1.483, -0.172), (-2.271, 1.366, -0.191), (-1.907, 1.249, -0.219), (-1.543, 1.131, -0.253),
          (-1.179, 1.014, -0.289), (-0.814, 0.897, -0.325), (-0.450, 0.780, -0.360))
#: from lying on the front, keyframes (seconds to reach it; then rad, :data:`GET_UP_JOINTS`): limbs
#: straight; the arms spread, swung over the head and brought in along the ground; pushed down,
#: the chest lifted; the legs drawn in under the body (three keyframes); the crouch on hands and
#: feet, the torso over the thighs, the weight over the feet (the hips bent 3.0 rad); the hands
#: lifted; then up through :data:`RISING`. The three keyframes and all the seconds (the rise's
#: too) were found with CMA-ES.
GET_UP_FRONT = (
    (0.462, +0.000, +0.000, +0.000, +0.000, +0.000, +0.000),
    (0.321, +0.000, +1.500, +0.000, +0.000, +0.000, +0.000),
    (0.137, -3.000, +1.500, +0.000, +0.000, +0.000, +0.000),
    (0.175, -3.000, +0.000, +0.000, +0.000, +0.000, +0.000),
    (0.264, -1.600, +0.000, +0.000, +0.000, +0.000, +0.000),
    (0.161, -2.156, +0.000, +0.000, -0.384, +0.824, -0.523),
    (0.130, -3.100, +0.000, +0.000, -2.793, +2.300, -1.200),
    (0.419, -1.364, +0.000, -1.060, -2.361, +0.793, -0.223),
    (0.213, -1.500, +0.000, +0.000, -3.000, +1.600, -0.171),
    (0.241, +0.000, +0.000, +0.000, -3.000, +1.600, -0.171),
)
#: from lying on the back, the same way: limbs straight; the knees raised, the arms spread, swung
#: over the head and brought in along the ground; then (three keyframes found with CMA-ES) the
#: arms swung forward over the chest, back over the head and forward again while the legs fold:
#: the robot sits up and its weight is thrown forward over its feet; then as from the front
GET_UP_BACK = (
    (0.057, +0.000, +0.000, +0.000, +0.000, +0.000, +0.000),
    (0.050, +0.000, +1.500, +0.000, -0.500, +1.000, +0.000),
    (0.199, +3.000, +1.500, +0.000, -0.500, +1.000, +0.000),
    (0.050, +3.000, +0.000, +0.000, -0.500, +1.000, +0.000),
    (0.503, -1.147, -0.300, -0.205, -0.271, +2.300, -1.200),
    (1.283, +3.100, +0.489, +0.000, -2.468, +1.095, -1.200),
    (0.471, -3.100, +1.435, +0.000, -3.000, +0.000, +0.223),
    (0.062, -1.500, +1.435, +0.000, -3.000, +1.600, -0.171),
    (0.214, +0.000, +0.000, +0.000, -3.000, +1.600, -0.171),
)
GET_UPS = {"front": GET_UP_FRONT, "back": GET_UP_BACK}
RISE = {"front": 0.215, "back": 0.189}          # s from one of :data:`RISING`'s crouches to the next


def get_up(side: str, start: dict[str, float]) -> walking.Motion:
    """The get-up from lying on ``side`` ("front" or "back", :func:`lying`) from the joint angles
    ``start`` (rad by joint name): :data:`GET_UP_FRONT` or :data:`GET_UP_BACK`, then up through
    :data:`RISING` and into the walking crouch; the joints the tables leave out (head, hip yaw and
    roll, ankle roll) held straight. Found with CMA-ES on our world over falls of the walking kid
    pushed forward or backward (``benchmarks/bench_kid.py`` measures them on other falls). Raises
    ValueError for another side."""
    if side not in GET_UPS:
        raise ValueError(f"the kid gets up from its front or back, not {side!r}")
    straight = {joint: 0.0 for joint in JOINTS}
    frames = []
    rise = tuple((RISE[side], 0.0, 0.0, 0.0, *crouch) for crouch in RISING)
    for seconds, *angles in GET_UPS[side] + rise:
        targets = {}
        for name, angle in zip(GET_UP_JOINTS, angles):
            targets[f"left_{name}"] = angle
            targets[f"right_{name}"] = -angle if name.endswith("roll") else angle
        frames.append((seconds, straight | targets))
    return walking.Motion(frames + [(FINISH, stand(walk()))], start, STEP)
