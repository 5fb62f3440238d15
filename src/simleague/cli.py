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
PORT = {"min": 0, "max": 65535}     # every port option: out of range is a usage error (exit 2), not bind()'s traceback


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


async def _start_viewer(viewer, web_host: str, web: int) -> None:
    """Start a web viewer and say where it is; a port that cannot be bound is a one-line error."""
    try:
        await viewer.start()
    except OSError as exc:
        _fail(f"cannot serve the web viewer on {web_host}:{web}: {exc.strerror or exc}")
    err.print(f"web viewer at {viewer.url}")


async def _serve(server, banner, viewer, web_host: str, web) -> None:
    """Start ``server`` (a SimSpark or humanoid API server), print ``banner()`` (it may name the
    ports the server got), start ``viewer`` if any, run until stopped, then close both."""
    await server.start()
    err.print(banner())
    if viewer is not None:
        await _start_viewer(viewer, web_host, web)
    try:
        await server.run()
    finally:
        await server.close()
        if viewer is not None:
            await viewer.close()


def _serve_until_stopped(server, banner, viewer, web_host: str, web, where: str, close=None) -> None:
    """:func:`_serve` until the game ends or Ctrl-C; a port that cannot be bound is a one-line
    error naming ``where``; ``close()`` (the run log's) is called whatever happens."""
    try:
        asyncio.run(_serve(server, banner, viewer, web_host, web))
    except OSError as exc:
        _fail(f"cannot serve on {where}: {exc.strerror or exc}")
    except KeyboardInterrupt:
        pass
    finally:
        if close is not None:
            close()


LabOpt = typer.Option(None, "--lab", help="Lab file (default: the bundled default lab).")
GridOpt = typer.Option(None, "--grid", help="Grid file (default: the bundled grid).")
ParamsOpt = typer.Option(None, "--params", help="Parameters file, e.g. an rmi *-config.xml (default: 2008 rules).")
WebOpt = typer.Option(None, "--web", **PORT, help="Serve the web viewer on this TCP port (0: any free port).")
WebHostOpt = typer.Option("127.0.0.1", "--web-host", help="Address the web viewer binds.")


@ciberrato.command()
def serve(lab: Optional[Path] = LabOpt, grid: Optional[Path] = GridOpt, params: Optional[Path] = ParamsOpt,
          host: str = typer.Option("127.0.0.1", help="Address to bind (0.0.0.0 for a contest network)."),
          port: int = typer.Option(6000, **PORT, help="UDP registration port."),
          mode: str = typer.Option("realtime", help="Clock: realtime, lockstep or fast."),
          autostart: int = typer.Option(0, min=0, help="Start when this many robots registered (0: wait for a viewer's Start)."),
          seed: int = typer.Option(0, help="Seed of every random stream."),
          scoring: str = typer.Option("2008", help="Scoring rules: 2008 or competitive."),
          web: Optional[int] = WebOpt, web_host: str = WebHostOpt,
          verbose: bool = typer.Option(False, "--verbose", "-v")):
    """Run the simulator for agents and viewers speaking the original protocol."""
    from .ciberrato.server import Server, ServerOptions
    from .ciberrato.web import LiveView
    from .ciberrato.world import World
    from .viewer.server import ViewerOptions, WebViewer

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
        if web is None:
            return await server.run()
        viewer = WebViewer(ViewerOptions(web_host, web))
        live = LiveView(server, viewer)
        await _start_viewer(viewer, web_host, web)
        live_task = asyncio.create_task(live.run())
        try:
            await server.run()
        finally:
            live_task.cancel()
            await viewer.close()

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
          port: int = typer.Option(0, **PORT, help="UDP registration port (0: any free port)."),
          as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
          web: Optional[int] = WebOpt, web_host: str = WebHostOpt,
          linger: float = typer.Option(-1, help="With --web: seconds the page keeps showing the end "
                                                "(negative: until Ctrl-C).")):
    """Run a whole trial with sample agents over UDP and print the score table."""
    from .ciberrato.scoring import RULES
    from .ciberrato.trial import TrialError, TrialOptions, run_trial

    _check_mode(mode)
    if scoring not in RULES:
        _fail(f"--scoring {scoring!r} is not one of {', '.join(RULES)}")
    if agents < 0:
        _fail("--agents must be 0 or more")
    if wait_for is not None and wait_for < 0:
        _fail("--wait-for must be 0 or more")
    sc = _scenario(lab, grid, params)
    opts = TrialOptions(agents=agents, wait_for=wait_for, mode=mode, seed=seed, scoring=scoring, log=log, port=port,
                        web_port=web, web_host=web_host, web_linger=linger)
    console = Console(stderr=True)
    live = Live(console=console, transient=True, auto_refresh=False) if console.is_terminal and not as_json else None

    def progress(world):
        if live and world.time % 10 == 0:
            robots = "  ".join(f"{r.name}: {world.records[i].state} {world.records[i].score}"
                               for i, r in sorted(world.robots.items()))
            live.update(f"cycle {world.time}/{world.params.sim_time}  {robots}", refresh=True)

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
        else:
            run_trial(sc, opts, progress, show, web_ready)
    except TrialError as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        if not ended:                          # interrupted before the end (not while lingering)
            err.print("interrupted" + (f"; the log so far is in {log}" if log else ""))
            raise typer.Exit(130)


