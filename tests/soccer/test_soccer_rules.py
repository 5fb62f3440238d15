"""The soccer referee: every play-mode transition it makes, against hand-worked situations, and its
names and parameters against what the original server sent a monitor (golden/simspark)."""

import re

import numpy as np
import pytest
from golden import SHARED

from simleague.soccer.rules import Placement, PlayMode, Referee, SoccerRules, Team

MONITOR = (SHARED / "golden" / "simspark" / "monitor_sample.txt").read_text()
DT = 0.02                                   # one 20 ms cycle
R = 0.042                                   # ball radius
CENTRE = Placement((0.0, 0.0, R))


def run(ref: Referee, seconds: float, ball=(1.0, 1.0, R), touched_by=None):
    """Step ``seconds`` of cycles with the ball at ``ball``; the last placement made."""
    placed = None
    for _ in range(round(seconds / DT)):
        placed = ref.step(DT, ball, touched_by) or placed
    return placed


def playing(**rules) -> Referee:
    """A referee in PlayOn, the left team having kicked off."""
    ref = Referee(SoccerRules(**rules))
    ref.kick_off(Team.LEFT)
    ref.step(DT, (0.0, 0.0, R), Team.LEFT)
    assert ref.play_mode is PlayMode.PlayOn
    return ref


def test_play_modes_are_the_originals_in_its_order():
    names = re.search(r"\(play_modes ([^)]*)\)", MONITOR).group(1).split()
    assert [m.wire for m in sorted(PlayMode)] == names and len(names) == 21
    assert PlayMode.from_wire("corner_kick_left") is PlayMode.corner_kick_left
    with pytest.raises(ValueError, match="unknown play mode 'Corner_Kick_Left'; one of: BeforeKickOff"):
        PlayMode.from_wire("Corner_Kick_Left")


def test_default_rules_are_what_the_original_announced():
    announced = dict(re.findall(r"\((\w+) ([-\d.]+)\)", MONITOR.split("(play_modes")[0]))
    rules = SoccerRules()
    for ours, theirs in (("field_length", "FieldLength"), ("field_width", "FieldWidth"),
                         ("goal_width", "GoalWidth"), ("goal_height", "GoalHeight"),
                         ("ball_radius", "BallRadius"), ("free_kick_distance", "FreeKickDistance"),
                         ("goal_pause", "RuleGoalPauseTime"), ("kick_in_pause", "RuleKickInPauseTime"),
                         ("half_time", "RuleHalfTime"), ("wait_before_kick_off", "WaitBeforeKickOff")):
        assert getattr(rules, ours) == float(announced[theirs]), ours


@pytest.mark.parametrize("field, value", [("field_length", 0), ("half_time", -1), ("goal_pause", -0.1),
                                          ("ball_radius", float("nan"))])
def test_impossible_rules_are_refused(field, value):
    with pytest.raises(ValueError, match=field):
        SoccerRules(**{field: value})


def test_before_kick_off_time_stands_still_and_the_ball_stays_on_the_centre_spot():
    ref = Referee()
    assert run(ref, 5.0, ball=(0.3, 0.0, R)) == CENTRE
    assert ref.time == 0.0 and ref.play_mode is PlayMode.BeforeKickOff
    assert ref.step(DT, (0.0, 0.0, R)) is None
    with pytest.raises(ValueError, match="cannot last"):
        ref.step(-DT, (0.0, 0.0, R))


def test_kick_off_by_the_trainer_and_by_a_coin_toss():
    ref = Referee()
    assert ref.kick_off(Team.RIGHT) == CENTRE and ref.play_mode is PlayMode.KickOff_Right
    assert ref.kick_off(Team.LEFT) is None and ref.play_mode is PlayMode.KickOff_Right   # only before

    with pytest.raises(ValueError, match="coin toss"):
        Referee().kick_off(None)
    tossed = [Referee(rng=np.random.default_rng(seed)) for seed in range(40)]
    for ref in tossed:
        ref.kick_off(None)
    sides = {ref.play_mode for ref in tossed}
    assert sides == {PlayMode.KickOff_Left, PlayMode.KickOff_Right}             # both come up
    again = Referee(rng=np.random.default_rng(7))
    again.kick_off(None)
    assert again.play_mode is tossed[7].play_mode                                # and repeatably


def test_automatic_kick_off_after_the_wait():
    ref = Referee(SoccerRules(automatic_kick_off=True, wait_before_kick_off=2.0))
    run(ref, 1.98, ball=(0.0, 0.0, R))
    assert ref.play_mode is PlayMode.BeforeKickOff
    run(ref, 0.02, ball=(0.0, 0.0, R))
    assert ref.play_mode is PlayMode.KickOff_Left


def test_kick_off_turns_to_play_on_when_the_kicking_team_touches_the_ball_or_is_dropped():
    ref = Referee()
    ref.kick_off(Team.LEFT)
    run(ref, 1.0, ball=(0.0, 0.0, R), touched_by=Team.RIGHT)
    assert ref.play_mode is PlayMode.KickOff_Left
    ref.step(DT, (0.05, 0.0, R), Team.LEFT)
    assert ref.play_mode is PlayMode.PlayOn and ref.last_touch is Team.LEFT

    slow = Referee(SoccerRules(drop_ball_time=15.0))
    slow.kick_off(Team.RIGHT)
    run(slow, 14.98, ball=(0.0, 0.0, R))
    assert slow.play_mode is PlayMode.KickOff_Right
    assert slow.step(DT, (0.0, 0.0, R)) == CENTRE and slow.play_mode is PlayMode.PlayOn


