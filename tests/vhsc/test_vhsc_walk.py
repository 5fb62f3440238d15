"""The shared walk (simleague.walking) on the humanoid API's robots (issue 32): our kid and the
league's Booster K1 (its model in shared) walk ahead and turn on the spot without falling, in
process, the targets acting two steps after what was read (benchmarks/bench_kid.py's driver)."""

import sys
from pathlib import Path

import pytest
from golden import SHARED

from simleague.vhsc import booster_k1, kid

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_kid import walk  # noqa: E402


@pytest.mark.parametrize("body, ahead, turned", [(kid, 2.0, 90.0), (booster_k1, 3.0, 30.0)], ids=["kid", "booster-k1"])
def test_the_robot_walks_ahead_and_turns_on_the_spot_without_falling(body, ahead, turned):
    if body is booster_k1:
        assert (SHARED / "reference" / "robots" / "booster-k1" / "robot.xml").is_file()
    forward = walk((1.0, 0.0, 0.0), 10.0, body=body)
    assert not forward["fell"] and forward["sideways"] < 1.0 and forward["distance"] > ahead, forward
    turn = walk((0.0, 0.0, 1.0), 6.0, body=body)
    assert not turn["fell"] and turn["turned"] > turned and turn["distance"] < 0.5, turn
