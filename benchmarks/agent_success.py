"""How often the sample agent finishes a trial: in-process (the World and one Brain per robot, no
sockets), on the three 2008 labs in shared and the bundled lab, for a range of seeds.

Run by hand: ``python benchmarks/agent_success.py [--agents 3] [--seeds 1-24] [--labs ...]``
(about 4 minutes on 2 cores; a lab that cannot be read, as when ``../shared`` is not beside the
clone, gives one line and exit code 2). Prints, per lab, how many robots Finished and how many
had visited every target but were still Returning at the end (SimTime 1800), then the totals. The trials are
chaotic (a small change moves every robot), so compare changes over many seeds: the same agent
finished 53 of 144 robots with seeds 1-12 and 40 with seeds 13-24; with 288 robots (3 agents,
24 seeds) about 16 finishes (two binomial standard deviations) is still within the spread.
"""

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from simleague.ciberrato import agent
from simleague.ciberrato.scenario import ScenarioError, load_scenario
from simleague.ciberrato.world import World

LABS_2008 = Path(__file__).resolve().parents[2] / "shared" / "labs" / "ciberrato" / "CiberRato2008"
LABS = {name: (LABS_2008 / f"Ciber2008_{name}Lab.xml", LABS_2008 / f"Ciber2008_{name}Grid.xml")
        for name in ("Final", "Manga1", "Manga2")} | {"default": (None, None)}


def trial(lab: str, seed: int, agents: int) -> list[str]:
    """One trial of ``agents`` sample agents on ``lab`` with ``seed``: each robot's final state."""
    scenario = load_scenario(*LABS[lab])
    p, size = scenario.params, (scenario.lab.width, scenario.lab.height)
    world = World(scenario, seed=seed)
    brains = {}
    for i in range(agents):
        rid = world.add_robot(f"r{i + 1}")
        brains[rid] = agent.Brain(len(scenario.lab.beacons), p.compass_latency, p.beacon_latency,
                                  p.obstacle_requestable, p.n_requests_per_cycle,
                                  arena=size if max(size) <= agent.HALF else agent.ARENA_2008)
    for k in range(8):              # Measures before the start, as over the network: the heading
        world.step({rid: b.decide(world.observe(rid)) for rid, b in brains.items()} if k else {})
    world.start()
    while not world.finished:
        world.step({rid: b.decide(world.observe(rid)) for rid, b in brains.items()})
    return [world.records[rid].state for rid in brains]


def seed_range(text: str) -> list[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", type=int, default=3)
    parser.add_argument("--seeds", type=seed_range, default=seed_range("1-24"), help="e.g. 1-24")
    parser.add_argument("--labs", default=",".join(LABS), help="comma-separated: " + ",".join(LABS))
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    labs = args.labs.split(",")
    jobs = [(lab, seed) for lab in labs for seed in args.seeds]
    try:
        with ProcessPoolExecutor(args.jobs) as pool:
            states = list(pool.map(trial, *zip(*jobs), [args.agents] * len(jobs)))
    except ScenarioError as exc:        # the 2008 labs are read from ../shared beside the clone
        print(f"agent_success: {exc}", file=sys.stderr)
        return 2
    total = {"Finished": 0, "Returning": 0}
    robots = len(args.seeds) * args.agents
    for lab in labs:
        got = [s for (name, _), run in zip(jobs, states) if name == lab for s in run]
        counts = {k: got.count(k) for k in total}
        total = {k: total[k] + counts[k] for k in total}
        print(f"{lab:8} Finished {counts['Finished']:3} / {robots}   Returning {counts['Returning']:3}")
    print(f"{'all':8} Finished {total['Finished']:3} / {robots * len(labs)}   Returning {total['Returning']:3}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
