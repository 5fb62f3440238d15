"""The lines painted on a humanoid match's field: the league's markings (simleague.soccer.field.humanoid_lines),
which robots' cameras see and the referee and viewer go by."""

import math
from pathlib import Path

import numpy as np
import pytest

from simleague.vhsc.config import load_team
from simleague.vhsc.setup import ADULT_FIELD, KID_FIELD, MARKINGS, build

TEAM = Path(__file__).resolve().parents[2] / "examples" / "vhsc" / "kid.json"


def painted_at(segments, x, y) -> bool:
    """Whether (x, y) lies on a painted line: within half a line's width of a segment extended by as
    much at either end (simleague.soccer.pitch.field_mjcf)."""
    for (ax, ay, _), (bx, by, _) in segments:
        length = math.hypot(bx - ax, by - ay)
        ux, uy = (bx - ax) / length, (by - ay) / length
        along = (x - ax) * ux + (y - ay) * uy
        if -0.025 <= along <= length + 0.025 and abs(-(x - ax) * uy + (y - ay) * ux) <= 0.025:
            return True
    return False


@pytest.mark.parametrize("x, y, painted", [
    (4.49, 1.0, True), (4.51, 1.0, False),                  # the goal line inside the field
    (1.0, 2.99, True), (1.0, 3.01, False), (1.0, 2.94, False),   # the touch line too
    (3.52, 0.0, True), (3.48, 0.0, False), (3.57, 0.0, False),   # the goal area 1 m deep, its line inside
    (4.0, 1.48, True), (4.0, 1.52, False),                  # and 3 m wide
    (2.52, 0.0, True), (2.48, 0.0, False), (-2.52, 2.0, True),   # the penalty area 2 m deep
    (3.0, 2.48, True), (3.0, 2.52, False),                  # and 5 m wide
    (3.0, 0.0, True), (3.09, 0.0, True), (3.0, -0.09, True), (3.12, 0.0, False), (3.05, 0.05, False),  # a mark
    (-3.0, 0.09, True), (0.09, 0.0, True), (0.12, 0.0, False),  # the other mark, the centre mark
    (0.0, 2.0, True), (0.78, 0.0, True), (0.0, -0.78, True), (0.74, 0.0, False), (0.81, 0.0, False),
])
def test_a_match_paints_the_leagues_markings(x, y, painted):
    # the league's simulated field (hlvs_webots, protos/RobocupSoccerField.proto), kid size: lines
    # 5 cm wide inside the field and inside the areas, the centre circle's inside 0.75 m from the spot
    assert painted_at(MARKINGS["kid"].lines(KID_FIELD), x, y) == painted




@pytest.mark.parametrize("league, rules", [("kid", KID_FIELD), ("adult", ADULT_FIELD)])
def test_a_match_world_is_painted_with_its_leagues_markings(league, rules):
    (team, _), (other, _) = load_team(TEAM), load_team(TEAM)
    world = build(team, other, league=league).world
    assert np.array_equal(world.painted, MARKINGS[league].lines(rules))
    assert world.rules.field_length == rules.field_length
