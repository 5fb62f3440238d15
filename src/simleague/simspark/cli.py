"""``simleague simspark``: the server for SimSpark agents and monitors, a match of sample agents,
tournaments of teams' agents, replays, the sample agent."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Optional

import typer

from rich.console import Console
from rich.table import Table

from ..cli_common import (PORT, OutOpt, RayCpusOpt, RayOpt, RestartOpt, WebHostOpt, WebOpt, WorkersOpt, err, fail,
                          interrupted, load_competition_file, run_competition_command, serve_until_stopped,
                          soccer_replay, start_viewer)
from .options import SimSparkOptions

app = typer.Typer(help="SimSpark-compatible 3D soccer on MuJoCo: agents on TCP 3100, monitors on 3200.",
                  rich_markup_mode=None, no_args_is_help=True)


def _log_to(log: Optional[Path]) -> None:
    """Server messages of ``simleague.simspark`` to ``log`` (None: the terminal)."""
    handler = logging.FileHandler(log) if log else logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    logger = logging.getLogger("simleague.simspark")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)


def _simspark_outputs(game, seed: int, log: Optional[Path], web: Optional[int], web_host: str, viewer=None):
    """The run log and the web viewer of a SimSpark game: (on_cycle, viewer or None, close); a
    ``viewer`` already made is used instead of one on ``web``."""
    from ..recorder import Recorder
    from . import web as soccer_web
    from ..viewer.server import ViewerOptions, WebViewer

    recorder = None
    if log is not None:
        try:
            recorder = Recorder(log, soccer_web.LOG_FORMAT, soccer_web.log_header(game, seed))
        except OSError as exc:
            fail(f"cannot write the log {log}: {exc.strerror}")
    if viewer is None and web is not None:
        viewer = WebViewer(ViewerOptions(web_host, web, page="soccer.html"))
    live = soccer_web.LiveView(game, viewer) if viewer is not None else None

    def on_cycle(report) -> None:
        if live is not None:
            live.cycle()
        if recorder is not None and report.cycle % soccer_web.FRAME_EVERY == 0:
            record = soccer_web.frame(game)
            del record["type"]
            recorder.cycle(record)

    def close():
        if recorder is not None:
            recorder.close()

    return on_cycle, viewer, close


@app.command("serve")
def simspark_serve(host: str = typer.Option("127.0.0.1", help="Address to bind (0.0.0.0 for a network)."),
                   agent_port: int = typer.Option(SimSparkOptions.agent_port, **PORT, help="TCP port of the agents."),
                   monitor_port: int = typer.Option(SimSparkOptions.monitor_port, **PORT, help="TCP port of monitors and trainers."),
                   sync: bool = typer.Option(False, "--sync", help="A cycle waits for every agent's (syn)."),
                   realtime: bool = typer.Option(True, "--realtime/--no-realtime",
                                                 help="Each cycle lasts at least 20 ms."),
                   sync_timeout: float = typer.Option(SimSparkOptions.sync_timeout, min=0.0, help="With --sync: seconds an agent's (syn) "
                                                      "is waited for; 0 waits for ever, as the original."),
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
    from .game import Game
    from .server import SimSparkServer
    from ..soccer.rules import SoccerRules
    from ..soccer.vision import EXACT

    try:
        rules = SoccerRules(half_time=half_time, automatic_kick_off=automatic_kick_off)
    except ValueError as exc:
        fail(str(exc))
    _log_to(None)
    game = Game(rules, seed=seed, noise=None if vision_noise else EXACT)
    on_cycle, viewer, close = _simspark_outputs(game, seed, log, web, web_host)
    server = SimSparkServer(game, SimSparkOptions(host, agent_port, monitor_port, sync=sync, realtime=realtime,
                                                  sync_timeout=sync_timeout, allow_kill_sim=allow_killsim), on_cycle)

    def banner():
        return (f"SimSpark server: agents on tcp://{host}:{server.agent_port}, monitors on "
                f"tcp://{host}:{server.monitor_port} ({'sync' if sync else 'async'}, "
                f"{'real time' if realtime else 'as fast as possible'})")

    serve_until_stopped(server, banner, viewer, web_host, web, f"{host}:{agent_port}/{monitor_port}", close)


@app.command("match")
def simspark_match(agents: int = typer.Option(11, help="Sample agents a side (1-11)."),
                   seed: int = typer.Option(0, help="Seed of every random stream."),
                   half_time: float = typer.Option(300.0, help="Game seconds of the half (RuleHalfTime)."),
                   log: Optional[Path] = typer.Option(None, help="Record the game here for simleague simspark replay."),
                   web: Optional[int] = WebOpt, web_host: str = WebHostOpt,
                   as_json: bool = typer.Option(False, "--json", help="Print the result as JSON.")):
    """Two teams of sample agents (separate processes, real TCP) play the first half, in sync mode
    without real time; prints the score line, the cycles per second and each team's falls, metres
    walked and ball contacts, and how far the ball travelled. With --web the game shows in a browser
    as it is played (as fast as the agents go, not in real time)."""
    from ..viewer.server import ViewerOptions, WebViewer
    from .match import MatchError, play

    def progress(game):
        r, (left, right) = game.referee, game.referee.score.values()
        err.print(f"  t {r.time:6.1f} s  {r.play_mode.wire:<14} {left}:{right}", end="\r")

    outputs = {}

    viewer = WebViewer(ViewerOptions(web_host, web, page="soccer.html")) if web is not None else None

    def setup(game):
        outputs["on_cycle"], _, outputs["close"] = _simspark_outputs(game, seed, log, None, "", viewer)
        return outputs["on_cycle"]

    async def main():
        if viewer is not None:
            await start_viewer(viewer, web_host, web)
        try:
            return await play(agents, seed, half_time, progress=progress if err.is_terminal else None, setup=setup)
        finally:
            if viewer is not None:
                await viewer.close()

    try:
        result = asyncio.run(main())
    except (MatchError, ValueError) as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        if "close" in outputs:
            outputs["close"]()
        interrupted(f"the log so far is in {log}" if log else "")
    finally:
        if "close" in outputs:
            outputs["close"]()
    print(json.dumps(result.as_dict(), indent=2) if as_json else result.line())


@app.command("replay")
def simspark_replay(log: Path = typer.Argument(..., help="A run log (serve or match --log FILE)."),
                    web: int = typer.Option(8080, **PORT, help="TCP port of the web viewer (0: any free port)."),
                    web_host: str = WebHostOpt):
    """Show a recorded game in the web viewer until interrupted."""
    from .web import LOG_FORMAT

    soccer_replay(log, web, web_host, LOG_FORMAT)


@app.command("agent")
def simspark_agent(host: str = typer.Option("127.0.0.1", help="The server's address."),
                   port: int = typer.Option(3100, **PORT, help="The server's agent port."),
                   team: str = typer.Option("Sample", help="Team name."),
                   unum: int = typer.Option(0, help="Player number (0: the next free one)."),
                   robot_type: Optional[int] = typer.Option(None, "--type", help="Robot type 0-4."),
                   players: int = typer.Option(11, min=1, max=11, help="The team's size: numbers 1 to this play.")):
    """Run one sample player against a SimSpark server: it finds itself from what it sees, goes
    for the ball in its part of the field, dribbles or kicks it towards the goal, gets up."""
    from .agent import main

    argv = ["--host", host, "--port", str(port), "--team", team, "--unum", str(unum), "--players", str(players)]
    if robot_type is not None:
        argv += ["--type", str(robot_type)]
    raise typer.Exit(main(argv))


@app.command("tournament")
def simspark_tournament(file: Path = typer.Argument(..., help="The tournament file (TOML): teams, format, seed."),
                        out: Optional[Path] = OutOpt, workers: int = WorkersOpt, ray: Optional[str] = RayOpt,
                        ray_cpus: float = RayCpusOpt, restart: bool = RestartOpt):
    """Run a soccer tournament of teams' agent programs: a round robin (points, goal difference,
    goals) or a knock-out, each match the first half in sync mode, a report (HTML, JSON, CSV). Run
    again, it resumes: finished matches are kept. Exit code 1 if a match could not be played."""
    from ..competition.report import write_tournament_report
    from ..competition.tournament import MATCHES, run_tournament

    comp = load_competition_file(file, "simspark")
    n = len(comp.team)
    total = n * (n - 1) // 2 if comp.competition.format == "round_robin" else n - 1
    outcome, folder = run_competition_command(
        comp, file, out, restart, MATCHES["simspark"], workers, ray, ray_cpus, total, "matches",
        lambda folder, pool, on_event: run_tournament(comp, folder, pool, on_event))
    files = write_tournament_report(outcome, folder)
    t = Table(title=f"{outcome.name}: standings")
    for col in ("Rank", "Team", "Played", "Won", "Drawn", "Lost", "Goals", "Points"):
        t.add_column(col)
    for r in outcome.standings:
        t.add_row(str(r.rank), r.team, str(r.played), str(r.won), str(r.drawn), str(r.lost),
                  f"{r.goals_for}:{r.goals_against}", str(r.points))
    Console().print(t)
    failed = [m.match.key for _, ms in outcome.rounds for m in ms if m.status not in ("done", "bye")]
    if failed:
        err.print(f"[red]not played (infrastructure): {', '.join(failed)}[/red]")
    err.print(f"wrote {', '.join(str(f) for f in files)}")
    if failed:
        raise typer.Exit(1)
