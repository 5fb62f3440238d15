"""Cycles per second of the CiberRato world, in-process in fast mode (no sockets), and over UDP.

Run by hand: ``python benchmarks/bench_ciberrato.py``. Prints medians of 5 runs.
"""

import dataclasses
import json
import socket
import statistics
import subprocess
import sys
import tempfile
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
    params = dataclasses.replace(load_scenario().params, sim_time=cycles + 10)  # running the whole time
    world = World(Scenario(lab, grid_for(lab, n), params), seed=1)
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


def wait_bound(port, timeout=60.0):
    """Wait until a UDP socket is bound to ``port`` (Linux: read from /proc/net/udp, so that the
    check itself never takes the port)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for table in ("/proc/net/udp", "/proc/net/udp6"):
            with open(table) as f:
                if any(int(line.split()[1].rsplit(":", 1)[1], 16) == port for line in list(f)[1:]):
                    return
        time.sleep(0.05)
    raise RuntimeError(f"nothing bound UDP port {port} within {timeout} s")


def udp_lockstep_seconds(n=3, cycles=2000):
    """Wall seconds of a whole lockstep trial of ``cycles`` over UDP with n steady agent processes,
    start-up (processes, registration) included."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.NamedTemporaryFile("w", suffix=".xml", delete=False) as f:
        f.write(f'<Parameters SimTime="{cycles}"/>')
    here = Path(__file__).resolve().parent
    t0 = time.perf_counter()
    trial = subprocess.Popen([sys.executable, "-m", "simleague.cli", "ciberrato", "trial", "--agents", "0",
                              "--wait-for", str(n), "--mode", "lockstep", "--params", f.name,
                              "--port", str(port), "--json"], stdout=subprocess.PIPE, text=True)
    wait_bound(port)                      # the agents' registration is one datagram: bind first
    agents = [subprocess.Popen([sys.executable, str(here / "steady_agent.py"), str(port), f"s{i}"])
              for i in range(n)]
    try:
        out, _ = trial.communicate(timeout=600)
    finally:
        for p in (trial, *agents):
            if p.poll() is None:
                p.kill()
            p.wait()
        Path(f.name).unlink()
    done = json.loads(out)["cycles"]
    if done != cycles:
        raise RuntimeError(f"the trial ended after {done} of {cycles} cycles: the figure would be wrong")
    return time.perf_counter() - t0


def udp_lockstep_cycles_per_second(n=3, short=2000, long=6000):
    """Steady lockstep rate over UDP: the difference of a long and a short trial, so that the
    start-up of the processes (~1-2 s) cancels out."""
    return (long - short) / (udp_lockstep_seconds(n, long) - udp_lockstep_seconds(n, short))


def main():
    labs = {"bundled": load_lab(), "rmi-2425/C4": load_lab(SHARED / "rmi-2425" / "C4-lab.xml")}
    for name, lab in labs.items():
        for n in (1, 3, 30):
            runs = [cycles_per_second(lab, n, 2000 if n < 30 else 300) for _ in range(5)]
            print(f"{name:12s} {n:2d} robots: {statistics.median(runs):8.0f} cycles/s (median of 5)")
    runs = [udp_lockstep_cycles_per_second() for _ in range(5)]
    print(f"UDP lockstep, 3 agent processes: {statistics.median(runs):8.0f} cycles/s (median of 5)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
