"""The soccer world on MuJoCo: the Nao types as the original describes them, robots that stand,
motors that move at the commanded speed, foot pressure, the ball, joining and determinism."""

import math

import numpy as np
import pytest

from simleague.soccer.nao import joint_names, nao_parts, standing_height, total_mass
from simleague.soccer.world import GRAVITY, SoccerWorld


def test_every_type_has_the_originals_joints_in_scene_graph_order():
    # the order a real rcssserver3d sends HJ in (golden/simspark/agent_sample.txt)
    type0 = ("hj1 hj2 raj1 raj2 raj3 raj4 laj1 laj2 laj3 laj4 rlj1 rlj2 rlj3 rlj4 rlj5 rlj6 "
             "llj1 llj2 llj3 llj4 llj5 llj6").split()
    for robot_type in range(4):
        assert joint_names(robot_type) == tuple(type0)
    assert joint_names(4) == tuple(type0[:16] + ["rlj7"] + type0[16:] + ["llj7"])
    with pytest.raises(ValueError, match="robot type 5"):
        nao_parts(5)


def test_sizes_masses_and_limits_follow_the_rsg_files():
    parts = {p.name: p for p in nao_parts(0)}
    assert parts["torso"].size == (0.1, 0.1, 0.18) and parts["torso"].mass == 1.2171
    assert parts["head"].size == (0.065,) and parts["head"].position == (0.0, 0.0, 0.155)
    # mirrored ranges (naoarm.rsg, naoleg.rsg)
    assert (parts["rupperarm"].joint.low, parts["rupperarm"].joint.high) == (-95, 1)
    assert (parts["lupperarm"].joint.low, parts["lupperarm"].joint.high) == (-1, 95)
    assert (parts["rhip2"].joint.low, parts["rhip2"].joint.high) == (-45, 25)
    assert (parts["lfoot"].joint.low, parts["lfoot"].joint.high) == (-45, 25)
    assert parts["rhip1"].joint.axis == (-0.7071, 0, 0.7071)
    assert parts["lhip1"].joint.axis == (-0.7071, 0, -0.7071)
    # per-type parameters: longer legs and arms of type 1, faster ankle of type 2, toes of type 4
    assert standing_height(1) > standing_height(0)
    assert {p.name: p for p in nao_parts(2)}["rankle"].joint.max_speed == 8.80667
    toe = {p.name: p for p in nao_parts(4)}
    assert toe["rtoe"].size == (0.08, 0.035517656, 0.01) and toe["rtoe"].pressure == "rf1"
    assert math.isclose(toe["rfoot"].mass + toe["rtoe"].mass, 0.2)
    assert math.isclose(total_mass(0), 4.6071)


@pytest.mark.parametrize("robot_type", range(5))
def test_a_robot_with_still_motors_stands_and_feels_gravity(robot_type):
    world = SoccerWorld()
    rid = world.add_robot(robot_type, -3.0, 1.0, 0.0)
    for _ in range(250):                                   # 5 s
        world.step()
    position, rotation = world.pose(rid, "torso")
    assert abs(position[2] - standing_height(robot_type)) < 0.01
    assert abs(position[0] + 3.0) < 0.01 and abs(position[1] - 1.0) < 0.01
    assert rotation[2, 2] > math.cos(math.radians(2))      # upright within 2 degrees
    assert np.allclose(world.accelerometer(rid), (0, 0, GRAVITY), atol=0.3)
    assert np.abs(world.gyro(rid)).max() < math.radians(2.0)
    pressures = world.pressures(rid)
    weight = total_mass(robot_type) * GRAVITY
    assert {p.name for p in pressures} <= {"rf", "lf", "rf1", "lf1"} and len(pressures) >= 2
    assert sum(p.force[2] for p in pressures) == pytest.approx(weight, rel=0.05)


def test_a_joint_moves_at_the_commanded_speed_up_to_its_top_speed_and_stops_at_its_limit():
    world = SoccerWorld()
    rid = world.add_robot(0, -3.0, 0.0, 0.0)
    world.step()
    start = world.joint_angles(rid)[0]
    world.set_joint_velocity(rid, "he1", 1.0)                # rad/s, 10 cycles = 0.2 rad
    for _ in range(10):
        world.step()
    assert world.joint_angles(rid)[0] - start == pytest.approx(0.2, abs=math.radians(1.0))
    world.set_joint_velocity(rid, "he1", -100.0)             # clamped to 351.77 deg/s
    before = world.joint_angles(rid)[0]
    for _ in range(10):
        world.step()
    moved = before - world.joint_angles(rid)[0]
    assert 0.8 * math.radians(70.4) < moved < 1.15 * math.radians(70.4)
    world.set_joint_velocity(rid, "he2", 5.0)
    for _ in range(50):
        world.step()
    assert world.joint_angles(rid)[1] == pytest.approx(math.radians(45.0), abs=math.radians(1.0))   # he2 range +-45
    with pytest.raises(KeyError):
        world.set_joint_velocity(rid, "lle7", 1.0)          # no toes on type 0


