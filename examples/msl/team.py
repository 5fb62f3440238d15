"""A minimal MSL team for the match middleware: one robot that walks up and down its half, its own
ball kept on the centre spot, on a simulation clock of its own; it shares its state 50 times a
simulated second, gets the opponent pushed, and obeys the referee (STOP, START, KICKOFF).

    simleague msl demo ...    or    simleague msl middleware --referee auto &  (with two pausers)
    python examples/msl/team.py --side cyan [--port 28100] [--seconds 20]

It speaks the middleware's protocol (JSON over TCP) through ``simleague.msl.client``; the same
messages are in ``src/simleague/msl/schema.json`` for a team in another language. Each team
reports in its own frame: x across the field, y towards the opponent's goal, metres and radians.
"""

import argparse
import math
import time

from simleague.msl.client import TeamClient
from simleague.msl.messages import Ball, Robot

DT = 0.02                   # s of simulation time per step (and per state sent)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--side", required=True, choices=("cyan", "magenta"))
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=28100)
    ap.add_argument("--token", default="", help="The match's token for this side, if it has one.")
    ap.add_argument("--seconds", type=float, default=20.0, help="Simulation seconds to play at most.")
    args = ap.parse_args()
    client = TeamClient(f"Example {args.side}", args.side, args.host, args.port, token=args.token)
    start = client.connect(lambda what: print(f"waiting for {what}"))
    print(f"playing {start.opponent} on the {start.side} side")
    client.subscribe(0.1)                               # the opponent, every 0.1 s of our time
    t, y, running, obeyed = 0.0, -4.0, False, []
    due = time.monotonic()
    while t < args.seconds and client.ended is None:
        t = round(t + DT, 6)
        if running:
            y = -4.0 + 3.0 * math.sin(0.5 * t)          # up and down our half
        client.send_state(t, [Robot(1, (0.0, y, math.pi / 2), (0.0, 1.5 * math.cos(0.5 * t) if running else 0.0, 0.0))],
                          Ball((0.0, 0.0, 0.11), (0.0, 0.0, 0.0)))
        client.poll()
        for command in client.due(t):                  # carried out at the time the referee gave
            obeyed.append(f"{command.command} ({command.target}) at {command.t:.2f} s")
            if command.command == "START":
                running = True
            elif command.command in ("STOP", "KICKOFF", "HALF_TIME", "END_GAME"):
                running, y = False, -4.0
        due += DT                                       # real time: a simulation on its own clock
        time.sleep(max(0.0, due - time.monotonic()))
    client.close()
    seen = len(client.latest.robots) if client.latest is not None else 0
    print(f"{t:.2f} s played; the opponent's robots seen: {seen}; referee: {', '.join(obeyed) or 'none'}")
    if client.ended is not None:
        print(f"the match ended: {client.ended.reason}, score {client.ended.score[0]}:{client.ended.score[1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
