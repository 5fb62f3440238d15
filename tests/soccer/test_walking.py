"""The sample players' shared walk (simleague.walking, issue 32): the legs' inverse kinematics
against forward kinematics, the gait's speed limits and keyframe motions."""

import math

import numpy as np
import pytest

from simleague import walking
from simleague.simspark.walk import NAO_LEG
from simleague.vhsc import kid


def rot_x(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def rot_y(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def ankle(leg: walking.Leg, roll, pitch, knee):
    """Forward kinematics: where the ankle is for the hip's roll and pitch and the knee's angle."""
    thigh = np.array([leg.knee[0], 0.0, -leg.knee[1]])
    return rot_x(roll) @ rot_y(pitch) @ (thigh + rot_y(knee) @ np.array([0.0, 0.0, -leg.shank]))


@pytest.mark.parametrize("leg", [kid.KID_LEG, NAO_LEG], ids=["kid", "nao"])
def test_the_legs_inverse_kinematics_put_the_ankle_where_asked_with_the_foot_flat(leg):
    rng = np.random.default_rng(1)
    reach = leg.thigh + leg.shank
    for _ in range(200):
        target = np.array([rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3), rng.uniform(-0.95, -0.7)]) * reach
        target *= min(1.0, 0.97 * reach / np.linalg.norm(target))           # within reach
        roll, pitch, knee, ankle_pitch, ankle_roll = leg.angles(*target)
        assert ankle(leg, roll, pitch, knee) == pytest.approx(target, abs=1e-9)
        assert pitch + knee + ankle_pitch == pytest.approx(0.0, abs=1e-12)      # the sole parallel to the torso
        assert roll + ankle_roll == pytest.approx(0.0, abs=1e-12)
        assert knee > 0                                                        # knees bend forwards
    far = leg.angles(0.05, 0.0, -2 * reach)                                    # out of reach: stretched towards it
    direction = np.array([0.05, 0.0, -2 * reach]) / np.hypot(0.05, 2 * reach)
    assert ankle(leg, *far[:3]) == pytest.approx(direction * reach, abs=1e-5)


def test_the_walk_approaches_a_new_speed_step_by_step_and_keeps_within_its_limit():
    seen = []

    def limit(forward, sideways, turn):
        seen.append((forward, sideways, turn))
        return min(forward, 0.5), sideways, turn

    gait = kid.KID_GAIT
    walk = walking.Walk(kid.KID_LEG, gait, 0.008, limit=limit)
    steps = []
    for _ in range(int(20 * gait.period / 0.008)):                           # twenty steps
        walk.step(1.0, -2.0, 0.0)
        if not steps or walk.speed != steps[-1]:
            steps.append(walk.speed)
    forwards = [s[0] for s in steps]
    assert forwards[0] == pytest.approx(walking.SPEED_CHANGE)                 # from standing, one change a step
    assert all(b - a <= walking.SPEED_CHANGE + 1e-12 for a, b in zip(forwards, forwards[1:]))
    assert max(forwards) == 0.5 and steps[-1][1] == -1.0                      # the limit, and [-1, 1]
    assert walk.moving
    for _ in range(int(20 * gait.period / 0.008)):
        walk.step(0.0)
    assert not walk.moving


def test_standing_holds_both_feet_under_the_hips_and_walking_alternates_the_swing_leg():
    walk = walking.Walk(kid.KID_LEG, kid.KID_GAIT, 0.008)
    stand = walk.stand()
    left, right = stand["l"], stand["r"]
    assert (left.knee, left.pitch, left.yaw) == (right.knee, right.pitch, right.yaw) and left.roll == -right.roll
    lifted = []
    for _ in range(int(4 * kid.KID_GAIT.period / 0.008)):
        legs = walk.step(1.0)
        lifted.append("l" if legs["l"].knee > legs["r"].knee + 1e-6 else "r" if legs["r"].knee > legs["l"].knee + 1e-6 else "")
    runs = [side for k, side in enumerate(lifted) if side and side != next((s for s in reversed(lifted[:k]) if s), None)]
    assert runs[:4] == ["l", "r", "l", "r"]                                    # left, right, left, ...


def test_a_keyframe_motion_moves_linearly_in_whole_cycles_and_ends():
    motion = walking.Motion([(0.04, {"a": 1.0}), (0.02, {"a": 0.0, "b": 2.0})], {"a": 0.0, "c": 5.0}, 0.02)
    assert motion.seconds == pytest.approx(0.06)
    assert motion.step() == {"a": 0.5, "c": 5.0}
    assert motion.step() == {"a": 1.0, "c": 5.0}
    assert motion.step() == {"a": 0.0, "b": 2.0, "c": 5.0}
    assert motion.step() is None