@ciberrato.command()
def agent(host: str = typer.Option("127.0.0.1"), port: int = typer.Option(6000, **PORT),
          pos: int = typer.Option(0, help="Grid position (0: first free)."),
          name: str = typer.Option("simleague")):
    """Run the sample agent against a simulator (ours or the original)."""
    from .ciberrato.agent import main
    raise typer.Exit(main(["--host", host, "--port", str(port), "--pos", str(pos), "--name", name]))


@ciberrato.command()
def plot(log: Path = typer.Argument(..., help="A trial log (simleague ciberrato trial --log FILE)."),
         out: Path = typer.Option(Path("trial.png"), "--out", "-o", help="Picture to write (.png, .svg, .pdf).")):
    """Draw the lab and every robot's path from a trial log, with collisions and target visits."""
    from .ciberrato.plot import PlotError, save_plot

    try:
        save_plot(log, out)
    except PlotError as exc:
        _fail(str(exc))
    err.print(f"wrote {out}")


@ciberrato.command()
def replay(log: Path = typer.Argument(..., help="A trial log (simleague ciberrato trial --log FILE)."),
           web: int = typer.Option(8080, "--web", **PORT, help="TCP port of the page (0: any free port)."),
           web_host: str = WebHostOpt):
    """Play a logged trial in the web viewer: play/pause, speed, seek, step by one cycle."""
    from .ciberrato.web import ReplayError, serve_replay
    from .viewer.server import ViewerOptions

    async def main():
        try:
            await serve_replay(log, ViewerOptions(web_host, web),
                               lambda viewer: err.print(f"replay of {log} at {viewer.url} (Ctrl-C to quit)"))
        except ReplayError as exc:
            _fail(str(exc))
        except OSError as exc:
            _fail(f"cannot serve the web viewer on {web_host}:{web}: {exc.strerror or exc}")

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass


msl = typer.Typer(help="MSL simulated matches: middleware, pausers, team client, demo (thesis, seed 003).",
                  no_args_is_help=True)
app.add_typer(msl, name="msl")
Side = typer.Option(..., "--side", help="cyan or magenta.")


def _side(side: str) -> str:
    from .msl.messages import SIDES
    if side not in SIDES:
        _fail(f"--side {side!r} is not one of {', '.join(SIDES)}")
    return side


