"""``simleague msl``: the middleware, pausers, the toy team, a demo match and log reports."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from ..cli_common import PORT, err, fail, interrupted

app = typer.Typer(help="MSL simulated matches: middleware, pausers, team client, demo (thesis, seed 003).",
                  no_args_is_help=True)
Side = typer.Option(..., "--side", help="cyan or magenta.")


def _side(side: str) -> str:
    from .messages import SIDES
    if side not in SIDES:
        fail(f"--side {side!r} is not one of {', '.join(SIDES)}")
    return side


@app.command()
def middleware(host: str = typer.Option("127.0.0.1", help="Address to bind."),
               team_port: int = typer.Option(28100, **PORT, help="TCP port for the two teams (0: any free port)."),
               pauser_port: int = typer.Option(28101, **PORT, help="TCP port for the two pausers (0: any free port)."),
               buffer: int = typer.Option(25, help="States kept per team (N, thesis 4.2)."),
               eps1: float = typer.Option(0.2, help="Pause when |t1 - t2| exceeds this (s of simulation time)."),
               eps2: float = typer.Option(0.05, help="Resume when |t1 - t2| is at most this (s)."),
               seed: int = typer.Option(0, help="Seed of the draw that settles exact ball-claim ties."),
               hello_timeout: float = typer.Option(10.0, help="Seconds a new connection has to say hello."),
               log: Path = typer.Option(Path("msl-middleware.jsonl"), help="JSON-lines event log (appended)."),
               verbose: bool = typer.Option(False, "--verbose", "-v")):
    """Run the match middleware. Prints {"teamPort": P, "pauserPort": Q} on stdout once listening."""
    import signal

    from .middleware import Middleware, MiddlewareOptions

    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(message)s")
    if not (eps1 > eps2 >= 0):
        fail(f"thresholds need --eps1 > --eps2 >= 0 (got {eps1} and {eps2})")
    if not 2 <= buffer <= 10_000:
        fail(f"--buffer must be 2..10000, not {buffer}")
    try:
        log.parent.mkdir(parents=True, exist_ok=True)
        open(log, "ab").close()
    except OSError as exc:
        fail(f"cannot write the log {log}: {exc.strerror}")
    opts = MiddlewareOptions(host, team_port, pauser_port, buffer, eps1, eps2, seed, hello_timeout, log)

    async def main():
        mw = Middleware(opts)
        try:
            await mw.start()
        except OSError as exc:
            fail(f"cannot listen on {host} (ports {team_port}, {pauser_port}): {exc.strerror or exc}")
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, mw.stop)
        typer.echo(json.dumps({"teamPort": mw.team_port, "pauserPort": mw.pauser_port}))
        err.print(f"MSL middleware: pausers on {host}:{mw.pauser_port}, teams on {host}:{mw.team_port}; "
                  f"log {log}")
        await mw.run()

    asyncio.run(main())


@app.command()
def pauser(backend: str = typer.Option(..., help="process or docker."),
           side: str = Side,
           pid: Optional[int] = typer.Option(None, help="Process to pause, with its children (process backend)."),
           container: Optional[str] = typer.Option(None, help="Container to pause (docker backend)."),
           host: str = typer.Option("127.0.0.1", help="Middleware address."),
           port: int = typer.Option(28101, **PORT, help="Middleware pauser port."),
           min_gap: float = typer.Option(0.25, help="Least seconds between a pause and the next resume (thesis 6.2)."),
           reconnect: float = typer.Option(10.0, help="Seconds to keep trying to reach the middleware."),
           verbose: bool = typer.Option(False, "--verbose", "-v")):
    """Pause and resume one team's simulator when the middleware says so."""
    import signal

    from .pauser import BackendError, DockerBackend, Pauser, ProcessBackend

    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(message)s")
    side = _side(side)
    try:
        if backend == "process":
            if pid is None:
                fail("the process backend needs --pid")
            target = ProcessBackend(pid)
        elif backend == "docker":
            if container is None:
                fail("the docker backend needs --container")
            target = DockerBackend(container)
        else:
            fail(f"--backend {backend!r} is not one of process, docker")
    except BackendError as exc:
        fail(str(exc))
    if min_gap < 0:
        fail("--min-gap cannot be negative")
    p = Pauser(target, side, host, port, min_gap, reconnect)

    def stop(*_):
        p.stopping = True
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    code = p.run()
    if code == 2:
        fail(f"the middleware refused this pauser: {p.refused}")
    raise typer.Exit(code)


