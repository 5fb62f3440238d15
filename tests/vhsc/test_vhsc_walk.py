"""The shared walk (simleague.walking) on the humanoid API's robots (issue 32): our kid, the
league's Booster K1 (its model in shared) and Bit-Bots' Wolfgang (imported from its PROTO) walk
ahead and turn on the spot without falling, in process, the targets acting two steps after what
was read (benchmarks/bench_kid.py's driver)."""

import sys
from pathlib import Path

import mujoco
import numpy as np
import pytest
from golden import SHARED

from simleague import walking
from simleague.soccer.humanoids import HumanoidWorld
from simleague.soccer.models import find_model
from simleague.vhsc import booster_k1, kid, wolfgang

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_kid import LONG_FIELD, MODELS, walk  # noqa: E402


@pytest.mark.parametrize("body, ahead, turned", [(kid, 2.0, 90.0), (booster_k1, 3.0, 30.0), (wolfgang, 3.0, 150.0)],
                         ids=["kid", "booster-k1", "wolfgang"])
def test_the_robot_walks_ahead_and_turns_on_the_spot_without_falling(body, ahead, turned):
    if body is booster_k1:
        assert (SHARED / "reference" / "robots" / "booster-k1" / "robot.xml").is_file()
    if body is wolfgang:
        assert (SHARED / "reference" / "robots" / "webots-proto" / "bitbots").is_dir()
    forward = walk((1.0, 0.0, 0.0), 10.0, body=body)
    assert not forward["fell"] and forward["sideways"] < 1.0 and forward["distance"] > ahead, forward
    turn = walk((0.0, 0.0, 1.0), 6.0, body=body)
    assert not turn["fell"] and turn["turned"] > turned and turn["distance"] < 0.5, turn


def test_wolfgangs_leg_joints_put_the_ankle_where_the_walk_asks_with_the_sole_flat():
    """Wolfgang's joints turn against the walk's on several axes, its PROTO's straight pose has
    the hip and ankle pitched and its shank leans at the knee (simleague.vhsc.wolfgang): the
    targets, set as the joints' angles in the imported model, put each ankle's pitch axis where
    the walk's leg asked relative to the hip's and keep the sole flat."""
    world = HumanoidWorld(LONG_FIELD)
    rid = world.add_robot(find_model(wolfgang.MODEL, MODELS), 0.0, 0.0, 0.0)
    model, data = world.model, world.data

    def joint(name):
        return model.joint(f"r{rid}_{name}").id

    for target in ((0.0, 0.0, -0.30), (0.05, 0.02, -0.28), (-0.04, -0.03, -0.31)):
        roll, pitch, knee, ankle_pitch, ankle_roll = wolfgang.WOLFGANG_LEG.angles(*target)
        pose = walking.LegPose(0.0, roll, pitch, knee, ankle_pitch, ankle_roll)
        for name, angle in wolfgang.leg_targets({"l": pose, "r": pose}).items():
            data.qpos[model.jnt_qposadr[joint(name)]] = angle
        mujoco.mj_forward(model, data)
        for side in "LR":
            reached = data.xanchor[joint(f"{side}AnklePitch")] - data.xanchor[joint(f"{side}HipPitch")]
            assert np.allclose(reached[[0, 2]], np.array(target)[[0, 2]], atol=0.003), (side, target, reached)
            foot = model.body(f"r{rid}_{side.lower()}_foot [foot]").id
            sole = next(g for g in range(model.ngeom) if model.geom_bodyid[g] == foot and model.geom_size[g][0] > 0.08)
            assert data.geom_xmat[sole].reshape(3, 3)[2, 2] > 0.9999, (side, target)
