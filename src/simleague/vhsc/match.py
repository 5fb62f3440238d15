"""A match of the humanoid virtual soccer API: the simulator and every player's software (local
processes or docker containers, :mod:`simleague.vhsc.launch`), for a given stretch of simulated
time; then a report of who connected, how fast the simulation ran and what each team did
(:mod:`simleague.soccer.figures`: falls, distance walked, ball contacts; the ball's travel).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..soccer.figures import Figures, RobotState
from ..viewer.server import WebViewer
from .config import TeamConfig
from .gamecontroller import GAME_PORT, RETURN_PORT, STATES, broadcast_address
from .launch import LaunchError, container_name, environment, start
from .options import COLOURS, GameOptions
from .referee import HumanoidReferee
from .server import CycleReport, ServerOptions, VhscServer
from .setup import MARKINGS, build
from .web import GameView

log = logging.getLogger("simleague.vhsc")
FIGURES_SAMPLE = 125                # steps (1 s) between the positions that make up distance walked


@dataclass(frozen=True)
class MatchReport:
    """How the match went: robots whose software connected (at least once), steps of 8 ms
    simulated, wall time, the score and where the game stood (``game over``, or the referee's
    state and half when the match was cut short by its time limit); per colour ``falls``,
    ``walked`` (m) and ball ``contacts``, and the ball's travel (m) (:mod:`simleague.soccer.figures`)."""

    connected: dict[str, int]
    players: dict[str, int]
    steps: int
    seconds: float
    score: dict[str, int]
    state: str
    names: dict[str, str] = field(default_factory=lambda: {"red": "red", "blue": "blue"})
    falls: dict[str, int] = field(default_factory=lambda: {"red": 0, "blue": 0})
    walked: dict[str, float] = field(default_factory=lambda: {"red": 0.0, "blue": 0.0})
    contacts: dict[str, int] = field(default_factory=lambda: {"red": 0, "blue": 0})
    ball_travel: float = 0.0

    def as_dict(self) -> dict:
        """The report as JSON-ready data: per team (red, blue) its name, colour, goals, falls,
        metres walked, ball contacts and players connected; the ball's travel (m), steps, seconds
        simulated and of wall time, and where the game stood."""
        return {"teams": [{"name": self.names[c], "colour": c, "goals": self.score[c], "falls": self.falls[c],
                           "walked_m": round(self.walked[c], 2), "ball_contacts": self.contacts[c],
                           "connected": self.connected[c], "players": self.players[c]} for c in COLOURS],
                "ball_travel_m": round(self.ball_travel, 2), "steps": self.steps,
                "simulated_s": round(self.steps * 0.008, 3), "seconds": round(self.seconds, 2), "state": self.state}

    def line(self) -> str:
        """The score, who connected and the speed, as ``simleague vhsc match`` prints them."""
        factor = self.steps * 0.008 / self.seconds if self.seconds else 0.0
        red, blue = self.names["red"], self.names["blue"]
        return (f"{red} (red) {self.score['red']} : {self.score['blue']} {blue} (blue) ({self.state}); "
                f"{red} {self.connected['red']}/{self.players['red']} connected, {blue} "
                f"{self.connected['blue']}/{self.players['blue']}; {self.steps * 0.008:.1f} s simulated in "
                f"{self.seconds:.1f} s (real-time factor {factor:.2f})\n"
                + "".join(f"  {self.names[c]}: {self.falls[c]} falls, {self.walked[c]:.1f} m walked, "
                          f"{self.contacts[c]} ball contacts\n" for c in COLOURS)
                + f"  the ball travelled {self.ball_travel:.1f} m")


@dataclass(frozen=True)
class GameSetup:
    """How the game is set up (a league game file gives all of it, :mod:`simleague.vhsc.game`):
    the colour on the ``left``, the one that ``kick_off`` first, GameController
    ``team_numbers``, ``overtime`` for a knockout game, ``shootout`` for a penalty shoot-out
    game, the league (``kid``/``adult``), the
    client addresses ``allowed`` per colour (default: the server's host) and robot ``ports``
    by (colour, number) (default: the bases + N)."""

    left: str = "red"
    kick_off: str = "red"
    team_numbers: dict = field(default_factory=lambda: {"red": 1, "blue": 2})
    overtime: bool = False
    shootout: bool = False
    league: str = "kid"
    allowed: dict | None = None
    ports: dict = field(default_factory=dict)


