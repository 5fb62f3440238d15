"""``simleague vhsc``: the humanoid virtual soccer API server, a match of sample players, replays,
the sample player."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import typer

from ..cli_common import PORT, WebHostOpt, WebOpt, err, fail, interrupted, serve_until_stopped, soccer_replay
from .gamecontroller import GAME_PORT
from .options import COLOURS, GameOptions, ServerOptions

app = typer.Typer(help="Humanoid virtual soccer API: team files, a TCP port per robot, protobuf, referee.",
                  rich_markup_mode=None, no_args_is_help=True)


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


RedOpt = typer.Option(None, "--red", help="The red team's configuration (JSON); or --game.")
BlueOpt = typer.Option(None, "--blue", help="The blue team's configuration (JSON); or --game.")
GameOpt = typer.Option(None, "--game", help="The league's game file (game.json): teams, sides, ids, hosts, ports.")
ModelsOpt = typer.Option(None, "--models", help="A folder of robot models (<name>.xml, <name>/robot.xml or "
                                                "<name>.proto anywhere below it).")
LeagueOpt = typer.Option("kid", help="kid (4 players a team) or adult (2); a game file's class wins.")
RealtimeOpt = typer.Option(True, "--realtime/--fast", help="Keep to real time (a game file's "
                                                           "maximum_real_time_factor wins) or run as fast as possible.")
GcAddressOpt = typer.Option(None, "--gc-address", help="Where the GameController packets (RGme) go "
                                                       "(default: the broadcast address of --host's interface).")


@dataclass
class _Game:
    """What the command line and a game file say: the teams, the setup, the pace, the log."""

    red: object
    blue: object
    setup: object
    factor: float
    log: Path | None


def _game(game: Path | None, red: Path | None, blue: Path | None, league: str, realtime: bool,
          log: Path | None, host: str) -> _Game:
    """Teams and setup from ``--game`` or ``--red``/``--blue`` (with a coin toss where the game
    file says ``random``)."""
    import numpy as np

    from .config import ConfigError
    from .game import load_game
    from .match import GameSetup

    if game is None:
        if red is None or blue is None:
            fail("give --red and --blue team files, or a --game file")
        red_team, blue_team = _teams(red, blue, league)
        allowed = {"red": {host}, "blue": {host}}
        return _Game(red_team, blue_team, GameSetup(league=league, allowed=allowed), 1.0 if realtime else 0.0, log)
    if red is not None or blue is not None:
        fail("--game names the teams' files; leave out --red and --blue")
    try:
        loaded = load_game(game)
    except ConfigError as exc:
        fail(str(exc))
    for warning in loaded.warnings:
        err.print(f"[yellow]warning:[/yellow] {game}: {warning}", highlight=False)
    config = loaded.config
    left, kick_off = loaded.toss(np.random.default_rng())
    err.print(f"{left} plays on the left, {kick_off} kicks off", highlight=False)
    ports = {(colour, n): port for colour in COLOURS
             for n, port in enumerate(getattr(config, colour).ports, start=1)}
    allowed = {colour: set(getattr(config, colour).hosts) for colour in COLOURS}
    setup = GameSetup(left=left, kick_off=kick_off, team_numbers={"red": config.red.id, "blue": config.blue.id},
                      overtime=config.type == "KNOCKOUT", shootout=config.type == "PENALTY",
                      league=config.league.lower(), allowed=allowed, ports=ports)
    factor = config.maximum_real_time_factor if realtime else 0.0
    return _Game(loaded.teams["red"], loaded.teams["blue"], setup, factor, log or loaded.record_path)


def _gc_address(address: str | None, host: str) -> str:
    from .gamecontroller import broadcast_address

    return address or broadcast_address(host)


@app.command("serve")
def vhsc_serve(red: Optional[Path] = RedOpt, blue: Optional[Path] = BlueOpt, game: Optional[Path] = GameOpt,
               models: list[Path] = ModelsOpt, league: str = LeagueOpt,
               host: str = typer.Option("127.0.0.1", help="Address to bind."),
               red_base: int = typer.Option(ServerOptions.red_base, help="Red robot N listens on this + N."),
               blue_base: int = typer.Option(ServerOptions.blue_base, help="Blue robot N listens on this + N."),
               allow: list[str] = typer.Option(["127.0.0.1"], help="Client address allowed (repeat; both teams; "
                                                                   "a game file's hosts win)."),
               realtime: bool = RealtimeOpt, gc_address: Optional[str] = GcAddressOpt,
               gc_port: int = typer.Option(GAME_PORT, **PORT, help="UDP port the GameController packets (RGme) go to."),
               gc_return_port: int = typer.Option(ServerOptions.return_port, **PORT, help="UDP port the robots' RGrt packets come to."),
               log: Optional[Path] = typer.Option(None, "--log", help="Write a run log (JSON lines; .gz compresses)."),
               web: Optional[int] = WebOpt, web_host: str = WebHostOpt):
    """Run the simulator alone, for teams that start their own robot software; the game starts
    at once (ready, set, playing)."""
    from ..soccer.models import ModelError
    from ..viewer.server import ViewerOptions, WebViewer
    from .referee import HumanoidReferee
    from .server import VhscServer
    from .setup import MARKINGS, build
    from .web import GameView

    setup = _game(game, red, blue, league, realtime, log, host)
    _check_bases(red_base, blue_base, (setup.red, setup.blue))
    try:
        match = build(setup.red, setup.blue, list(models or []), league=setup.setup.league,
                      left=setup.setup.left)
    except ModelError as exc:
        fail(str(exc))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    rules = setup.setup
    referee = HumanoidReferee(match.world.rules, match.sessions, match.teams,
                              GameOptions(rules.team_numbers, rules.left, rules.kick_off, overtime=rules.overtime,
                                          markings=MARKINGS[rules.league], shootout=rules.shootout))
    allowed = rules.allowed if game is not None else {"red": set(allow), "blue": set(allow)}
    viewer = WebViewer(ViewerOptions(web_host, web, page="soccer.html")) if web is not None else None
    view = None
    if viewer is not None or setup.log is not None:
        try:
            view = GameView(match, referee, viewer, setup.log)
        except OSError as exc:
            fail(f"cannot write the log {setup.log}: {exc.strerror}")
    options = ServerOptions(host, red_base, blue_base, setup.factor, game_controller=(_gc_address(gc_address, host),
                            gc_port), return_port=gc_return_port, ports=rules.ports)
    server = VhscServer(match.world, match.sessions, allowed, options, referee,
                        view.step if view is not None else None)
    server.start_game()

    def banner():
        pace = f"real-time factor at most {setup.factor:g}" if setup.factor else "fast"
        ports = (f"ports {sorted(set(rules.ports.values()))}" if rules.ports
                 else f"red on ports {red_base}+N, blue on {blue_base}+N")
        return f"humanoid soccer simulator: {ports} ({pace}); RGme to {options.game_controller[0]}:{gc_port}"

    serve_until_stopped(server, banner, viewer, web_host, web, host, view.close if view is not None else None)


class _Progress:
    """A line on the terminal, redrawn once a second: half, state, game time, score, pace."""

    def __init__(self, names: dict[str, str]):
        self.names, self.shown = names, 0.0

    def __call__(self, report, referee) -> None:
        import time

        from .gamecontroller import STATES

        now = time.monotonic()
        if now - self.shown < 1.0:
            return
        self.shown = now
        red, blue = self.names["red"], self.names["blue"]
        err.print(f"half {referee.half} {STATES[referee.state]:>8} {referee.played:6.1f} s  "
                  f"{red} {referee.score['red']} : {referee.score['blue']} {blue}  "
                  f"real-time factor {report.real_time_factor:.2f}", end="\r", highlight=False)


@app.command("match")
def vhsc_match(red: Optional[Path] = RedOpt, blue: Optional[Path] = BlueOpt, game: Optional[Path] = GameOpt,
               models: list[Path] = ModelsOpt, league: str = LeagueOpt,
               launcher: str = typer.Option("local", help="local (processes) or docker (containers)."),
               image: Optional[str] = typer.Option(None, help="Docker image name (the tag is each player's dockerTag)."),
               realtime: bool = RealtimeOpt,
               seconds: float = typer.Option(60.0, help="Seconds of simulated time to play."),
               wait: float = typer.Option(30.0, help="Seconds to wait for every player to connect."),
               ready_time: float = typer.Option(GameOptions.ready_time, help="Seconds in the ready state before set."),
               half_time: float = typer.Option(GameOptions.half_time, help="Seconds of play in each half."),
               halves: int = typer.Option(GameOptions.halves,
                                          help="Halves to play: 1 or 2 (15 s break, teams change ends)."),
               gc_address: Optional[str] = GcAddressOpt,
               gc_port: int = typer.Option(GAME_PORT, **PORT, help="UDP port the GameController packets (RGme) go to."),
               gc_return_port: int = typer.Option(ServerOptions.return_port, **PORT, help="UDP port the robots' RGrt packets come to."),
               red_base: int = typer.Option(ServerOptions.red_base, help="Red robot N listens on this + N."),
               blue_base: int = typer.Option(ServerOptions.blue_base, help="Blue robot N listens on this + N."),
               log: Optional[Path] = typer.Option(None, "--log", help="Write a run log (JSON lines; .gz compresses)."),
               web: Optional[int] = WebOpt, web_host: str = WebHostOpt,
               as_json: bool = typer.Option(False, "--json", help="Print the report as JSON.")):
    """Start the simulator and every player's software, play the game (or --seconds), report."""
    import json
    import sys

    from ..soccer.models import ModelError
    from ..viewer.server import ViewerOptions, WebViewer
    from .launch import LaunchError
    from .match import play

    if halves not in (1, 2):
        fail(f"--halves must be 1 or 2, not {halves}")
    host = "127.0.0.1"
    setup = _game(game, red, blue, league, realtime, log, host)
    _check_bases(red_base, blue_base, (setup.red, setup.blue))
    viewer = WebViewer(ViewerOptions(web_host, web, page="soccer.html")) if web is not None else None
    progress = _Progress({"red": setup.red.name, "blue": setup.blue.name}) if sys.stderr.isatty() else None
    try:
        report = asyncio.run(play(setup.red, setup.blue, launcher, image, list(models or []), setup.factor, seconds,
                                  host, red_base=red_base, blue_base=blue_base, wait=wait,
                                  game_controller=(_gc_address(gc_address, host), gc_port, gc_return_port),
                                  ready_time=ready_time, half_time=half_time, halves=halves, viewer=viewer,
                                  run_log=setup.log, ready=lambda url: err.print(f"web viewer at {url}"),
                                  setup=setup.setup, progress=progress))
    except (ModelError, LaunchError) as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot serve or write: {exc.filename + ': ' if exc.filename else ''}{exc.strerror or exc}")
    except KeyboardInterrupt:
        interrupted(f"the log so far is in {setup.log}" if setup.log else "the players were stopped")
    if progress is not None:
        err.print()
    print(json.dumps(report.as_dict(), indent=2) if as_json else report.line())


