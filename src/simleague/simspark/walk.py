"""The walk for the SimSpark Nao (robot type 0), for the sample agent: :mod:`simleague.walking`'s
gait on the Nao's legs, its angles mapped onto the ``HJ`` perceptors' names and signs (degrees).
The gait's parameters (:data:`NAO_GAIT`) were found with CMA-ES (N. Hansen, the ``cma`` package)
on our world, driven as through our server (the agent's answer acts two cycles after what it
read): walking straight ahead for 30 s from four starts (headings within 15 degrees, other times
standing first), each counted up to 15 m, a fall costing more than any distance gains.

Pure and standard library only (the sample agent starts 22 processes quickly). The leg geometry
is type 0's (:mod:`simleague.soccer.nao`: the knee 0.12 m below the hip pivot and 5 mm forward,
the ankle 0.10 m below the knee).
"""

from __future__ import annotations

import math
from dataclasses import replace

from .. import walking

CYCLE = 0.02                              # s: one server cycle
NAO_LEG = walking.Leg(knee=(0.005, 0.12), shank=0.10)   # type 0, naoleg.rsg
YAW_AXIS = math.sqrt(0.5)                 # lj1 turns about (-0.7071, 0, +-0.7071): yaw per radian

#: the parameters found for type 0 (module docstring)
NAO_GAIT = walking.Gait(period=0.1587, height=0.1966, sway=0.0058, lift=0.0306, stride=0.1133, side=0.04,
                        turn=0.6, lean=-0.0068, pitch_gain=0.0048, roll_gain=0.0482, width=-0.0012)


def leg_angles(dx: float, dy: float, dz: float) -> tuple[float, float, float, float, float]:
    """The Nao's joint angles (radians: hip roll lj2, hip pitch lj3, knee lj4, ankle pitch lj5,
    ankle roll lj6) that put the ankle at (dx, dy, dz) m from the hip pivot, in SimSpark's robot
    frame (x right, y forward, z up; (0, 0.005, -0.22) with every joint at 0), with the foot flat
    and parallel to the torso. Signs as the Nao's joints turn (measured on our model: lj3 > 0
    swings the leg forward, lj4 < 0 bends the knee, lj2 > 0 swings the leg towards -x)."""
    roll, pitch, knee, ankle, ankle_roll = NAO_LEG.angles(dy, -dx, dz)
    return roll, -pitch, -knee, -ankle, ankle_roll


class Walk:
    """The walk's state: ``Walk(gait)``; each cycle :meth:`step` with the wanted speed and the
    gyro's reading gives the leg joints' target angles (:class:`simleague.walking.Walk` on the
    Nao's legs). Speeds are fractions of the gait's full stride, side step and turn."""

    def __init__(self, gait: walking.Gait = NAO_GAIT):
        self.gait = gait
        self._walk = walking.Walk(NAO_LEG, gait, CYCLE)

    @property
    def moving(self) -> bool:
        """Whether the step under way still moves the robot (a speed not yet down to zero)."""
        return self._walk.moving

    def stand(self) -> dict[str, float]:
        """Target angles (degrees) of the walking crouch, feet together, for standing still."""
        return _joints(self._walk.stand())

    def step(self, forward: float, sideways: float = 0.0, turn: float = 0.0,
             gyro: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> dict[str, float]:
        """Advance one cycle (0.02 s) and return the legs' target angles (degrees, by perceptor
        name: ``rlj1`` ... ``llj6``). ``forward``, ``sideways`` (positive: to the robot's left)
        and ``turn`` (positive: counter-clockwise) are approached from the next step on
        (:func:`simleague.walking.Walk.step`); ``gyro`` is the torso's ``GYR`` reading (deg/s,
        about x right, y forward, z up)."""
        rates = (math.radians(gyro[1]), -math.radians(gyro[0]), math.radians(gyro[2]))
        return _joints(self._walk.step(forward, sideways, turn, rates))


def _joints(legs: dict[str, walking.LegPose]) -> dict[str, float]:
    out = {}
    for leg, p in legs.items():
        # the hip joint lj1 turns about an axis half yaw, half pitch: the foot that opens turns by
        # -lj1 * 0.71 in yaw (left leg; +lj1 * 0.71 right), and lj3 takes back the pitch
        opening = (-p.yaw if leg == "l" else p.yaw) / YAW_AXIS
        out[f"{leg}lj1"] = math.degrees(opening)
        out[f"{leg}lj2"] = math.degrees(p.roll)
        out[f"{leg}lj3"] = math.degrees(-p.pitch + YAW_AXIS * opening)
        out[f"{leg}lj4"] = math.degrees(-p.knee)
        out[f"{leg}lj5"] = math.degrees(-p.ankle_pitch)
        out[f"{leg}lj6"] = math.degrees(p.ankle_roll)
    return out


def with_gait(**changes) -> walking.Gait:
    """:data:`NAO_GAIT` with some parameters changed (field names of :class:`simleague.walking.Gait`)."""
    return replace(NAO_GAIT, **changes)


TRACKING = 0.3                            # fraction of a joint's error closed in one cycle (the server answers two cycles late)


def velocities(targets: dict[str, float], angles: dict[str, float]) -> dict[str, float]:
    """The effector velocities (rad/s, by effector name: ``rle3``) that move each joint of
    ``targets`` (degrees, by perceptor name: ``rlj3``) from its angle in ``angles`` (degrees)
    towards its target, closing :data:`TRACKING` of the error in one cycle (the server clamps
    them to the joint's top speed). Raises KeyError for a target without an angle."""
    return {joint[:-2] + "e" + joint[-1]: math.radians(target - angles[joint]) * TRACKING / CYCLE
            for joint, target in targets.items()}