def test_the_ball_rolls_and_stops():
    world = SoccerWorld()
    world.place_ball((1.0, 0.0, 0.042), (3.0, 0.0, 0.0))
    for _ in range(400):
        world.step()
    position, velocity = world.ball()
    assert 3.0 < position[0] < 7.0 and abs(position[1]) < 0.01
    assert np.linalg.norm(velocity) < 0.01


def test_joining_and_leaving_leaves_the_others_as_they_were():
    world = SoccerWorld()
    first = world.add_robot(0, -3.0, 0.0, 0.0)
    world.set_joint_velocity(first, "lae1", -1.0)
    world.place_ball((0.0, 0.0, 0.042), (1.0, 0.5, 0.0))
    for _ in range(20):
        world.step()
    qpos, ball = world.data.qpos.copy(), world.ball()
    angles = world.joint_angles(first)
    second = world.add_robot(3, 3.0, 2.0, math.pi)
    assert np.array_equal(world.joint_angles(first), angles)
    assert np.array_equal(world.ball()[0], ball[0]) and np.array_equal(world.ball()[1], ball[1])
    world.step()
    assert world.joint_angles(first)[6] < angles[6]          # laj1 still driven at -1 rad/s
    world.remove_robot(second)
    assert world.robots == (first,)
    assert len(world.data.qpos) == len(qpos)
    with pytest.raises(KeyError):
        world.remove_robot(second)


def test_same_actions_give_the_same_states():
    def run():
        world = SoccerWorld(seed=3)
        a = world.add_robot(0, -2.0, 0.0, 0.0)
        b = world.add_robot(4, 2.0, 0.0, math.pi)
        for cycle in range(60):
            world.set_joint_velocity(a, "rle3", math.sin(cycle / 5))
            world.set_joint_velocity(b, "lle7", math.cos(cycle / 7))
            world.step()
        return world.data.qpos.copy()
    assert np.array_equal(run(), run())


def test_a_robot_faces_the_direction_it_was_put_in():
    world = SoccerWorld()
    rid = world.add_robot(0, 0.0, 5.0, math.pi / 2)              # facing +y
    _, rotation = world.pose(rid, "torso")
    forward = rotation @ np.array([0.0, 1.0, 0.0])            # the robot's own +y
    assert np.allclose(forward, (0, 1, 0), atol=1e-6)
    world.place_robot(rid, 1.0, 2.0, math.pi)
    position, rotation = world.pose(rid, "torso")
    assert np.allclose(position[:2], (1.0, 2.0)) and np.allclose(rotation @ (0, 1, 0), (-1, 0, 0), atol=1e-6)


def test_violent_joint_commands_never_blow_the_simulation_up():
    world = SoccerWorld(seed=1)
    rng = np.random.default_rng(7)
    robots = [world.add_robot(t, -4.0 + 2 * t, 0.0, 0.0) for t in range(5)]
    for cycle in range(500):                                  # 10 s of flailing, falling robots
        if cycle % 10 == 0:
            for rid in robots:
                for part in world.parts(rid):
                    if part.joint is not None:
                        world.set_joint_velocity(rid, part.joint.effector, rng.uniform(-7, 7))
        world.step()
    assert np.isfinite(world.data.qpos).all() and np.isfinite(world.data.qvel).all()
    for t, rid in enumerate(robots):
        position, _ = world.pose(rid, "torso")
        assert 0.0 < position[2] < 0.6                        # on the ground, not flying off
        assert np.hypot(position[0] - (-4.0 + 2 * t), position[1]) < 3.0


def test_the_robot_a_rolling_ball_hits_is_the_one_touching_it():
    world = SoccerWorld()
    near, far = world.add_robot(0, 2.0, 0.0), world.add_robot(0, 5.0, 5.0)   # the ball on the centre spot
    assert world.ball_touchers() == set()
    torso, _ = world.pose(near, "torso")
    world.place_ball((torso[0] - 0.4, torso[1], 0.3), (3.0, 0.0, 0.0))     # thrown at its chest
    seen = set()
    for _ in range(50):
        world.step()
        seen |= world.ball_touchers()
    assert seen == {near} and far not in seen


def test_a_step_that_blows_up_stops_that_robot_and_leaves_the_others_where_they_are(caplog, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                        # MuJoCo writes its warning to MUJOCO_LOG.TXT here
    world = SoccerWorld()
    a, b = world.add_robot(0, -3.0, 0.0, 0.0), world.add_robot(0, 3.0, 1.0, 0.0)
    for _ in range(20):
        world.step()
    where_b = world.pose(b, "torso")[0].copy()
    dof, _ = world._effectors[a]["rle3"]
    world.data.qvel[dof] = np.nan                      # what an exploding contact leaves behind
    world.step()
    assert np.isfinite(world.data.qpos).all() and np.isfinite(world.data.qvel).all()
    assert np.allclose(world.pose(b, "torso")[0], where_b, atol=0.01)   # not reset to the model's start
    assert world.pose(a, "torso")[0][:2] == pytest.approx((-3.0, 0.0), abs=0.05)
    assert world.cycle == 21 and world.time == pytest.approx(0.42)
    assert "blew up" in caplog.text
    for _ in range(10):
        world.step()
    assert np.isfinite(world.data.qpos).all()