@app.command("referee-test")
def vhsc_referee_test(paths: list[Path] = typer.Argument(..., help="Scenario folders, or folders holding them."),
                      models: list[Path] = ModelsOpt,
                      jobs: int = typer.Option(0, "--jobs", "-j", min=0, max=256,
                                               help="Scenarios run side by side (0: one per core).")):
    """Run the league's referee test scenarios (test_scenario.json with its game.json) on our
    referee, --jobs at a time: a line per test and per scenario, in the order of the folders, then
    the totals; exit 1 if a test failed. Robots are looked for under --models, then in the protos
    folder of the league's repository that holds the scenarios; one found nowhere is replaced by
    our kid robot."""
    from .scenario import ScenarioError, find_scenarios, run_scenarios

    folders = find_scenarios(list(paths))
    if not folders:
        fail(f"no test_scenario.json at or under {', '.join(map(str, paths))}")
    passed_scenarios, passed, failed, told = 0, 0, 0, set()
    try:
        for folder, result in run_scenarios(folders, list(models or []), jobs):
            if isinstance(result, ScenarioError):
                err.print(f"[red]error:[/red] {result}", highlight=False, soft_wrap=True)
                failed += 1
                print(f"scenario {folder}: not run")
                continue
            for note in result.notes:
                if note not in told:
                    err.print(f"note: {note}", highlight=False)
                    told.add(note)
            for name, ok, why in result.tests:
                print(f"  {'passed' if ok else 'FAILED'}: {name}" + ("" if ok else f" ({why})"))
            passed += sum(ok for _, ok, _ in result.tests)
            failed += sum(not ok for _, ok, _ in result.tests)
            passed_scenarios += result.passed
            print(f"scenario {folder}: {'passed' if result.passed else 'failed'}")
    except KeyboardInterrupt:
        interrupted(f"{passed_scenarios} scenarios passed before")
    print(f"scenarios: {passed_scenarios} of {len(folders)} passed")
    print(f"{passed} passed, {failed} failed")
    if failed:
        raise typer.Exit(1)


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
