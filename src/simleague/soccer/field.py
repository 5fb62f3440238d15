"""The landmarks of the soccer field that robots see: flags, goal posts and field lines, placed as
in the original's scene (reference/simspark-rsg/nao/soccer.rsg and goal.rsg). Metres, field frame
(x towards the right team's goal, z up).
"""

from __future__ import annotations

import math
from itertools import pairwise

import numpy as np

from .rules import SoccerRules

PENALTY_LENGTH = 1.8                     # m (defaults.json PenaltyLength)
PENALTY_WIDTH = 3.9                      # m, without the goal's width (PenaltyWidth)
RING_SEGMENTS = 10                       # the centre circle as a polygon (fieldring.rsg: every 36 deg)


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
    r = rules.free_kick_distance
    corners = [(r * math.cos(2 * math.pi * k / RING_SEGMENTS), r * math.sin(2 * math.pi * k / RING_SEGMENTS))
               for k in range(RING_SEGMENTS + 1)]
    segments += list(pairwise(corners))
    return np.array([[(a[0], a[1], 0.0), (b[0], b[1], 0.0)] for a, b in segments], dtype=float)
