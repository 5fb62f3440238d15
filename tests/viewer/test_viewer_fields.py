"""Every league's field as the web viewer draws it, from one module (viewer/fields.py): SimSpark's
from the server's rules, the humanoid kid and adult fields with the league's markings, the MSL
field of its rules."""

import pytest

from simleague.soccer.rules import SoccerRules
from simleague.viewer import fields
from simleague.vhsc.setup import ADULT_FIELD, KID_FIELD, MARKINGS


def test_simspark_field_follows_the_servers_rules():
    drawn = fields.simspark(SoccerRules()).message()
    assert (drawn["length"], drawn["width"], drawn["circle"]) == (30.0, 20.0, 2.0)
    assert (drawn["penalty_length"], drawn["penalty_width"]) == (1.8, pytest.approx(3.9 + 2.1))
    assert "goal_area_length" not in drawn and "penalty_mark" not in drawn    # SimSpark draws none
    assert fields.simspark(SoccerRules(field_length=40.0)).length == 40.0


@pytest.mark.parametrize("league, rules, size, penalty_area, goal_area, mark", [
    ("kid", KID_FIELD, (9.0, 6.0), (2.0, 5.0), (1.0, 3.0), 1.5),
    ("adult", ADULT_FIELD, (14.0, 9.0), (3.0, 6.0), (1.0, 4.0), 2.1),
])
def test_humanoid_fields_have_the_leagues_markings(league, rules, size, penalty_area, goal_area, mark):
    drawn = fields.humanoid(rules, MARKINGS[league]).message()
    assert (drawn["length"], drawn["width"]) == size
    assert (drawn["penalty_length"], drawn["penalty_width"]) == penalty_area
    assert (drawn["goal_area_length"], drawn["goal_area_width"], drawn["penalty_mark"]) == (*goal_area, mark)


def test_msl_field_and_a_scene_message():
    message = fields.scene("MSL simulated match", "live", fields.MSL, {"left": "#007BA7", "right": "#C240BC"})
    assert message["type"] == "scene" and message["title"] == "MSL simulated match"
    assert message["field"] == {"length": 18.0, "width": 12.0, "goal_width": 2.0, "goal_depth": 0.6,
                                "penalty_length": 2.25, "penalty_width": 6.5, "circle": 2.0,
                                "goal_area_length": 0.75, "goal_area_width": 3.5, "penalty_mark": 3.0}
    assert message["colours"]["right"] == "#C240BC"
    assert "colours" not in fields.scene("SimSpark soccer", "replay", fields.MSL)


def test_a_soccer_replay_names_the_line_that_is_not_a_frame(tmp_path):
    from simleague.errors import ReplayError
    from simleague.msl import web as msl_web
    from simleague.recorder import Recorder
    from simleague.viewer.replay import soccer_frames

    good = {"t": 0.04, "ball": [0.0, 0.0], "robots": []}
    assert soccer_frames("x.jsonl", [good, good], "a soccer frame")["frames"][1] == {**good, "type": "frame"}
    with pytest.raises(ReplayError, match=r"x.jsonl:3: not a soccer frame"):
        soccer_frames("x.jsonl", [good, {"t": 1}], "a soccer frame")
    with pytest.raises(ReplayError, match="no frames recorded"):
        soccer_frames("x.jsonl", [], "a soccer frame")
    log = tmp_path / "msl.jsonl"
    with Recorder(log, msl_web.LOG_FORMAT, {}) as recorder:
        recorder.cycle(good)
        recorder.cycle({"t": 0.08, "ball": "here"})
    with pytest.raises(ReplayError, match=r"msl.jsonl:3: not an MSL frame"):
        msl_web.load_replay(log)
