"""The ``simleague`` command: one sub-command group per competition.

Errors a user can act on (a broken lab file, a busy port) print one line and exit with code 2;
they never show a traceback.
"""

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

from .clock import MODES

app = typer.Typer(help="Simulators and match infrastructure for networked robot competitions.",
                  no_args_is_help=True, add_completion=False)
ciberrato = typer.Typer(help="The CiberRato maze competition (2008 rules, original UDP/XML protocol).",
                        no_args_is_help=True)
app.add_typer(ciberrato, name="ciberrato")
err = Console(stderr=True)


def _fail(message: str) -> None:
    err.print(f"[red]error:[/red] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def _scenario(lab, grid, params):
    from .ciberrato.scenario import ScenarioError, load_scenario
    try:
        return load_scenario(lab, grid, params)
    except ScenarioError as exc:
        _fail(str(exc))


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        _fail(f"--mode {mode!r} is not one of {', '.join(MODES)}")


LabOpt = typer.Option(None, "--lab", help="Lab file (default: the bundled default lab).")
GridOpt = typer.Option(None, "--grid", help="Grid file (default: the bundled grid).")
ParamsOpt = typer.Option(None, "--params", help="Parameters file, e.g. an rmi *-config.xml (default: 2008 rules).")


@ciberrato.command()
def serve(lab: Optional[Path] = LabOpt, grid: Optional[Path] = GridOpt, params: Optional[Path] = ParamsOpt,
          host: str = typer.Option("127.0.0.1", help="Address to bind (0.0.0.0 for a contest network)."),
          port: int = typer.Option(6000, help="UDP registration port."),
          mode: str = typer.Option("realtime", help="Clock: realtime, lockstep or fast."),
          autostart: int = typer.Option(0, help="Start when this many robots registered (0: wait for a viewer's Start)."),
          seed: int = typer.Option(0, help="Seed of every random stream."),
          scoring: str = typer.Option("2008", help="Scoring rules: 2008 or competitive."),
          verbose: bool = typer.Option(False, "--verbose", "-v")):
    """Run the simulator for agents and viewers speaking the original protocol."""
    from .ciberrato.server import Server, ServerOptions
    from .ciberrato.world import World

    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(message)s")
    _check_mode(mode)
    sc = _scenario(lab, grid, params)
    try:
        world = World(sc, seed=seed, scoring=scoring)
    except ValueError as exc:
        _fail(str(exc))
    server = Server(world, ServerOptions(host, port, mode, autostart))

    async def main():
        await server.start()
        err.print(f"CiberRato simulator on udp://{host}:{server.port} ({mode}); lab {sc.lab.name!r}")
        await server.run()

    try:
        asyncio.run(main())
    except OSError as exc:
        _fail(f"cannot serve on {host}:{port}: {exc.strerror or exc}")
    except KeyboardInterrupt:
        pass


def _table(result: dict) -> Table:
    t = Table(title=f"{result['lab']}: {result['cycles']} of {result['sim_time']} cycles "
                    f"({result['scoring']} scoring, seed {result['seed']})")
    for col in ("Pos", "Name", "Score", "Visiting time", "Collisions", "State"):
        t.add_column(col)
    for r in result["robots"]:
        t.add_row(str(r["position"]), r["name"], str(r["score"]), str(r["visiting_time"]), str(r["collisions"]),
                  r["state"])
    return t


@ciberrato.command()
def trial(lab: Optional[Path] = LabOpt, grid: Optional[Path] = GridOpt, params: Optional[Path] = ParamsOpt,
          agents: int = typer.Option(3, help="Sample agents to start."),
          wait_for: Optional[int] = typer.Option(None, "--wait-for", help="Robots to wait for (external agents)."),
          mode: str = typer.Option("lockstep", help="Clock: lockstep, fast or realtime."),
          seed: int = typer.Option(0, help="Seed of every random stream."),
          scoring: str = typer.Option("2008", help="Scoring rules: 2008 or competitive."),
          log: Optional[Path] = typer.Option(None, help="Write a log of every cycle (JSON lines; .gz compresses)."),
          port: int = typer.Option(0, help="UDP registration port (0: any free port)."),
          as_json: bool = typer.Option(False, "--json", help="Print the result as JSON.")):
    """Run a whole trial with sample agents over UDP and print the score table."""
    from .ciberrato.scoring import RULES
    from .ciberrato.trial import TrialError, TrialOptions, run_trial

    _check_mode(mode)
    if scoring not in RULES:
        _fail(f"--scoring {scoring!r} is not one of {', '.join(RULES)}")
    if agents < 0:
        _fail("--agents must be 0 or more")
    sc = _scenario(lab, grid, params)
    opts = TrialOptions(agents=agents, wait_for=wait_for, mode=mode, seed=seed, scoring=scoring, log=log, port=port)
    console = Console(stderr=True)
    live = Live(console=console, transient=True, auto_refresh=False) if console.is_terminal and not as_json else None

    def progress(world):
        if live and world.time % 10 == 0:
            robots = "  ".join(f"{r.name}: {world.records[i].state} {world.records[i].score}"
                               for i, r in sorted(world.robots.items()))
            live.update(f"cycle {world.time}/{world.params.sim_time}  {robots}", refresh=True)

    try:
        if live:
            with live:
                result = run_trial(sc, opts, progress)
        else:
            result = run_trial(sc, opts, progress)
    except TrialError as exc:
        _fail(str(exc))
    if as_json:
        typer.echo(json.dumps(result, indent=2, sort_keys=True))
    else:
        Console().print(_table(result))


@ciberrato.command()
def agent(host: str = typer.Option("127.0.0.1"), port: int = typer.Option(6000),
          pos: int = typer.Option(0, help="Grid position (0: first free)."),
          name: str = typer.Option("simleague")):
    """Run the sample agent against a simulator (ours or the original)."""
    from .ciberrato.agent import main
    raise typer.Exit(main(["--host", host, "--port", str(port), "--pos", str(pos), "--name", name]))


if __name__ == "__main__":
    app()
