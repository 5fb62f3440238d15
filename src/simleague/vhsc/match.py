"""A match of the humanoid virtual soccer API: the simulator and every player's software (local
processes or docker containers, :mod:`simleague.vhsc.launch`), for a given stretch of simulated
time; then a report of who connected and how fast the simulation ran.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..viewer.server import WebViewer
from .config import TeamConfig
from .gamecontroller import GAME_PORT, RETURN_PORT, STATES
from .launch import LaunchError, container_name, environment, start
from .referee import HumanoidReferee
from .server import VhscServer
from .setup import build
from .web import GameView

log = logging.getLogger("simleague.vhsc")


@dataclass(frozen=True)
class MatchReport:
    """How the match went: robots whose software connected (at least once), steps of 8 ms
    simulated, wall time, the score and where the game stood (``game over``, or the referee's
    state and half when the match was cut short by its time limit)."""

    connected: dict[str, int]
    players: dict[str, int]
    steps: int
    seconds: float
    score: dict[str, int]
    state: str

    def line(self) -> str:
        """The score, who connected and the speed, as ``simleague vhsc match`` prints them."""
        factor = self.steps * 0.008 / self.seconds if self.seconds else 0.0
        return (f"red {self.score['red']} : {self.score['blue']} blue ({self.state}); red "
                f"{self.connected['red']}/{self.players['red']} connected, blue "
                f"{self.connected['blue']}/{self.players['blue']}; {self.steps * 0.008:.1f} s simulated in "
                f"{self.seconds:.1f} s (real-time factor {factor:.2f})")


async def play(red: TeamConfig, blue: TeamConfig, launcher: str = "local", image: str | None = None,
               models: list[Path] | None = None, realtime: bool = True, seconds: float = 60.0,
               host: str = "127.0.0.1", red_base: int = 10000, blue_base: int = 10020,
               wait: float = 30.0, game_controller: tuple[int, int] = (GAME_PORT, RETURN_PORT),
               ready_time: float = 30.0, half_time: float = 600.0, halves: int = 2,
               viewer: WebViewer | None = None, run_log: Path | None = None,
               ready: Callable[[str], None] | None = None) -> MatchReport:
    """Play until the referee ends the game (each half: ``ready_time`` then 5 s of set, then
    ``half_time`` of play; ``halves`` of them with a 15 s break) or ``seconds`` of simulated
    time passed, once every player's software connected (or its process ended, or ``wait`` s
    passed); ``RGme`` goes to UDP ``game_controller[0]`` on ``host``, ``RGrt`` is read on
    ``game_controller[1]``. With ``viewer`` the game is shown live (``ready(url)`` is called once
    it listens), with ``run_log`` written to that run log. Raises
    :class:`~simleague.vhsc.launch.LaunchError`, :class:`~simleague.soccer.models.ModelError`,
    OSError (a port taken, a log that cannot be written)."""
    match = build(red, blue, models)
    allowed = {"red": {host}, "blue": {host}}
    referee = HumanoidReferee(match.world, match.sessions, match.teams, ready_time=ready_time,
                              half_time=half_time, halves=halves)
    server = VhscServer(match.world, match.sessions, allowed, host, red_base, blue_base, realtime,
                        referee=referee, game_controller=(host, *game_controller))
    view = GameView(match, referee, viewer, run_log) if viewer is not None or run_log is not None else None
    if view is not None:
        server.on_step = view.step
    await server.start()
    processes, containers = [], []
    try:
        if viewer is not None:
            await viewer.start()
            if ready is not None:
                ready(viewer.url)
        for (colour, number), port in server.ports.items():
            player = match.teams[colour].players[number]
            env = environment(host, port, number, colour)
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
        referee.start()
        run = asyncio.create_task(server.run(steps=round(seconds / 0.008)))
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
    connected = {c: sum(r.connections > 0 for (t, _), r in server.robots.items() if t == c) for c in ("red", "blue")}
    players = {c: len(match.teams[c].players) for c in ("red", "blue")}
    state = "game over" if referee.game_over else f"{STATES[referee.state]}, half {referee.half}"
    return MatchReport(connected, players, server.step, elapsed, dict(referee.score), state)


__all__ = ["LaunchError", "MatchReport", "play"]