@app.command()
def team(name: str = typer.Option("Toy", help="Team name."), side: str = Side,
         host: str = typer.Option("127.0.0.1"), port: int = typer.Option(28100, **PORT, help="Middleware team port."),
         speed: float = typer.Option(1.0, help="Simulation seconds per wall second (0.7: a slower simulator)."),
         seconds: float = typer.Option(30.0, help="Wall seconds to play after the start."),
         seed: int = typer.Option(0)):
    """Run the toy team simulator with its info exchanger (the demo's teams; an example to copy)."""
    from .client import ConnectionLost, MiddlewareError
    from .toyteam import run_team

    side = _side(side)
    if not 0.01 <= speed <= 100:
        fail("--speed must be between 0.01 and 100")
    try:
        raise typer.Exit(run_team(name, side, host, port, speed, seconds, seed))
    except (ConnectionLost, MiddlewareError) as exc:
        fail(str(exc))


def _print_sync(summary: dict) -> None:
    table = Table(title="time synchronisation (middleware log)")
    for col in ("side", "pauses", "resumes", "paused median s", "paused total s", "pauser ok/failed",
                "pauser median ms"):
        table.add_column(col)
    for side, s in summary["sides"].items():
        table.add_row(side, str(s["pauses"]), str(s["resumes"]), str(s["paused_s_median"]),
                      str(s["paused_s_total"]), f"{s['pauser_reports_ok']}/{s['pauser_reports_failed']}",
                      str(s["pauser_ms_median"]))
    out = Console()
    out.print(f"|t1 - t2| over {summary['samples']} samples: p50 {summary['dt_p50_s']} s, "
              f"p99 {summary['dt_p99_s']} s, max {summary['dt_max_s']} s; "
              f"{summary['samples_over_eps1']} samples over eps1 = {summary['eps1']} s")
    out.print(table)


@app.command()
def demo(seconds: float = typer.Option(30.0, help="Wall seconds to play."),
         slow: float = typer.Option(0.7, help="Speed of the second simulator relative to the first."),
         eps1: float = typer.Option(0.2), eps2: float = typer.Option(0.05),
         buffer: int = typer.Option(25), min_gap: float = typer.Option(0.25),
         log: Optional[Path] = typer.Option(None, help="Middleware log (default: a temporary folder)."),
         as_json: bool = typer.Option(False, "--json", help="Print the figures as JSON.")):
    """Middleware, two pausers and two toy team simulators as processes; prints how well they kept time."""
    from .demo import DemoError, run_demo

    if not 0.01 <= slow <= 100:
        fail("--slow must be between 0.01 and 100")
    if not (eps1 > eps2 >= 0):
        fail(f"thresholds need --eps1 > --eps2 >= 0 (got {eps1} and {eps2})")
    if seconds <= 0:
        fail("--seconds must be positive")
    try:
        result = run_demo(seconds, slow, eps1, eps2, buffer, min_gap, log)
    except DemoError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        interrupted(f"the middleware's log is in {log}" if log else "")
    if as_json:
        typer.echo(json.dumps(result, indent=2))
        return
    _print_sync(result["sync"])
    for t in result["teams"]:
        lat = t["latency"]
        Console().print(f"{t['team']} ({t['side']}, speed {t['speed']}): simulation time {t['simTime']} s in "
                        f"{t['wall']} s; {lat['n']} requests, round trip p50 {lat.get('p50_ms')} ms, "
                        f"p99 {lat.get('p99_ms')} ms, max {lat.get('max_ms')} ms; reconnects {t['reconnects']}")
    Console().print(f"log: {result['log']}")


@app.command()
def report(log: Path = typer.Argument(..., help="A middleware log (JSON lines)."),
           eps1: Optional[float] = typer.Option(None, help="Threshold to count (default: the log's own).")):
    """Time-synchronisation figures from a middleware log."""
    from .demo import summarise

    try:
        _print_sync(summarise(log, eps1))
    except OSError as exc:
        fail(f"cannot read {log}: {exc.strerror}")
    except ValueError as exc:
        fail(str(exc))