def test_goal_pause_then_kick_off_for_the_team_that_conceded():
    ref = playing()
    ref.step(DT, (15.1, 0.5, 0.3), Team.LEFT)               # into the right team's goal
    assert ref.play_mode is PlayMode.Goal_Left and ref.score == {Team.LEFT: 1, Team.RIGHT: 0}
    assert ref.may_beam(Team.RIGHT) and ref.may_beam(Team.LEFT)
    assert run(ref, 2.98, ball=(15.3, 0.5, R)) is None and ref.play_mode is PlayMode.Goal_Left
    assert ref.step(DT, (15.3, 0.5, R)) == CENTRE and ref.play_mode is PlayMode.KickOff_Right
    assert not ref.may_beam(Team.RIGHT)

    ref = playing()
    ref.step(DT, (-15.1, -1.0, R), Team.RIGHT)
    assert ref.play_mode is PlayMode.Goal_Right and ref.score == {Team.LEFT: 0, Team.RIGHT: 1}


def test_ball_over_the_side_line_kick_in_for_the_other_team_after_the_pause():
    ref = playing()
    ref.step(DT, (5.0, 9.9, R), Team.LEFT)
    ref.step(DT, (5.2, 10.05, R))                           # wholly out
    assert run(ref, 0.98, ball=(5.4, 10.3, R)) is None and ref.play_mode is PlayMode.PlayOn
    assert ref.step(DT, (5.4, 10.3, R)) == Placement((5.2, 10.0, R))
    assert ref.play_mode is PlayMode.KickIn_Right and ref.free_kick_team() is Team.RIGHT
    ref.step(DT, (5.2, 10.0, R), Team.RIGHT)
    assert ref.play_mode is PlayMode.PlayOn


@pytest.mark.parametrize("last, ball, mode, placed, score", [
    # who touched it last, where it went (x, y, z) -> the play mode and where the ball is put 1 s
    # later (a set piece after the kick-in pause; a goal waits for its own pause), and the score
    (Team.LEFT, (15.1, 0.5, 0.3), PlayMode.Goal_Left, None, (1, 0)),
    (Team.RIGHT, (-15.1, -1.0, R), PlayMode.Goal_Right, None, (0, 1)),
    (Team.LEFT, (15.1, 1.05 - R / 2, R), PlayMode.goal_kick_right, (14.0, 0.0, R), (0, 0)),   # not wholly in
    (Team.LEFT, (15.1, 0.0, 1.2), PlayMode.goal_kick_right, (14.0, 0.0, R), (0, 0)),        # over the bar
    (Team.LEFT, (15.1, -3.0, R), PlayMode.goal_kick_right, (14.0, 0.0, R), (0, 0)),         # beside the goal
    (Team.RIGHT, (15.1, -3.0, R), PlayMode.corner_kick_left, (15.0, -10.0, R), (0, 0)),     # a defender's
    (Team.LEFT, (-15.1, 4.0, R), PlayMode.corner_kick_right, (-15.0, 10.0, R), (0, 0)),
    (Team.LEFT, (5.2, 10.05, R), PlayMode.KickIn_Right, (5.2, 10.0, R), (0, 0)),
    (Team.RIGHT, (-3.0, -10.1, R), PlayMode.KickIn_Left, (-3.0, -10.0, R), (0, 0)),
    (Team.LEFT, (20.0, 10.1, R), PlayMode.goal_kick_right, (14.0, 0.0, R), (0, 0)),          # goal line first
], ids=["goal left", "goal right", "outside the post", "over the bar", "beside the goal",
        "corner", "corner right", "kick-in right", "kick-in left", "over both lines"])
def test_the_ball_out_of_play(last, ball, mode, placed, score):
    """The SSL game controller's table form: (state, change, wanted state), here from play on."""
    ref = playing()
    ref.step(DT, (np.clip(ball[0], -14.5, 14.5), np.clip(ball[1], -9.5, 9.5), R), last)   # touched on the field
    ref.step(DT, ball)
    got = run(ref, 1.0, ball=ball)
    assert (ref.play_mode, got, tuple(ref.score.values())) == (
        mode, Placement(placed) if placed else None, score)


