"""How often the sample agent finishes a trial: in-process (the World and one Brain per robot, no
sockets), on the three 2008 labs in shared and the bundled lab, for a range of seeds.

Run by hand: ``python benchmarks/agent_success.py [--agents 3] [--seeds 1-24] [--labs ...]
[--given none|map|kept] [--detail]`` (about 5 minutes on 2 cores; a lab that cannot be read, as when
``../shared`` is not beside the clone, gives one line and exit code 2). ``--given`` tells the agents
the lab (:class:`GivenLab`), which separates what exploring costs from what driving and meeting
other robots cost. Prints, per lab, how many robots Finished (and of those, how many ended over
0.5 u_m from their grid position: the agent ends short of it when something stands in the way)
and how many had visited every target but were still Returning at the end (SimTime 1800), then
the totals; with ``--detail``, first a line per robot of where its time went (:class:`Robot`).
The trials are chaotic (a small change moves every robot), so compare changes over
many seeds: the same agent finished 53 of 144 robots with seeds 1-12 and 40 with seeds 13-24;
with 288 robots (3 agents, 24 seeds) about 16 finishes (two binomial standard deviations) is
still within the spread.
"""

import argparse
import math
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from matplotlib.path import Path as Polygon

from simleague.ciberrato import agent
from simleague.ciberrato.geometry import LabGeometry
from simleague.ciberrato.scenario import Scenario, ScenarioError, load_scenario
from simleague.ciberrato.types import Action, Observation
from simleague.ciberrato.world import World

LABS_2008 = Path(__file__).resolve().parents[2] / "shared" / "labs" / "ciberrato" / "CiberRato2008"
LABS = {name: (LABS_2008 / f"Ciber2008_{name}Lab.xml", LABS_2008 / f"Ciber2008_{name}Grid.xml")
        for name in ("Final", "Manga1", "Manga2")} | {"default": (None, None)}


AWAY = 0.5     # u_m: Finished robots ending farther than this from their grid position are counted


class GivenLab(agent.Brain):
    """The sample agent told the lab (``--given map`` or ``kept``): its map starts as the lab's
    walls and the arena's border, and every beacon is where it is, so that a trial measures
    driving, planning and meeting other robots apart from exploring. With ``keep``, the map is
    set back to the lab's before every decision: other robots never go on it as walls.
    ``home`` is the robot's grid position (x, y) in u_m."""

    def __init__(self, scenario: Scenario, home: tuple[float, float], keep: bool, **kwargs):
        super().__init__(len(scenario.lab.beacons), **kwargs)
        self.keep = keep
        self.beacons = [(b.x - home[0], b.y - home[1]) for b in scenario.lab.beacons]
        centres = (np.arange(agent.N) + 0.5) * agent.RES - agent.HALF
        xs, ys = np.meshgrid(centres + home[0], centres + home[1])
        points = np.column_stack([xs.ravel(), ys.ravel()])
        lab = scenario.lab
        wall = LabGeometry(lab).wall_distance(points) <= agent.RES / 2
        for w in lab.walls:
            if w.height > 0:
                wall |= Polygon(np.asarray(w.corners)).contains_points(points)
        outside = np.maximum(-points, points - (lab.width, lab.height)).max(axis=1)
        # the border as a wall 0.5 u_m thick; farther out unknown, so that plans stay in the arena
        # (the planner's window is the arena's size beyond what is known)
        logodds = np.where(wall | (outside > 0), agent.LIMIT, -agent.LIMIT)
        self.truth = np.where(outside > 0.5, 0.0, logodds).reshape(agent.N, agent.N).astype(np.float32)
        self.logodds[:] = self.truth

    def beacon_estimate(self, b: int) -> tuple[float, float]:
        return self.beacons[b]

    def decide(self, obs: Observation) -> Action:
        if self.keep:
            self.logodds[:] = self.truth
        return super().decide(obs)


@dataclass
class Robot:
    """One robot's trial: its final ``state``; ``away``, u_m (straight) from its grid position at
    the end; the cycles of its ``first_visit`` of a target, of the visit that completed them all
    (``last_visit``), of its return signal (``returned``) and of its end (``ended``), None where
    it never got so far; the ``shortest`` way home from where it signalled the return (D_R, the
    scorer's path distance, u_m) and how far it ``drove`` from there to the end of the trial (u_m)."""

    state: str
    away: float
    first_visit: int | None = None
    last_visit: int | None = None
    returned: int | None = None
    ended: int | None = None
    shortest: float | None = None
    drove: float = 0.0