async def play(red: TeamConfig, blue: TeamConfig, launcher: str = "local", image: str | None = None,
               models: list[Path] | None = None, max_real_time_factor: float = 1.0, seconds: float = 60.0,
               host: str = "127.0.0.1", red_base: int = 10000, blue_base: int = 10020,
               wait: float = 30.0, game_controller: tuple[str, int, int] | None = None,
               ready_time: float = GameOptions.ready_time, half_time: float = GameOptions.half_time,
               halves: int = GameOptions.halves,
               viewer: WebViewer | None = None, run_log: Path | None = None,
               ready: Callable[[str], None] | None = None, setup: GameSetup = GameSetup(),
               progress: Callable[[CycleReport, HumanoidReferee], None] | None = None) -> MatchReport:
    """Play until the referee ends the game (each half: ``ready_time`` then 5 s of set, then
    ``half_time`` of play; ``halves`` of them with a 15 s break; overtime as ``setup`` says) or
    ``seconds`` of simulated time passed, once every player's software connected (or its process
    ended, or ``wait`` s passed); ``game_controller`` = (address, port) ``RGme`` goes to and the
    port ``RGrt`` is read on (default: the broadcast address of ``host``'s interface, so that every
    player on the machine hears it, ports 3838 and 3939). ``max_real_time_factor`` paces the
    steps (0: as fast as possible).
    With ``viewer`` the game is shown live (``ready(url)`` is called once it listens), with
    ``run_log`` written to that run log; ``progress(report, referee)`` is called after each step.
    Raises :class:`~simleague.vhsc.launch.LaunchError`,
    :class:`~simleague.soccer.models.ModelError`, OSError (a port taken, a log that cannot be
    written)."""
    match = build(red, blue, models, league=setup.league, left=setup.left)
    game_controller = game_controller or (broadcast_address(host), GAME_PORT, RETURN_PORT)
    allowed = setup.allowed or {"red": {host}, "blue": {host}}
    referee = HumanoidReferee(match.world.rules, match.sessions, match.teams,
                              GameOptions(setup.team_numbers, setup.left, setup.kick_off, ready_time=ready_time,
                                          half_time=half_time, halves=halves, overtime=setup.overtime,
                                          markings=MARKINGS[setup.league], shootout=setup.shootout))
    view = GameView(match, referee, viewer, run_log) if viewer is not None or run_log is not None else None
    figures = Figures(COLOURS)
    owners = {session.rid: key for key, session in match.sessions.items()}

    def on_cycle(report: CycleReport) -> None:
        world = match.world
        robots = {}
        for rid, (colour, _) in owners.items():
            (x, y, _), _ = world.pose(rid)
            robots[rid] = RobotState(colour, float(x), float(y), world.upright(rid))
        ball = world.ball()[0]
        figures.observe(robots, world.ball_touchers(), (float(ball[0]), float(ball[1])),
                        report.cycle % FIGURES_SAMPLE == 0)
        if view is not None:
            view.step(report)
        if progress is not None:
            progress(report, referee)
    options = ServerOptions(host, red_base, blue_base, max_real_time_factor, game_controller=game_controller[:2],
                            return_port=game_controller[2], ports=setup.ports)
    server = VhscServer(match.world, match.sessions, allowed, options, referee, on_cycle)
    await server.start()
    processes, containers = [], []
    try:
        if viewer is not None:
            await viewer.start()
            if ready is not None:
                ready(viewer.url)
        for (colour, number), port in server.ports.items():
            player = match.teams[colour].players[number]
            env = environment(host, port, number, colour, game_controller[1],
                              "left" if colour == setup.left else "right")
            processes.append(await start(launcher, player, env, image))
            if launcher == "docker":
                containers.append(container_name(env))
        deadline = time.monotonic() + wait
        keys = list(server.ports)
        while time.monotonic() < deadline:
            missing = [p for key, p in zip(keys, processes) if server.robots[key].writer is None]
            if all(p.returncode is not None for p in missing):
                break
            await asyncio.sleep(0.05)
        log.info("kick-off: %d of %d players connected", sum(r.writer is not None for r in server.robots.values()),
                 len(keys))
        server.start_game()
        run = asyncio.create_task(server.run(cycles=round(seconds / 0.008)))
        began = time.monotonic()
        await run
        elapsed = time.monotonic() - began
    finally:
        server.stop()
        for p in processes:
            if p.returncode is None:
                p.terminate()
        for p in processes:
            try:
                await asyncio.wait_for(p.wait(), 10)
            except TimeoutError:
                p.kill()
                await p.wait()
        if containers:                                 # a container outlives a killed docker client
            remove = await asyncio.create_subprocess_exec("docker", "rm", "-f", *containers,
                                                          stdout=asyncio.subprocess.DEVNULL,
                                                          stderr=asyncio.subprocess.DEVNULL)
            await remove.wait()
        await server.close()
        if viewer is not None:
            await viewer.close()
        if view is not None:
            view.close()
    connected = {c: sum(r.connections > 0 for (t, _), r in server.robots.items() if t == c) for c in COLOURS}
    players = {c: len(match.teams[c].players) for c in COLOURS}
    state = "game over" if referee.game_over else f"{STATES[referee.state]}, half {referee.half}"
    names = {colour: match.teams[colour].name for colour in COLOURS}
    return MatchReport(connected, players, server.cycle, elapsed, dict(referee.score), state, names,
                       dict(figures.falls), dict(figures.walked), dict(figures.contacts), figures.ball_travel)


__all__ = ["GameSetup", "LaunchError", "MatchReport", "play"]
