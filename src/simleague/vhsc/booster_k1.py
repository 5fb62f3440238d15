"""The sample walk on the league's Booster K1 (the MuJoCo model Booster publishes, in
``../shared/reference/robots/booster-k1/``; loaded as ``booster-k1``): its legs for
:mod:`simleague.walking` and the gait found for it. Joint names are the model's; angles in radians
with the model's signs, which are :mod:`simleague.walking`'s (x forward, y to the left, z up).

The K1's hip turns in pitch, then roll, then yaw (the kid's, and :class:`simleague.walking.Leg`'s,
in yaw, roll, pitch), on axes 2.6 cm (pitch to roll) and 4.9 cm (roll to yaw) apart: the walk
takes them as one pivot with the yaw about the thigh. The gait keeps the legs nearly straight
(the ankle 0.42 m below the hip of the 0.435 m the leg reaches) and its rolls small, where the
two orders differ by little; the gait was found with them as they are.

The gait (:data:`K1_GAIT`) was found with CMA-ES (N. Hansen, the ``cma`` package) on our world,
driven as through our server (the answer acting two steps after what it read): walking ahead for
25 s from two headings, turning on the spot and in an arc, each after another time standing,
speed counted up to 0.5 m/s and 50 deg/s (beyond, only not falling counts), a fall costing more
than any distance; the feet kept at least 1 cm apart (a robot's parts do not collide with each
other in the league's simulator or ours, the real robot's do). ``benchmarks/bench_kid.py --robot
booster-k1`` measures it: 0.60 m/s ahead, 20 m without falling in 10 of 10 runs, 24 to 27 deg/s
turning. There is no get-up or kick for the K1, and the sample player is the kid's.

Pure and standard library only.
"""

from __future__ import annotations

from .. import walking

MODEL = "booster-k1"
STEP = 0.008                     # s: the API's basic step, the control cycle
GYRO = "torso_gyro"              # the model's gyro
BEND = 0.0                       # s: from the model's pose into the walking crouch (at once)
#: hip pitch to knee (0.19 m, 2 mm behind) and knee to ankle (0.245 m), from the model
K1_LEG = walking.Leg(knee=(-0.002, 0.19), shank=0.245)
#: the gait found for the K1 (module docstring)
K1_GAIT = walking.Gait(period=0.1696, height=0.4193, sway=-0.0098, lift=0.048, stride=0.165, side=0.05,
                       turn=0.4361, lean=-0.0475, pitch_gain=0.087, roll_gain=0.0621, width=-0.0513)
SPEED_CHANGE = 0.05              # most a speed (share of full) changes a step: full speed in about 4 s
#: the arms down, 15 degrees out from the body (at 0 the model's arms stretch out sideways)
ARMS = {"ALeft_Shoulder_Pitch": 0.0, "ARight_Shoulder_Pitch": 0.0, "Left_Shoulder_Roll": -1.3,
        "Right_Shoulder_Roll": 1.3, "Left_Elbow_Pitch": 0.0, "Right_Elbow_Pitch": 0.0}
#: each leg's joints in :class:`simleague.walking.LegPose`'s order
LEG_JOINTS = {leg: tuple(f"{side}_{joint}" for joint in ("Hip_Yaw", "Hip_Roll", "Hip_Pitch", "Knee_Pitch", "Ankle_Pitch",
                                                          "Ankle_Roll"))
              for leg, side in (("l", "Left"), ("r", "Right"))}


def walk() -> walking.Walk:
    """A new walk of the K1 at the API's step."""
    return walking.Walk(K1_LEG, K1_GAIT, STEP, speed_change=SPEED_CHANGE)


def leg_targets(legs: dict[str, walking.LegPose]) -> dict[str, float]:
    """The legs' joint targets (rad by joint name) for :class:`simleague.walking.Walk`'s pose."""
    return walking.joint_targets(legs, LEG_JOINTS)


def stand(gait_walk: walking.Walk) -> dict[str, float]:
    """Every joint's target standing in the walking crouch, arms down, head straight."""
    return leg_targets(gait_walk.stand()) | ARMS | {"AAHead_yaw": 0.0, "Head_pitch": 0.0}
