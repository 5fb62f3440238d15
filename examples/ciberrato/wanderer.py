"""A minimal CiberRato agent: drive ahead, turn away from walls, until the trial ends.

    simleague ciberrato serve &                       # or: simleague ciberrato trial --agents 0 --wait-for 1
    python examples/ciberrato/wanderer.py [--host 127.0.0.1] [--port 6000] [--name Wanderer]

It speaks the original protocol through ``simleague.ciberrato.client``, so it runs against the
original simulator too. Obstacle sensors 0, 1 and 2 look ahead, 60 degrees left and 60 degrees
right (the defaults); a reading is 1/distance in the robot's units, larger when a wall is near.
"""

import argparse

from simleague.ciberrato.client import Client, ClientError

NEAR = 2.0              # 1/u_m: a wall closer than half a unit ahead
SPEED = 0.1             # motor power, of at most 0.15


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=6000)
    ap.add_argument("--name", default="Wanderer")
    args = ap.parse_args()
    cycles = 0
    with Client(args.name, host=args.host, port=args.port) as robot:
        try:
            while True:
                m = robot.read()
                if m.buttons[1]:                       # Stop pressed: the trial is over
                    break
                if not m.buttons[0]:                   # not started yet
                    continue
                cycles += 1
                ahead, left, right = (m.ir.get(i, 0.0) for i in (0, 1, 2))
                if ahead > NEAR:                       # turn on the spot, away from the nearer side
                    turn = SPEED if left > right else -SPEED
                    robot.act(turn, -turn, requests=("IRSensor0", "IRSensor1", "IRSensor2"))
                else:                                  # ahead, steering away from the nearer wall
                    steer = 0.03 * (left - right)
                    robot.act(SPEED + steer, SPEED - steer, requests=("IRSensor0", "IRSensor1", "IRSensor2"))
        except ClientError:
            pass                                       # the simulator has gone: the trial is over
    print(f"{args.name}: drove {cycles} cycles")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