@msl.command()
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

    from .msl.middleware import Middleware, MiddlewareOptions

    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(message)s")
    if not (eps1 > eps2 >= 0):
        _fail(f"thresholds need --eps1 > --eps2 >= 0 (got {eps1} and {eps2})")
    if not 2 <= buffer <= 10_000:
        _fail(f"--buffer must be 2..10000, not {buffer}")
    try:
        log.parent.mkdir(parents=True, exist_ok=True)
        open(log, "ab").close()
    except OSError as exc:
        _fail(f"cannot write the log {log}: {exc.strerror}")
    opts = MiddlewareOptions(host, team_port, pauser_port, buffer, eps1, eps2, seed, hello_timeout, log)

    async def main():
        mw = Middleware(opts)
        try:
            await mw.start()
        except OSError as exc:
            _fail(f"cannot listen on {host} (ports {team_port}, {pauser_port}): {exc.strerror or exc}")
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, mw.stop)
        typer.echo(json.dumps({"teamPort": mw.team_port, "pauserPort": mw.pauser_port}))
        err.print(f"MSL middleware: pausers on {host}:{mw.pauser_port}, teams on {host}:{mw.team_port}; "
                  f"log {log}")
        await mw.run()

    asyncio.run(main())


@msl.command()
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

    from .msl.pauser import BackendError, DockerBackend, Pauser, ProcessBackend

    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(message)s")
    side = _side(side)
    try:
        if backend == "process":
            if pid is None:
                _fail("the process backend needs --pid")
            target = ProcessBackend(pid)
        elif backend == "docker":
            if container is None:
                _fail("the docker backend needs --container")
            target = DockerBackend(container)
        else:
            _fail(f"--backend {backend!r} is not one of process, docker")
    except BackendError as exc:
        _fail(str(exc))
    if min_gap < 0:
        _fail("--min-gap cannot be negative")
    p = Pauser(target, side, host, port, min_gap, reconnect)

    def stop(*_):
        p.stopping = True
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    code = p.run()
    if code == 2:
        _fail(f"the middleware refused this pauser: {p.refused}")
    raise typer.Exit(code)


@msl.command()
def team(name: str = typer.Option("Toy", help="Team name."), side: str = Side,
         host: str = typer.Option("127.0.0.1"), port: int = typer.Option(28100, **PORT, help="Middleware team port."),
         speed: float = typer.Option(1.0, help="Simulation seconds per wall second (0.7: a slower simulator)."),
         seconds: float = typer.Option(30.0, help="Wall seconds to play after the start."),
         seed: int = typer.Option(0)):
    """Run the toy team simulator with its info exchanger (the demo's teams; an example to copy)."""
    from .msl.client import ConnectionLost, MiddlewareError
    from .msl.toyteam import run_team

    side = _side(side)
    if not 0.01 <= speed <= 100:
        _fail("--speed must be between 0.01 and 100")
    try:
        raise typer.Exit(run_team(name, side, host, port, speed, seconds, seed))
    except (ConnectionLost, MiddlewareError) as exc:
        _fail(str(exc))


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


@msl.command()
def demo(seconds: float = typer.Option(30.0, help="Wall seconds to play."),
         slow: float = typer.Option(0.7, help="Speed of the second simulator relative to the first."),
         eps1: float = typer.Option(0.2), eps2: float = typer.Option(0.05),
         buffer: int = typer.Option(25), min_gap: float = typer.Option(0.25),
         log: Optional[Path] = typer.Option(None, help="Middleware log (default: a temporary folder)."),
         as_json: bool = typer.Option(False, "--json", help="Print the figures as JSON.")):
    """Middleware, two pausers and two toy team simulators as processes; prints how well they kept time."""
    from .msl.demo import DemoError, run_demo

    if not 0.01 <= slow <= 100:
        _fail("--slow must be between 0.01 and 100")
    if not (eps1 > eps2 >= 0):
        _fail(f"thresholds need --eps1 > --eps2 >= 0 (got {eps1} and {eps2})")
    if seconds <= 0:
        _fail("--seconds must be positive")
    try:
        result = run_demo(seconds, slow, eps1, eps2, buffer, min_gap, log)
    except DemoError as exc:
        _fail(str(exc))
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


