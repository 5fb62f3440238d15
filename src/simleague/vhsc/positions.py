"""Where humanoid robots stand and what they enclose: the geometry behind the referee's position
rules and ball holding (:mod:`simleague.vhsc.referee`), from the points where a robot touches the
ground and where its hands and feet are, as the league's referee computes it (the league's simulator
repository, controllers/referee/referee.py, update_team_contacts and update_team_ball_holding).
Metres throughout; the field's centre is the origin, x along its length.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial import ConvexHull, QhullError

from ..soccer.rules import SoccerRules
from .setup import Markings

LINE = 0.05                   # m: the width of the lines
BORDER = 1.0                  # m of turf around the field's lines


@dataclass
class Footing:
    """Where a robot stands, from the points where it touches the ground (the league's referee,
    update_team_contacts): wholly outside the centre circle, wholly inside the field (lines
    included), wholly outside it, partly on its outer lines, wholly in its own half, wholly outside
    both goal areas and both penalty areas, wholly outside the turf."""

    outside_circle: bool = True
    inside_field: bool = False
    outside_field: bool = True
    on_outer_line: bool = False
    inside_own_side: bool = True
    outside_goal_area: bool = True
    outside_penalty_area: bool = True
    outside_turf: bool = False


def footing(points, own_side: int, rules: SoccerRules, markings: Markings) -> Footing:
    """The :class:`Footing` of a robot touching the ground at ``points`` (x, y m; at least one),
    whose own half is at x < 0 (``own_side`` -1) or x > 0 (+1). (A loop: a robot has a few
    points, where numpy's overhead would be most of the time.)"""
    half_l, half_w = rules.field_length / 2, rules.field_width / 2
    (depth, width), (goal_depth, goal_width) = markings.penalty_area, markings.goal_area
    f = Footing(outside_turf=True)
    inside = True
    for x, y in points:
        ax, ay = abs(x), abs(y)
        if x * x + y * y < markings.circle * markings.circle:
            f.outside_circle = False
        if own_side * x < LINE / 2:
            f.inside_own_side = False
        if ax <= half_l + BORDER and ay <= half_w + BORDER:
            f.outside_turf = False
        if ax > half_l or ay > half_w:
            inside = False
            continue
        f.outside_field = False
        if ax > half_l - LINE or ay > half_w - LINE:
            f.on_outer_line = True
        if ax > half_l - depth and ay < width / 2:
            f.outside_penalty_area = False
            if ax > half_l - goal_depth and ay < goal_width / 2:
                f.outside_goal_area = False
    f.inside_field = inside
    f.on_outer_line = f.on_outer_line or not (f.inside_field or f.outside_field)
    return f


def encloses(points: list, centre: tuple[float, float], radius: float) -> bool:
    """Whether the convex hull of ``points`` ((x, y) m) touches the circle of ``radius`` m
    around ``centre``: the centre inside it, or an edge within ``radius``; False for fewer than
    three points or points on a line."""
    if len(points) < 3:
        return False
    try:
        hull = ConvexHull(points)
    except QhullError:
        return False
    c = np.asarray(centre, dtype=float)
    # each facet: unit outward normal (a, b) and offset d; a point inside has a x + b y + d <= 0
    if (hull.equations[:, :2] @ c + hull.equations[:, 2] <= 0).all():
        return True
    corners = hull.points[hull.vertices]
    a, b = corners, np.roll(corners, -1, axis=0)
    ab = b - a
    t = np.clip(((c - a) * ab).sum(axis=1) / np.maximum((ab * ab).sum(axis=1), 1e-18), 0.0, 1.0)
    return bool((np.linalg.norm(a + t[:, None] * ab - c, axis=1) <= radius).any())
