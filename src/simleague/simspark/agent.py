"""The sample SimSpark agent: connects, asks for a robot, joins its team, beams to its place in a
4-4-2-like formation of its own half and keeps its robot standing with a proportional joint
controller, turning its head from side to side to look around. In sync mode it answers every
cycle with ``(syn)``. It stops when the game is over or the server goes away.

Run it as ``python -m simleague.simspark.agent --team NAME --unum N --type T`` (or
``simleague simspark agent``); it uses only the standard library and
:mod:`simleague.simspark.client`, so that 22 of them start quickly.
"""

from __future__ import annotations

import argparse
import math
import sys

from .client import AgentClient

#: own half, team frame (x towards the opponent's goal), metres; number 1 is the goalkeeper
FORMATION = {1: (-14.0, 0.0), 2: (-10.0, -6.0), 3: (-10.0, -2.0), 4: (-10.0, 2.0), 5: (-10.0, 6.0),
             6: (-6.0, -6.0), 7: (-6.0, -2.0), 8: (-6.0, 2.0), 9: (-6.0, 6.0), 10: (-2.0, -3.0),
             11: (-2.0, 3.0)}
#: robot type of each number in the sample team: 3 of type 0, 2 each of types 1-4 (the league's
#: mix rules: at most 7 of one type, 9 of two, at least 3 types)
TYPES = {1: 0, 2: 0, 3: 0, 4: 1, 5: 1, 6: 2, 7: 2, 8: 3, 9: 3, 10: 4, 11: 4}
GAIN = 0.15                       # rad/s per degree of error
MAX_SPEED = 1.5                   # rad/s: slow enough not to topple the robot
HEAD_SWING = 60.0                 # degrees
HEAD_PERIOD = 6.0                 # seconds


def effector(joint: str) -> str:
    """The effector that drives a joint perceptor: ``hj1`` -> ``he1``, ``rlj3`` -> ``rle3``."""
    return joint[:-2] + "e" + joint[-1]


def posture(joint: str, now: float) -> float:
    """The angle (degrees) the sample agent holds ``joint`` at, at server time ``now`` (s): upright
    with the arms down along the body, the head swinging."""
    if joint == "hj1":
        return HEAD_SWING * math.sin(2 * math.pi * now / HEAD_PERIOD)
    if joint in ("laj1", "raj1"):
        return -90.0                  # arms down
    return 0.0


def controls(joints: dict[str, float], now: float) -> dict[str, float]:
    """Joint velocities (rad/s) that move each joint towards :func:`posture`."""
    out = {}
    for joint, angle in joints.items():
        v = GAIN * (posture(joint, now) - angle)
        out[effector(joint)] = max(-MAX_SPEED, min(MAX_SPEED, v))
    return out


def run(host: str, port: int, team: str, unum: int, robot_type: int, cycles: int | None = None) -> int:
    """Play until the game is over, the server closes or ``cycles`` messages were answered;
    returns the number of cycles played."""
    with AgentClient(host, port) as agent:
        agent.scene(robot_type)
        agent.receive()
        agent.init(unum, team)
        played, side, beamed = 0, None, False
        while cycles is None or played < cycles:
            seen = agent.receive(strict=False)
            if seen.side is not None:
                side, unum = seen.side, seen.unum
            if side is not None and not beamed and seen.play_mode == "BeforeKickOff":
                x, y = FORMATION.get(unum, (-1.0, 0.0))
                agent.beam(x, y, 0.0)
                beamed = True
            agent.act(controls(seen.joints, seen.time), syn=True)
            played += 1
            if seen.play_mode == "GameOver":
                break
        return played


def main(argv: list[str] | None = None) -> int:
    """The command line (``--host --port --team --unum --type``); returns the exit code (1 when
    the server cannot be reached or goes away)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=3100)
    parser.add_argument("--team", default="Sample")
    parser.add_argument("--unum", type=int, default=0, help="0: the next free number")
    parser.add_argument("--type", type=int, default=None, help="robot type 0-4 (default: by number)")
    args = parser.parse_args(argv)
    robot_type = args.type if args.type is not None else TYPES.get(args.unum, 0)
    try:
        run(args.host, args.port, args.team, args.unum, robot_type)
    except (OSError, ConnectionError) as e:
        print(f"agent {args.team} {args.unum}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
