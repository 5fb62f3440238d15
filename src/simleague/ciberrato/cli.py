"""``simleague ciberrato``: serve, run a trial, the sample agent, plots and replays of trial logs."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.live import Live
from rich.table import Table

from ..cli_common import (PORT, OutOpt, RayCpusOpt, RayOpt, RestartOpt, WebHostOpt, WebOpt, WorkersOpt, check_mode,
                          err, fail, interrupted, load_competition_file, run_competition_command, start_viewer)
from .options import REGISTRATION_PORT, ServerOptions

app = typer.Typer(help="The CiberRato maze competition (2008 rules, original UDP/XML protocol).",
                  rich_markup_mode=None, no_args_is_help=True)


LabOpt = typer.Option(None, "--lab", help="Lab file (default: the bundled default lab).")
GridOpt = typer.Option(None, "--grid", help="Grid file (default: the bundled grid).")
ParamsOpt = typer.Option(None, "--params", help="Parameters file, e.g. an rmi *-config.xml, read over the defaults.")
DefaultsOpt = typer.Option("2008", "--defaults", help="Parameter defaults: 2008 (the 2008 rules) or original "
                                                      "(the original simulator's today: collisions cost 2, "
                                                      "no sensor requests).")


def _scenario(lab, grid, params, defaults="2008"):
    from .scenario import ScenarioError, load_scenario
    try:
        return load_scenario(lab, grid, params, defaults)
    except ScenarioError as exc:
        fail(str(exc))


@app.command()
def serve(lab: Optional[Path] = LabOpt, grid: Optional[Path] = GridOpt, params: Optional[Path] = ParamsOpt,
          defaults: str = DefaultsOpt,
          host: str = typer.Option("127.0.0.1", help="Address to bind (0.0.0.0 for a contest network)."),
          port: int = typer.Option(ServerOptions.port, **PORT, help="UDP registration port."),
          mode: str = typer.Option(ServerOptions.mode, help="Clock: realtime, lockstep or fast."),
          autostart: int = typer.Option(ServerOptions.autostart, min=0, help="Start when this many robots registered (0: wait for a viewer's Start)."),
          seed: int = typer.Option(0, help="Seed of every random stream."),
          scoring: str = typer.Option("2008", help="Scoring rules: 2008 or competitive."),
          web: Optional[int] = WebOpt, web_host: str = WebHostOpt,
          verbose: bool = typer.Option(False, "--verbose", "-v", help="Log registrations and drops on stderr.")):
    """Run the simulator for agents and viewers speaking the original protocol."""
    from .server import Server
    from .web import LiveView
    from .world import World
    from ..viewer.server import ViewerOptions, WebViewer

    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(message)s")
    check_mode(mode)
    sc = _scenario(lab, grid, params, defaults)
    try:
        world = World(sc, seed=seed, scoring=scoring)
    except ValueError as exc:
        fail(str(exc))
    server = Server(world, ServerOptions(host, port, mode, autostart))

    async def main():
        await server.start()
        err.print(f"CiberRato simulator on udp://{host}:{server.port} ({mode}); lab {sc.lab.name!r}")
        if web is None:
            return await server.run()
        viewer = WebViewer(ViewerOptions(web_host, web))
        live = LiveView(server, viewer)
        await start_viewer(viewer, web_host, web)
        live_task = asyncio.create_task(live.run())
        try:
            await server.run()
        finally:
            live_task.cancel()
            await viewer.close()

    try:
        asyncio.run(main())
    except OSError as exc:
        fail(f"cannot serve on {host}:{port}: {exc.strerror or exc}")
    except KeyboardInterrupt:
        interrupted("the server stopped")


def _table(result: dict) -> Table:
    t = Table(title=f"{result['lab']}: {result['cycles']} of {result['sim_time']} cycles "
                    f"({result['scoring']} scoring, {result['defaults']} defaults, seed {result['seed']})",
              caption="Score: the rules' points, lower is better (ranked by score, then visiting time). Visiting "
                      "time: the cycle the last target was reached (SimTime if not all were). Collisions: how many "
                      "times it hit a wall or a robot. Times in cycles.")
    for col in ("Pos", "Name", "Score", "Visiting time", "Collisions", "State"):
        t.add_column(col)
    for r in result["robots"]:
        t.add_row(str(r["position"]), r["name"], str(r["score"]), str(r["visiting_time"]), str(r["collisions"]),
                  r["state"])
    return t


@app.command()
def trial(lab: Optional[Path] = LabOpt, grid: Optional[Path] = GridOpt, params: Optional[Path] = ParamsOpt,
          defaults: str = DefaultsOpt,
          agents: int = typer.Option(3, help="Sample agents to start."),
          wait_for: Optional[int] = typer.Option(None, "--wait-for", help="Robots to wait for (external agents)."),
          mode: str = typer.Option("lockstep", help="Clock: lockstep, fast or realtime."),
          seed: int = typer.Option(0, help="Seed of every random stream."),
          scoring: str = typer.Option("2008", help="Scoring rules: 2008 or competitive."),
          log: Optional[Path] = typer.Option(None, help="Write a log of every cycle (.gz compresses)."),
          log_format: str = typer.Option("json", "--log-format", help="json (ours: JSON lines) or xml (the "
                                                                      "original simulator's, for its logplayer)."),
          port: int = typer.Option(0, **PORT, help="UDP registration port (0: any free port)."),
          as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
          web: Optional[int] = WebOpt, web_host: str = WebHostOpt,
          linger: float = typer.Option(-1, help="With --web: seconds the page keeps showing the end "
                                                "(negative: until Ctrl-C).")):
    """Run a whole trial with sample agents over UDP and print the score table."""
    from .scoring import RULES
    from .trial import LOG_FORMATS, TrialError, TrialOptions, run_trial

    check_mode(mode)
    if scoring not in RULES:
        fail(f"--scoring {scoring!r} is not one of {', '.join(RULES)}")
    if log_format not in LOG_FORMATS:
        fail(f"--log-format {log_format!r} is not one of {', '.join(LOG_FORMATS)}")
    if agents < 0:
        fail("--agents must be 0 or more")
    if wait_for is not None and wait_for < 0:
        fail("--wait-for must be 0 or more")
    sc = _scenario(lab, grid, params, defaults)
    opts = TrialOptions(agents=agents, wait_for=wait_for, mode=mode, seed=seed, scoring=scoring, log=log,
                        log_format=log_format, port=port, web_port=web, web_host=web_host, web_linger=linger)
    console = Console(stderr=True)
    live = Live(console=console, transient=True, auto_refresh=False) if console.is_terminal and not as_json else None

    def progress(world):
        if live and world.cycle % 10 == 0:
            robots = "  ".join(f"{r.name}: {world.records[i].state} {world.records[i].score}"
                               for i, r in sorted(world.robots.items()))
            live.update(f"cycle {world.cycle}/{world.params.sim_time}  {robots}", refresh=True)

    ended = []

    def show(result):
        ended.append(result)
        if live:
            live.stop()
        if as_json:
            typer.echo(json.dumps(result, indent=2, sort_keys=True))
        else:
            Console().print(_table(result))
        if web is not None and linger:
            err.print("the web viewer keeps showing the end" + (" (Ctrl-C to quit)" if linger < 0 else ""))

    def web_ready(url):
        err.print(f"web viewer at {url}")

    try:
        if live:
            with live:
                run_trial(sc, opts, progress, show, web_ready)
        else:                                  # no progress display: say what is going on
            who = f"{agents} sample agent{'s' * (agents != 1)}" + (f", waiting for {wait_for} robots" if wait_for else "")
            err.print(f"trial: {who}, {mode} clock; the first run compiles the simulator's kernels (a few seconds)",
                      highlight=False, soft_wrap=True)
            run_trial(sc, opts, progress, show, web_ready)
    except TrialError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        if not ended:                          # interrupted before the end (not while lingering)
            interrupted(f"the log so far is in {log}" if log else "")


@app.command()
def agent(host: str = typer.Option("127.0.0.1", help="The simulator's address."),
          port: int = typer.Option(REGISTRATION_PORT, **PORT, help="The simulator's UDP registration port."),
          pos: int = typer.Option(0, help="Grid position (0: first free)."),
          name: str = typer.Option("simleague", help="The robot's name in the score table.")):
    """Run the sample agent against a simulator (ours or the original)."""
    from .agent import main
    raise typer.Exit(main(["--host", host, "--port", str(port), "--pos", str(pos), "--name", name]))


@app.command()
def plot(log: Path = typer.Argument(..., help="A trial log: ours (simleague ciberrato trial --log FILE) or "
                                              "the original simulator's XML log."),
         out: Path = typer.Option(Path("trial.png"), "--out", "-o", help="Picture to write (.png, .svg, .pdf).")):
    """Draw the lab and every robot's path from a trial log, with collisions and target visits."""
    from .plot import PlotError, save_plot

    try:
        save_plot(log, out)
    except PlotError as exc:
        fail(str(exc))
    err.print(f"wrote {out}")