@msl.command()
def report(log: Path = typer.Argument(..., help="A middleware log (JSON lines)."),
           eps1: Optional[float] = typer.Option(None, help="Threshold to count (default: the log's own).")):
    """Time-synchronisation figures from a middleware log."""
    from .msl.demo import summarise

    try:
        _print_sync(summarise(log, eps1))
    except OSError as exc:
        _fail(f"cannot read {log}: {exc.strerror}")
    except ValueError as exc:
        _fail(str(exc))


simspark = typer.Typer(help="SimSpark-compatible 3D soccer on MuJoCo: agents on TCP 3100, monitors on 3200 (seed 002).",
                       no_args_is_help=True)
app.add_typer(simspark, name="simspark")


def _log_to(log: Optional[Path]) -> None:
    """Server messages of ``simleague.simspark`` to ``log`` (None: the terminal)."""
    handler = logging.FileHandler(log) if log else logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    logger = logging.getLogger("simleague.simspark")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)


def _simspark_outputs(game, seed: int, log: Optional[Path], web: Optional[int], web_host: str):
    """The run log and the web viewer of a SimSpark game: (on_cycle, viewer or None, close)."""
    from .recorder import Recorder
    from .simspark import web as soccer_web
    from .viewer.server import ViewerOptions, WebViewer

    recorder = None
    if log is not None:
        try:
            recorder = Recorder(log, soccer_web.LOG_FORMAT, soccer_web.log_header(game, seed))
        except OSError as exc:
            _fail(f"cannot write the log {log}: {exc.strerror}")
    viewer = WebViewer(ViewerOptions(web_host, web, page="soccer.html")) if web is not None else None
    live = soccer_web.LiveView(game, viewer) if viewer is not None else None

    def on_cycle():
        if live is not None:
            live.cycle()
        if recorder is not None and game.world.cycle % soccer_web.FRAME_EVERY == 0:
            record = soccer_web.frame(game)
            del record["type"]
            recorder.cycle(record)

    def close():
        if recorder is not None:
            recorder.close()

    return on_cycle, viewer, close


@simspark.command("serve")
def simspark_serve(host: str = typer.Option("127.0.0.1", help="Address to bind (0.0.0.0 for a network)."),
                   agent_port: int = typer.Option(3100, **PORT, help="TCP port of the agents."),
                   monitor_port: int = typer.Option(3200, **PORT, help="TCP port of monitors and trainers."),
                   sync: bool = typer.Option(False, "--sync", help="A cycle waits for every agent's (syn)."),
                   realtime: bool = typer.Option(True, "--realtime/--no-realtime",
                                                 help="Each cycle lasts at least 20 ms."),
                   seed: int = typer.Option(0, help="Seed of every random stream (noise, coin toss)."),
                   half_time: float = typer.Option(300.0, help="Game seconds of a half (RuleHalfTime)."),
                   automatic_kick_off: bool = typer.Option(False, help="Kick off after WaitBeforeKickOff (30 s)."),
                   vision_noise: bool = typer.Option(True, "--vision-noise/--no-vision-noise",
                                                     help="The original's noise on what robots see."),
                   allow_killsim: bool = typer.Option(False, "--allow-killsim",
                                                      help="Let a trainer's (killsim) stop the server."),
                   log: Optional[Path] = typer.Option(None, help="Record the game here (JSON lines; .gz to compress) "
                                                                 "for simleague simspark replay."),
                   web: Optional[int] = WebOpt, web_host: str = WebHostOpt):
    """Run the soccer server for SimSpark agents and monitors until interrupted (or a trainer's
    killsim with --allow-killsim). Server messages go to the terminal."""
    from .simspark.game import Game
    from .simspark.server import SimSparkServer
    from .soccer.rules import SoccerRules
    from .soccer.vision import EXACT

    try:
        rules = SoccerRules(half_time=half_time, automatic_kick_off=automatic_kick_off)
    except ValueError as exc:
        _fail(str(exc))
    _log_to(None)
    game = Game(rules, seed=seed, noise=None if vision_noise else EXACT)
    server = SimSparkServer(game, host, agent_port, monitor_port, sync=sync,
                            realtime=realtime, allow_kill_sim=allow_killsim)
    on_cycle, viewer, close = _simspark_outputs(game, seed, log, web, web_host)
    server.on_cycle = on_cycle

    def banner():
        return (f"SimSpark server: agents on tcp://{host}:{server.agent_port}, monitors on "
                f"tcp://{host}:{server.monitor_port} ({'sync' if sync else 'async'}, "
                f"{'real time' if realtime else 'as fast as possible'})")

    _serve_until_stopped(server, banner, viewer, web_host, web, f"{host}:{agent_port}/{monitor_port}", close)


