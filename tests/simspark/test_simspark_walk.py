"""The sample walk, get-up and kick (issue 32): the legs' inverse kinematics against our Nao model,
the walk on our SimSpark world (stepped in process, simulated time: forward, turning, side steps),
getting up from the front and the back, kicking the ball."""

import math
import sys
from pathlib import Path

import mujoco
import numpy as np
import pytest

from simleague.simspark.motions import get_up as get_up_motion, kick as kick_motion, lying
from simleague.simspark.walk import TRACKING, Walk, leg_angles, velocities
from simleague.soccer.world import SoccerWorld

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_walk import get_up, get_up_from_side, kick, walk  # noqa: E402


@pytest.mark.parametrize("target", [(0.0, 0.005, -0.22), (0.0, 0.0, -0.16), (0.02, 0.05, -0.17),
                                    (-0.03, -0.06, -0.18), (0.01, 0.09, -0.15)])
def test_the_legs_inverse_kinematics_put_the_ankle_where_asked_with_the_foot_flat(target):
    world = SoccerWorld(seed=0)
    rid = world.add_robot(0, 0.0, 0.0, 0.0)
    names = [p.joint.perceptor for p in world.parts(rid) if p.joint]
    qpos = dict(zip(names, world._joint_qpos[rid]))
    for side in "rl":
        for k, angle in zip((2, 3, 4, 5, 6), leg_angles(*target)):
            world.data.qpos[qpos[f"{side}lj{k}"]] = angle
    mujoco.mj_kinematics(world.model, world.data)
    torso, rotation = world.pose(rid, "torso")
    for side, x in (("r", 0.055), ("l", -0.055)):
        ankle = rotation.T @ (world.pose(rid, f"{side}ankle")[0] - torso) - (x, -0.01, -0.115)
        assert ankle == pytest.approx(target, abs=1e-4)
        foot = rotation.T @ world.pose(rid, f"{side}foot")[1]
        assert foot == pytest.approx(np.eye(3), abs=1e-6)                      # flat, parallel


def test_velocities_close_most_of_each_joints_error_in_one_cycle():
    out = velocities({"rlj3": 10.0, "llj4": -20.0}, {"rlj3": 0.0, "llj4": -20.0, "rlj4": 5.0})
    assert out == {"rle3": pytest.approx(math.radians(10.0) * TRACKING / 0.02), "lle4": 0.0}
    with pytest.raises(KeyError):
        velocities({"hj1": 0.0}, {})


def test_the_nao_walks_forward_turns_and_steps_sideways_without_falling():
    forward = walk((1.0, 0.0, 0.0), 12.0)
    assert not forward["fell"] and forward["distance"] / forward["seconds"] > 0.35
    left, right = walk((0.0, 0.0, 1.0), 4.0), walk((0.0, 0.0, -1.0), 4.0)
    assert not left["fell"] and not right["fell"]
    assert left["turned"] > 150 and right["turned"] < -150                    # over 4 s with the start
    side = walk((0.0, 1.0, 0.0), 4.0)
    assert not side["fell"] and side["sideways"] > 0.2


def test_standing_in_the_crouch_is_the_first_step_of_the_walk():
    gait = Walk()
    crouch = gait.stand()
    assert crouch["rlj4"] < -20 and crouch["rlj1"] == 0.0                      # knees bent, feet straight
    first = gait.step(0.0, 0.0, 0.0)
    assert set(first) == set(crouch)


@pytest.mark.parametrize("back", [False, True])
def test_a_nao_knocked_over_forwards_or_backwards_gets_up_within_4_s(back):
    for push, roll in ((0.8, 0.1), (1.2, -0.2)):
        tried = get_up(back, yaw=0.5, push=push, roll=roll)
        assert tried["side"] == ("back" if back else "front")                  # told by the accelerometer
        assert tried["up"] and tried["seconds_to_up"] <= 4.0


@pytest.mark.parametrize("up", [1, -1])
def test_a_nao_lying_on_a_side_rolls_onto_its_front_and_gets_up(up):
    """Left lying on a side (as sample players were in matches, for the rest of the half), the
    robot rolls onto its front and gets up from there."""
    tried = get_up_from_side(up, yaw=0.5, tilt=-0.1)
    assert tried["side"] == "side" and tried["tries"] == 2 and tried["up"]


def test_lying_is_told_from_the_accelerometer_and_a_get_up_ends():
    assert (lying((0.0, -9.8, 0.3)), lying((0.2, 9.7, -0.5)), lying((0.0, 0.1, 9.81))) == ("front", "back", None)
    assert lying((9.7, 0.0, 1.2)) == lying((-9.7, 0.4, 1.0)) == "side"
    motion = get_up_motion("back", {"rlj3": 0.0})
    targets = [motion.step() for _ in range(round(motion.seconds / 0.02) + 5)]
    assert targets[0]["rlj3"] != 0.0 and targets[-1] is None
    roll = get_up_motion("side", {"rlj4": 0.0})
    assert min(roll.step()["rlj4"] for _ in range(round(roll.seconds / 0.02))) < -45.0   # the knees bend
    with pytest.raises(ValueError, match="front, back or side"):
        get_up_motion("upside down", {})


def test_the_kick_sends_the_ball_more_than_4_m_and_the_robot_stays_up():
    for k in (0, 7):
        kicked = kick(yaw=0.37 * k + 0.2, stand=80 + 8 * k, ahead=0.002 * (k - 5))
        assert kicked["ahead"] > 4.0 and kicked["up"], kicked


def test_the_left_foot_kicks_as_the_right_mirrored():
    right, left = kick_motion({}, "right"), kick_motion({}, "left")
    for r, lt in zip(iter(right.step, None), iter(left.step, None)):
        assert (lt["llj3"], lt["llj2"], lt["rlj6"]) == (r["rlj3"], -r["rlj2"], -r["llj6"])
    kicked = kick(yaw=1.1, stand=90, foot="left")
    assert kicked["ahead"] > 4.0 and kicked["up"], kicked
    with pytest.raises(ValueError, match="right or left"):
        kick_motion({}, "head")
