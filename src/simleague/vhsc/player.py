"""The sample player of the humanoid virtual soccer API: connects with the environment the
simulator gives robot software (``ROBOCUP_SIMULATOR_ADDR``, ``ROBOCUP_ROBOT_ID``,
``ROBOCUP_TEAM_COLOR``), enables its joint position sensors, gyro and accelerometer, holds every
joint at its standing angle and turns its head from side to side. Written for simleague's own
kid-size model (its device names); on another model the simulator warns about the names it lacks.

Run it as ``python -m simleague.vhsc.player`` or ``simleague vhsc player``.
"""

from __future__ import annotations

import argparse
import math
import os
import sys

from .client import RobotClient

JOINTS = ["head_yaw", "head_pitch"] + [f"{side}_{joint}" for side in ("left", "right") for joint in (
    "shoulder_pitch", "shoulder_roll", "elbow", "hip_yaw", "hip_roll", "hip_pitch", "knee",
    "ankle_pitch", "ankle_roll")]
DEFAULT_ADDRESS = "127.0.0.1:10001"
HEAD_SWING = 1.0           # rad
HEAD_PERIOD = 4.0          # s


def posture(now_s: float) -> dict[str, float]:
    """The angle (rad) of every joint at time ``now_s``: standing, arms down, the head swinging."""
    angles = dict.fromkeys(JOINTS, 0.0)
    angles["head_yaw"] = HEAD_SWING * math.sin(2 * math.pi * now_s / HEAD_PERIOD)
    return angles


def run(address: str | None = None, steps: int | None = None) -> int:
    """Play until the simulator closes the connection (or ``steps`` measurements); returns the
    number of measurements read."""
    with RobotClient(address) as robot:
        sensors = {f"{joint}_sensor": 8 for joint in JOINTS} | {"gyro": 8, "accelerometer": 8}
        robot.send(robot.requests(time_steps=sensors))
        count = 0
        while steps is None or count < steps:
            try:
                measurements = robot.receive()
            except ConnectionError:
                break
            count += 1
            if count % 4 == 1:                     # a new posture every 32 ms is plenty
                robot.send(robot.requests(positions=posture(measurements.time / 1000)))
        return count


def main(argv: list[str] | None = None) -> int:
    """The command line (``--address``); returns the exit code (1 when the simulator cannot be
    reached or refuses)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--address", default=None, help="host:port (default: ROBOCUP_SIMULATOR_ADDR)")
    args = parser.parse_args(argv)
    environment = os.environ.get("ROBOCUP_SIMULATOR_ADDR")
    address = args.address or environment or DEFAULT_ADDRESS
    source = ("--address" if args.address else "ROBOCUP_SIMULATOR_ADDR" if environment
              else "the default: ROBOCUP_SIMULATOR_ADDR is not set")
    try:
        run(address)
    except ValueError as e:
        print(f"player: {e} ({source})", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"player: cannot reach the simulator at {address} ({source}): {e.strerror or e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