@simspark.command("match")
def simspark_match(agents: int = typer.Option(11, help="Sample agents a side (1-11)."),
                   seed: int = typer.Option(0, help="Seed of every random stream."),
                   half_time: float = typer.Option(300.0, help="Game seconds of the half (RuleHalfTime)."),
                   log: Optional[Path] = typer.Option(None, help="Record the game here for simleague simspark replay.")):
    """Two teams of sample agents (separate processes, real TCP) play the first half, in sync mode
    without real time; prints the score line and the cycles per second."""
    from .simspark.match import MatchError, play

    def progress(game):
        r, (left, right) = game.referee, game.referee.score.values()
        err.print(f"  t {r.time:6.1f} s  {r.play_mode.wire:<14} {left}:{right}", end="\r")

    outputs = {}

    def setup(game):
        outputs["on_cycle"], _, outputs["close"] = _simspark_outputs(game, seed, log, None, "")
        return outputs["on_cycle"]

    try:
        result = asyncio.run(play(agents, seed, half_time, progress=progress if err.is_terminal else None,
                                  setup=setup))
    except (MatchError, ValueError) as exc:
        _fail(str(exc))
    finally:
        if "close" in outputs:
            outputs["close"]()
    print(result.line())


@simspark.command("replay")
def simspark_replay(log: Path = typer.Argument(..., help="A run log (serve or match --log FILE)."),
                    web: int = typer.Option(8080, **PORT, help="TCP port of the web viewer (0: any free port)."),
                    web_host: str = WebHostOpt):
    """Show a recorded game in the web viewer until interrupted."""
    from .simspark.web import LOG_FORMAT

    _soccer_replay(log, web, web_host, LOG_FORMAT)


def _soccer_replay(log: Path, web: int, web_host: str, fmt: str) -> None:
    """Serve a soccer run log of format ``fmt`` (SimSpark's or the humanoid API's) in the web
    viewer until interrupted; a bad log or a port that cannot be bound is a one-line error."""
    from .simspark.web import ReplayError, serve_replay
    from .viewer.server import ViewerOptions

    def ready(viewer):
        err.print(f"web viewer at {viewer.url}")

    try:
        asyncio.run(serve_replay(log, ViewerOptions(web_host, web, page="soccer.html"), ready, fmt))
    except ReplayError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"cannot serve the web viewer on {web_host}:{web}: {exc.strerror or exc}")
    except KeyboardInterrupt:
        pass


@simspark.command("agent")
def simspark_agent(host: str = typer.Option("127.0.0.1"), port: int = typer.Option(3100, **PORT),
                   team: str = typer.Option("Sample", help="Team name."),
                   unum: int = typer.Option(0, help="Player number (0: the next free one)."),
                   robot_type: Optional[int] = typer.Option(None, "--type", help="Robot type 0-4.")):
    """Run one sample agent against a SimSpark server."""
    from .simspark.agent import main

    argv = ["--host", host, "--port", str(port), "--team", team, "--unum", str(unum)]
    if robot_type is not None:
        argv += ["--type", str(robot_type)]
    raise typer.Exit(main(argv))


