"""Robots from MuJoCo model files (issue 6, part 2): the devices read from our own kid-size model
and from the real Booster K1 model in shared, bad model files, and the humanoid world's motors
with the original's (Webots) semantics."""

import math
from pathlib import Path

import numpy as np
import pytest
from golden import SHARED

from simleague.soccer.humanoids import HumanoidWorld
from simleague.soccer.models import ModelError, RobotModel, find_model
from simleague.soccer.rules import SoccerRules

KID = Path(__file__).resolve().parents[2] / "src" / "simleague" / "soccer" / "robots" / "kid.xml"
K1 = SHARED / "reference" / "robots" / "booster-k1" / "robot.xml"
FIELD = SoccerRules(field_length=9, field_width=6, goal_width=2.6, goal_height=1.2, ball_radius=0.07,
                    ball_mass=0.15)


@pytest.fixture(scope="module")
def kid():
    return RobotModel.load(KID)


@pytest.fixture(scope="module")
def k1():
    return RobotModel.load(K1)


def test_our_kid_size_model_offers_motors_sensors_and_a_head_camera(kid):
    assert kid.name == "kid" and len(kid.motors) == 20
    knee = kid.device("left_knee")
    assert (knee.low, knee.high, knee.max_torque) == (0.0, 2.3, 8.0)
    kinds = {s.name: s.kind for s in kid.sensors}
    assert kinds["left_knee_sensor"] == "position" and kinds["accelerometer"] == "accelerometer"
    assert kinds["gyro"] == "gyro" and kinds["left_foot_force"] == "force"
    assert kinds["left_foot_force3d"] == "force3d" and kinds["chest_bumper"] == "bumper"
    camera = kid.device("camera")
    assert (camera.kind, camera.width, camera.height) == ("camera", 320, 240)
    assert kid.standing_height == pytest.approx(0.445, abs=0.002)


def test_the_real_k1_model_loads_with_its_own_joints_and_limits(k1):
    assert k1.name == "booster-k1" and len(k1.motors) == 22
    assert k1.device("Left_Knee_Pitch").max_torque == 40.0           # class jXL
    assert k1.device("AAHead_yaw").max_torque == 6.0                 # class jXXS
    assert (k1.device("Right_Elbow_Yaw").low, k1.device("Right_Elbow_Yaw").high) == (0.0, 2.44)
    assert {s.kind for s in k1.sensors} == {"position", "gyro", "accelerometer"}
    assert k1.device("torso_gyro").kind == "gyro"
    assert 0.5 < k1.standing_height < 0.6


def test_bad_model_files_are_named_with_their_problem(tmp_path):
    with pytest.raises(ModelError, match="cannot read it"):
        RobotModel.load(tmp_path / "missing.xml")
    (tmp_path / "junk.xml").write_text("<mujoco><worldbody><body>")
    with pytest.raises(ModelError, match=r"junk\.xml: not a MuJoCo model"):
        RobotModel.load(tmp_path / "junk.xml")
    (tmp_path / "fixed.xml").write_text('<mujoco><worldbody><body name="b"><joint name="j"/>'
                                        '<geom size="0.1"/></body></worldbody></mujoco>')
    with pytest.raises(ModelError, match="must have a free joint"):
        RobotModel.load(tmp_path / "fixed.xml")
    (tmp_path / "twice.xml").write_text('<mujoco><worldbody><body name="b"><freejoint/><geom size="0.1"/>'
                                        '<body name="c"><joint name="j"/><geom size="0.1"/></body></body>'
                                        '<site name="j_sensor"/></worldbody>'
                                        '<sensor><touch name="j_sensor" site="j_sensor"/></sensor></mujoco>')
    with pytest.raises(ModelError, match="j_sensor appear twice"):
        RobotModel.load(tmp_path / "twice.xml")
    with pytest.raises(ModelError, match="no model 'nothing'"):
        find_model("nothing", [tmp_path])
    with pytest.raises(ModelError, match="not a model name"):
        find_model("../etc/passwd", [tmp_path])
    assert find_model("booster-k1", [tmp_path, K1.parent.parent]).name == "booster-k1"
    assert find_model("kid", [KID.parent]).name == "kid"


