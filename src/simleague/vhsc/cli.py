"""``simleague vhsc``: the humanoid virtual soccer API server, a match of sample players, replays,
the sample player."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Optional

import typer

from ..cli_common import PORT, WebHostOpt, WebOpt, err, fail, serve_until_stopped, soccer_replay

app = typer.Typer(help="Humanoid virtual soccer API: team configs, a TCP port per robot, protobuf (seeds 000/001).",
                  no_args_is_help=True)


def _teams(red: Path, blue: Path, league: str):
    from .config import ConfigError, load_team

    teams = []
    for path in (red, blue):
        try:
            team, warnings = load_team(path, league)
        except ConfigError as exc:
            fail(str(exc))
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
            fail(f"--{side}-base {base}: robot {top} would listen on port {base + top}; give 0 (ports picked "
                  f"by the system) or a base from 1 to {65535 - top}")


RedOpt = typer.Option(..., "--red", help="The red team's configuration (JSON).")
BlueOpt = typer.Option(..., "--blue", help="The blue team's configuration (JSON).")
ModelsOpt = typer.Option(None, "--models", help="A folder of robot models (<name>.xml or <name>/robot.xml).")
LeagueOpt = typer.Option("kid", help="kid (4 players a team) or adult (2).")


@app.command("serve")
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
    from ..soccer.models import ModelError
    from ..viewer.server import ViewerOptions, WebViewer
    from .referee import HumanoidReferee
    from .server import VhscServer
    from .setup import build
    from .web import GameView

    red_team, blue_team = _teams(red, blue, league)
    _check_bases(red_base, blue_base, (red_team, blue_team))
    try:
        match = build(red_team, blue_team, list(models or []))
    except ModelError as exc:
        fail(str(exc))
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
            fail(f"cannot write the log {log}: {exc.strerror}")
        server.on_step = view.step

    def banner():
        return (f"humanoid soccer simulator: red on ports {red_base}+N, blue on {blue_base}+N "
                f"({'real time' if realtime else 'fast'})")

    serve_until_stopped(server, banner, viewer, web_host, web, host, view.close if view is not None else None)


@app.command("match")
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
    from ..soccer.models import ModelError
    from ..viewer.server import ViewerOptions, WebViewer
    from .launch import LaunchError
    from .match import play

    if halves not in (1, 2):
        fail(f"--halves must be 1 or 2, not {halves}")
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
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot serve or write: {exc.filename + ': ' if exc.filename else ''}{exc.strerror or exc}")
    print(report.line())


@app.command("replay")
def vhsc_replay(log: Path = typer.Argument(..., help="A run log (vhsc match or serve --log FILE)."),
                web: int = typer.Option(8080, "--web", **PORT, help="TCP port of the web viewer (0: any free port)."),
                web_host: str = WebHostOpt):
    """Play a logged humanoid game in the web viewer until interrupted."""
    from .web import LOG_FORMAT

    soccer_replay(log, web, web_host, LOG_FORMAT)


@app.command("player")
def vhsc_player(address: Optional[str] = typer.Option(None, help="host:port (default: ROBOCUP_SIMULATOR_ADDR).")):
    """Run the sample player (for simleague's kid-size model)."""
    from .player import main

    raise typer.Exit(main(["--address", address] if address else []))