def test_halves_and_game_over():
    ref = Referee(SoccerRules(half_time=2.0, automatic_kick_off=True, wait_before_kick_off=0.0))
    run(ref, 0.02, ball=(0.0, 0.0, R))
    assert ref.play_mode is PlayMode.KickOff_Left
    ref.step(DT, (0.0, 0.0, R), Team.LEFT)
    run(ref, 1.98)
    assert ref.half == 2 and ref.play_mode is PlayMode.BeforeKickOff and ref.time == 2.0
    run(ref, 0.02, ball=(0.0, 0.0, R))
    assert ref.play_mode is PlayMode.KickOff_Right          # the other team starts the second half
    run(ref, 2.0, touched_by=Team.RIGHT)
    assert ref.play_mode is PlayMode.GameOver and ref.time == 4.0
    assert ref.step(DT, (3.0, 3.0, R), Team.LEFT) is None and ref.time == 4.0

    single = Referee(SoccerRules(half_time=1.0, single_half=True))
    single.kick_off(Team.LEFT)
    run(single, 1.0)
    assert single.play_mode is PlayMode.GameOver and single.half == 1


def test_beams_only_before_kick_off_or_after_a_goal_and_in_the_own_half():
    ref = Referee()
    assert ref.may_beam(Team.LEFT)
    assert ref.beam_allowed_at(Team.LEFT, -3.0) and not ref.beam_allowed_at(Team.LEFT, 0.5)
    assert ref.beam_allowed_at(Team.RIGHT, 3.0) and not ref.beam_allowed_at(Team.RIGHT, -0.5)
    ref.kick_off(Team.LEFT)
    assert not ref.may_beam(Team.LEFT)


def test_opponents_within_the_free_kick_distance_of_a_set_piece():
    ref = Referee()
    players = {(Team.LEFT, 9): (0.5, 0.0), (Team.RIGHT, 9): (1.9, 0.0), (Team.RIGHT, 10): (2.1, 0.0)}
    assert ref.too_close(players, (0.0, 0.0)) == []          # no set piece yet
    ref.kick_off(Team.LEFT)
    assert ref.too_close(players, (0.0, 0.0)) == [(Team.RIGHT, 9)]


def test_trainer_play_mode_and_drop_ball():
    ref = playing()
    ref.set_play_mode(PlayMode.free_kick_right)
    assert ref.free_kick_team() is Team.RIGHT
    assert ref.drop_ball((16.0, -11.0, 0.3)) == Placement((15.0, -10.0, R))
    assert ref.play_mode is PlayMode.PlayOn


def test_pass_mode_is_granted_only_by_its_rules():
    ref = Referee()
    assert "only in PlayOn" in ref.request_pass(Team.LEFT, 0.2, 5.0, 0.0)
    ref = playing()
    assert "the ball moves" in ref.request_pass(Team.LEFT, 0.2, 5.0, 0.3)
    assert "0.80 m from the ball" in ref.request_pass(Team.LEFT, 0.8, 5.0, 0.0)
    assert "an opponent is 0.90 m" in ref.request_pass(Team.LEFT, 0.2, 0.9, 0.0)
    assert ref.play_mode is PlayMode.PlayOn
    assert ref.request_pass(Team.LEFT, 0.2, 5.0, 0.0) is None
    assert ref.play_mode is PlayMode.pass_left
    assert ref.keep_away() == (Team.LEFT, 1.0)
    assert ref.too_close({(Team.RIGHT, 2): (0.5, 0.0), (Team.LEFT, 3): (0.1, 0.0)}, (0.0, 0.0)) == [(Team.RIGHT, 2)]
    run(ref, 3.9)
    assert ref.play_mode is PlayMode.pass_left                 # PassModeDuration 4 s
    run(ref, 0.1)
    assert ref.play_mode is PlayMode.PlayOn
    assert "less than 3 s ago" in ref.request_pass(Team.LEFT, 0.2, 5.0, 0.0)   # retry wait
    run(ref, 3.0)
    assert ref.request_pass(Team.LEFT, 0.2, 5.0, 0.0) is None
    ref.step(DT, (1.0, 1.0, R), Team.LEFT)                     # the pass: the mode ends
    assert ref.play_mode is PlayMode.PlayOn


def test_no_goal_too_soon_after_a_pass_mode_unless_an_opponent_touched_the_ball():
    ref = playing()
    assert ref.request_pass(Team.LEFT, 0.2, 5.0, 0.0) is None
    ref.step(DT, (1.0, 1.0, R), Team.LEFT)
    run(ref, 5.0)
    ref.step(DT, (15.2, 0.0, R))                               # in the right goal 5 s later
    assert ref.score[Team.LEFT] == 0
    run(ref, 1.0, ball=(15.2, 0.0, R))
    assert ref.play_mode is PlayMode.goal_kick_right           # not a goal: a goal kick
    ref = playing()
    assert ref.request_pass(Team.LEFT, 0.2, 5.0, 0.0) is None
    ref.step(DT, (1.0, 1.0, R), Team.LEFT)
    run(ref, 2.0)
    ref.step(DT, (3.0, 1.0, R), Team.RIGHT)                    # an opponent touched it
    ref.step(DT, (15.2, 0.0, R))
    assert ref.score[Team.LEFT] == 1 and ref.play_mode is PlayMode.Goal_Left
    ref = playing()
    assert ref.request_pass(Team.LEFT, 0.2, 5.0, 0.0) is None
    ref.step(DT, (1.0, 1.0, R), Team.LEFT)
    run(ref, 10.0)                                             # PassModeScoreWaitTime over
    ref.step(DT, (15.2, 0.0, R))
    assert ref.score[Team.LEFT] == 1
