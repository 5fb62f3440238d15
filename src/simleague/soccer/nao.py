"""The five Nao robot types of SimSpark as data, from the original's robot description files
(reference/simspark-rsg/nao/nao_hetero.rsg, naoneckhead.rsg, naoarm.rsg, naoleg.rsg, naolegtoe.rsg,
hingejoint.rsg) and the per-type parameters (reference/simspark-rsg/defaults.json, ``robot_types``).

A robot is a list of :class:`Part` in the original's scene-graph order (torso, neck, head, right arm,
left arm, right leg, left leg); the perceptors of each part come in that order too, which is the
order of ``HJ`` and ``FRP`` in the agent's messages. Frame of the robot as in the original: x to the
robot's right, y forward, z up; positions are metres from the torso's centre, masses kg, angles
degrees, joint speeds rad/s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: per-type parameters (defaults.json ``robot_types``; the original's naorobottypes)
TYPE_PARAMETERS = (
    {"hip1_x": 0.055, "hip1_z": -0.115, "thigh_z": -0.04, "ankle_z": -0.055, "lj5_speed": 6.1395,
     "lj6_speed": 6.1395, "elbow_y": 0.07, "toe_length": None},
    {"hip1_x": 0.055, "hip1_z": -0.115, "thigh_z": -0.05832, "ankle_z": -0.07332, "lj5_speed": 6.1395,
     "lj6_speed": 6.1395, "elbow_y": 0.10664, "toe_length": None},
    {"hip1_x": 0.055, "hip1_z": -0.115, "thigh_z": -0.04, "ankle_z": -0.055, "lj5_speed": 8.80667,
     "lj6_speed": 3.47234, "elbow_y": 0.07, "toe_length": None},
    {"hip1_x": 0.072954143, "hip1_z": -0.115, "thigh_z": -0.067868424, "ankle_z": -0.082868424,
     "lj5_speed": 6.1395, "lj6_speed": 6.1395, "elbow_y": 0.125736848, "toe_length": None},
    {"hip1_x": 0.055, "hip1_z": -0.115, "thigh_z": -0.04, "ankle_z": -0.055, "lj5_speed": 6.1395,
     "lj6_speed": 6.1395, "elbow_y": 0.07, "toe_length": 0.035517656},
)
ROBOT_TYPES = range(len(TYPE_PARAMETERS))

#: every hinge's motor: at most 351.77 deg/s (hingejoint.rsg, naoarm.rsg) and 10 N m
MAX_JOINT_SPEED = 3.14159265 * 351.77 / 180.0
MAX_MOTOR_TORQUE = 10.0
#: the torso's height above the ground in the original's description (nao_hetero.rsg TorsoInitZ)
TORSO_START_HEIGHT = 1.5


@dataclass(frozen=True)
class Joint:
    """A hinge between a part and its parent: perceptor and effector names (``hj1``/``he1``),
    anchor in the part's frame (m), axis, range (degrees) and the motor's top speed (rad/s)."""

    perceptor: str
    effector: str
    anchor: tuple[float, float, float]
    axis: tuple[float, float, float]
    low: float
    high: float
    max_speed: float = MAX_JOINT_SPEED


@dataclass(frozen=True)
class Part:
    """One rigid body of the robot.

    ``shape`` is ``box`` (``size`` = full lengths x, y, z), ``sphere`` (radius) or ``capsule``
    (radius, length of the cylinder along z); ``position`` is relative to the torso's centre;
    ``collides`` is False for the original's ``*_nocollider`` parts (hips, shoulders, elbows,
    ankles); ``pressure`` names the part's force resistance perceptor (``lf``, ``rf1``), ``mesh``
    the monitor mesh (None: a standard shape) and ``seen`` the name vision reports it by (None: not
    seen)."""

    name: str
    parent: str | None
    shape: str
    size: tuple[float, ...]
    mass: float
    position: tuple[float, float, float]
    joint: Joint | None
    collides: bool = True
    pressure: str | None = None
    mesh: str | None = None
    seen: str | None = None


def _side(low_right: float, low_left: float, high_right: float, high_left: float, right: bool):
    """The range of a joint that is mirrored between the sides (naoarm.rsg, naoleg.rsg)."""
    return (low_right, high_right) if right else (low_left, high_left)


def _add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def _arm(side: str, p: dict) -> list[Part]:
    """Shoulder, upper arm, elbow and lower arm of one side (naoarm.rsg)."""
    right = side == "r"
    f = 1.0 if right else -1.0
    shoulder = (f * 0.098, 0.0, 0.075)
    upper = _add(shoulder, (f * 0.01, 0.02, 0.0))
    elbow = _add(upper, (f * -0.01, p["elbow_y"], 0.009))
    lower = _add(elbow, (0.0, 0.05, 0.0))
    return [
        Part(f"{side}shoulder", "torso", "sphere", (0.01,), 0.07, shoulder,
             Joint(f"{side}aj1", f"{side}ae1", (0, 0, 0), (1, 0, 0), -120, 120), collides=False),
        Part(f"{side}upperarm", f"{side}shoulder", "box", (0.07, 0.08, 0.06), 0.150, upper,
             Joint(f"{side}aj2", f"{side}ae2", (f * -0.01, -0.02, 0), (0, 0, 1),
                   *_side(-95, -1, 1, 95, right)), mesh=f"models/{side}upperarm{{type}}.obj"),
        Part(f"{side}elbow", f"{side}upperarm", "sphere", (0.01,), 0.035, elbow,
             Joint(f"{side}aj3", f"{side}ae3", (0, 0, 0), (0, 1, 0), -120, 120), collides=False),
        Part(f"{side}lowerarm", f"{side}elbow", "box", (0.05, 0.11, 0.05), 0.2, lower,
             Joint(f"{side}aj4", f"{side}ae4", (0, -0.05, 0), (0, 0, 1), *_side(-1, -90, 90, 1, right)),
             mesh=f"models/{side}lowerarm.obj", seen=f"{side}lowerarm"),
    ]


def _leg(side: str, p: dict) -> list[Part]:
    """Hips, thigh, shank, ankle, foot and (type 4) toe of one side (naoleg.rsg, naolegtoe.rsg)."""
    right = side == "r"
    f = 1.0 if right else -1.0
    toe = p["toe_length"]
    hip = (f * p["hip1_x"], -0.01, p["hip1_z"])
    thigh = _add(hip, (0.0, 0.01, p["thigh_z"]))
    shank = _add(thigh, (0.0, 0.005, -0.125))
    ankle = _add(shank, (0.0, -0.01, p["ankle_z"]))
    if toe is None:
        foot_length, foot_mass, foot_y = 0.16, 0.2, 0.03
    else:
        foot_length = 0.16 - toe
        foot_mass = (1 - toe / 0.16 * 0.5) * 0.2
        foot_y = foot_length * 0.5 - 0.05
    foot = _add(ankle, (0.0, foot_y, -0.04))
    parts = [
        Part(f"{side}hip1", "torso", "sphere", (0.01,), 0.09, hip,
             Joint(f"{side}lj1", f"{side}le1", (0, 0, 0), (-0.7071, 0, f * 0.7071), -90, 1),
             collides=False),
        Part(f"{side}hip2", f"{side}hip1", "sphere", (0.01,), 0.125, hip,
             Joint(f"{side}lj2", f"{side}le2", (0, 0, 0), (0, 1, 0), *_side(-45, -25, 25, 45, right)),
             collides=False),
        Part(f"{side}thigh", f"{side}hip2", "box", (0.07, 0.07, 0.14), 0.275, thigh,
             Joint(f"{side}lj3", f"{side}le3", (0, -0.01, -p["thigh_z"]), (1, 0, 0), -25, 100),
             mesh=f"models/{side}thigh.obj"),
        Part(f"{side}shank", f"{side}thigh", "box", (0.08, 0.07, 0.11), 0.225, shank,
             Joint(f"{side}lj4", f"{side}le4", (0, -0.01, 0.045), (1, 0, 0), -130, 1),
             mesh=f"models/{side}shank{{type}}.obj"),
        Part(f"{side}ankle", f"{side}shank", "sphere", (0.01,), 0.125, ankle,
             Joint(f"{side}lj5", f"{side}le5", (0, 0, 0), (1, 0, 0), -45, 75, p["lj5_speed"]),
             collides=False),
        Part(f"{side}foot", f"{side}ankle", "box", (0.08, foot_length, 0.02), foot_mass, foot,
             Joint(f"{side}lj6", f"{side}le6", (0, -0.03, 0.035), (0, 1, 0),
                   *_side(-25, -45, 45, 25, right), p["lj6_speed"]),
             pressure=f"{side}f", mesh=f"models/{side}foot.obj", seen=f"{side}foot"),
    ]
    if toe is not None:
        parts.append(
            Part(f"{side}toe", f"{side}foot", "box", (0.08, toe, 0.01), toe / 0.16 * 0.5 * 0.2,
                 _add(foot, (0.0, 0.08, -0.005)),
                 Joint(f"{side}lj7", f"{side}le7", (0, -0.5 * toe, -0.005), (1, 0, 0), -1, 70),
                 pressure=f"{side}f1"))
    return parts


def nao_parts(robot_type: int) -> tuple[Part, ...]:
    """The parts of a Nao of ``robot_type`` (0-4) in the original's scene-graph order.

    Raises ValueError for another type."""
    if robot_type not in ROBOT_TYPES:
        raise ValueError(f"robot type {robot_type} does not exist (0-{len(TYPE_PARAMETERS) - 1})")
    p = TYPE_PARAMETERS[robot_type]
    return (
        Part("torso", None, "box", (0.1, 0.1, 0.18), 1.2171, (0.0, 0.0, 0.0), None,
             mesh="models/naobody{type}.obj"),
        Part("neck", "torso", "capsule", (0.015, 0.08), 0.05, (0.0, 0.0, 0.09),
             Joint("hj1", "he1", (0, 0, 0), (0, 0, 1), -120, 120)),
        Part("head", "neck", "sphere", (0.065,), 0.35, (0.0, 0.0, 0.155),
             Joint("hj2", "he2", (0, 0, -0.005), (1, 0, 0), -45, 45), mesh="models/naohead.obj",
             seen="head"),
        *_arm("r", p), *_arm("l", p), *_leg("r", p), *_leg("l", p),
    )


def total_mass(robot_type: int) -> float:
    """The robot's mass, kg (4.9 to 5.0 for the five types)."""
    return sum(part.mass for part in nao_parts(robot_type))


def standing_height(robot_type: int) -> float:
    """Height (m) of the torso's centre above the ground when the robot stands with straight legs:
    the lowest point of its feet is on the ground."""
    lowest = min(part.position[2] - part.size[2] / 2 for part in nao_parts(robot_type)
                 if part.pressure is not None)
    return -lowest


def joint_names(robot_type: int) -> tuple[str, ...]:
    """The perceptor names (``hj1`` ... ``llj6``/``llj7``) in the order an agent receives them."""
    return tuple(part.joint.perceptor for part in nao_parts(robot_type) if part.joint)


def yaw_quaternion(yaw: float) -> tuple[float, float, float, float]:
    """The rotation by ``yaw`` radians about z as a quaternion (w, x, y, z)."""
    return (math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2))
