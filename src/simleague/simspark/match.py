"""A match of two teams of sample agents (:mod:`simleague.simspark.agent`), or of teams' own agent
programs (:class:`TeamLaunch`), each agent a separate process talking TCP to a server started
here, in sync mode without real time: the agents join, beam to their places, the left team kicks
off once everyone stands in place, and the first half is played (RuleHalfTime of game time).
:func:`run_described` plays one from a plain description, for tournaments
(:mod:`simleague.competition`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .. import errors
from ..programs import environment, fill
from ..soccer.figures import Figures, RobotState
from ..soccer.rules import PlayMode, SoccerRules, Team
from ..soccer.world import CYCLE
from .game import Game
from .server import SimSparkOptions, SimSparkServer

log = logging.getLogger("simleague.simspark")

TEAMS = ("SampleLeft", "SampleRight")
SETTLE_CYCLES = 50                 # cycles everyone stands in place before the kick-off
STOP_GRACE = 3.0                   # s an agent has to end after SIGTERM before it is killed


class MatchError(errors.Error, RuntimeError):
    """The match could not be played (agents that did not join in time, a port taken)."""


WALKOVER_SCORE = 3                   # goals the present team is credited with (football's 3:0 walkover)


class Walkover(MatchError):
    """One team's agents did not all join in time while the other's did: that team forfeits
    (``absent``: 0 left, 1 right; ``str()`` says who and how many joined). A tournament counts it
    against that team and does not play the match again; :func:`run_described` returns it as a
    3:0 for the other team (the RoboCup 3D rules name no walkover score; football's is 3:0)."""

    def __init__(self, absent: int, message: str):
        self.absent = absent
        super().__init__(message)


@dataclass(frozen=True)
class TeamLaunch:
    """A team's agent program: the team ``name`` (as it inits), the command line ``argv`` with
    ``{host}``, ``{port}``, ``{unum}`` and ``{team}`` still to be filled in, its working folder
    ``workdir`` and a file ``output`` for its agents' standard output and error (None: discarded)."""

    name: str
    argv: tuple[str, ...]
    workdir: Path | None = None
    output: Path | None = None

    def command(self, host: str, port: int, unum: int) -> list[str]:
        """The command line of agent ``unum``."""
        return fill(self.argv, {"host": host, "port": port, "unum": unum, "team": self.name})


def _sample(team: str, players: int) -> TeamLaunch:
    return TeamLaunch(team, (sys.executable, "-m", "simleague.simspark.agent", "--host", "{host}", "--port", "{port}",
                             "--team", "{team}", "--unum", "{unum}", "--players", str(players)))


WALK_SAMPLE = 50                    # cycles (1 s) between the positions that make up distance walked


def observe(figures: Figures, game) -> None:
    """Hand ``figures`` (:class:`simleague.soccer.figures.Figures`, teams 0 left and 1 right)
    the world of ``game`` (a :class:`~simleague.simspark.game.Game`) after a cycle."""
    world = game.world
    robots = {}
    for a in game.agents.values():
        if a.robot is not None and a.team is not None:
            position, rotation = world.pose(a.robot, "torso")
            robots[a.robot] = RobotState(0 if a.team is Team.LEFT else 1, float(position[0]), float(position[1]),
                                         float(rotation[2, 2]))
    ball = world.ball()[0]
    figures.observe(robots, world.ball_touchers(), (float(ball[0]), float(ball[1])),
                    world.cycle % WALK_SAMPLE == 0)


@dataclass(frozen=True)
class MatchResult:
    """The score line, how fast the half ran (cycles of 20 ms per wall second) and, per team, its
    figures (:class:`Figures`: ``falls``, ``walked`` m, ``contacts``) and the ball's travel (m)."""

    teams: tuple[str, str]
    score: tuple[int, int]
    cycles: int
    seconds: float
    agents: int
    falls: tuple[int, int] = (0, 0)
    walked: tuple[float, float] = (0.0, 0.0)
    contacts: tuple[int, int] = (0, 0)
    ball_travel: float = 0.0

    def as_dict(self) -> dict:
        """The result as JSON-ready data: per team its name, goals, falls, metres walked and ball
        contacts; the ball's travel (m), cycles, seconds and agents a side."""
        return {"teams": [{"name": self.teams[k], "goals": self.score[k], "falls": self.falls[k],
                           "walked_m": round(self.walked[k], 2), "ball_contacts": self.contacts[k]}
                          for k in (0, 1)],
                "ball_travel_m": round(self.ball_travel, 2), "cycles": self.cycles,
                "seconds": round(self.seconds, 2), "agents": self.agents}

    @property
    def cycles_per_second(self) -> float:
        """Cycles of 20 ms per wall second over the half."""
        return self.cycles / self.seconds if self.seconds > 0 else 0.0

    def line(self) -> str:
        """The score line and the speed, as ``simleague simspark match`` prints them."""
        return (f"{self.teams[0]} {self.score[0]} : {self.score[1]} {self.teams[1]}   "
                f"({self.agents} agents, first half: {self.cycles} cycles in {self.seconds:.1f} s, "
                f"{self.cycles_per_second:.0f} cycles/s)\n"
                + "".join(f"  {self.teams[k]}: {self.falls[k]} falls, {self.walked[k]:.1f} m walked, "
                          f"{self.contacts[k]} ball contacts\n" for k in (0, 1))
                + f"  the ball travelled {self.ball_travel:.1f} m")


async def play(agents: int = 11, seed: int = 0, half_time: float = 300.0, host: str = "127.0.0.1",
               agent_port: int = 0, monitor_port: int = 0, join_timeout: float = 120.0,
               progress=None, setup=None, teams: tuple[TeamLaunch, TeamLaunch] | None = None) -> MatchResult:
    """Play the first half of a match of ``agents`` agents a side: the sample agents, or the
    ``teams``' programs (left, right). ``progress`` (if given) is called with the game about once
    a second; ``setup(game)`` (if given) returns the server's ``on_cycle`` (a run log, a viewer).
    Raises :class:`MatchError`."""
    if not 1 <= agents <= 11:
        raise MatchError(f"1 to 11 agents a side, not {agents}")
    rules = SoccerRules(half_time=half_time)
    game = Game(rules, seed=seed)
    server = SimSparkServer(game, SimSparkOptions(host, agent_port, monitor_port, sync=True, realtime=False))
    figures, extra = Figures(), setup(game) if setup is not None else None

    def on_cycle(report) -> None:
        if game.referee.play_mode is not PlayMode.BeforeKickOff:
            observe(figures, game)
        if extra is not None:
            extra(report)
    server.on_cycle = on_cycle
    try:
        await server.start()
    except OSError as e:
        raise MatchError(f"cannot listen: {e}") from None
    processes = []
    run = asyncio.create_task(server.run())
    try:
        launches = teams or (_sample(TEAMS[0], agents), _sample(TEAMS[1], agents))

        async def start(side: int, unum: int):
            launch = launches[side]
            out = open(launch.output, "ab") if launch.output else asyncio.subprocess.DEVNULL
            try:
                return await asyncio.create_subprocess_exec(
                    *launch.command(host, server.agent_port, unum), cwd=launch.workdir,
                    stdin=asyncio.subprocess.DEVNULL, stdout=out, stderr=asyncio.subprocess.STDOUT,
                    env=environment())
            except OSError as e:
                raise MatchError(f"cannot start {launch.name}'s agent {unum}: {e.strerror or e}") from None
            finally:
                if launch.output:
                    out.close()

        # the first team name the server sees plays left: the left team's first agent joins alone
        processes.append(await start(0, 1))
        deadline = time.monotonic() + join_timeout
        while game.team_names[Team.LEFT] is None:
            if run.done():
                run.result()
                raise MatchError("the server stopped before the first agent joined")
            if time.monotonic() > deadline:
                raise Walkover(0, f"{launches[0].name}'s first agent did not join in {join_timeout:.0f} s")
            await asyncio.sleep(0.01)
        for unum in range(1, agents + 1):
            for side in (0, 1):
                if (side, unum) != (0, 1):
                    processes.append(await start(side, unum))
        deadline = time.monotonic() + join_timeout
        ready_at = None
        while game.referee.play_mode is PlayMode.BeforeKickOff:
            if run.done():
                run.result()
                raise MatchError("the server stopped before the kick-off")
            joined = [sum(a.team is side for a in game.agents.values()) for side in (Team.LEFT, Team.RIGHT)]
            if sum(joined) < 2 * agents:
                ready_at = None
                if time.monotonic() > deadline:
                    short = [side for side in (0, 1) if joined[side] < agents]
                    message = ", ".join(f"{launches[side].name}: {joined[side]} of {agents} agents joined"
                                        for side in short) + f" in {join_timeout:.0f} s"
                    raise Walkover(short[0], message) if len(short) == 1 else MatchError(message)
            elif ready_at is None:
                ready_at = game.world.cycle
            elif game.world.cycle - ready_at >= SETTLE_CYCLES:
                placement = game.referee.kick_off(Team.LEFT)
                game.world.place_ball(placement.ball)
                break
            await asyncio.sleep(0.01)
        started = shown = time.monotonic()
        while game.referee.half == 1 and game.referee.play_mode is not PlayMode.GameOver:
            if run.done():
                run.result()
                raise MatchError("the server stopped during the half")
            if progress is not None and time.monotonic() - shown >= 1.0:
                progress(game)
                shown = time.monotonic()
            await asyncio.sleep(0.01)
        seconds, cycles = time.monotonic() - started, round(half_time / CYCLE)
        score = (game.referee.score[Team.LEFT], game.referee.score[Team.RIGHT])
        return MatchResult((launches[0].name, launches[1].name), score, cycles, seconds, 2 * agents,
                           (figures.falls[0], figures.falls[1]), (figures.walked[0], figures.walked[1]),
                           (figures.contacts[0], figures.contacts[1]),
                           figures.ball_travel)
    finally:
        server.stop()
        running = [p for p in processes if p.returncode is None]
        for p in running:                  # a team's program (a docker client) may need to stop its own
            with contextlib.suppress(ProcessLookupError):
                p.terminate()
        try:
            await asyncio.wait_for(asyncio.gather(*(p.wait() for p in running)), STOP_GRACE)
        except asyncio.TimeoutError:
            for p in running:
                with contextlib.suppress(ProcessLookupError):
                    p.kill()
            for p in running:
                await p.wait()
        if not run.done():
            await run
        await server.close()


def run_described(description: dict) -> dict:
    """Play one match from a plain description and return its result (the tournament runners'
    entry point: a dict in, a dict out). The description: ``teams`` (left, right), each {``name``,
    ``argv`` (with ``{host}``, ``{port}``, ``{unum}``, ``{team}``), ``workdir``, ``output``};
    ``agents`` a side, ``half_time`` (s of game time), ``seed``, ``log`` (path or None, a run log
    for ``simleague simspark replay``; the server's messages go to ``server.log`` beside it),
    ``join_timeout`` (s, default 120). The result: ``teams``, ``score`` (left, right), ``cycles``,
    ``seconds``; for a :class:`Walkover` also ``walkover`` (the team that forfeited) and ``reason``,
    the score 3:0 for the other. Raises :class:`MatchError` when the match could not be played
    for a reason of ours (a port, the server) or of both teams."""
    teams = tuple(TeamLaunch(t["name"], tuple(t["argv"]), Path(t["workdir"]) if t.get("workdir") else None,
                             Path(t["output"]) if t.get("output") else None) for t in description["teams"])
    outputs = {}

    def setup(game):                               # a run log as ``match --log`` writes it
        from ..recorder import Recorder
        from . import web

        recorder = outputs["log"] = Recorder(Path(description["log"]), web.LOG_FORMAT,
                                             web.log_header(game, int(description["seed"])))

        def on_cycle(report) -> None:
            if report.cycle % web.FRAME_EVERY == 0:
                record = web.frame(game)
                del record["type"]
                recorder.cycle(record)
        return on_cycle

    handler = None
    if description.get("log"):                     # the server's messages beside the run log
        handler = logging.FileHandler(Path(description["log"]).with_name("server.log"))
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        log.addHandler(handler)
        log.propagate = False
    try:
        result = asyncio.run(play(int(description["agents"]), int(description["seed"]),
                                  float(description["half_time"]), teams=teams,
                                  join_timeout=float(description.get("join_timeout", 120.0)),
                                  setup=setup if description.get("log") else None))
    except Walkover as walkover:
        score = [0, 0]
        score[1 - walkover.absent] = WALKOVER_SCORE
        return {"teams": [t.name for t in teams], "score": score, "cycles": 0, "seconds": 0.0,
                "walkover": teams[walkover.absent].name, "reason": str(walkover)}
    finally:
        if "log" in outputs:
            outputs["log"].close()
        if handler is not None:
            log.removeHandler(handler)
            log.propagate = True
            handler.close()
    return {"teams": list(result.teams), "score": list(result.score), "cycles": result.cycles,
            "seconds": result.seconds, "figures": result.as_dict()}
