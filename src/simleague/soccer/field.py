"""The landmarks of the soccer field that robots see: flags, goal posts and field lines, placed as
in the original's scene (reference/simspark-rsg/nao/soccer.rsg and goal.rsg); and the humanoid
league's field lines (:func:`humanoid_lines`). Metres, field frame (x towards the right team's
goal, z up).
"""

from __future__ import annotations

import math
from itertools import pairwise

import numpy as np

from .rules import SoccerRules

PENALTY_LENGTH = 1.8                     # m (defaults.json PenaltyLength)
PENALTY_WIDTH = 3.9                      # m, without the goal's width (PenaltyWidth)
RING_SEGMENTS = 10                       # the centre circle as a polygon (fieldring.rsg: every 36 deg)
LINE_WIDTH = 0.05                        # m: painted lines (both leagues)
MARK_BRANCH = 0.1                        # m from a humanoid field's penalty or centre mark's middle to a branch's end
CIRCLE_SIDES = 36                        # a humanoid field's centre circle as a polygon


def flags(rules: SoccerRules) -> list[tuple[str, tuple[float, float, float]]]:
    """The named points a robot sees, in the original's scene order: the goal posts' tops
    (G1L G2L of the left goal, G2R G1R of the right one) then the corner flags (F1L F2L F1R F2R).
    The ``1`` flags and posts are on the +y side."""
    hl, hw, gw, gh = rules.field_length / 2, rules.field_width / 2, rules.goal_width / 2, rules.goal_height
    return [("G1L", (-hl, gw, gh)), ("G2L", (-hl, -gw, gh)), ("G2R", (hl, -gw, gh)), ("G1R", (hl, gw, gh)),
            ("F1L", (-hl, hw, 0.0)), ("F2L", (-hl, -hw, 0.0)), ("F1R", (hl, hw, 0.0)), ("F2R", (hl, -hw, 0.0))]


def lines(rules: SoccerRules) -> np.ndarray:
    """The field lines as segments, shape (n, 2, 3): the halfway line, goal lines, side lines, the
    penalty areas and the centre circle (radius FreeKickDistance, ten segments counter-clockwise
    from +x) as soccer.rsg and fieldring.rsg lay them out, each from its begin to its end point."""
    hl, hw = rules.field_length / 2, rules.field_width / 2
    px, pw = hl - PENALTY_LENGTH, (PENALTY_WIDTH + rules.goal_width) / 2
    segments = [((0, -hw), (0, hw)), ((hl, -hw), (hl, hw)), ((-hl, -hw), (-hl, hw)),
                ((hl, hw), (-hl, hw)), ((hl, -hw), (-hl, -hw)),
                ((px, pw), (px, -pw)), ((px, pw), (hl, pw)), ((px, -pw), (hl, -pw)),
                ((-px, pw), (-px, -pw)), ((-px, pw), (-hl, pw)), ((-px, -pw), (-hl, -pw))]
    return _on_the_ground(segments + _ring(rules.free_kick_distance, RING_SEGMENTS))


def humanoid_lines(rules: SoccerRules, goal_area: tuple[float, float], penalty_area: tuple[float, float],
                   penalty_mark: float, circle: float) -> np.ndarray:
    """The humanoid league's field lines as segments, shape (n, 2, 3): each the middle of a
    :data:`LINE_WIDTH` line, laid out as the league's simulated field does (hlvs_webots,
    protos/RobocupSoccerField.proto): the touch and goal lines inside the field of ``rules``' size,
    their outer edges on its boundary; the halfway line; the centre circle, radius ``circle`` to
    its inner edge, :data:`CIRCLE_SIDES` sides; at each end the goal area and the penalty area
    (``(depth, width)`` m from the goal line's outer edge, the lines inside them) and the penalty
    mark ``penalty_mark`` m from it, a cross whose branches reach :data:`MARK_BRANCH` m from its
    middle; the centre mark, a branch either side of the halfway line. Painted lines extend half
    their width beyond each end (:func:`simleague.soccer.pitch.field_mjcf`), so that corners meet
    and a mark's branch ends :data:`MARK_BRANCH` m from its middle."""
    hl, hw, w = rules.field_length / 2, rules.field_width / 2, LINE_WIDTH
    tip = MARK_BRANCH - w / 2
    ends, sides = hl - w / 2, hw - w / 2              # the middles of the goal and touch lines
    segments = [((-ends, sides), (ends, sides)), ((-ends, -sides), (ends, -sides)),
                ((0.0, -sides), (0.0, sides)), ((-tip, 0.0), (tip, 0.0))]
    for sign in (-1.0, 1.0):
        goal_line = sign * ends
        segments.append(((goal_line, -sides), (goal_line, sides)))
        for depth, width in (goal_area, penalty_area):
            front, side = sign * (hl - depth + w / 2), width / 2 - w / 2
            segments += [((front, -side), (front, side)), ((front, side), (goal_line, side)),
                         ((front, -side), (goal_line, -side))]
        mark = sign * (hl - penalty_mark)
        segments += [((mark - tip, 0.0), (mark + tip, 0.0)), ((mark, -tip), (mark, tip))]
    return _on_the_ground(segments + _ring(circle + w / 2, CIRCLE_SIDES))


def _ring(radius: float, sides: int) -> list:
    """A circle about the centre spot as a polygon of ``sides`` segments, counter-clockwise from +x."""
    corners = [(radius * math.cos(2 * math.pi * k / sides), radius * math.sin(2 * math.pi * k / sides))
               for k in range(sides + 1)]
    return list(pairwise(corners))


def _on_the_ground(segments: list) -> np.ndarray:
    """Segments ((x, y), (x, y)) as an array of shape (n, 2, 3), z 0."""
    return np.array([[(a[0], a[1], 0.0), (b[0], b[1], 0.0)] for a, b in segments], dtype=float)
