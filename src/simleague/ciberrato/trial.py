"""Run a whole CiberRato trial: the server, N agent processes over real UDP, a log and a score table.

Agents are separate processes (``python -m simleague.ciberrato.agent``) on 127.0.0.1, started
after the server is bound and always killed at the end. External agents may join instead
(``agents=0, wait_for=N``), or teams' own programs started from their command lines
(``robots``: :class:`RobotLaunch`). The trial ends when every robot has finished or SimTime is
reached. Ranking follows the 2008 rules, section 5.5: ascending score, then ascending visiting time.

:func:`run_described` runs a trial from a plain description (a dict), for competitions
(:mod:`simleague.competition`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .. import errors
from .. import recorder
from ..programs import environment, fill
from . import agent
from . import messages as M
from .scenario import Scenario
from ..viewer.server import ViewerOptions, WebViewer
from .server import CycleReport, Server, ServerOptions
from .web import LiveView
from .world import World
from .logs import LOG_FORMAT, XmlLog


class TrialError(errors.Error):
    """The trial could not run (port busy, agents that never registered ...); ``str()`` says why."""


@dataclass(frozen=True)
class RobotLaunch:
    """A team's robot program: its grid position ``pos`` (1-based), the robot ``name``, the
    command line ``argv`` in which ``{port}`` is still to be filled with the server's port, the
    working folder ``workdir`` and a file ``output`` for its standard output and error (None:
    discarded)."""

    pos: int
    name: str
    argv: tuple[str, ...]
    workdir: Path | None = None
    output: Path | None = None


@dataclass
class TrialOptions:
    """``agents`` sample agents to start, ``wait_for`` robots to wait for (default: ``agents``),
    clock ``mode``, ``seed``, ``scoring``, ``log`` path, ``host``/``port`` (0: any free port),
    ``register_timeout`` (s) for the robots to register; ``log_format`` "json" (ours, JSON lines)
    or "xml" (the original simulator's, for its logplayer: :mod:`.logs`); ``web_port`` serves the web viewer on
    ``web_host`` (None: no viewer, 0: any free port), and after the end it keeps showing the final
    state for ``web_linger`` s (negative: until cancelled). ``robots``, when given, are started
    instead of the sample agents (``agents`` is then ignored)."""

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
    robots: tuple[RobotLaunch, ...] = ()
    log_format: str = "json"


LOG_FORMATS = ("json", "xml")


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
    expected = opt.wait_for if opt.wait_for is not None else len(opt.robots) or opt.agents
    if expected < 1:
        raise TrialError("nothing to run: give --agents N or --wait-for N")
    if expected > len(scenario.grid.positions):
        raise TrialError(f"{expected} robots do not fit a grid of {len(scenario.grid.positions)} positions")
    rec = None
    if opt.log_format not in LOG_FORMATS:
        raise TrialError(f"log format {opt.log_format!r} is not one of {', '.join(LOG_FORMATS)}")
    if opt.log:
        try:
            if opt.log_format == "xml":
                rec = XmlLog(opt.log, scenario.params, scenario.lab, scenario.grid)
            else:
                rec = recorder.Recorder(opt.log, LOG_FORMAT, {
                    "seed": opt.seed, "scoring": opt.scoring, "mode": opt.mode, "defaults": scenario.defaults,
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
        if isinstance(rec, recorder.Recorder):      # the original's XML log has no result
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


def _launches(scenario: Scenario, opt: TrialOptions, port: int) -> list[RobotLaunch]:
    """The robot programs to start: the teams' (``{port}`` filled in) or the sample agents."""
    if opt.robots:
        return [dataclasses.replace(r, argv=tuple(fill(r.argv, {"port": port}))) for r in opt.robots]
    # the sample agents know the arena's size, as the rules of an edition state it
    lab = scenario.lab
    arena = ["--arena", f"{lab.width:g}x{lab.height:g}"] if max(lab.width, lab.height) <= agent.HALF else []
    return [RobotLaunch(i, f"simleague{i}", (sys.executable, "-m", "simleague.ciberrato.agent", "--host", opt.host,
                                             "--port", str(port), "--pos", str(i), "--name", f"simleague{i}", *arena))
            for i in range(1, opt.agents + 1)]


def _start(launch: RobotLaunch) -> subprocess.Popen:
    """Start a robot's program in a session of its own (so that all it starts can be stopped),
    with this interpreter's folder first on its PATH (``python`` and ``simleague`` are ours)."""
    out = open(launch.output, "ab") if launch.output else subprocess.DEVNULL
    try:
        return subprocess.Popen(list(launch.argv), cwd=launch.workdir, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT if launch.output else None, start_new_session=True,
                                env=environment())
    except OSError as exc:
        raise TrialError(f"cannot start {launch.name}'s program {launch.argv[0]!r}: {exc.strerror or exc}") from None
    finally:
        if launch.output:
            out.close()


def _stop(procs: list[subprocess.Popen]) -> None:
    """Terminate every process group still running, then kill what is left after 5 s."""
    for p in procs:
        if p.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGTERM)
    deadline = time.monotonic() + 5
    for p in procs:
        try:
            p.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()


