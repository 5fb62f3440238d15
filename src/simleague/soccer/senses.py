"""What a robot's own sensors read in either soccer world, and what a snapshot of the world holds:
the ``observe`` and ``snapshot`` half of a world's face (ARCHITECTURE.md, rule 1). SI units and
radians; each gateway turns them into its wire's units (SimSpark's perceptors in degrees, the
humanoid API's sensor measurements through each device's lookup table).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

Vector = tuple[float, float, float]


@dataclass(frozen=True)
class Senses:
    """A robot's sensor readings after the world's cycle ``cycle``: ``joints`` (joint name -> angle, rad),
    ``gyro`` (angular velocity of its torso or root in that body's frame, rad/s), ``accelerometer``
    (proper acceleration in the same frame, m/s^2; (0, 0, 9.81) upright at rest) and ``forces``
    (force sensor name -> the force it measures, N, in its body's frame; SimSpark's foot
    pressures, a humanoid's force and bumper sensors)."""

    cycle: int
    joints: dict[str, float]
    gyro: Vector
    accelerometer: Vector
    forces: dict[str, Vector]


def vector(values) -> Vector:
    """The first three values of an array-like as plain floats (JSON-ready); fewer (a one-axis
    force sensor) are padded with zeros."""
    v = [float(x) for x in np.asarray(values, dtype=float).ravel()[:3]]
    return tuple(v + [0.0] * (3 - len(v)))


def snapshot(world) -> dict:
    """A soccer world's state as plain JSON-ready data: ``cycle``, ``time`` (s), the ball's
    ``position`` and ``velocity`` (m, m/s) and per robot (in ``world.robots`` order) its ``id``,
    root ``position`` (m), ``heading`` (rad, 0: +x) and ``upright`` (the z of its z axis). Works on
    any world with ``cycle``, ``time``, ``ball()``, ``robots``, ``pose(rid)`` and ``heading(rid)``."""
    position, velocity = world.ball()
    robots = []
    for rid in world.robots:
        where, rotation = world.pose(rid)
        robots.append({"id": rid, "position": list(vector(where)), "heading": float(world.heading(rid)),
                       "upright": float(rotation[2, 2])})
    return {"cycle": world.cycle, "time": float(world.time),
            "ball": {"position": list(vector(position)), "velocity": list(vector(velocity))},
            "robots": robots}