@app.command()
def replay(log: Path = typer.Argument(..., help="A trial log: ours (simleague ciberrato trial --log FILE) or "
                                                "the original simulator's XML log."),
           web: int = typer.Option(8080, "--web", **PORT, help="TCP port of the page (0: any free port)."),
           web_host: str = WebHostOpt):
    """Play a logged trial in the web viewer: play/pause, speed, seek, step by one cycle."""
    from .web import ReplayError, serve_replay
    from ..viewer.server import ViewerOptions

    async def main():
        try:
            await serve_replay(log, ViewerOptions(web_host, web),
                               lambda viewer: err.print(f"replay of {log} at {viewer.url} (Ctrl-C to quit)"))
        except ReplayError as exc:
            fail(str(exc))
        except OSError as exc:
            fail(f"cannot serve the web viewer on {web_host}:{web}: {exc.strerror or exc}")

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        interrupted()


@app.command()
def competition(file: Path = typer.Argument(..., help="The competition file (TOML): teams, legs, seed."),
                out: Optional[Path] = OutOpt,
                decisions: Optional[Path] = typer.Option(None, "--decisions", help="The judges' decisions (TOML): "
                                                         "voided trials, excluded robots, score corrections."),
                workers: int = WorkersOpt, ray: Optional[str] = RayOpt, ray_cpus: float = RayCpusOpt,
                restart: bool = RestartOpt):
    """Run a whole competition: every trial of every leg (the grid rotated, seeds from the file's),
    the standings by section 5.5 with the judges' decisions, a report (HTML, JSON, CSV). Run again,
    it resumes: finished trials are kept. Exit code 1 if a trial could not be run."""
    from ..competition.config import CompetitionError, load_decisions
    from ..competition.report import write_report
    from ..competition.run import WORLDS, possible_trials, run_competition

    comp = load_competition_file(file, "ciberrato")
    try:
        judged = load_decisions(decisions, comp, possible_trials(comp))
    except CompetitionError as exc:
        fail(str(exc))
    total = sum(-(-len(comp.team) // leg.robots_per_trial) * leg.trials for leg in comp.leg)
    outcome, folder = run_competition_command(
        comp, file, out, restart, WORLDS["ciberrato"][0], workers, ray, ray_cpus, total, "trials",
        lambda folder, pool, on_event: run_competition(comp, folder, judged, pool, on_event))
    files = write_report(outcome, folder)
    t = Table(title=f"{outcome.name}: standings (lower is better: score, then time in cycles)")
    for col in ("Rank", "Team", "Score", "Time", "Trials counted"):
        t.add_column(col)
    for s in outcome.final:
        t.add_row(str(s.rank), s.team, str(s.score), str(s.time), ", ".join(s.counted))
    Console().print(t)
    failed = [tr.trial.key for _, trials, _ in outcome.legs for tr in trials if tr.status != "done"]
    if failed:
        err.print(f"[red]not run (infrastructure): {', '.join(failed)}[/red]")
    err.print(f"wrote {', '.join(str(f) for f in files)}")
    if failed:
        raise typer.Exit(1)