async def _play(scenario: Scenario, opt: TrialOptions, server: Server, expected: int) -> dict:
    """Start the robots' programs, wait for the robots, serve the trial to its end; the result.
    A program that exits before its robot registered leaves it out (``absent``): the trial
    starts with the others."""
    procs: dict[int, tuple[RobotLaunch, subprocess.Popen]] = {}
    try:
        for launch in _launches(scenario, opt, server.port):
            procs[launch.pos] = (launch, _start(launch))
        task = asyncio.create_task(server.run())
        deadline = time.monotonic() + opt.register_timeout
        while len(server.robots) < expected and not task.done():
            absent = [pos for pos, (_, p) in procs.items() if p.poll() is not None and pos not in server.robots]
            if opt.robots and absent and len(server.robots) >= expected - len(absent):
                expected = server.opt.autostart = expected - len(absent)
                if expected == 0:                    # no team's program came: nothing to run
                    server.close()
                break
            if time.monotonic() > deadline:
                raise TrialError(f"only {len(server.robots)} of {expected} robots registered "
                                 f"within {opt.register_timeout:g} s")
            if procs and all(p.poll() is not None for _, p in procs.values()) and len(server.robots) < expected:
                raise TrialError("the agent processes exited before registering")
            await asyncio.sleep(0.05)
        await task
    finally:
        server.close()
        _stop([p for _, p in procs.values()])
    result = {"lab": scenario.lab.name, "seed": opt.seed, "scoring": opt.scoring, "defaults": scenario.defaults,
              "mode": opt.mode,
              "cycles": server.world.cycle, "sim_time": scenario.params.sim_time,
              "max_score": server.world.rules.initial_score() + 100, "robots": score_table(server.world)}
    if opt.robots:
        exits = {pos: p.returncode for pos, (_, p) in procs.items()}
        for row in result["robots"]:
            row["exit_code"] = exits.get(row["id"])
        result["absent"] = [{"id": pos, "name": launch.name, "exit_code": p.returncode}
                            for pos, (launch, p) in procs.items() if pos not in server.world.records]
    return result


def run_described(description: dict) -> dict:
    """Run one trial from a plain description and return its result (the competition runners'
    entry point: a dict in, a dict out, nothing else shared). The description: ``lab``, ``grid``,
    ``params`` (paths or None for the bundled ones), ``seed``, ``scoring``, ``mode``,
    ``register_timeout`` (s), ``log`` (path or None), ``robots``: a list of {``pos``, ``name``,
    ``argv`` (``{port}`` filled in here), ``workdir``, ``output``}. The result is
    :func:`run_trial`'s, with ``max_score`` (5.4 item 11), per robot the program's ``exit_code``
    and ``absent``: the robots whose program exited before registering. Raises
    :class:`TrialError` when the trial could not run, ``ScenarioError`` for bad files."""
    from .scenario import load_scenario

    path = lambda key: Path(description[key]) if description.get(key) else None  # noqa: E731
    scenario = load_scenario(path("lab"), path("grid"), path("params"))
    robots = tuple(RobotLaunch(int(r["pos"]), str(r["name"]), tuple(r["argv"]),
                               Path(r["workdir"]) if r.get("workdir") else None,
                               Path(r["output"]) if r.get("output") else None) for r in description["robots"])
    options = TrialOptions(mode=description.get("mode", "lockstep"), seed=int(description["seed"]),
                           scoring=description.get("scoring", "2008"), log=path("log"),
                           register_timeout=float(description.get("register_timeout", 60.0)), robots=robots)
    result = run_trial(scenario, options)
    if options.log and description.get("plot"):
        from .plot import PlotError, save_plot
        try:
            save_plot(options.log, description["plot"])
        except PlotError as exc:
            result["plot_error"] = str(exc)
    return result


def check_described(description: dict) -> list[str]:
    """What stops a competition's trials here, checked before the first: the lab, grid and
    parameter files of each leg (``legs``: [{lab, grid, params}]). Returns the problems, one line
    each (none: [])."""
    from .scenario import ScenarioError, load_scenario

    problems = []
    for leg in description.get("legs", []):
        try:
            load_scenario(*(Path(leg[k]) if leg.get(k) else None for k in ("lab", "grid", "params")))
        except ScenarioError as exc:
            problems.append(str(exc))
    return problems


def run_trial(scenario: Scenario, options: TrialOptions,
              progress: Callable[[World], None] | None = None,
              on_result: Callable[[dict], None] | None = None,
              on_web: Callable[[str], None] | None = None) -> dict:
    """Run a trial to its end and return the result: lab, seed, cycles and the ranked robots.

    Raises :class:`TrialError`. ``progress(world)`` is called after every cycle, ``on_result(result)``
    at the end (before the web viewer's linger), ``on_web(url)`` once the web viewer listens.
    """
    return asyncio.run(_run(scenario, options, progress, on_result, on_web))
