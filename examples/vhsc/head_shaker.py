"""A minimal robot controller for the humanoid virtual soccer API: connect to one robot's port,
ask for its gyro and its head's angle every 8 ms, swing the head from side to side, and print what
the sensors say now and then.

    simleague vhsc serve --red examples/vhsc/kid.json --blue examples/vhsc/kid.json &   # red N: port 10000 + N
    python examples/vhsc/head_shaker.py [--address 127.0.0.1:10001] [--seconds 5]

It speaks the API (a TCP port per robot, 4-byte length-prefixed protobuf messages:
``ActuatorRequests`` in, ``SensorMeasurements`` out) through ``simleague.vhsc.client``, so it runs
against the league's Webots simulator too, given that robot's device names. Angles in radians,
time in milliseconds of simulation time, gyro rates in rad/s.
"""

import argparse
import math

from simleague.vhsc.client import RobotClient

STEP_MS = 8                 # the basic time step: measurements every 8 ms
SWING = 0.6                 # rad either side
PERIOD = 2.0                # s for one swing there and back


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--address", default=None, help="host:port (default: $ROBOCUP_SIMULATOR_ADDR or 127.0.0.1:10001)")
    ap.add_argument("--seconds", type=float, default=5.0, help="Simulation seconds to run.")
    args = ap.parse_args()
    with RobotClient(args.address) as robot:
        robot.send(robot.requests(time_steps={"gyro": STEP_MS, "head_yaw_sensor": STEP_MS}))
        largest = 0.0
        while True:
            m = robot.receive()
            t = m.time / 1000.0
            if t >= args.seconds:
                break
            yaw = next((s.value for s in m.position_sensors if s.name == "head_yaw_sensor"), None)
            gyro = next(((g.value.X, g.value.Y, g.value.Z) for g in m.gyros), None)
            robot.send(robot.requests(positions={"head_yaw": SWING * math.sin(2 * math.pi * t / PERIOD)}))
            if yaw is not None:
                largest = max(largest, abs(yaw))
            if m.time % 1000 == 0 and yaw is not None and gyro is not None:
                print(f"t {t:.3f} s  head yaw {yaw:+.3f} rad  gyro z {gyro[2]:+.3f} rad/s")
    print(f"the head swung up to {largest:.2f} rad")
    return 0 if largest > SWING / 2 else 1


if __name__ == "__main__":
    raise SystemExit(main())