vhsc = typer.Typer(help="Humanoid virtual soccer API: team configs, a TCP port per robot, protobuf (seeds 000/001).",
                   no_args_is_help=True)
app.add_typer(vhsc, name="vhsc")


def _teams(red: Path, blue: Path, league: str):
    from .vhsc.config import ConfigError, load_team

    teams = []
    for path in (red, blue):
        try:
            team, warnings = load_team(path, league)
        except ConfigError as exc:
            _fail(str(exc))
        for warning in warnings:
            err.print(f"[yellow]warning:[/yellow] {path}: {warning}", highlight=False)
        teams.append(team)
    return teams


def _check_bases(red_base: int, blue_base: int, teams) -> None:
    """Robot N of a team listens on its base + N (seed 000, "Opening the connection"): every such port
    must exist (a base of 0 lets the system pick them)."""
    for side, base, team in (("red", red_base, teams[0]), ("blue", blue_base, teams[1])):
        top = max(team.players)
        if base < 0 or (base and base + top > 65535):
            _fail(f"--{side}-base {base}: robot {top} would listen on port {base + top}; give 0 (ports picked "
                  f"by the system) or a base from 1 to {65535 - top}")


RedOpt = typer.Option(..., "--red", help="The red team's configuration (JSON).")
BlueOpt = typer.Option(..., "--blue", help="The blue team's configuration (JSON).")
ModelsOpt = typer.Option(None, "--models", help="A folder of robot models (<name>.xml or <name>/robot.xml).")
LeagueOpt = typer.Option("kid", help="kid (4 players a team) or adult (2).")


@vhsc.command("serve")
def vhsc_serve(red: Path = RedOpt, blue: Path = BlueOpt, models: list[Path] = ModelsOpt, league: str = LeagueOpt,
               host: str = typer.Option("127.0.0.1", help="Address to bind."),
               red_base: int = typer.Option(10000, help="Red robot N listens on this + N."),
               blue_base: int = typer.Option(10020, help="Blue robot N listens on this + N."),
               allow: list[str] = typer.Option(["127.0.0.1"], help="Client address allowed (repeat; both teams)."),
               realtime: bool = typer.Option(True, "--realtime/--fast", help="8 ms steps last 8 ms at least."),
               gc_port: int = typer.Option(3838, **PORT, help="UDP port the GameController packets (RGme) go to."),
               gc_return_port: int = typer.Option(3939, **PORT, help="UDP port the robots' RGrt packets come to."),
               log: Optional[Path] = typer.Option(None, "--log", help="Write a run log (JSON lines; .gz compresses)."),
               web: Optional[int] = WebOpt, web_host: str = WebHostOpt):
    """Run the simulator alone, for teams that start their own robot software; the game starts
    at once (ready, set, playing)."""
    from .soccer.models import ModelError
    from .viewer.server import ViewerOptions, WebViewer
    from .vhsc.referee import HumanoidReferee
    from .vhsc.server import VhscServer
    from .vhsc.setup import build
    from .vhsc.web import GameView

    red_team, blue_team = _teams(red, blue, league)
    _check_bases(red_base, blue_base, (red_team, blue_team))
    try:
        match = build(red_team, blue_team, list(models or []))
    except ModelError as exc:
        _fail(str(exc))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    referee = HumanoidReferee(match.world, match.sessions, match.teams)
    referee.start()
    server = VhscServer(match.world, match.sessions, {"red": set(allow), "blue": set(allow)}, host,
                        red_base, blue_base, realtime, referee=referee,
                        game_controller=("127.0.0.1", gc_port, gc_return_port))
    viewer = WebViewer(ViewerOptions(web_host, web, page="soccer.html")) if web is not None else None
    view = None
    if viewer is not None or log is not None:
        try:
            view = GameView(match, referee, viewer, log)
        except OSError as exc:
            _fail(f"cannot write the log {log}: {exc.strerror}")
        server.on_step = view.step

    def banner():
        return (f"humanoid soccer simulator: red on ports {red_base}+N, blue on {blue_base}+N "
                f"({'real time' if realtime else 'fast'})")

    _serve_until_stopped(server, banner, viewer, web_host, web, host, view.close if view is not None else None)


