"""The field geometry both soccer referees judge by (simleague.soccer.geometry)."""

import pytest

from simleague.soccer.geometry import Out, ball_out, nearer_than
from simleague.soccer.rules import SoccerRules

RULES = SoccerRules()            # 30 x 20 m, goal 2.1 m wide and 0.8 m high, ball radius 0.042 m
R = RULES.ball_radius


@pytest.mark.parametrize("ball, margin, out", [
    ((15.0 + R, 0.0, R), R, None),                                    # on the line: still in
    ((15.0 + R + 0.001, 0.0, R), R, Out("goal", 1, True)),           # wholly over it, in the goal
    ((-15.1, 1.05 - R / 2, R), R, Out("goal", -1, False)),           # part of it outside the post
    ((-15.1, 1.05 - R / 2, R), 0.0, Out("goal", -1, True)),          # its centre inside: the league's rule
    ((15.1, 0.0, 0.8 - R / 2), R, Out("goal", 1, False)),            # over the bar, SimSpark
    ((15.1, 5.0, R), 0.0, Out("goal", 1, False)),                    # beside the goal
    ((3.0, -10.0 - R - 0.001, R), R, Out("touch", -1)),
    ((15.1, 10.1, R), R, Out("goal", 1, False)),                     # over both: the goal line first
])
def test_where_the_ball_is_out(ball, margin, out):
    assert ball_out(ball, RULES, goal_margin=margin) == out


def test_nearer_than_keeps_the_order_and_excludes_the_distance_itself():
    points = {"b": (2.0, 0.0), "a": (0.5, 0.5), "c": (0.0, 1.0), "d": (-3.0, 0.0)}
    assert nearer_than(points, (0.0, 0.0), 2.0) == ["a", "c"]         # 2.0 away is not nearer
    assert nearer_than(points, (0.0, 0.0), 2.0 + 1e-9) == ["b", "a", "c"]
    assert nearer_than({}, (0.0, 0.0), 5.0) == []
