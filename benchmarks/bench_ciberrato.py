"""Cycles per second of the CiberRato world, in-process in fast mode (no sockets), and over UDP.

Run by hand: ``python benchmarks/bench_ciberrato.py``. Prints medians of 5 runs.
"""

import statistics
import sys
import time
from pathlib import Path

import numpy as np

from simleague.ciberrato.geometry import LabGeometry
from simleague.ciberrato.scenario import Grid, GridPosition, Scenario, load_lab, load_scenario
from simleague.ciberrato.world import Action, World

SHARED = Path(__file__).resolve().parents[2] / "shared" / "labs" / "ciberrato"


def grid_for(lab, n):
    """n free grid positions at least 1.2 u_m apart (for robot counts larger than a lab's grid)."""
    geo = LabGeometry(lab)
    pts = [(x, y) for y in np.arange(1.0, lab.height, 1.3) for x in np.arange(1.0, lab.width, 1.3)]
    free = [p for p, d in zip(pts, geo.wall_distance(np.array(pts))) if d > 0.7]
    return Grid(tuple(GridPosition(x, y, 0.0) for x, y in free[:n]))


def cycles_per_second(lab, n, cycles=2000):
    world = World(Scenario(lab, grid_for(lab, n), load_scenario().params), seed=1)
    for i in range(1, n + 1):
        world.add_robot(f"r{i}", i)
    world.start()
    actions = {i: Action(0.1, 0.12, requests=("IRSensor0", "Compass")) for i in range(1, n + 1)}
    t0 = time.perf_counter()
    for _ in range(cycles):
        world.step(actions)
        for i in range(1, n + 1):
            world.observe(i)
    return cycles / (time.perf_counter() - t0)


def main():
    labs = {"bundled": load_lab(), "rmi-2425/C4": load_lab(SHARED / "rmi-2425" / "C4-lab.xml")}
    for name, lab in labs.items():
        for n in (1, 3, 30):
            runs = [cycles_per_second(lab, n, 2000 if n < 30 else 300) for _ in range(5)]
            print(f"{name:12s} {n:2d} robots: {statistics.median(runs):8.0f} cycles/s (median of 5)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