@vhsc.command("match")
def vhsc_match(red: Path = RedOpt, blue: Path = BlueOpt, models: list[Path] = ModelsOpt, league: str = LeagueOpt,
               launcher: str = typer.Option("local", help="local (processes) or docker (containers)."),
               image: Optional[str] = typer.Option(None, help="Docker image name (the tag is each player's dockerTag)."),
               realtime: bool = typer.Option(True, "--realtime/--fast", help="8 ms steps last 8 ms at least."),
               seconds: float = typer.Option(60.0, help="Seconds of simulated time to play."),
               wait: float = typer.Option(30.0, help="Seconds to wait for every player to connect."),
               ready_time: float = typer.Option(30.0, help="Seconds in the ready state before set."),
               half_time: float = typer.Option(600.0, help="Seconds of play in each half."),
               halves: int = typer.Option(2, help="Halves to play: 1 or 2 (15 s break, teams change ends)."),
               gc_port: int = typer.Option(3838, **PORT, help="UDP port the GameController packets (RGme) go to."),
               gc_return_port: int = typer.Option(3939, **PORT, help="UDP port the robots' RGrt packets come to."),
               red_base: int = typer.Option(10000), blue_base: int = typer.Option(10020),
               log: Optional[Path] = typer.Option(None, "--log", help="Write a run log (JSON lines; .gz compresses)."),
               web: Optional[int] = WebOpt, web_host: str = WebHostOpt):
    """Start the simulator and every player's software, play the game (or --seconds), report."""
    from .soccer.models import ModelError
    from .viewer.server import ViewerOptions, WebViewer
    from .vhsc.launch import LaunchError
    from .vhsc.match import play

    if halves not in (1, 2):
        _fail(f"--halves must be 1 or 2, not {halves}")
    red_team, blue_team = _teams(red, blue, league)
    _check_bases(red_base, blue_base, (red_team, blue_team))
    viewer = WebViewer(ViewerOptions(web_host, web, page="soccer.html")) if web is not None else None
    try:
        report = asyncio.run(play(red_team, blue_team, launcher, image, list(models or []), realtime, seconds,
                                  red_base=red_base, blue_base=blue_base, wait=wait,
                                  game_controller=(gc_port, gc_return_port), ready_time=ready_time,
                                  half_time=half_time, halves=halves, viewer=viewer, run_log=log,
                                  ready=lambda url: err.print(f"web viewer at {url}")))
    except (ModelError, LaunchError) as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"cannot serve or write: {exc.filename + ': ' if exc.filename else ''}{exc.strerror or exc}")
    print(report.line())


@vhsc.command("replay")
def vhsc_replay(log: Path = typer.Argument(..., help="A run log (vhsc match or serve --log FILE)."),
                web: int = typer.Option(8080, "--web", **PORT, help="TCP port of the web viewer (0: any free port)."),
                web_host: str = WebHostOpt):
    """Play a logged humanoid game in the web viewer until interrupted."""
    from .vhsc.web import LOG_FORMAT

    _soccer_replay(log, web, web_host, LOG_FORMAT)


@vhsc.command("player")
def vhsc_player(address: Optional[str] = typer.Option(None, help="host:port (default: ROBOCUP_SIMULATOR_ADDR).")):
    """Run the sample player (for simleague's kid-size model)."""
    from .vhsc.player import main

    raise typer.Exit(main(["--address", address] if address else []))


if __name__ == "__main__":
    app()
