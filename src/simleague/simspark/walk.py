"""A walk for the SimSpark Nao (robot type 0), for the sample agent: an omnidirectional gait in the
manner of Behnke's central pattern generator (S. Behnke, "Online trajectory generation for
omnidirectional biped walking", ICRA 2006): per step a sinusoidal lateral shift of the body over
the support foot, the swing foot lifted on a half sine and swung forward (and sideways and turned)
on a half cosine while the support foot sweeps back, both feet kept flat and parallel to the
torso by the legs' inverse kinematics (:func:`leg_angles`), with the torso's gyro fed back to the
ankles (closed loop on the robot's own sensors). The gait's parameters (:data:`NAO_GAIT`) were
found with CMA-ES (N. Hansen, the ``cma`` package) on our world, driven as through our server (the
agent's answer acts two cycles after what it read): walking straight ahead for 30 s from four
starts (headings within 15 degrees, other times standing first), each counted up to 15 m, a fall
costing more than any distance gains.

Pure and standard library only (the sample agent starts 22 processes quickly). Frames and units:
the robot's frame is SimSpark's (x right, y forward, z up, metres); joint angles in degrees as the
``HJ`` perceptors give them; the leg geometry is type 0's (:mod:`simleague.soccer.nao`: hip pivot
0.055 m to the side and 0.115 m below the torso's centre, the knee 0.12 m below it and 5 mm
forward, the ankle 0.10 m below the knee).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

KNEE = (0.005, -0.12)                     # m: the knee from the hip pivot, forward and up, joints at 0
THIGH = math.hypot(*KNEE)                 # m: hip pivot to knee (type 0, naoleg.rsg)
THIGH_TILT = math.atan2(KNEE[0], -KNEE[1])  # rad: the thigh leans forward by this with its joints at 0
SHANK = 0.10                              # m: knee to ankle
HIP_SIDE = 0.055                          # m: the hip pivot's distance from the middle
CYCLE = 0.02                              # s: one server cycle
SPEED_CHANGE = 0.16                       # most a speed (share of full) changes from one step to the next:
                                          # full speed from standing in about 1 s (a sudden start topples the robot)
YAW_AXIS = math.sqrt(0.5)                 # lj1 turns about (-0.7071, 0, +-0.7071): yaw per radian


@dataclass(frozen=True)
class Gait:
    """The walk's parameters: ``period`` (s per step), ``height`` (m from hip pivot to ankle while
    walking), ``sway`` (m of lateral shift towards the support foot), ``lift`` (m the swing foot
    rises), ``stride`` (m forward per step at full speed), ``side`` (m sideways per step at full
    speed), ``turn`` (radians of yaw per step at full speed), ``lean`` (radians the legs lean back
    at the hip, torso forward), ``pitch_gain`` and ``roll_gain`` (radians of ankle correction per
    rad/s of torso rotation) and ``width`` (m each foot is set outwards)."""

    period: float = 0.1587
    height: float = 0.1966
    sway: float = 0.0058
    lift: float = 0.0306
    stride: float = 0.1133
    side: float = 0.04
    turn: float = 0.6
    lean: float = -0.0068
    pitch_gain: float = 0.0048
    roll_gain: float = 0.0482
    width: float = -0.0012


#: the parameters found for type 0 (module docstring)
NAO_GAIT = Gait()


def leg_angles(dx: float, dy: float, dz: float) -> tuple[float, float, float, float, float]:
    """The joint angles (radians: hip roll lj2, hip pitch lj3, knee lj4, ankle pitch lj5, ankle
    roll lj6) that put the ankle at (dx, dy, dz) m from the hip pivot, robot frame (x right, y
    forward, z up; (0, 0.005, -0.22) with every joint at 0), with the foot
    flat and parallel to the torso. A point out of reach is taken at full stretch in its direction.
    Signs as the Nao's joints turn (measured on our model: lj3 > 0 swings the leg forward, lj4 < 0
    bends the knee, lj2 > 0 swings the leg towards -x)."""
    roll = math.atan2(-dx, -dz)
    in_plane = math.hypot(dx, dz)
    reach = min(math.hypot(dy, in_plane), THIGH + SHANK - 1e-6)
    at_knee = math.acos(max(-1.0, min(1.0, (THIGH ** 2 + SHANK ** 2 - reach ** 2) / (2 * THIGH * SHANK))))
    at_hip = math.acos(max(-1.0, min(1.0, (THIGH ** 2 + reach ** 2 - SHANK ** 2) / (2 * THIGH * reach))))
    hip = math.atan2(dy, in_plane) + at_hip - THIGH_TILT     # thigh: the line to the ankle plus at_hip
    knee = THIGH_TILT - (math.pi - at_knee)
    return roll, hip, knee, -(hip + knee), -roll


class Walk:
    """The walk's state: ``Walk(gait)``; each cycle :meth:`step` with the wanted speed and the
    gyro's reading gives the leg joints' target angles. Speeds are fractions of the gait's full
    stride, side step and turn (each clamped to [-1, 1])."""

    def __init__(self, gait: Gait = NAO_GAIT):
        self.gait = gait
        self.time = 0.0
        self._speed = (0.0, 0.0, 0.0)      # the speed of the step under way (set at its start)
        self._step = -1
        self._opening = {"r": 0.0, "l": 0.0}  # radians of lj1 now: moved at a bounded rate

    @property
    def moving(self) -> bool:
        """Whether the step under way still moves the robot (a speed not yet down to zero)."""
        return any(abs(v) > 1e-9 for v in self._speed)

    def stand(self) -> dict[str, float]:
        """Target angles (degrees) of the walking crouch, feet together, for standing still."""
        return self._pose(0.0, None, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))

    def step(self, forward: float, sideways: float = 0.0, turn: float = 0.0,
             gyro: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> dict[str, float]:
        """Advance one cycle (0.02 s) and return the legs' target angles (degrees, by perceptor
        name: ``rlj1`` ... ``llj6``). ``forward``, ``sideways`` (positive: to the robot's left)
        and ``turn`` (positive: counter-clockwise) are approached from the next step on, by at
        most :data:`SPEED_CHANGE` a step; ``gyro`` is the
        torso's ``GYR`` reading (deg/s)."""
        self.time += CYCLE
        number = int(self.time / self.gait.period)
        if number != self._step:
            self._step = number
            wanted = (max(-1.0, min(1.0, v)) for v in (forward, sideways, turn))
            self._speed = tuple(now + max(-SPEED_CHANGE, min(SPEED_CHANGE, v - now)) for now, v in zip(self._speed, wanted))
        phase = (self.time % self.gait.period) / self.gait.period
        swing = "l" if number % 2 == 0 else "r"
        return self._pose(phase, swing, self._speed, gyro)

    def _pose(self, phase: float, swing: str | None, speed, gyro) -> dict[str, float]:
        g = self.gait
        forward, sideways, turn = speed[0] * g.stride, speed[1] * g.side, speed[2] * g.turn
        shift = 0.0 if swing is None else g.sway * math.sin(math.pi * phase) * (1.0 if swing == "l" else -1.0)
        rate_x, rate_y = math.radians(gyro[0]), math.radians(gyro[1])
        out = {}
        for leg in "rl":
            outward = g.width if leg == "r" else -g.width
            if leg == swing:
                carry = 0.5 - 0.5 * math.cos(math.pi * phase)          # 0 -> 1 over the step
                along, across, yaw = -0.5 + carry, -0.5 + carry, carry
                up = g.lift * math.sin(math.pi * phase)
            elif swing is None:
                along = across = yaw = up = 0.0
            else:
                along, across, yaw = 0.5 - phase, 0.5 - phase, 1.0 - phase
                up = 0.0
            # sideways steps only open the leg on the side stepped towards (no crossing)
            lateral = -sideways * across if (sideways > 0) == (leg == "l") else 0.0
            roll, hip, knee, ankle, ankle_roll = leg_angles(outward - shift + lateral, forward * along,
                                                            -g.height + up)
            # the hip joint lj1 turns about an axis half yaw, half pitch: the foot that opens (the
            # left one for a turn to the left) turns by -lj1 * 0.71 in yaw, and lj3 takes back the pitch
            wanted = -abs(turn) * yaw / YAW_AXIS if (turn > 0) == (leg == "l") else 0.0
            most = 2 * g.turn / YAW_AXIS * CYCLE / g.period       # a full opening in half a step
            opening = self._opening[leg] + max(-most, min(most, wanted - self._opening[leg]))
            self._opening[leg] = opening
            out[f"{leg}lj1"] = math.degrees(opening)
            out[f"{leg}lj2"] = math.degrees(roll)
            out[f"{leg}lj3"] = math.degrees(hip + g.lean + YAW_AXIS * opening)
            out[f"{leg}lj4"] = math.degrees(knee)
            out[f"{leg}lj5"] = math.degrees(ankle - g.lean + g.pitch_gain * rate_x)
            out[f"{leg}lj6"] = math.degrees(ankle_roll + g.roll_gain * rate_y)
        return out


def with_gait(**changes) -> Gait:
    """:data:`NAO_GAIT` with some parameters changed (field names of :class:`Gait`)."""
    return replace(NAO_GAIT, **changes)


TRACKING = 0.3                            # fraction of a joint's error closed in one cycle (the server answers two cycles late)


def velocities(targets: dict[str, float], angles: dict[str, float]) -> dict[str, float]:
    """The effector velocities (rad/s, by effector name: ``rle3``) that move each joint of
    ``targets`` (degrees, by perceptor name: ``rlj3``) from its angle in ``angles`` (degrees)
    towards its target, closing :data:`TRACKING` of the error in one cycle (the server clamps
    them to the joint's top speed). Raises KeyError for a target without an angle."""
    return {joint[:-2] + "e" + joint[-1]: math.radians(target - angles[joint]) * TRACKING / CYCLE
            for joint, target in targets.items()}
