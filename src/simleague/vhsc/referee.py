"""The referee of humanoid virtual soccer games (seed 000 "robot status"; specs/vhsc.md "GameController"):
the game states, the halves, goals, the ball leaving the field, penalties with the removal and
re-entry poses, red cards, and the ``RGme`` packet that tells the robots
(:mod:`simleague.vhsc.gamecontroller`). The referee decides and the caller acts, as the soccer
:class:`~simleague.soccer.rules.Referee` does: each call gets a :class:`FieldView` (the ball, who
touches it, the robots' poses) and returns the :data:`Action` list that carries the decisions out
(the ball or a robot placed, a robot's motors or sensors switched), which the server applies to
the world (:func:`simleague.vhsc.server.apply_actions`), as the original's automatic referee moves
the ball and the robots.

Flow of a half: ``initial`` until :meth:`start`; ``ready`` for ``ready_time`` s (robots walk to
their places, the ball waits on the centre spot); ``set`` for ``set_time`` s; ``playing`` until a
goal (then ``ready`` again, kick-off for the team that conceded) or the end of the half;
``finished``. After a half's ``finished`` and ``break_time`` s of break, the teams change ends,
every robot on the field is put at its ``halfTimeStartingPose`` and the next half begins with
``ready``, the other team kicking off. A knockout game (``overtime``) still drawn after the second
half plays two more halves of ``overtime_time`` s (the GameController's secondary state
``overtime``); a draw after them stays a draw (penalty shoot-outs are not refereed). Game time
runs only while playing.

Set plays (secondary states): the ball wholly over a touch line gives the other team than the
one that touched it last a throw-in, the ball on the line where it left; wholly over a goal line
and not in the goal, a corner kick (at that corner) when the defenders touched it last, else a
goal kick (at the corner of the goal area on that side). The set play is awarded (phase 0) and
prepared (phase 1) for ``set_play_times`` s while the ball is held on its spot, then executed
(phase 2) until the awarded team touches the ball or ``in_play_timeout`` s pass (the original's
IN_PLAY_TIMEOUT, 10 s).

Penalties are removals (30 s, the league's usual): the robot is taken off the field to its
``reentryStartingPose`` (outside the field by the touch line, facing the penalty mark; on the
side away from the ball, moved along x while another robot stands there: seed 000), its joints
set back to the model's pose and held, its commands ignored; when the penalty ends it is put
there again, upright, and its motors obey again. A robot lying down for ``fallen_timeout`` s
(the original's FALLEN_TIMEOUT, 20 s) is removed as incapable. A red card takes the robot off
for the rest of the game with its sensors and motors off.

While a kick-off is set and a set play is awarded or prepared, robots of the other team nearer
the ball than the free-kick distance (0.75 m, kid size) are moved away to it.

Not refereed (yet): pushing and other fouls between robots, ball holding, penalty kicks and
shoot-outs. Distances in metres, times in seconds of simulated
time, poses in each team's own frame (x towards the opponent's goal) mirrored for the team
playing on the right (specs/vhsc.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..soccer.rules import SoccerRules
from .config import Pose, TeamConfig
from .gamecontroller import (
    HL_PICKUP_OR_INCAPABLE,
    HL_SERVICE,
    RETURN_ALIVE,
    RETURN_MAN_PENALISE,
    STATE2_CORNER_KICK,
    STATE2_GOAL_KICK,
    STATE2_NORMAL,
    STATE2_THROW_IN,
    STATE_FINISHED,
    STATE_INITIAL,
    STATE_PLAYING,
    STATE_READY,
    STATE_SET,
    TEAM_BLUE,
    TEAM_RED,
    GameData,
    RobotInfo,
    TeamInfo,
)

PENALTY_REMOVAL = 30.0        # s: the league's removal penalty
FALLEN_TIMEOUT = 20.0         # s lying down before a robot is removed as incapable (the original's)
IN_PLAY_TIMEOUT = 10.0        # s after which a set play's ball is in play even if not touched
HALF_TIME_BREAK = 15.0        # s of simulated break between the halves (the original's)
OVERTIME_HALF = 300.0         # s of a knockout game's overtime half (the GameController's 5 min)
STATE2_OVERTIME = 2           # the GameController's secondary state of an overtime half
PENALTY_MARK = 1.5            # m from the goal line (kid size)
GOAL_AREA = (1.0, 3.0)        # m deep, m wide (kid size; vhsc.setup.MARKINGS has both leagues')
UPRIGHT = 0.5                 # a robot whose trunk's z axis has less than this z component lies down
CLEARANCE = 0.4               # m: a re-entry spot this near another robot is taken
HELD = 0.05                   # m: a set play's ball moved further than this is put back
EPS = 1e-9                    # s: times are sums of steps; a limit reached within this counts


def _other(colour: str) -> str:
    return "blue" if colour == "red" else "red"


def default_poses(number: int) -> tuple[Pose, Pose]:
    """(half-time starting pose, re-entry pose) for a robot whose team file gives none (tests,
    tools): in its own half on a line across the field; by the touch line, level with the
    penalty mark, facing the field."""
    return (Pose(translation=(-0.5 - 0.75 * (number - 1), 0.0, 0.0), rotation=(0.0, 0.0, 1.0, 0.0)),
            Pose(translation=(-3.0 + 0.6 * (number - 1), -3.4, 0.0), rotation=(0.0, 0.0, 1.0, math.pi / 2)))


Player = tuple[str, int]      # ("red" | "blue", player number)


@dataclass(frozen=True)
class FieldView:
    """What the referee looks at: the ``ball`` (x, y, z m), the players ``touching`` it, each
    player's ``poses`` (x, y m, yaw rad) and how ``upright`` it is (the z component of its
    trunk's z axis: 1 upright, 0 lying)."""

    ball: tuple[float, float, float]
    touching: frozenset = frozenset()
    poses: dict = field(default_factory=dict)
    upright: dict = field(default_factory=dict)


