"""The sample players' walk, shared by the SimSpark Nao (:mod:`simleague.simspark.walk`) and the
humanoid API's kid robot (:mod:`simleague.vhsc.kid`) and Booster K1 (:mod:`simleague.vhsc.booster_k1`):
an omnidirectional gait in the manner of
Behnke's central pattern generator (S. Behnke, "Online trajectory generation for omnidirectional
biped walking", ICRA 2006): per step a sinusoidal lateral shift of the body over the support foot,
the swing foot lifted on a half sine and swung forward (and sideways and turned) on a half cosine
while the support foot sweeps back, both feet kept flat and parallel to the torso by the legs'
inverse kinematics (:meth:`Leg.angles`), with the torso's rotation rates fed back to the ankles
(closed loop on the robot's own gyro).

A robot brings its leg geometry (:class:`Leg`) and its gait's parameters (:class:`Gait`, found by
optimisation on our worlds, each in its robot's module); :class:`Walk` gives, each control cycle,
both legs' joint angles (:class:`LegPose`), which the robot's module maps onto its joints' names
and signs.

Pure and standard library only (sample players start many processes quickly). Frame and units:
x forward, y to the left, z up, metres; angles in radians, each a right-handed rotation about the
frame's axes (a positive pitch swings the foot backwards, a positive roll moves it to the left, a
positive knee angle bends the knee); rotation rates in rad/s about the same axes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SPEED_CHANGE = 0.16     # most a speed (share of full) changes from one step to the next, by default: full
                        # speed from standing in about 1 s at the Nao's steps (a sudden start topples a robot)


@dataclass(frozen=True)
class Gait:
    """The walk's parameters: ``period`` (s per step), ``height`` (m from hip pivot to ankle while
    walking), ``sway`` (m of lateral shift towards the support foot), ``lift`` (m the swing foot
    rises), ``stride`` (m forward per step at full speed), ``side`` (m sideways per step at full
    speed), ``turn`` (radians of yaw per step at full speed), ``lean`` (radians the legs lean back
    at the hip, torso forward), ``pitch_gain`` and ``roll_gain`` (radians of ankle correction per
    rad/s of torso rotation about y and x) and ``width`` (m each foot is set outwards)."""

    period: float
    height: float
    sway: float
    lift: float
    stride: float
    side: float
    turn: float
    lean: float
    pitch_gain: float
    roll_gain: float
    width: float


@dataclass(frozen=True)
class LegPose:
    """One leg's joint angles (radians, signs of the module docstring): ``yaw`` at the hip,
    ``roll`` and ``pitch`` at the hip, ``knee``, ``ankle_pitch``, ``ankle_roll``."""

    yaw: float
    roll: float
    pitch: float
    knee: float
    ankle_pitch: float
    ankle_roll: float


def joint_targets(legs: dict[str, LegPose], names: dict[str, tuple[str, ...]],
                  offsets: dict[str, tuple[float, ...]] | None = None,
                  signs: dict[str, tuple[int, ...]] | None = None) -> dict[str, float]:
    """Both legs' joint targets by the robot's joint names: ``legs`` maps "l"/"r" to a
    :class:`LegPose`; ``names`` gives per leg the six joints' names in :class:`LegPose`'s order
    (hip yaw, hip roll, hip pitch, knee, ankle pitch, ankle roll). For a robot whose joints do not
    turn with this module's signs and zeros, per leg and in the same order, ``offsets`` (rad, in
    this module's signs) are added to the pose's angles and ``signs`` (+1 or -1: the joint's axis
    along or against this module's) applied to the sums. Angles in radians. Raises KeyError for a
    leg ``names`` (or ``offsets``, ``signs`` when given) lacks."""
    targets = {}
    for leg, p in legs.items():
        angles = (p.yaw, p.roll, p.pitch, p.knee, p.ankle_pitch, p.ankle_roll)
        if offsets is not None:
            angles = tuple(a + o for a, o in zip(angles, offsets[leg]))
        if signs is not None:
            angles = tuple(a * s for a, s in zip(angles, signs[leg]))
        targets |= dict(zip(names[leg], angles))
    return targets


@dataclass(frozen=True)
class Leg:
    """A leg's geometry: the knee ``knee`` = (forward, down) m from the hip pivot with every joint
    at 0, and the ankle ``shank`` m straight below the knee; the hip's roll and pitch axes and the
    ankle's pitch and roll axes each cross in one point."""

    knee: tuple[float, float]
    shank: float

    @property
    def thigh(self) -> float:
        """Hip pivot to knee, m."""
        return math.hypot(*self.knee)

    def angles(self, x: float, y: float, z: float) -> tuple[float, float, float, float, float]:
        """The joint angles (radians: hip roll, hip pitch, knee, ankle pitch, ankle roll) that put
        the ankle at (x, y, z) m from the hip pivot (forward, left, up) with the foot flat and
        parallel to the torso. A point out of reach is taken at full stretch in its direction."""
        thigh, shank = self.thigh, self.shank
        tilt = math.atan2(self.knee[0], self.knee[1])          # the thigh leans forward by this at 0
        roll = math.atan2(y, -z)
        in_plane = math.hypot(y, z)
        reach = min(math.hypot(x, in_plane), thigh + shank - 1e-6)
        at_knee = math.acos(max(-1.0, min(1.0, (thigh ** 2 + shank ** 2 - reach ** 2) / (2 * thigh * shank))))
        at_hip = math.acos(max(-1.0, min(1.0, (thigh ** 2 + reach ** 2 - shank ** 2) / (2 * thigh * reach))))
        pitch = -(math.atan2(x, in_plane) + at_hip - tilt)       # the thigh: the line to the ankle plus at_hip
        knee = math.pi - at_knee - tilt
        return roll, pitch, knee, -(pitch + knee), -roll


class Walk:
    """The walk's state: ``Walk(leg, gait, cycle, limit)`` for control cycles of ``cycle`` s; each
    cycle :meth:`step` with the wanted speed and the gyro's reading gives both legs' joint angles.
    Speeds are fractions of the gait's full stride, side step and turn (each clamped to [-1, 1]);
    ``limit`` (if given) maps each step's (forward, sideways, turn) into what the robot walks
    without falling, after the speed change towards the wanted one; ``speed_change`` is the most
    each speed changes from one step to the next."""

    def __init__(self, leg: Leg, gait: Gait, cycle: float, limit=None, speed_change: float = SPEED_CHANGE):
        self.leg, self.gait, self.cycle, self.limit = leg, gait, cycle, limit
        self.speed_change = speed_change
        self.time = 0.0
        self._speed = (0.0, 0.0, 0.0)      # the speed of the step under way (set at its start)
        self._step = -1
        self._yaw = {"r": 0.0, "l": 0.0}   # radians of hip yaw now: moved at a bounded rate

    @property
    def moving(self) -> bool:
        """Whether the step under way still moves the robot (a speed not yet down to zero)."""
        return any(abs(v) > 1e-9 for v in self._speed)

    @property
    def speed(self) -> tuple[float, float, float]:
        """The step under way's (forward, sideways, turn), fractions of full speed."""
        return self._speed

    def stand(self) -> dict[str, LegPose]:
        """Both legs (``"l"``, ``"r"``) in the walking crouch, feet together, for standing still."""
        return self._pose(0.0, None, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))

    def step(self, forward: float, sideways: float = 0.0, turn: float = 0.0,
             rates: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> dict[str, LegPose]:
        """Advance one cycle and return both legs' angles (``"l"``, ``"r"``). ``forward``,
        ``sideways`` (positive: to the robot's left) and ``turn`` (positive: counter-clockwise)
        are approached from the next step on, by at most ``speed_change`` a step; ``rates``
        are the torso's rotation rates (rad/s about x, y, z)."""
        self.time += self.cycle
        number = int(self.time / self.gait.period)
        if number != self._step:
            self._step = number
            wanted = (max(-1.0, min(1.0, v)) for v in (forward, sideways, turn))
            most = self.speed_change
            self._speed = tuple(now + max(-most, min(most, v - now)) for now, v in zip(self._speed, wanted))
            if self.limit is not None:
                self._speed = self.limit(*self._speed)
        phase = (self.time % self.gait.period) / self.gait.period
        swing = "l" if number % 2 == 0 else "r"
        return self._pose(phase, swing, self._speed, rates)

    def _pose(self, phase: float, swing: str | None, speed, rates) -> dict[str, LegPose]:
        g = self.gait
        forward, sideways, turn = speed[0] * g.stride, speed[1] * g.side, speed[2] * g.turn
        shift = 0.0 if swing is None else g.sway * math.sin(math.pi * phase) * (1.0 if swing == "l" else -1.0)
        out = {}
        for leg in "rl":
            outward = g.width if leg == "l" else -g.width
            if leg == swing:
                carry = 0.5 - 0.5 * math.cos(math.pi * phase)          # 0 -> 1 over the step
                along, across, yaw = -0.5 + carry, -0.5 + carry, carry
                up = g.lift * math.sin(math.pi * phase)
            elif swing is None:
                along = across = yaw = up = 0.0
            else:
                along, across, yaw = 0.5 - phase, 0.5 - phase, 1.0 - phase
                up = 0.0
            # sideways steps only open the leg on the side stepped towards (no crossing); so do turns
            lateral = sideways * across if (sideways > 0) == (leg == "l") else 0.0
            roll, pitch, knee, ankle, ankle_roll = self.leg.angles(forward * along, outward + shift + lateral,
                                                                   -g.height + up)
            wanted = turn * yaw if (turn > 0) == (leg == "l") else 0.0
            most = 2 * g.turn * self.cycle / g.period                 # a full opening in half a step
            self._yaw[leg] += max(-most, min(most, wanted - self._yaw[leg]))
            out[leg] = LegPose(self._yaw[leg], roll, pitch - g.lean, knee, ankle + g.lean + g.pitch_gain * rates[1],
                               ankle_roll + g.roll_gain * rates[0])
        return out


class Motion:
    """A keyframe motion under way: ``Motion(frames, start, cycle)`` with ``frames`` a sequence of
    (seconds, targets by joint name) and the joint angles when it starts (by joint name; a joint no
    keyframe sets stays there), for control cycles of ``cycle`` s; each keyframe's targets are
    approached linearly from the one before, in whole cycles. :meth:`step` each cycle gives the
    targets, None once the motion is over. Angles in any unit, the same throughout."""

    def __init__(self, frames, start: dict[str, float], cycle: float):
        self._frames = list(frames)
        self._frame, self._cycle = 0, 0
        self._from = dict(start)
        self.cycle = cycle

    @property
    def seconds(self) -> float:
        """The motion's length, s."""
        return sum(seconds for seconds, _ in self._frames)

    def step(self) -> dict[str, float] | None:
        """The targets for this cycle, or None when the motion is over."""
        if self._frame >= len(self._frames):
            return None
        seconds, target = self._frames[self._frame]
        cycles = max(1, round(seconds / self.cycle))        # whole cycles
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
