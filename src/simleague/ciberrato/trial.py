"""Run a whole CiberRato trial: the server, N agent processes over real UDP, a log and a score table.

Agents are separate processes (``python -m simleague.ciberrato.agent``) on 127.0.0.1, started
after the server is bound and always killed at the end. External agents may join instead
(``agents=0, wait_for=N``). The trial ends when every robot has finished or SimTime is reached.
Ranking follows the 2008 rules, section 5.5: ascending score, then ascending visiting time.
"""

from __future__ import annotations

import asyncio
import dataclasses
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .. import recorder
from . import agent
from . import messages as M
from .scenario import Scenario
from ..viewer.server import ViewerOptions, WebViewer
from .server import CycleReport, Server, ServerOptions
from .web import LiveView
from .world import World

LOG_FORMAT = "simleague-ciberrato"


class TrialError(Exception):
    """The trial could not run (port busy, agents that never registered ...); ``str()`` says why."""


@dataclass
class TrialOptions:
    """``agents`` sample agents to start, ``wait_for`` robots to wait for (default: ``agents``),
    clock ``mode``, ``seed``, ``scoring``, ``log`` path, ``host``/``port`` (0: any free port),
    ``register_timeout`` (s) for the robots to register; ``web_port`` serves the web viewer on
    ``web_host`` (None: no viewer, 0: any free port), and after the end it keeps showing the final
    state for ``web_linger`` s (negative: until cancelled)."""

    agents: int = 3
    wait_for: int | None = None
    mode: str = "lockstep"
    seed: int = 0
    scoring: str = "2008"
    log: Path | None = None
    host: str = "127.0.0.1"
    port: int = 0
    register_timeout: float = 60.0
    web_port: int | None = None
    web_host: str = "127.0.0.1"
    web_linger: float = 0.0


def _action_record(a) -> dict:
    return {k: v for k, v in dataclasses.asdict(a).items() if v not in (None, ())}


def score_table(world: World) -> list[dict]:
    """Rows ranked by rule 5.5: position, id, name, score, visiting time, collisions, state."""
    rows = []
    for rid, rec in world.records.items():
        visiting = rec.visiting_time if rec.visiting_time is not None else world.params.sim_time
        rows.append({"id": rid, "name": world.robots[rid].name, "score": rec.score, "visiting_time": visiting,
                     "returning_time": rec.returning_time, "collisions": rec.collisions,
                     "visited": rec.visited_mask, "state": rec.state,
                     "_key": world.rules.ranking_key(rec)})
    rows.sort(key=lambda r: (r["_key"], r["id"]))
    for pos, row in enumerate(rows, 1):
        row.pop("_key")
        row["position"] = pos
    return rows


async def _run(scenario: Scenario, opt: TrialOptions, progress: Callable[[World], None] | None,
               on_result: Callable[[dict], None] | None, on_web: Callable[[str], None] | None) -> dict:
    world = World(scenario, seed=opt.seed, scoring=opt.scoring)
    expected = opt.wait_for if opt.wait_for is not None else opt.agents
    if expected < 1:
        raise TrialError("nothing to run: give --agents N or --wait-for N")
    if expected > len(scenario.grid.positions):
        raise TrialError(f"{expected} robots do not fit a grid of {len(scenario.grid.positions)} positions")
    rec = None
    if opt.log:
        try:
            rec = recorder.Recorder(opt.log, LOG_FORMAT, {
                "seed": opt.seed, "scoring": opt.scoring, "mode": opt.mode,
                "params": dataclasses.asdict(scenario.params),
                "lab_xml": M.format_lab(scenario.lab), "grid_xml": M.format_grid(scenario.grid)})
        except OSError as exc:
            raise TrialError(f"cannot write the log {opt.log}: {exc.strerror}") from None

    def on_cycle(report: CycleReport) -> None:
        if rec:
            snap = report.world.snapshot()
            for r in snap["robots"]:
                if r["id"] in report.actions:
                    r["action"] = _action_record(report.actions[r["id"]])
            rec.cycle(snap)
        if progress:
            progress(report.world)

    server = Server(world, ServerOptions(opt.host, opt.port, opt.mode, autostart=expected,
                                         stop_when_finished=True), on_cycle)
    viewer, live_task = None, None
    try:                                     # whatever fails, the log is closed and nothing left open
        try:
            await server.start()
        except OSError as exc:
            raise TrialError(f"cannot bind UDP {opt.host}:{opt.port}: {exc.strerror}") from None
        if opt.web_port is not None:
            web = WebViewer(ViewerOptions(opt.web_host, opt.web_port))
            live = LiveView(server, web)
            try:
                await web.start()
            except OSError as exc:
                raise TrialError(f"cannot serve the web viewer on {opt.web_host}:{opt.web_port}: "
                                 f"{exc.strerror or exc}") from None
            viewer, live_task = web, asyncio.create_task(live.run())
            if on_web:
                on_web(viewer.url)
        result = await _play(scenario, opt, server, expected)
        if rec:
            rec.result(result)
        if on_result:
            on_result(result)
        if viewer and opt.web_linger:
            live.publish()
            await (asyncio.sleep(opt.web_linger) if opt.web_linger > 0 else asyncio.Event().wait())
        return result
    finally:
        server.close()
        if rec:
            rec.close()
        if live_task:
            live_task.cancel()
        if viewer:
            await viewer.close()


async def _play(scenario: Scenario, opt: TrialOptions, server: Server, expected: int) -> dict:
    """Start the agents, wait for the robots, serve the trial to its end; the result."""
    procs: list[subprocess.Popen] = []
    try:
        # the sample agents know the arena's size, as the rules of an edition state it
        lab = scenario.lab
        arena = ["--arena", f"{lab.width:g}x{lab.height:g}"] if max(lab.width, lab.height) <= agent.HALF else []
        for i in range(1, opt.agents + 1):
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "simleague.ciberrato.agent", "--host", opt.host,
                 "--port", str(server.port), "--pos", str(i), "--name", f"simleague{i}", *arena],
                stdin=subprocess.DEVNULL))
        task = asyncio.create_task(server.run())
        deadline = time.monotonic() + opt.register_timeout
        while len(server.robots) < expected and not task.done():
            if time.monotonic() > deadline:
                raise TrialError(f"only {len(server.robots)} of {expected} robots registered "
                                 f"within {opt.register_timeout:g} s")
            if procs and all(p.poll() is not None for p in procs) and len(server.robots) < expected:
                raise TrialError("the agent processes exited before registering")
            await asyncio.sleep(0.05)
        await task
    finally:
        server.close()
        for p in procs:
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    return {"lab": scenario.lab.name, "seed": opt.seed, "scoring": opt.scoring, "mode": opt.mode,
            "cycles": server.world.time, "sim_time": scenario.params.sim_time,
            "robots": score_table(server.world)}


def run_trial(scenario: Scenario, options: TrialOptions,
              progress: Callable[[World], None] | None = None,
              on_result: Callable[[dict], None] | None = None,
              on_web: Callable[[str], None] | None = None) -> dict:
    """Run a trial to its end and return the result: lab, seed, cycles and the ranked robots.

    Raises :class:`TrialError`. ``progress(world)`` is called after every cycle, ``on_result(result)``
    at the end (before the web viewer's linger), ``on_web(url)`` once the web viewer listens.
    """
    return asyncio.run(_run(scenario, options, progress, on_result, on_web))
