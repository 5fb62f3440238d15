"""Replay a recorded trace of the original simulator through our world (shared by tests and tools)."""

from __future__ import annotations

import json
from pathlib import Path

from simleague.ciberrato import messages as M
from simleague.ciberrato.scenario import Scenario, load_grid, load_lab, load_parameters
from simleague.ciberrato.world import World

SHARED = Path(__file__).resolve().parents[2] / "shared"
LABS = SHARED / "labs" / "ciberrato"
GOLDEN = SHARED / "golden" / "ciberrato"
#: Original --scoring values that our rules reproduce; the others are compared without scores.
SCORING = {0: "competitive"}


def load_trace(name: str) -> dict:
    return json.loads((GOLDEN / "traces" / name).read_text())


def replay(trace: dict):
    """Yield (label, robot id, our measures, their measures, our status, their status) per step."""
    lab = load_lab(LABS / trace["lab_file"]) if trace["lab_file"] else load_lab()
    grid = load_grid(LABS / trace["grid_file"]) if trace["grid_file"] else load_grid()
    params = load_parameters(trace["params_xml"].encode())
    world = World(Scenario(lab, grid, params), seed=0, scoring=SCORING.get(trace["scoring"], "competitive"))
    for robot in trace["robots"]:
        req = M.parse_request(robot["registration"].encode())
        world.add_robot(req.name, req.id, req.ir_angles)
    steps = [("prestart", s) for s in trace["prestart"]] + [("cycle", s) for s in trace["cycles"]] \
        + [("post_end", s) for s in trace["post_end"]]
    pending = {}
    for k, (label, step) in enumerate(steps):
        if label == "cycle" and step["time"] == 0:
            world.start()
        world.step({int(rid): M.parse_action(raw.encode()) for rid, raw in pending.items()})
        for rid in step["measures"]:
            ours_m = M.format_measures(world.observe(int(rid)))
            ours_s = M.format_status(world.status(int(rid)), world.cycle)
            yield (f"{label}[{k}] time {step['time']}", int(rid), ours_m, step["measures"][rid]["raw"],
                   ours_s, step["status"][rid]["raw"])
        pending = step["actions"]
