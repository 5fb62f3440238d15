"""The sample walk on Hamburg Bit-Bots' Wolfgang (the league's Webots PROTO in
``../shared/reference/robots/webots-proto/bitbots/``, imported as ``WolfgangRobocup``): its legs
for :mod:`simleague.walking`, how its joints turn against that module's, and the gait found for
it. Joint names are the PROTO's.

The legs, from the imported model: the hip turns in yaw, roll, pitch (:class:`simleague.walking.Leg`'s
order), the roll and pitch axes at one height, 4.1 cm below the yaw's; hip pitch to knee 0.168 m
down and 2.4 cm back, knee to ankle 0.168 m down and 2.4 cm forward, so that the straight leg
puts the ankle under the hip. :class:`~simleague.walking.Leg` takes the ankle straight below the
knee: the knee is turned :data:`SHANK_TILT` further and the ankle back by as much
(:data:`OFFSETS`). The PROTO sets the hip pitch and ankle pitch at 0.12 rad (signs per side) in
its straight pose, and there the sole is 0.022 rad off flat in pitch (and the right one in roll):
these are offsets too, so that the walk's zero is the leg straight and the sole flat (checked with
the model's kinematics). Several axes turn against :mod:`simleague.walking`'s, differently on the
two sides (:data:`SIGNS`).

The gait (:data:`WOLFGANG_GAIT`) was found with CMA-ES (N. Hansen, the ``cma`` package) on our
world as for the Booster K1 (:mod:`simleague.vhsc.booster_k1`): walking 35 s ahead from two
headings, turning on the spot and in an arc, speed counted up to 0.6 m/s and 60 deg/s, a fall
costing more than any distance. The robot bends from its straight pose into the crouch over
:data:`BEND` (at once, its knees lag behind its hips and it topples forward).
``benchmarks/bench_kid.py --robot wolfgang`` measures it: 0.58 m/s ahead, 20 m without falling in
10 of 10 runs, 58 deg/s turning on the spot. No get-up or kick.

Pure and standard library only.
"""

from __future__ import annotations

import math

from .. import walking

MODEL = "WolfgangRobocup"
STEP = 0.008                     # s: the API's basic step, the control cycle
GYRO = "imu gyro"                # the torso's gyro (the head has another)
BEND = 1.0                       # s: from the straight pose into the walking crouch
#: the shank leans forward by this at the knee's zero (2.4 cm over 0.168 m), rad
SHANK_TILT = math.atan2(0.024, 0.168)
#: hip pitch to knee and knee to ankle, from the model (module docstring)
WOLFGANG_LEG = walking.Leg(knee=(-0.024, 0.168), shank=math.hypot(0.024, 0.168))
#: per leg, in :class:`simleague.walking.LegPose`'s order: added to the walk's angles (rad)
OFFSETS = {"l": (0.0, 0.0, 0.12, SHANK_TILT, 0.142 - SHANK_TILT, 0.0),
           "r": (0.0, 0.0, 0.12, SHANK_TILT, 0.142 - SHANK_TILT, 0.0225)}
#: per leg, same order: +1 where the joint's axis is :mod:`simleague.walking`'s, -1 against it
SIGNS = {"l": (-1, 1, -1, 1, 1, -1), "r": (-1, 1, 1, -1, -1, -1)}
LEG_JOINTS = {leg: tuple(f"{side}{joint}" for joint in ("HipYaw", "HipRoll [hip]", "HipPitch", "Knee", "AnklePitch",
                                                         "AnkleRoll"))
              for leg, side in (("l", "L"), ("r", "R"))}
#: the gait found for Wolfgang (module docstring)
WOLFGANG_GAIT = walking.Gait(period=0.1486, height=0.2703, sway=-0.0105, lift=0.0966, stride=0.2796, side=0.045,
                             turn=0.7796, lean=0.0448, pitch_gain=0.0395, roll_gain=0.0391, width=0.0001)
SPEED_CHANGE = 0.05              # most a speed (share of full) changes a step
#: the arms down, a little out from the body
ARMS = {"LShoulderPitch [shoulder]": 0.0, "RShoulderPitch [shoulder]": 0.0, "LShoulderRoll": -0.2,
        "RShoulderRoll": 0.2, "LElbow": 0.0, "RElbow": 0.0}


def walk() -> walking.Walk:
    """A new walk of Wolfgang at the API's step."""
    return walking.Walk(WOLFGANG_LEG, WOLFGANG_GAIT, STEP, speed_change=SPEED_CHANGE)


def leg_targets(legs: dict[str, walking.LegPose]) -> dict[str, float]:
    """The legs' joint targets (rad by joint name) for :class:`simleague.walking.Walk`'s pose."""
    return walking.joint_targets(legs, LEG_JOINTS, OFFSETS, SIGNS)


def stand(gait_walk: walking.Walk) -> dict[str, float]:
    """Every joint's target standing in the walking crouch, arms down, head straight."""
    return leg_targets(gait_walk.stand()) | ARMS | {"HeadPan": 0.0, "HeadTilt": 0.0}
