"""Two sample SimSpark teams play halves (``simleague simspark match``: separate agent processes,
real TCP, sync mode), one per seed: issue 32's match targets (goals in total, the ball's travel
per half, falls per robot-minute).

    python benchmarks/bench_match.py [--agents 11] [--seeds 3] [--half-time 300]

Prints each half's score line and figures, then the totals and the medians.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics

from simleague.simspark.match import play


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agents", type=int, default=11)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--half-time", type=float, default=300.0)
    args = ap.parse_args()
    halves = []
    for seed in range(args.seeds):
        result = asyncio.run(play(agents=args.agents, seed=seed, half_time=args.half_time))
        print(f"seed {seed}: {result.line()}", flush=True)
        halves.append(result)
    robot_minutes = 2 * args.agents * args.half_time / 60.0
    falls = [sum(r.falls) / robot_minutes for r in halves]
    print(f"goals in total: {sum(sum(r.score) for r in halves)} in {len(halves)} halves; ball travel per half: "
          f"median {statistics.median(r.ball_travel for r in halves):.1f} m (least {min(r.ball_travel for r in halves):.1f}); "
          f"falls per robot-minute: median {statistics.median(falls):.2f} (most {max(falls):.2f}); "
          f"cycles per second: median {statistics.median(r.cycles_per_second for r in halves):.0f}")


if __name__ == "__main__":
    main()