@dataclass(frozen=True)
class PlaceBall:
    """Put the ball at ``position`` (x, y, z m), at rest."""

    position: tuple[float, float, float]


@dataclass(frozen=True)
class PlaceRobot:
    """Put ``player``'s robot upright at (``x``, ``y``) facing ``yaw`` rad, at rest; with
    ``rest_joints`` also its joints back at the model's pose, held."""

    player: Player
    x: float
    y: float
    yaw: float
    rest_joints: bool = False


@dataclass(frozen=True)
class SwitchRobot:
    """``player``'s motors obey (``motors``) or not, its sensors report (``sensors``) or not."""

    player: Player
    motors: bool
    sensors: bool = True


Action = PlaceBall | PlaceRobot | SwitchRobot


@dataclass
class _Player:
    colour: str
    number: int
    info: RobotInfo
    half_time_pose: Pose
    reentry_pose: Pose
    penalised_until: float = 0.0
    down_since: float | None = None
    alive_at: float | None = None             # referee clock of its last RGrt "alive"


class HumanoidReferee:
    """``HumanoidReferee(rules, players, teams=None, team_numbers=None, left="red",
    kick_off="red", ready_time=30, set_time=5, half_time=600, halves=2, overtime=False,
    overtime_time=300, break_time=15, set_play_times=(3, 2), in_play_timeout=10,
    fallen_timeout=20, goal_area=(1, 3))``: ``rules`` the field's sizes, ``players`` the ("red"|"blue", number) in
    the game, ``teams`` the colours' team files (for the poses; :func:`default_poses` without),
    ``team_numbers`` the colours' GameController team numbers (red 1, blue 2), ``left`` the
    colour starting on the left (defending x < 0), ``kick_off`` the colour kicking off first,
    ``goal_area`` (depth, width m) where goal kicks are taken.
    ValueError for ``halves`` other than 1 or 2 or a colour that is not red or blue.

    State: :attr:`state` (``STATE_*``), :attr:`half` (1, 2; 3, 4 in overtime), :attr:`left`,
    :attr:`score`, :attr:`kick_off`, :attr:`played` (game time of the half, s),
    :attr:`secondary` (``STATE2_*``) with :attr:`set_play_team` and :attr:`phase`,
    :attr:`last_touch`, :attr:`game_over`."""

    def __init__(self, rules: SoccerRules, players, teams: dict[str, TeamConfig] | None = None,
                 team_numbers: dict[str, int] | None = None, left: str = "red", kick_off: str = "red",
                 ready_time: float = 30.0, set_time: float = 5.0, half_time: float = 600.0, halves: int = 2,
                 overtime: bool = False, overtime_time: float = OVERTIME_HALF,
                 break_time: float = HALF_TIME_BREAK, set_play_times: tuple[float, float] = (3.0, 2.0),
                 in_play_timeout: float = IN_PLAY_TIMEOUT, fallen_timeout: float = FALLEN_TIMEOUT,
                 goal_area: tuple[float, float] = GOAL_AREA):
        if halves not in (1, 2):
            raise ValueError(f"a game has 1 or 2 halves, not {halves}")
        if left not in ("red", "blue") or kick_off not in ("red", "blue"):
            raise ValueError(f"left and kick_off are red or blue, not {left!r} and {kick_off!r}")
        self.rules = rules
        self.numbers = team_numbers or {"red": 1, "blue": 2}
        self.ready_time, self.set_time, self.half_time, self.halves = ready_time, set_time, half_time, halves
        self.overtime, self.overtime_time = overtime, overtime_time
        self.break_time, self.set_play_times = break_time, set_play_times
        self.in_play_timeout, self.fallen_timeout, self.goal_area = in_play_timeout, fallen_timeout, goal_area
        self.players: dict[Player, _Player] = {}
        for colour, number in players:
            poses = default_poses(number)
            if teams is not None and number in teams[colour].players:
                config = teams[colour].players[number]
                poses = (config.half_time_starting_pose, config.reentry_starting_pose)
            self.players[(colour, number)] = _Player(colour, number, RobotInfo(goalkeeper=number == 1), *poses)
        self.state, self.half, self.left = STATE_INITIAL, 1, left
        self.score = {"red": 0, "blue": 0}
        self.kick_off = self.first_kick_off = kick_off
        self.secondary, self.set_play_team, self.phase = STATE2_NORMAL, "red", 0
        self._spot: tuple[float, float] | None = None    # where a set play's ball waits
        self.last_touch: str | None = None
        self.clock = 0.0               # seconds since the referee began
        self.played = 0.0              # game time of the half
        self._since = 0.0              # when the state began
        self._phase_since = 0.0        # when the set play's phase began
        self.changed = True            # the packet changed since it was last taken
        self._actions: list[Action] = []
        self._view = FieldView((0.0, 0.0, 0.0))

    def _act(self, view: FieldView) -> list[Action]:
        """Begin a decision on ``view``; :meth:`_done` hands out what it decided."""
        self._view, self._actions = view, []
        return self._actions

    def _done(self) -> list[Action]:
        actions, self._actions = self._actions, []
        return actions

    def _place_ball(self, x: float, y: float) -> None:
        self._actions.append(PlaceBall((x, y, self.rules.ball_radius)))
        self._view = FieldView((x, y, self.rules.ball_radius), self._view.touching, self._view.poses,
                               self._view.upright)

    # ------------------------------------------------------------------------------- flow
    @property
    def game_over(self) -> bool:
        """The last half is finished (a knockout game drawn after its second half goes on)."""
        if self.state != STATE_FINISHED:
            return False
        drawn = self.score["red"] == self.score["blue"]
        return self.half == 4 or (self.half == self.halves and not (self.overtime and drawn and self.halves == 2))

    @property
    def half_length(self) -> float:
        """Seconds of play in the current half."""
        return self.overtime_time if self.half > 2 else self.half_time

    def start(self, view: FieldView) -> list[Action]:
        """Leave ``initial``: the robots get ``ready``."""
        self._act(view)
        if self.state == STATE_INITIAL:
            self._kick_off_position()
            self._set(STATE_READY)
        return self._done()

    def _set(self, state: int) -> None:
        self.state, self._since, self.changed = state, self.clock, True

    def _end_set_play(self) -> None:
        normal = STATE2_OVERTIME if self.half > 2 else STATE2_NORMAL
        self.secondary, self.phase, self._spot, self.changed = normal, 0, None, True

    def _kick_off_position(self) -> None:
        self._end_set_play()
        if self.half > 2:
            self.secondary = STATE2_OVERTIME
        self._spot = (0.0, 0.0)
        self._place_ball(0.0, 0.0)

    def step(self, dt: float, view: FieldView) -> list[Action]:
        """One basic step of ``dt`` s, after the world's step; returns what to do."""
        self._act(view)
        self._step(dt)
        return self._done()

    def _step(self, dt: float) -> None:
        self.clock += dt
        self._penalties()
        touched = {colour for colour, _ in self._view.touching}
        if len(touched) == 1:
            self.last_touch = next(iter(touched))
        since = self.clock - self._since
        if self.state == STATE_FINISHED:
            if not self.game_over and since >= self.break_time - EPS:
                self._next_half()
            return
        if self.state in (STATE_READY, STATE_SET):
            self._hold_ball()
            if self.state == STATE_SET:
                self._keep_away(self.kick_off, (0.0, 0.0))
            if self.state == STATE_READY and since >= self.ready_time - EPS:
                self._set(STATE_SET)
            elif self.state == STATE_SET and since >= self.set_time - EPS:
                self._spot = None
                self._set(STATE_PLAYING)
            return
        if self.state != STATE_PLAYING:
            return
        self.played += dt
        if self.played >= self.half_length - EPS:
            self._end_set_play()
            self._set(STATE_FINISHED)
            return
        self._fallen()
        if self.secondary not in (STATE2_NORMAL, STATE2_OVERTIME) and self._set_play(touched):
            return
        self._ball_out()

    def _next_half(self) -> None:
        """Ends changed, every robot on the field at its half-time pose, the other team (of the
        one that kicked off the game) kicking off in halves 2 and 4."""
        self.half, self.played, self.left = self.half + 1, 0.0, _other(self.left)
        self.kick_off = self.first_kick_off if self.half % 2 else _other(self.first_kick_off)
        for p in self.players.values():
            if not p.info.penalty and not p.info.red_cards:
                x, y, yaw = self._field_pose(p, p.half_time_pose)
                self._actions.append(PlaceRobot((p.colour, p.number), x, y, yaw, rest_joints=True))
                p.down_since = None
        self._kick_off_position()
        self._set(STATE_READY)

    def _hold_ball(self) -> None:
        """Keep a waiting ball on its spot (the kick-off's, a set play's)."""
        if self._spot is None:
            return
        ball = self._view.ball
        if math.hypot(ball[0] - self._spot[0], ball[1] - self._spot[1]) > HELD:
            self._place_ball(*self._spot)

    # ------------------------------------------------------------------------------- the ball
    def _ball_out(self) -> None:
        """A goal, or the ball wholly over a line: the kick-off or set play that follows."""
        r, rules = self.rules.ball_radius, self.rules
        x, y, z = self._view.ball
        half_l, half_w = rules.field_length / 2, rules.field_width / 2
        if abs(x) > half_l + r:
            side = 1 if x > 0 else -1                            # the goal at +x is the right team's
            attacker = self.left if side > 0 else _other(self.left)
            if abs(y) < rules.goal_width / 2 and z < rules.goal_height:
                self.score[attacker] += 1
                self.kick_off = _other(attacker)
                self._kick_off_position()
                self._set(STATE_READY)
            elif self.last_touch == _other(attacker):           # the defenders put it out
                self._award(STATE2_CORNER_KICK, attacker, (side * half_l, math.copysign(half_w, y)))
            else:
                depth, width = self.goal_area
                self._award(STATE2_GOAL_KICK, _other(attacker),
                            (side * (half_l - depth), math.copysign(width / 2, y)))
        elif abs(y) > half_w + r:
            taker = _other(self.last_touch) if self.last_touch else (_other(self.left) if x > 0 else self.left)
            self._award(STATE2_THROW_IN, taker, (min(max(x, -half_l), half_l), math.copysign(half_w, y)))

    def _award(self, kind: int, team: str, spot: tuple[float, float]) -> None:
        self.secondary, self.set_play_team, self.phase, self._spot = kind, team, 0, spot
        self._phase_since, self.changed = self.clock, True
        self._place_ball(*spot)

    def _set_play(self, touched: set[str]) -> bool:
        """Advance the set play; True while its ball is held (phases 0 and 1)."""
        since = self.clock - self._phase_since
        if self.phase < 2:
            if since >= self.set_play_times[self.phase] - EPS:
                self.phase, self._phase_since, self.changed = self.phase + 1, self.clock, True
                if self.phase == 2:
                    self._spot = None
                    return False
            self._hold_ball()
            self._keep_away(self.set_play_team, self._spot)
            return True
        if self.set_play_team in touched or since >= self.in_play_timeout - EPS:
            self._end_set_play()
        return False

    # ------------------------------------------------------------------------------- robots
    def _keep_away(self, team: str, spot: tuple[float, float]) -> None:
        """The free-kick distance: every robot of the other team on the field nearer than
        ``rules.free_kick_distance`` to ``spot`` (the ball of a kick-off or set play) is moved
        straight away from it to just beyond that distance, keeping its heading (as the soccer
        world does for SimSpark games)."""
        distance = self.rules.free_kick_distance
        for p in self.players.values():
            if p.colour == team or p.info.penalty or p.info.red_cards:
                continue
            x, y, yaw = self._view.poses[(p.colour, p.number)]
            dx, dy = x - spot[0], y - spot[1]
            d = math.hypot(dx, dy)
            if d >= distance:
                continue
            if d < 1e-6:                                         # on the spot: towards its own goal
                dx, dy, d = (-1.0 if p.colour == self.left else 1.0), 0.0, 1.0
            k = (distance + 0.05) / d
            self._actions.append(PlaceRobot((p.colour, p.number), spot[0] + dx * k, spot[1] + dy * k, yaw))

    def _field_pose(self, p: _Player, pose: Pose) -> tuple[float, float, float]:
        """A pose of the team's own frame on the field now: (x, y, yaw)."""
        if p.colour != self.left:
            pose = pose.mirrored()
        return pose.translation[0], pose.translation[1], pose.yaw

    def _reentry_spot(self, p: _Player) -> tuple[float, float, float]:
        """The re-entry pose on the side away from the ball, moved along x (towards the team's
        own goal first) while another robot stands within CLEARANCE."""
        x, y, yaw = self._field_pose(p, p.reentry_pose)
        if y * self._view.ball[1] > 0:                            # the ball on that side: mirror
            y, yaw = -y, -yaw
        own_goal = -1 if p.colour == self.left else 1
        others = [self._view.poses[key][:2] for key, q in self.players.items() if q is not p]
        for k in range(12):
            dx = own_goal * 0.5 * ((k + 1) // 2) * (1 if k % 2 else -1) if k else 0.0
            if all(math.hypot(x + dx - ox, y - oy) >= CLEARANCE for ox, oy in others):
                return x + dx, y, yaw
        return x, y, yaw

    def _remove(self, p: _Player, x: float, y: float, yaw: float, sensors: bool = True) -> None:
        key = (p.colour, p.number)
        self._actions += [PlaceRobot(key, x, y, yaw, rest_joints=True), SwitchRobot(key, motors=False, sensors=sensors)]
        p.down_since = None

    def penalise(self, colour: str, player: int, view: FieldView, seconds: float = PENALTY_REMOVAL,
                 reason: int = HL_PICKUP_OR_INCAPABLE) -> list[Action]:
        """Remove a robot for ``seconds`` with the GameController penalty code ``reason``: it is
        put at its re-entry spot, joints held, commands ignored. KeyError for no such robot; a
        robot with a red card stays as it is."""
        self._act(view)
        self._penalise(self.players[(colour, player)], seconds, reason)
        return self._done()

    def _penalise(self, p: _Player, seconds: float, reason: int) -> None:
        if p.info.red_cards:
            return
        p.info.penalty, p.penalised_until = reason, self.clock + seconds
        p.info.secs_till_unpenalised = math.ceil(seconds)
        self._remove(p, *self._reentry_spot(p))
        self.changed = True

    def red_card(self, colour: str, player: int, view: FieldView) -> list[Action]:
        """A red card: the robot leaves the field for the rest of the game (2 m beyond its
        re-entry spot), its sensors and motors off. KeyError for no such robot."""
        self._act(view)
        p = self.players[(colour, player)]
        p.info.red_cards += 1
        p.info.penalty, p.info.secs_till_unpenalised = 0, 0
        x, y, yaw = self._reentry_spot(p)
        self._remove(p, x, y + math.copysign(2.0, y), yaw, sensors=False)
        p.penalised_until = math.inf
        self.changed = True
        return self._done()

    def _penalties(self) -> None:
        """Penalties that end come back at their re-entry spot; the seconds left count down."""
        for p in self.players.values():
            if not p.info.penalty:
                continue
            if self.clock >= p.penalised_until - EPS:
                p.info.penalty, p.info.secs_till_unpenalised = 0, 0
                x, y, yaw = self._reentry_spot(p)
                key = (p.colour, p.number)
                self._actions += [PlaceRobot(key, x, y, yaw), SwitchRobot(key, motors=True)]
                self.changed = True
            else:
                left = math.ceil(p.penalised_until - self.clock - 1e-9)
                self.changed |= left != p.info.secs_till_unpenalised
                p.info.secs_till_unpenalised = left

    def _fallen(self) -> None:
        """A robot lying down for ``fallen_timeout`` s is removed as incapable."""
        for p in self.players.values():
            if p.info.penalty or p.info.red_cards:
                continue
            if self._view.upright.get((p.colour, p.number), 1.0) >= UPRIGHT:
                p.down_since = None
            elif p.down_since is None:
                p.down_since = self.clock
            elif self.clock - p.down_since >= self.fallen_timeout - EPS:
                self._penalise(p, PENALTY_REMOVAL, HL_PICKUP_OR_INCAPABLE)

    # ------------------------------------------------------------------------------- RGrt
    def robot_message(self, team: int, player: int, message: int,
                      view: FieldView) -> tuple[bool, str, list[Action]]:
        """Act on a robot's ``RGrt`` (team number, player number, message 0-2): "alive" is
        noted (:meth:`alive`), "manually penalised" (the robot asks to be taken out) removes it
        for service, "manually unpenalised" is ignored (only the referee lifts a penalty).
        Returns (whether the game changed, what was done, for the log, and the actions)."""
        colour = next((c for c, n in self.numbers.items() if n == team), None)
        p = self.players.get((colour, player)) if colour else None
        if p is None:
            return False, f"RGrt from team {team} player {player}: no such robot in this game, ignored", []
        if message == RETURN_ALIVE:
            p.alive_at = self.clock
            return False, f"{colour} {player} alive", []
        if message == RETURN_MAN_PENALISE:
            if not p.info.penalty and not p.info.red_cards:
                actions = self.penalise(colour, player, view, reason=HL_SERVICE)
                return True, f"{colour} {player} asked to be taken out: removed for service", actions
            return False, f"{colour} {player} asked to be taken out: already off the field", []
        return False, f"{colour} {player} asked to be unpenalised: ignored, only the referee lifts a penalty", []

    def alive(self, colour: str, within: float = 5.0) -> int:
        """How many robots of ``colour`` said "alive" in the last ``within`` s."""
        return sum(1 for p in self.players.values()
                   if p.colour == colour and p.alive_at is not None and self.clock - p.alive_at <= within)

    # ------------------------------------------------------------------------------- RGme
    def game_data(self, packet_number: int) -> GameData:
        """The ``RGme`` packet of the game now."""
        teams = []
        for colour, code in (("red", TEAM_RED), ("blue", TEAM_BLUE)):
            team = TeamInfo(self.numbers[colour], code, self.score[colour])
            for (c, n), p in self.players.items():
                if c == colour and 1 <= n <= len(team.players):
                    team.players[n - 1] = p.info
            teams.append(team)
        info, secondary_time = b"\0\0\0\0", 0
        if self.secondary not in (STATE2_NORMAL, STATE2_OVERTIME):
            info = bytes([self.numbers[self.set_play_team], self.phase, 0, 0])
            limit = self.set_play_times[self.phase] if self.phase < 2 else self.in_play_timeout
            secondary_time = max(0, math.ceil(limit - (self.clock - self._phase_since)))
        self.changed = False
        return GameData((teams[0], teams[1]), packet_number=packet_number,
                        players_per_team=max(n for _, n in self.players) if self.players else 0,
                        state=self.state, first_half=self.half % 2 == 1, kick_off_team=self.numbers[self.kick_off],
                        secondary_state=self.secondary, secondary_state_info=info,
                        secs_remaining=max(0, math.ceil(self.half_length - self.played - 1e-9)),
                        secondary_time=secondary_time)
