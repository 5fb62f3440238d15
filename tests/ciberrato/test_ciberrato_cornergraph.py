"""The return-path distance (the original's corner graph for a robot of radius 0.5) on hand-made
labs whose shortest paths can be worked out by hand."""

import math

import pytest

from simleague.ciberrato.cornergraph import PathDistance
from simleague.ciberrato.scenario import Lab, Wall


def square(x0, y0, x1, y1, height=4.0):
    return Wall(height, ((x0, y0), (x1, y0), (x1, y1), (x0, y1)))


def test_open_lab_is_the_straight_line():
    graph = PathDistance(Lab("open", 10, 10), [(2.0, 5.0)])
    assert graph(0, 8.0, 5.0) == pytest.approx(6.0, abs=1e-12)
    assert graph(0, 2.0, 9.0) == pytest.approx(4.0, abs=1e-12)


def test_path_round_a_block_keeps_half_a_robot_away_from_its_corners():
    # block (4,4)-(6,6) between (2,5) and (8,5): tangent from the start to the circle of radius
    # 0.5 round corner (4,6), arc to the top of that circle, 2 along y=6.5, and the mirror image
    graph = PathDistance(Lab("block", 10, 10, walls=(square(4, 4, 6, 6),)), [(2.0, 5.0)])
    d = math.hypot(2, 1)
    tangent = math.sqrt(d * d - 0.25)
    touch = math.atan2(-1, -2) + 2 * math.pi - math.acos(0.5 / d)    # direction from the corner
    arc = 0.5 * (touch - math.pi / 2)
    assert graph(0, 8.0, 5.0) == pytest.approx(2 * (tangent + arc) + 2.0, abs=1e-9)
    assert graph(0, 8.0, 5.0) > 6.0 + 0.9       # a point robot's path would be 6.32


@pytest.mark.parametrize("gap, expected", [(1.2, 6.0), (0.9, math.inf)])
def test_a_gap_narrower_than_the_robot_is_closed(gap, expected):
    low, high = 5 - gap / 2, 5 + gap / 2
    barrier = (square(4.9, 0, 5.1, low), square(4.9, high, 5.1, 10))
    graph = PathDistance(Lab("gap", 10, 10, walls=barrier), [(2.0, 5.0)])
    assert graph(0, 8.0, 5.0) == pytest.approx(expected)


def test_floor_lines_do_not_block():
    line = square(4.9, 0, 5.1, 10, height=0.0)
    graph = PathDistance(Lab("line", 10, 10, walls=(line,)), [(2.0, 5.0)])
    assert graph(0, 8.0, 5.0) == pytest.approx(6.0)


def test_each_grid_position_is_its_own_start():
    graph = PathDistance(Lab("open", 10, 10), [(2.0, 5.0), (2.0, 2.0)])
    assert graph(1, 2.0, 8.0) == pytest.approx(6.0)
    with pytest.raises(IndexError):
        graph(2, 2.0, 8.0)