def test_robots_stand_still_with_their_weight_on_their_feet(kid, k1):
    world = HumanoidWorld(FIELD)
    a = world.add_robot(kid, -1.0, 0.5, 0.0)
    b = world.add_robot(k1, 1.0, -0.5, math.pi)
    for _ in range(375):                                              # 3 s
        world.step()
    assert world.pose(a)[0] == pytest.approx((-1.0, 0.5, kid.standing_height), abs=0.01)
    assert world.pose(b)[0] == pytest.approx((1.0, -0.5, k1.standing_height), abs=0.01)
    assert abs(world.heading(b)) == pytest.approx(math.pi, abs=0.01)
    assert min(world.upright(a), world.upright(b)) > math.cos(math.radians(2))
    weight = 3.98 * 9.81
    feet = world.sensor(a, "left_foot_force")[0] + world.sensor(a, "right_foot_force")[0]
    assert feet == pytest.approx(weight, rel=0.03)
    assert world.sensor(a, "accelerometer") == pytest.approx((0, 0, 9.81), abs=0.1)
    assert world.sensor(b, "torso_gyro") == pytest.approx((0, 0, 0), abs=0.05)


def test_motors_follow_position_velocity_and_torque_commands(kid):
    world = HumanoidWorld(FIELD)
    rid = world.add_robot(kid, 0.0, 2.0, 0.0)
    world.set_position(rid, "head_yaw", 1.0)
    for _ in range(60):
        world.step()
    assert world.position(rid, "head_yaw") == pytest.approx(1.0, abs=0.02)
    world.set_velocity(rid, "head_yaw", 1.0)                          # at most 1 rad/s now
    world.set_position(rid, "head_yaw", -1.0)
    for _ in range(50):                                               # 0.4 s
        world.step()
    assert world.position(rid, "head_yaw") == pytest.approx(0.6, abs=0.05)
    world.set_position(rid, "head_yaw", 9.0)                          # clamped to the range (1.8)
    world.set_velocity(rid, "head_yaw", 100.0)                        # clamped to the top speed
    for _ in range(100):
        world.step()
    assert world.position(rid, "head_yaw") == pytest.approx(1.8, abs=0.02)
    world.set_velocity(rid, "head_pitch", -0.5)
    world.set_position(rid, "head_pitch", math.inf)                   # velocity control
    start = world.position(rid, "head_pitch")
    for _ in range(25):                                               # 0.2 s
        world.step()
    assert world.position(rid, "head_pitch") - start == pytest.approx(-0.1, abs=0.02)
    world.set_torque(rid, "left_elbow", -2.0)                         # bends the elbow (range -2.5..0)
    for _ in range(125):
        world.step()
    assert world.position(rid, "left_elbow") < -2.0
    assert world.position(rid, "head_yaw") == pytest.approx(1.8, abs=0.02)   # the others' servos still hold
    world.set_position(rid, "left_elbow", -0.5)                       # position control again: the servo back
    for _ in range(125):
        world.step()
    assert world.position(rid, "left_elbow") == pytest.approx(-0.5, abs=0.02)
    world.set_pid(rid, "right_elbow", 0.0, 0.0, 0.0)                  # P 0: the target never pulls
    world.set_position(rid, "right_elbow", -1.5)
    for _ in range(50):
        world.step()
    assert world.position(rid, "right_elbow") == pytest.approx(0.0, abs=0.05)
    with pytest.raises(KeyError):
        world.set_position(rid, "tail", 0.0)


def test_joining_keeps_the_others_state_and_runs_repeat(kid, k1):
    def run():
        world = HumanoidWorld(FIELD, seed=4)
        a = world.add_robot(kid, -1.0, 0.0, 0.0)
        world.set_position(a, "left_hip_pitch", -0.5)
        world.place_ball((0.5, 0.0, 0.07), (1.0, 0.0, 0.0))
        for _ in range(30):
            world.step()
        before = world.data.qpos.copy(), world.ball()[0]
        b = world.add_robot(k1, 2.0, 1.0, 0.0)
        joined = world.data.qpos.copy()
        for _ in range(30):
            world.step()
        world.remove_robot(b)
        return before, joined, world.data.qpos.copy(), world.position(a, "left_hip_pitch")
    (qpos, _), joined, after, hip = run()
    kid_part = len(qpos) - 7                                           # the ball's 7 come first
    assert np.array_equal(joined[:7], qpos[:7]) and np.array_equal(joined[7:7 + kid_part], qpos[7:])
    assert hip == pytest.approx(-0.5, abs=0.02)                        # its command survived two rebuilds
    assert np.array_equal(run()[2], after)
