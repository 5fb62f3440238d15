"""Angles, the one helper every world's robots need: an angle (or a difference of two) brought into
[-π, π) radians. (``ciberrato/kernels.py`` keeps a compiled copy for its numba loops.)"""

from __future__ import annotations

import math

TWO_PI = 2.0 * math.pi


def wrap(angle: float) -> float:
    """``angle`` (rad) as the same direction in [-π, π): the shorter way round for a difference."""
    return (angle + math.pi) % TWO_PI - math.pi
