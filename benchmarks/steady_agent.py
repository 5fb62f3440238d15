"""A minimal external CiberRato agent for benchmarks and tests: drives a slow circle until the end.

``python benchmarks/steady_agent.py PORT [NAME]``. It answers every Measures at once, so a lockstep
trial with it measures the simulator and the protocol, not an agent's thinking.
"""

import sys

from simleague.ciberrato.client import Client, ClientError


def main() -> int:
    port, name = int(sys.argv[1]), (sys.argv[2] if len(sys.argv) > 2 else "steady")
    try:
        with Client(name, 0, port=port, timeout=30.0) as robot:
            while True:
                m = robot.read()
                robot.act(0.1, 0.12, requests=("IRSensor0", "Compass"))
                if not m.buttons[0] and not m.buttons[1] and m.time > 0:
                    return 0
    except ClientError as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
