"""A SimSpark game: the soccer world, the referee and the agents' robots, driven by typed effectors
and read as perceptor and monitor text. Pure (no sockets, no clock): the server feeds it what
arrived and sends what it returns, so the same effectors give the same game (ARCHITECTURE.md rule 1).

Agent rules from specs/simspark.md "Agents" (seed 002): a robot is built on ``scene``; ``init``
gives it a team and number (0: the next free one; the first team name seen plays left; refused:
a third team, a number taken or above 11, a full team, or a mix of robot types the league forbids:
at most 7 of one type, at most 9 of two types together, and at least 3 types in a full team); only
the first ``GS`` after that carries ``(unum N) (team side)``. ``beam`` works in BeforeKickOff and
after a goal, in the robot's own half, in its team's frame (mirrored for the right team).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field

import numpy as np

from ..soccer import vision
from ..soccer.field import flags, lines
from ..soccer.nao import ROBOT_TYPES
from ..soccer.rules import Referee, SoccerRules, Team
from ..soccer.world import CYCLE, SoccerWorld
from . import perceptors as P
from . import trainer
from .messages import Beam, Effector, Init, JointVelocity, Pass, Say, Scene, Syn, TrainerCommand
from .monitor import GameState, full_header, update_header
from .scene import RobotView, SceneGraph, slt, transforms_of
from .sight import SEE_EVERY, Player, Sight, Viewer

log = logging.getLogger("simleague.simspark")

TEAM_SIZE = 11
MAX_OF_ONE_TYPE = 7                   # MaxRobotTypeCount
MAX_OF_TWO_TYPES = 9                  # MaxSumTwoRobotTypes
MIN_TYPES = 3                         # MinRobotTypesCount
HEAR_DISTANCE = 50.0                  # m, how far a say is heard


@dataclass
class Agent:
    """One agent connection: its robot (a world robot number, None before ``scene``), team side,
    team name and number once ``init`` gave them, and what it owes or is owed."""

    aid: int
    robot: int | None = None
    robot_type: int = 0
    team: Team | None = None
    unum: int | None = None
    tell_team: bool = False                       # the next GS carries unum and team
    joined: int = 0                               # cycle of the scene effector
    rng: np.random.Generator = field(default_factory=np.random.default_rng)
    calibration: np.ndarray = field(default_factory=lambda: np.zeros(3))   # its camera's error, m


class Game:
    """Agents, referee and world together. ``Game(rules, seed, noise)``.

    ``noise`` is the vision noise (:class:`simleague.soccer.vision.VisionNoise`; zero for exact
    values). Times are seconds, lengths metres, as the original."""

    def __init__(self, rules: SoccerRules | None = None, seed: int = 0,
                 noise: vision.VisionNoise | None = None):
        self.rules = rules or SoccerRules()
        seeds = np.random.SeedSequence(seed)
        world_seed, referee_seed, self._agent_seeds = seeds.spawn(3)
        self.world = SoccerWorld(self.rules, int(world_seed.generate_state(1)[0]))
        self.referee = Referee(self.rules, np.random.default_rng(referee_seed))
        self.noise = noise if noise is not None else vision.VisionNoise()
        self.sight = Sight(flags(self.rules), lines(self.rules), self.noise)
        self.agents: dict[int, Agent] = {}
        self.team_names: dict[Team, str | None] = {Team.LEFT: None, Team.RIGHT: None}
        self.scene_changed = True                 # monitors need a full state
        self._next_aid = 1
        self._said: list[tuple[Agent, str, np.ndarray]] = []
        self._heard: list[tuple[Agent, str, np.ndarray]] = []
        self.scene = SceneGraph(self.rules)
        self._monitor_state: GameState | None = None
        self.selection: int | None = None        # the agent a trainer selected
        self._seeing: tuple | None = None          # (cycle, {aid: See text}) of this cycle

    # ------------------------------------------------------------------------------ agents
    def connect(self) -> Agent:
        """A new agent connection (no robot yet)."""
        agent = Agent(self._next_aid, rng=np.random.default_rng(self._agent_seeds.spawn(1)[0]))
        self._next_aid += 1
        self.agents[agent.aid] = agent
        return agent

    def disconnect(self, aid: int) -> None:
        """The agent left: its robot leaves the field and its number is free again."""
        agent = self.agents.pop(aid, None)
        if agent is not None and agent.robot is not None:
            self.world.remove_robot(agent.robot)
            self.scene_changed = True

    def apply(self, agent: Agent, effectors: list[Effector]) -> list[str]:
        """Apply one message's effectors in order; returns a line per effector that the rules
        refuse (for the log; the agent is told nothing, as the original)."""
        problems = []
        for effector in effectors:
            problem = self._apply(agent, effector)
            if problem:
                problems.append(problem)
        return problems

    def _apply(self, agent: Agent, e: Effector) -> str | None:
        if isinstance(e, Scene):
            if agent.robot is not None:
                return "scene: this agent already has a robot"
            if e.robot_type not in ROBOT_TYPES:
                return f"scene: robot type {e.robot_type} does not exist"
            x, y = self._free_spawn()
            agent.robot = self.world.add_robot(e.robot_type, x, y, math.pi / 2)
            agent.robot_type, agent.joined = e.robot_type, self.world.cycle
            agent.calibration = self.noise.calibration_error(agent.rng)       # drawn once per robot
            self.scene_changed = True
            return None
        if agent.robot is None:
            return f"{type(e).__name__.lower()}: no robot yet; send (scene ...) first"
        if isinstance(e, JointVelocity):
            try:
                self.world.set_joint_velocity(agent.robot, e.joint, e.velocity)
            except KeyError:
                return f"{e.joint}: a robot of type {agent.robot_type} has no such joint"
            return None
        if isinstance(e, Syn):                      # the server paces sync mode
            return None
        if isinstance(e, Init):
            return self._init(agent, e)
        if isinstance(e, Beam):
            return self._beam(agent, e)
        if isinstance(e, Say):
            head, _ = self.world.pose(agent.robot, "head")
            self._said.append((agent, e.message, head))
            return None
        if isinstance(e, Pass):
            return self._pass(agent)
        return f"{e!r}: not an effector"                       # pragma: no cover - typed above

    def _free_spawn(self) -> tuple[float, float]:
        """Where a new robot appears: the first place of rows of places 1 m apart beside the
        field's -y side line with no robot within 0.7 m, so that robots that connect together
        never overlap (the original put them all on one spot)."""
        taken = [self.world.pose(rid, "torso")[0][:2] for rid in self.world.robots]
        hl, hw = self.rules.field_length / 2, self.rules.field_width / 2
        row = 0
        while True:
            for k in range(int(self.rules.field_length) - 1):
                spot = (-hl + 1.5 + k, -hw - 1.0 - row)
                if all(math.hypot(spot[0] - p[0], spot[1] - p[1]) > 0.7 for p in taken):
                    return spot
            row += 1

    def _init(self, agent: Agent, e: Init) -> str | None:
        if agent.team is not None:
            return f"init: already number {agent.unum} of {self.team_names[agent.team]}"
        team = next((t for t, name in self.team_names.items() if name == e.team), None)
        if team is None:
            team = next((t for t, name in self.team_names.items() if name is None), None)
            if team is None:
                return (f"init: refused, two teams play already ({self.team_names[Team.LEFT]} and "
                        f"{self.team_names[Team.RIGHT]})")
        mates = [a for a in self.agents.values() if a.team is team]
        taken = {a.unum for a in mates}
        if len(mates) >= TEAM_SIZE:
            return f"init: refused, {e.team} has {TEAM_SIZE} players already"
        unum = e.unum or min(n for n in range(1, TEAM_SIZE + 1) if n not in taken)
        if unum in taken:
            return f"init: refused, number {unum} of {e.team} is taken"
        types = [a.robot_type for a in mates] + [agent.robot_type]
        counts = sorted((types.count(t) for t in set(types)), reverse=True)
        if counts[0] > MAX_OF_ONE_TYPE:
            return f"init: refused, {e.team} would have more than {MAX_OF_ONE_TYPE} robots of type {agent.robot_type}"
        if sum(counts[:2]) > MAX_OF_TWO_TYPES:
            return f"init: refused, {e.team} would have more than {MAX_OF_TWO_TYPES} robots of two types"
        if len(counts) + (TEAM_SIZE - len(types)) < MIN_TYPES:
            return f"init: refused, {e.team} could no longer field {MIN_TYPES} robot types"
        self.team_names[team] = e.team
        agent.team, agent.unum, agent.tell_team = team, unum, True
        self.scene_changed = True                                   # the robot's materials changed
        return None

    def _pass(self, agent: Agent) -> str | None:
        if agent.team is None:
            return "pass: no team yet; send (init ...) first"
        ball, velocity = self.world.ball()
        def distance(a: Agent) -> float:
            x, y, _ = self.world.pose(a.robot, "torso")[0]
            return math.hypot(x - ball[0], y - ball[1])
        opponents = [distance(a) for a in self.agents.values() if a.team is agent.team.other and a.robot is not None]
        refused = self.referee.request_pass(agent.team, distance(agent), min(opponents, default=math.inf),
                                            float(np.linalg.norm(velocity)))
        return None if refused is None else f"pass: refused, {refused}"

    def _beam(self, agent: Agent, e: Beam) -> str | None:
        if agent.team is None:
            return "beam: no team yet; send (init ...) first"
        if not self.referee.may_beam(agent.team):
            return f"beam: not allowed in {self.referee.play_mode.wire}"
        hl, hw = self.rules.field_length / 2, self.rules.field_width / 2
        x = min(max(e.x, -hl), 0.0)                               # own half, in the team's frame
        y = min(max(e.y, -hw), hw)
        direction = e.deg
        if agent.team is Team.RIGHT:
            x, y, direction = -x, -y, direction + 180.0
        noise_xy, noise_angle = self.rules.beam_noise_xy, self.rules.beam_noise_angle
        x += agent.rng.uniform(-noise_xy, noise_xy)
        y += agent.rng.uniform(-noise_xy, noise_xy)
        direction += agent.rng.uniform(-noise_angle, noise_angle)
        self.world.place_robot(agent.robot, x, y, math.radians(direction))
        return None

    # ------------------------------------------------------------------------------ the cycle
    def expects_syn(self, agent: Agent) -> bool:
        """Sync mode: whether the cycle waits for ``agent``'s ``(syn)``: it has a robot and is
        past the 5-cycle grace of new agents (specs/simspark.md)."""
        return agent.robot is not None and self.world.cycle - agent.joined >= 5

    def step(self) -> None:
        """One cycle: the world moves 20 ms, the referee judges it, what was said is heard."""
        world = self.world
        world.step()
        teams = {a.robot: a.team for a in self.agents.values() if a.robot is not None}
        touched = {teams.get(r) for r in world.ball_touchers()} - {None}
        touched_by = next(iter(touched)) if len(touched) == 1 else None
        ball, _ = world.ball()
        placement = self.referee.step(CYCLE, tuple(ball), touched_by)
        if placement is not None:
            world.place_ball(placement.ball)
        self._keep_away()
        self._heard, self._said = self._said, []

    def _keep_away(self) -> None:
        """During a set piece (or a pass mode), the other team's robots nearer the ball than
        FreeKickDistance (PassModeMinOppBallDist) are put back on that circle, on the line from
        the ball through them, facing as they did (seed 002; :meth:`Referee.keep_away`)."""
        rule = self.referee.keep_away()
        if rule is None:
            return
        _, distance = rule
        ball, _ = self.world.ball()
        robots = {(a.team, a.aid): a for a in self.agents.values() if a.robot is not None and a.team is not None}
        where = {key: tuple(self.world.pose(a.robot, "torso")[0][:2]) for key, a in robots.items()}
        for key in self.referee.too_close(where, (ball[0], ball[1])):
            a = robots[key]
            dx, dy = where[key][0] - ball[0], where[key][1] - ball[1]
            norm = math.hypot(dx, dy)
            if norm < 1e-6:                             # on the ball: back towards its own goal
                dx, dy, norm = (-1.0 if a.team is Team.LEFT else 1.0), 0.0, 1.0
            self.world.place_robot(a.robot, ball[0] + dx / norm * distance, ball[1] + dy / norm * distance,
                                   self.world.heading(a.robot))

    # ------------------------------------------------------------------------------ perceptors
    def perceptors(self, agent: Agent) -> str | None:
        """The perceptor message of ``agent`` for this cycle (None before it has a robot), in
        the original's order: time, GS, hear, GYR, ACC, then per part HJ, See after the head's,
        FRP before its foot's joint (specs/simspark.md)."""
        if agent.robot is None:
            return None
        world, rid = self.world, agent.robot
        out = [P.time_perceptor(world.time)]
        if agent.tell_team:
            out.append(P.game_state_perceptor(self.referee, agent.team, agent.unum))
            agent.tell_team = False
        else:
            out.append(P.game_state_perceptor(self.referee))
        out += self._hear(agent)
        out.append(P.gyro_perceptor(np.degrees(world.gyro(rid))))              # the wire's deg/s
        out.append(P.accelerometer_perceptor(world.accelerometer(rid)))
        pressures = {p.name: p for p in world.pressures(rid)}
        angles = np.degrees(world.joint_angles(rid))                            # and degrees
        see = self._sight().get(agent.aid)
        i = 0
        for part in world.parts(rid):
            if part.pressure in pressures:
                p = pressures[part.pressure]
                out.append(P.pressure_perceptor(p.name, p.centre, p.force))
            if part.joint is not None:
                out.append(P.hinge_perceptor(part.joint.perceptor, angles[i]))
                i += 1
                if see is not None and part.name == "head":
                    out.append(see)
        return "".join(out)

    def _hear(self, agent: Agent) -> list[str]:
        out = []
        if not self._heard:
            return out
        head, rotation = self.world.pose(agent.robot, "head")
        for speaker, message, where in self._heard:
            name = self.team_names[speaker.team] if speaker.team is not None else "nobody"
            if speaker is agent:
                out.append(P.hear_perceptor(name, self.referee.time, None, message))
            elif np.linalg.norm(where - head) <= HEAR_DISTANCE:
                direction = vision.polar((where - head) @ rotation)[1]
                out.append(P.hear_perceptor(name, self.referee.time, direction, message))
        return out

    def _sight(self) -> dict[int, str]:
        """The ``See`` perceptor of every agent that sees this cycle (every third cycle from its
        robot's first), computed once per cycle for all of them together."""
        if self._seeing is not None and self._seeing[0] == self.world.cycle:
            return self._seeing[1]
        viewers = [Viewer(a.aid, a.robot, a.calibration, a.rng) for a in self.agents.values()
                   if a.robot is not None and (self.world.cycle - a.joined) % SEE_EVERY == 0]
        players = [Player(a.robot, self.team_names[a.team], a.unum) for a in self.agents.values()
                   if a.robot is not None and a.team is not None]
        result = self.sight.see(self.world, viewers, players)
        self._seeing = (self.world.cycle, result)
        return result

    # ------------------------------------------------------------------------------ monitors
    def _robots_in_scene(self) -> list[tuple[RobotView, np.ndarray]]:
        robots = []
        for agent in self.agents.values():
            if agent.robot is None:
                continue
            transforms = transforms_of(*self.world.poses(agent.robot))
            robots.append((RobotView(agent.aid, self.world.parts(agent.robot), agent.robot_type, agent.team, agent.unum),
                           transforms))
        return robots

    def monitor_message(self, full: bool = False) -> tuple[str, bool]:
        """The next message of the monitor stream and whether it is a full one: full when asked,
        when robots joined or left or got their team, else an update."""
        state = GameState.of(self.referee, self.team_names[Team.LEFT], self.team_names[Team.RIGHT])
        ball, _ = self.world.ball()
        ball_slt = slt(ball, np.eye(3))
        robots = self._robots_in_scene()
        if full or self.scene_changed or self._monitor_state is None:
            self.scene_changed = False
            self._monitor_state = state
            return full_header(self.rules, state) + self.scene.full(ball_slt, robots), True
        header = update_header(self._monitor_state, state)
        self._monitor_state = state
        return header + self.scene.update(ball_slt, robots), False

    # ------------------------------------------------------------------------------ trainer
    def trainer(self, commands: list[TrainerCommand], allow_kill_sim: bool = False) -> tuple[list[str], list[str], bool]:
        """Apply one trainer message's commands, parsed at the edge
        (:func:`~simleague.simspark.messages.parse_trainer_message`) as an agent's effectors are, in
        order (:mod:`simleague.simspark.trainer`). Returns (replies to send, problems to log,
        whether the simulator must stop). Refused commands are problems, never exceptions."""
        replies, problems, stop = [], [], False
        for command in commands:
            try:
                reply, quit_ = trainer.apply(self, command, allow_kill_sim)
            except (trainer.TrainerRefused, ValueError) as e:
                problems.append(f"trainer: {type(command).__name__}: {e}")
                continue
            if reply:
                replies.append(reply)
            stop = stop or quit_
        return replies, problems, stop
