"""Two teams of the humanoid API's sample players play halves (``simleague vhsc match``: the
simulator, the GameController's packets, eight player processes over real TCP, in real time):
issue 32's match targets for the humanoid league (goals in total, the ball's travel per half).

    python benchmarks/bench_vhsc_match.py [--runs 3] [--half-time 600]

Both teams are ``examples/vhsc/kid.json`` (four kid robots). The world has no randomness of its
own here: the runs differ by the processes' timing. Prints each half's report, then the totals
and the medians.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from pathlib import Path

from simleague.vhsc.config import load_team
from simleague.vhsc.match import GameSetup, play

TEAM = Path(__file__).resolve().parent.parent / "examples" / "vhsc" / "kid.json"
READY, SET = 30.0, 5.0          # s: the referee's ready and set states before the kick-off


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--half-time", type=float, default=600.0)
    args = ap.parse_args()
    reports = []
    for run in range(args.runs):
        (red, _), (blue, _) = load_team(TEAM), load_team(TEAM)
        left = "red" if run % 2 == 0 else "blue"
        report = asyncio.run(play(red, blue, seconds=READY + SET + args.half_time + 1.0, ready_time=READY,
                                  half_time=args.half_time, halves=1, setup=GameSetup(left=left, kick_off=left)))
        print(f"run {run}: {report.line()}", flush=True)
        reports.append(report)
    robot_minutes = sum(report.players.values()) * args.half_time / 60.0
    falls = [sum(r.falls.values()) / robot_minutes for r in reports]
    print(f"goals in total: {sum(sum(r.score.values()) for r in reports)} in {len(reports)} halves; ball travel per "
          f"half: median {statistics.median(r.ball_travel for r in reports):.1f} m (least "
          f"{min(r.ball_travel for r in reports):.1f}); falls per robot-minute: median {statistics.median(falls):.2f}; "
          f"real-time factor: median {statistics.median(r.steps * 0.008 / r.seconds for r in reports):.2f}")


if __name__ == "__main__":
    main()
