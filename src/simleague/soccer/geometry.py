"""Where the ball is with respect to the field's lines and goals, and which robots are near a spot:
the geometry both soccer referees judge by (``soccer/rules.py`` for SimSpark, ``vhsc/referee.py``
for the humanoid league). Metres, field frame (x towards the goal at +x, y to the left, z up);
the field's sizes are a :class:`~simleague.soccer.rules.SoccerRules`. Pure: no world, no clock.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .rules import SoccerRules

EPS = 1e-9          # s or m: times summed from steps, and lengths, count as reached within this


@dataclass(frozen=True)
class Out:
    """The ball wholly over a line: ``line`` is ``"goal"`` (a goal line, x) or ``"touch"`` (a side
    line, y), ``side`` +1 for the line at +x or +y and -1 for the other; ``in_goal`` when over a
    goal line inside the goal (between the posts, under the bar)."""

    line: str
    side: int
    in_goal: bool = False


def ball_out(ball: tuple[float, float, float], rules: SoccerRules, goal_margin: float) -> Out | None:
    """Whether the ball at ``ball`` (x, y, z m, its centre) is wholly over a line (its centre more
    than a radius beyond it; the goal lines are checked first, as both originals do), and where;
    None while any of it is on or above the field. ``goal_margin`` (m) is how far inside the posts
    and the bar its centre must be to be in the goal: the ball's radius in SimSpark (wholly inside,
    rcssserver3d's goal box), 0 in the humanoid league (its centre, the league's referee)."""
    x, y, z = ball
    r = rules.ball_radius
    if abs(x) > rules.field_length / 2 + r:
        inside = abs(y) < rules.goal_width / 2 - goal_margin and z < rules.goal_height - goal_margin
        return Out("goal", 1 if x > 0 else -1, inside)
    if abs(y) > rules.field_width / 2 + r:
        return Out("touch", 1 if y > 0 else -1)
    return None


def nearer_than(points: Mapping[Hashable, tuple[float, float]], spot: tuple[float, float],
                distance: float) -> list[Hashable]:
    """The keys of ``points`` (key -> (x, y) m) nearer than ``distance`` m to ``spot``, in the
    mapping's order: the robots a free-kick or placing distance applies to."""
    return [key for key, (x, y) in points.items() if math.hypot(x - spot[0], y - spot[1]) < distance]