def trial(lab: str, seed: int, agents: int, given: str = "none") -> list[Robot]:
    """One trial of ``agents`` sample agents on ``lab`` with ``seed``, told the lab as ``given``
    says (none, map or kept: :class:`GivenLab`): a :class:`Robot` for each robot."""
    scenario = load_scenario(*LABS[lab])
    p, size = scenario.params, (scenario.lab.width, scenario.lab.height)
    world = World(scenario, seed=seed)
    brains = {}
    for i in range(agents):
        rid = world.add_robot(f"r{i + 1}")
        options = dict(compass_latency=p.compass_latency, beacon_latency=p.beacon_latency,
                       requestable=p.obstacle_requestable, max_requests=p.n_requests_per_cycle,
                       arena=size if max(size) <= agent.HALF else agent.ARENA_2008)
        if given == "none":
            brains[rid] = agent.Brain(len(scenario.lab.beacons), **options)
        else:
            home = scenario.grid.positions[i]
            brains[rid] = GivenLab(scenario, (home.x, home.y), keep=given == "kept", **options)
    for k in range(8):              # Measures before the start, as over the network: the heading
        world.step({rid: b.decide(world.observe(rid)) for rid, b in brains.items()} if k else {})
    world.start()
    seen = {rid: Robot("", math.nan) for rid in brains}
    while not world.finished:
        before = world.x.copy(), world.y.copy()
        world.step({rid: b.decide(world.observe(rid)) for rid, b in brains.items()})
        for rid, robot in seen.items():
            rec = world.records[rid]
            if robot.first_visit is None and any(rec.visited):
                robot.first_visit = world.cycle
            if robot.returned is None and rec.state == "Returning":
                robot.returned, robot.shortest = world.cycle, rec.return_distance
            if robot.returned is not None and robot.ended is None:
                i = rid - 1
                robot.drove += math.hypot(world.x[i] - before[0][i], world.y[i] - before[1][i])
                robot.ended = world.cycle if rec.finished else None
    home = scenario.grid.positions
    for rid, robot in seen.items():
        robot.state = world.records[rid].state
        robot.away = float(np.hypot(world.x[rid - 1] - home[rid - 1].x, world.y[rid - 1] - home[rid - 1].y))
        robot.last_visit = world.records[rid].visiting_time
    return list(seen.values())


def seed_range(text: str) -> list[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", type=int, default=3)
    parser.add_argument("--seeds", type=seed_range, default=seed_range("1-24"), help="e.g. 1-24")
    parser.add_argument("--labs", default=",".join(LABS), help="comma-separated: " + ",".join(LABS))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--detail", action="store_true",
                        help="a line per robot: cycles of its first and last visit, return signal and "
                             "end; the shortest way home from there and how far it drove")
    parser.add_argument("--given", choices=("none", "map", "kept"), default="none",
                        help="tell the agents the lab: its walls as their starting map and where "
                             "the beacons are (map), and the map set back to that every cycle, so "
                             "that other robots never go on it (kept)")
    args = parser.parse_args()
    labs = args.labs.split(",")
    jobs = [(lab, seed) for lab in labs for seed in args.seeds]
    try:
        with ProcessPoolExecutor(args.jobs) as pool:
            runs = list(pool.map(trial, *zip(*jobs), [args.agents] * len(jobs), [args.given] * len(jobs)))
    except ScenarioError as exc:        # the 2008 labs are read from ../shared beside the clone
        print(f"agent_success: {exc}", file=sys.stderr)
        return 2
    if args.detail:
        print("lab      seed robot state      first  last  return  end   shortest  drove")
        for (lab, seed), run in zip(jobs, runs):
            for rid, r in enumerate(run, 1):
                cycles = " ".join(f"{'-' if c is None else c:>5}" for c in (r.first_visit, r.last_visit, r.returned, r.ended))
                way = "" if r.shortest is None else f"  {r.shortest:8.1f}  {r.drove:5.1f}"
                print(f"{lab:8} {seed:4} {rid:5} {r.state:9} {cycles}{way}")
    total = {"Finished": 0, "Returning": 0, "away": 0}
    robots = len(args.seeds) * args.agents
    for lab in labs:
        got = [r for (name, _), run in zip(jobs, runs) if name == lab for r in run]
        counts = {k: sum(r.state == k for r in got) for k in ("Finished", "Returning")}
        counts["away"] = sum(r.state == "Finished" and r.away > AWAY for r in got)
        total = {k: total[k] + counts[k] for k in total}
        print(f"{lab:8} Finished {counts['Finished']:3} / {robots} ({counts['away']} over {AWAY} u_m from home)"
              f"   Returning {counts['Returning']:3}")
    print(f"{'all':8} Finished {total['Finished']:3} / {robots * len(labs)} ({total['away']} over {AWAY} u_m "
          f"from home)   Returning {total['Returning']:3}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
