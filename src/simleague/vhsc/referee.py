"""The referee of humanoid virtual soccer games (seed 000 "robot status"; specs/vhsc.md "GameController"),
doing what the league's automatic referee and its GameController do together (the league's simulator
repository, controllers/referee and referee_config.yaml, and what its test scenarios expect, issue
31). The referee decides and the caller acts, as the soccer :class:`~simleague.soccer.rules.Referee`
does: each call gets a :class:`FieldView` (the ball, who touches it, the robots' poses, where they
touch the ground, their speeds, which robots touch each other, where their hands and feet are) and
returns the :data:`Action` list that carries the decisions out (the ball or a robot placed, a
robot's motors or sensors switched), which the server applies to the world
(:func:`simleague.vhsc.server.apply_actions`).

**Game flow.** A half starts in ``initial`` (the ball away from the field) until :meth:`start`; the
robots must then stand outside the field in their own half (their half-time starting poses), or
they are penalised. ``ready`` (``ready_time`` s, the ball still away), ``set`` (``set_time`` s; the
ball on the centre spot; a robot outside its half or the field, or of the defending team inside the
centre circle, is penalised; these penalties end when the kick-off is played), ``playing``. The
game clock of a half (``half_time`` s) starts at its first ``playing`` and then runs until the half
ends, through the ``ready`` and ``set`` after a goal. After a first half the state is ``initial``
again for ``break_time`` s: ends changed, every robot at its half-time starting pose, the other team
kicking off. A second half ends the game (``finished``), unless a knockout game (``overtime``) is
drawn: two halves of ``overtime_time`` s follow (secondary state overtime), and a penalty
shoot-out if still drawn.

**Kick-off.** The ball is in play once touched and moved 5 cm, or 10 s after ``playing`` began;
before that a defender touching it or entering the centre circle is penalised. A goal counts only
once the ball left the centre circle and was touched again, or was touched by another robot than
the kicker; otherwise a goal kick follows. After a goal the team that conceded kicks off. A ball
in play that has not moved for 120 s is a dropped ball: ``ready`` and ``set`` again (kick-off team
128), everyone outside the centre circle in its own half.

**Set plays** (secondary states), awarded to the team that did not touch the ball last: the ball
wholly over a touch line, a throw-in on the line where it left; over the goal line, not in the
goal, a corner kick when the defenders touched it last, else a goal kick at the crossing of the
half-way line and the touch line on that side (the league's simulation rule). Phase 0 lasts
``set_play_times[0]`` s; then the ball is put on its spot (penalised robots near it moved, fallen
robots penalised, else another spot, else robots moved ``place_distance`` m away) and phase 1 lasts
``set_play_times[1]`` s, phase 2 ``set_play_times[2]`` s. In phases 1 and 2 an opponent touching
the ball gets a warning and the set play starts again (retake); the awarded team touching it gets
a warning and the ball is in play (abort). When the set play is executed, opponents nearer the
ball than ``rules.free_kick_distance`` are penalised, and so until the ball is in play (touched
and moved 5 cm, or 10 s). A throw-in straight into the opponents' goal, or a set play's ball into
the own goal before another touch, is no goal: a goal or corner kick instead.

**Fouls.** A robot that charges or pushes an opponent (:meth:`_charges`: the league's rules on
speed, direction and distance to the ball) is penalised (physical contact, 31) far from the ball
or while it is not in play, else the other team gets a direct free kick there, a penalty kick
when the ball lies in the offender's penalty area (at execution: defenders off the area between
mark and goal line but the goalkeeper on its line, one striker). A team whose robots' hands and
feet enclose the ball for more than half of 5 s holds it: a free kick for the other team. A
goalkeeper standing in its goal area within 0.5 m of the ball for 20 s without coming 5 cm nearer
it is penalised.

**Penalties** (the GameController's codes; 30 s by default) take the robot to its
``reentryStartingPose`` moved to the penalty mark's x, on the side away from the ball (another
spot 0.6 m along while one is taken), joints held, commands ignored; the time counts down while
the ball is in play or the robots get ready, and the robot plays on from where it stands. A robot
lying down for ``fallen_timeout`` s, more than 20 s outside the turf, or not where it should be
(above) is penalised as incapable (34); a penalised robot entering the field gets a yellow card
and a new penalty. Two warnings make a yellow card, two yellow cards a red card: the robot leaves
for the rest of the game, sensors and motors off.

**Penalty shoot-out** (a PENALTY game, or a knockout game drawn after overtime): penalties in
turn, the kick-off team first, always at the same goal (ends change between penalties); for each,
15 s of ``set`` with the kicker at its ``shootoutStartingPose``, the defending goalkeeper at its
``goalKeeperStartingPose`` (it must stay on its goal line until the ball is in play), everyone
else at the half-time pose, then up to 60 s of ``playing``: over at a goal, the ball out of the
field or lying still in the goal area, the kicker in the goal area, fallen or fouling. Five each,
then five more each if drawn; over early when one team cannot catch up.

Distances in metres, times in seconds of simulated time, poses in each team's own frame (x towards
the opponent's goal) mirrored for the team playing on the right (specs/vhsc.md).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field, replace

from ..soccer.geometry import EPS, ball_out, nearer_than
from ..soccer.rules import SoccerRules
from .config import Pose, TeamConfig
from .gamecontroller import (
    DROPPED_BALL_TEAM,
    HL_PHYSICAL_CONTACT,
    HL_PICKUP_OR_INCAPABLE,
    HL_SERVICE,
    RETURN_ALIVE,
    RETURN_MAN_PENALISE,
    STATE2_CORNER_KICK,
    STATE2_DIRECT_FREEKICK,
    STATE2_GOAL_KICK,
    STATE2_NORMAL,
    STATE2_OVERTIME,
    STATE2_PENALTY_KICK,
    STATE2_PENALTY_SHOOT,
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
from .options import COLOURS, SET_PLAY_TIMES, Colour, GameOptions, other
from .positions import LINE, Footing, encloses, footing
from .setup import MARKINGS

PENALTY_REMOVAL = 30.0        # s: the league's removal penalty
OUTSIDE_TURF_TIMEOUT = 20.0   # s wholly outside the turf before a robot is removed
IN_PLAY_MOVE = 0.05           # m the ball must move after its first touch to be in play
DROPPED_BALL_TIMEOUT = 120.0  # s a ball in play may lie still before a dropped ball
ACTUATORS_OFF = 1.0           # s a robot put somewhere by the referee stays without motors
SETTLE = 0.04                 # s after which a robot put somewhere is put there again (5 steps)
SHOOTOUT_SET_TIME = 15.0      # s in set before each penalty of a shoot-out
SHOOTOUT_TRIAL_TIME = 60.0    # s a penalty of a shoot-out lasts at most
SHOOTOUT_KICKS = 10           # penalties of a shoot-out (5 a team), then 10 more if still drawn
INVALID_GOALKEEPER_TIMEOUT = 1.0    # s a shoot-out's goalkeeper may be off its goal line
STATIC_SPEED = 0.01           # m/s: a slower ball lies still
BALL_AWAY = (100.0, 100.0)    # where the ball waits while the referee holds it
UPRIGHT = 0.5                 # a robot whose trunk's z axis has less than this z component lies down
KICK_OFF, DROPPED = "kick-off", "dropped ball"
# forceful contact (the league's referee_config.yaml)
FOUL_PUSHING_TIME = 1.0       # s of contact within FOUL_PUSHING_PERIOD that is pushing
FOUL_PUSHING_PERIOD = 2.0     # s
FOUL_VICINITY = 2.0           # m from the ball within which charging counts
FOUL_DISTANCE = 0.1           # m: a robot this much further from the ball than the other is behind it
FOUL_SPEED = 0.2              # m/s: slower robots commit no foul and move towards the ball whatever their heading
FOUL_DIRECTION = math.radians(30)   # a robot heading within this of the ball moves towards it
FOUL_BALL_DISTANCE = 1.0      # m: a foul further from the ball is a removal penalty, nearer a free kick
FOUL_IMMUNITY = 2.0           # s after a foul or penalty in which a robot commits no foul
SPEED_WINDOW = 1.0            # s over which robots' velocities are averaged
GOAL_LINE_WIDTH = 2.6         # m either side of the centre where a goalkeeper counts as on its goal line
INACTIVE_GOALKEEPER_TIMEOUT = 20.0  # s a goalkeeper near the ball in its goal area may not come nearer
INACTIVE_GOALKEEPER_DISTANCE = 0.5  # m: a goalkeeper further from the ball is not inactive
INACTIVE_GOALKEEPER_PROGRESS = 0.05  # m nearer the ball that counts as moving towards it
HISTORY_PERIOD = 1.0          # s between two notes of a goalkeeper's distance to the ball
BALL_HOLDING_TIMEOUT = 5.0    # s: a team whose robots enclose the ball more than half of this holds it
BALL_HOLDING_RATIO = 1 / 3    # of the ball's radius: the circle that must touch the robots' hands and feet


def default_poses(number: int) -> tuple[Pose, Pose]:
    """(half-time starting pose, re-entry pose) for a robot whose team file gives none (tests,
    tools): in its own half beside the field's touch line, facing the field; by the touch line,
    level with the penalty mark, facing the field."""
    return (Pose(translation=(-0.5 - 0.75 * (number - 1), -3.3, 0.0), rotation=(0.0, 0.0, 1.0, math.pi / 2)),
            Pose(translation=(-3.0, -3.4, 0.0), rotation=(0.0, 0.0, 1.0, math.pi / 2)))


Player = tuple[Colour, int]   # (colour, player number)


@dataclass(frozen=True)
class FieldView:
    """What the referee looks at: the ``ball`` (x, y, z m), the players ``touching`` it, each
    player's ``poses`` (x, y m, yaw rad), how ``upright`` it is (the z component of its trunk's z
    axis: 1 upright, 0 lying), its ``footprints`` (the points (x, y) where it touches the ground;
    a player missing there is in the air) and ``velocities`` ((vx, vy) m/s), the
    ``contacts``: pairs of players touching each other, and each player's ``extremities``: the
    (x, y) of its hands and feet."""

    ball: tuple[float, float, float]
    touching: frozenset = frozenset()
    poses: dict = field(default_factory=dict)
    upright: dict = field(default_factory=dict)
    footprints: dict = field(default_factory=dict)
    velocities: dict = field(default_factory=dict)
    contacts: frozenset = frozenset()
    extremities: dict = field(default_factory=dict)


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
    colour: Colour
    number: int
    info: RobotInfo
    half_time_pose: Pose
    reentry_pose: Pose
    shootout_pose: Pose | None = None
    goalkeeper_pose: Pose | None = None
    penalty_left: float = 0.0                  # s of penalty still to count down
    down_since: float | None = None
    alive_at: float | None = None             # referee clock of its last RGrt "alive"
    footing: Footing = field(default_factory=Footing)
    outside_turf_since: float | None = None
    motors_at: float | None = None            # when its motors obey again (after being placed)
    for_kick_off: bool = False                # penalised for where it stood before a kick-off
    settle: tuple | None = None               # (when, x, y, yaw): put there again once it settled
    immune_until: float = 0.0                 # commits no foul before this
    speeds: deque = field(default_factory=deque)    # (vx, vy) of the last SPEED_WINDOW s
    history: deque = field(default_factory=deque)   # (time, distance to the ball, in its goal area)

    def velocity(self) -> tuple[float, float]:
        """Its velocity averaged over the last second, (vx, vy) m/s."""
        if not self.speeds:
            return 0.0, 0.0
        n = len(self.speeds)
        return sum(v[0] for v in self.speeds) / n, sum(v[1] for v in self.speeds) / n

    @property
    def off(self) -> bool:
        """Penalised or sent off."""
        return bool(self.info.penalty or self.info.red_cards)


class HumanoidReferee:
    """The referee of one game (see the module's text).

    Args:
        rules: the field's sizes (:data:`~simleague.vhsc.setup.KID_FIELD` or ``ADULT_FIELD``).
        players: the ("red"|"blue", number) in the game.
        teams: the colours' team files, for the poses (:func:`default_poses` without).
        options: how the game is played (:class:`GameOptions`).

    State: :attr:`state` (``STATE_*``), :attr:`half` (1, 2; 3, 4 in overtime), :attr:`left`,
    :attr:`score`, :attr:`kick_off`, :attr:`played` (game time of the half, s),
    :attr:`secondary` (``STATE2_*``) with :attr:`set_play_team` and :attr:`phase`,
    :attr:`last_touch` (the colour), :attr:`in_play`, :attr:`game_over`."""

    def __init__(self, rules: SoccerRules, players, teams: dict[str, TeamConfig] | None = None,
                 options: GameOptions = GameOptions()):
        o = options
        left, kick_off, shootout = o.left, o.kick_off, o.shootout
        self.rules = rules
        self.markings = o.markings or MARKINGS["kid"]
        kid = rules.free_kick_distance < 1.0
        self.place_distance = 0.5 if kid else 1.0    # m robots are moved from a set play's ball
        self.robot_radius = 0.3 if kid else 0.5      # m: a re-entry spot this near another robot is taken
        self.spot_offset = 0.6 if kid else 1.0       # m between re-entry spots
        self.numbers = dict(o.team_numbers)
        self.ready_time, self.set_time, self.half_time, self.halves = o.ready_time, o.set_time, o.half_time, o.halves
        self.overtime, self.overtime_time = o.overtime, o.overtime_time
        self.break_time = o.break_time
        self.set_play_times = (*o.set_play_times, *SET_PLAY_TIMES[len(o.set_play_times):])
        self.in_play_timeout, self.fallen_timeout = o.in_play_timeout, o.fallen_timeout
        self.players: dict[Player, _Player] = {}
        for colour, number in players:
            poses = (*default_poses(number), None, None)
            if teams is not None and number in teams[colour].players:
                config = teams[colour].players[number]
                poses = (config.half_time_starting_pose, config.reentry_starting_pose,
                         config.shootout_starting_pose, config.goal_keeper_starting_pose)
            self.players[(colour, number)] = _Player(colour, number, RobotInfo(goalkeeper=number == 1), *poses)
        self.state, self.half, self.left = STATE_INITIAL, 1, left
        self.score = {"red": 0, "blue": 0}
        self.kick_off = self.first_kick_off = kick_off
        self.secondary, self.set_play_team, self.phase = STATE2_NORMAL, "red", 0
        self.clock = 0.0               # seconds since the referee began
        self.played = 0.0              # game time of the half
        self._clock_runs = False       # the half's game clock started
        self._since = 0.0              # when the state began
        self._phase_since = 0.0        # when the set play's phase began
        self.changed = True            # the packet changed since it was last taken
        self._actions: list[Action] = []
        self._away_pending = False     # the ball is to be taken away from the field
        self._view = FieldView(BALL_AWAY + (rules.ball_radius,))
        # the ball after a kick-off or set play (the league's referee, game.py)
        self.restart: str | int = KICK_OFF   # KICK_OFF, DROPPED or the set play's STATE2_*
        self._spot = (0.0, 0.0)        # where the ball is put for it
        self._ball_waits = True        # the ball is still to be put there
        self._must_kick = kick_off     # the team that restarts
        self.in_play: float | None = None
        self._in_play_from: float | None = None   # when the 10 s before the ball is in play began
        self._kicker: Player | None = None        # the first robot that touched the ball since
        self._first_touch: float | None = None
        self.last_touch: str | None = None
        self._last_toucher: Player | None = None
        self._last_touch_at = 0.0
        self._left_circle: float | None = None
        self.can_score = self.can_score_own = False
        self._ball = self._view.ball
        self._ball_moved_at = 0.0
        self.shootout, self.kicks = shootout, 0           # a shoot-out is on; penalties taken
        self.shots = {"red": [], "blue": []}             # per team, each penalty: scored
        self._off_line_since: float | None = None        # the shoot-out's goalkeeper left its line
        self._contacts: dict[tuple[Player, Player], deque] = {}    # (red, blue) -> touching, per step
        self._holding = {"red": deque(), "blue": deque()}          # per step: the team encloses the ball
        self._dt = 0.008               # s: the last step's length
        self._ball_speed = 0.0         # m/s: how fast the ball moved along the ground in the last step
        self._kick_off_restart(kick_off)
        if shootout:
            self.secondary = STATE2_PENALTY_SHOOT

    # ------------------------------------------------------------------------------- plumbing
    def _act(self, view: FieldView) -> list[Action]:
        """Begin a decision on ``view``; :meth:`_done` hands out what it decided."""
        self._view, self._actions = view, []
        return self._actions

    def _done(self) -> list[Action]:
        if self._away_pending:
            self._away_pending = False
            self._actions.append(PlaceBall(BALL_AWAY + (self.rules.ball_radius,)))
            self._ball = BALL_AWAY + (self.rules.ball_radius,)
        actions, self._actions = self._actions, []
        return actions

    def _place_ball(self, x: float, y: float) -> None:
        self._actions.append(PlaceBall((x, y, self.rules.ball_radius)))
        self._view = replace(self._view, ball=(x, y, self.rules.ball_radius), touching=frozenset())
        self._ball = self._view.ball

    def _pose(self, p: _Player) -> tuple[float, float, float]:
        return self._view.poses.get((p.colour, p.number), (0.0, 0.0, 0.0))

    def _set(self, state: int) -> None:
        self.state, self._since, self.changed = state, self.clock, True

    def _own_side(self, colour: Colour) -> int:
        return -1 if colour == self.left else 1

    @property
    def _half_l(self) -> float:
        return self.rules.field_length / 2

    @property
    def _half_w(self) -> float:
        return self.rules.field_width / 2

    # ------------------------------------------------------------------------------- flow
    @property
    def view(self) -> FieldView:
        """What the referee saw at its last step (before its first: the ball away, no robots)."""
        return self._view

    @property
    def game_over(self) -> bool:
        """The game is finished."""
        return self.state == STATE_FINISHED

    @property
    def half_length(self) -> float:
        """Seconds of play in the current half."""
        return self.overtime_time if self.half > 2 else self.half_time

    @property
    def _normal(self) -> int:
        return STATE2_OVERTIME if self.half > 2 else STATE2_NORMAL

    @property
    def set_play(self) -> bool:
        """A set play is awarded, prepared or about to be executed."""
        return self.secondary not in (STATE2_NORMAL, STATE2_OVERTIME, STATE2_PENALTY_SHOOT)

    def start(self, view: FieldView) -> list[Action]:
        """Leave ``initial``: robots not outside the field in their own half are penalised and
        the robots get ``ready`` (in a shoot-out: the first penalty is ``set``)."""
        self._act(view)
        self._start()
        return self._done()

    def _start(self) -> None:
        if self.state == STATE_INITIAL and self.shootout:
            self._penalty_positions()
        elif self.state == STATE_INITIAL and not self.game_over:
            self._update_footing()
            for p in self.players.values():
                if not p.off and (not p.footing.outside_field or not p.footing.inside_own_side):
                    self._penalise(p)
            self._set(STATE_READY)

    def _kick_off_restart(self, colour: Colour) -> None:
        """A kick-off for ``colour``: the ball away until ``set``, then on the centre spot."""
        self.kick_off = colour
        self._restart(KICK_OFF, colour, (0.0, 0.0))
        self._away_pending = True

    def _restart(self, kind: str | int, colour: Colour, spot: tuple[float, float]) -> None:
        self.restart, self._must_kick, self._spot, self._ball_waits = kind, colour, spot, True
        self.in_play = self._in_play_from = self._first_touch = self._kicker = None
        self.last_touch = self._last_toucher = None
        self._left_circle = None
        self.can_score = kind in (DROPPED, STATE2_CORNER_KICK, STATE2_GOAL_KICK, STATE2_DIRECT_FREEKICK,
                                  STATE2_PENALTY_KICK)
        self.can_score_own = False

    def step(self, dt: float, view: FieldView) -> list[Action]:
        """One basic step of ``dt`` s, after the world's step; returns what to do."""
        self._act(view)
        self._step(dt)
        return self._done()

    def _step(self, dt: float) -> None:
        self.clock += dt
        self._dt = dt
        if self.state == STATE_FINISHED:
            return
        self._update_footing()
        self._track_speeds(dt)
        self._note_distances()
        self._track_holding(dt)
        self._motors_back()
        self._count_penalties(dt)
        self._ball_moves()
        if self.state == STATE_INITIAL:
            if self.half > 1 and self.clock - self._since >= self.break_time - EPS:
                self._start()
            return
        self._fallen()
        self._penalised_in_field()
        if self.shootout:
            if self.state != STATE_FINISHED:
                self._shootout_step()
            return
        since = self.clock - self._since
        if self._clock_runs:
            self.played += dt
            if self.played >= self.half_length - EPS:
                self._end_half()
                return
        if self.state == STATE_READY:
            if since >= self.ready_time - EPS:
                self._set(STATE_SET)
                if self._ball_waits:
                    self._place_ball(*self._spot)
                    self._ball_waits = False
        elif self.state == STATE_SET:
            self._check_set_positions()
            if since >= self.set_time - EPS:
                self._release_kick_off_penalties()
                self._set(STATE_PLAYING)
                self._clock_runs = True
                self._in_play_from = self.clock if self.restart == KICK_OFF else None
        elif self.state == STATE_PLAYING:
            self._playing()

    def _end_half(self) -> None:
        """The half is over: the next one, overtime, or the end of the game."""
        self._clock_runs = False
        self.secondary, self.phase = STATE2_NORMAL, 0
        drawn = self.score["red"] == self.score["blue"]
        first_of_two = self.half % 2 == 1 and not (self.half == 1 and self.halves == 1)
        if first_of_two or (self.half == 2 and self.overtime and drawn):
            self._next_half()
        elif self.half == 4 and drawn:
            self.shootout, self.secondary = True, STATE2_PENALTY_SHOOT
            self._set(STATE_INITIAL)
        else:
            self._set(STATE_FINISHED)

    def _next_half(self) -> None:
        """Ends changed, every robot not sent off at its half-time pose, the other team (of the
        one that kicked off the game) kicking off in halves 2 and 4; ``initial`` for the break."""
        self.half, self.played, self.left = self.half + 1, 0.0, other(self.left)
        for p in self.players.values():
            if not p.info.red_cards:
                x, y, yaw = self._field_pose(p, p.half_time_pose)
                self._put(p, x, y, yaw)
                p.down_since = p.outside_turf_since = None
                p.footing = Footing(outside_field=True, inside_own_side=True)
        self.secondary = self._normal
        self._kick_off_restart(self.first_kick_off if self.half % 2 else other(self.first_kick_off))
        self._set(STATE_INITIAL)

    # ------------------------------------------------------------------------------- the ball
    def _ball_moves(self) -> None:
        """Who touches the ball, and whether it moved (for the dropped ball)."""
        ball = self._view.ball
        self._ball_speed = math.dist(ball[:2], self._ball[:2]) / self._dt
        if self._ball_speed > STATIC_SPEED:
            self._ball_moved_at = self.clock
        self._ball = ball
        if self.state != STATE_PLAYING or (self.set_play and self.phase == 0):
            return                      # touches while the referee holds the ball do not count
        for key in sorted(self._view.touching):
            p = self.players.get(key)
            if p is None or p.off:
                continue
            if self._first_touch is None:
                self._first_touch = self.clock
            if self._last_toucher != key:
                if self._kicker is None:
                    self._kicker = key
                self._last_toucher, self.last_touch = key, key[0]
            self._last_touch_at = self.clock
            if self.set_play and self.phase > 0:
                self._set_play_touched(p)
                return

    def _playing(self) -> None:
        self._track_contacts()
        if not (self.set_play and self.phase == 0):
            self._forceful_contacts()
            self._inactive_goalkeepers()
        if self.in_play is not None and self._ball_holding():
            return
        if self.set_play:
            self._set_play_step()
            if self.set_play:
                self._ball_out()
                return
        if self.in_play is None:
            self._before_in_play()
        else:
            if self.clock - self._ball_moved_at >= DROPPED_BALL_TIMEOUT - EPS:
                self._dropped_ball()
                return
            out_of_circle = math.dist(self._view.ball[:2], self._spot) > self.markings.circle + self.rules.ball_radius
            if self._left_circle is None and self.restart == KICK_OFF and out_of_circle:
                self._left_circle = self.clock
            self._update_can_score()
        self._ball_out()

    def _before_in_play(self) -> None:
        """After a kick-off or an executed set play: opponents keep away; the ball is in play
        once touched and moved 5 cm, or after ``in_play_timeout`` s."""
        opponents = other(self._must_kick)
        if self.restart not in (KICK_OFF, DROPPED):
            self._keep_away(opponents)
        if self.restart == KICK_OFF:
            for p in self._team(opponents):
                if not p.footing.outside_circle:
                    self._penalise(p)
        if self._first_touch is not None:
            moved = math.hypot(self._view.ball[0] - self._spot[0], self._view.ball[1] - self._spot[1])
            if moved > IN_PLAY_MOVE:
                self._ball_in_play()
            elif self.restart != DROPPED and self.last_touch is not None and self.last_touch != self._must_kick:
                p = self.players[self._last_toucher]
                if not p.off:
                    self._penalise(p)
        if self.in_play is None and self._in_play_from is not None and \
                self.clock - self._in_play_from >= self.in_play_timeout - EPS:
            self._ball_in_play()

    def _ball_in_play(self) -> None:
        self.in_play = self._ball_moved_at = self.clock
        self._update_can_score()

    def _update_can_score(self) -> None:
        """Whether a goal would count now (the league's referee: a kick-off's ball must leave the
        centre circle or be touched by another robot first; a throw-in's must be touched again;
        an own goal needs another touch after any restart)."""
        by_opponent = self.last_touch is not None and self.last_touch != self._must_kick
        by_teammate = self._kicker is not None and self._last_toucher != self._kicker
        in_play_touch = self.in_play is not None and self._last_toucher is not None and \
            self._last_touch_at > self.in_play
        if not self.can_score:
            if self.restart == KICK_OFF:
                after_circle = self._left_circle is not None and self._last_touch_at > self._left_circle
                self.can_score = by_opponent or by_teammate or after_circle
            elif self.restart == STATE2_THROW_IN:
                self.can_score = by_opponent or by_teammate or in_play_touch
        if not self.can_score_own:
            self.can_score_own = by_opponent or by_teammate or in_play_touch

    def _ball_out(self) -> None:
        """A goal, or the ball wholly over a line: the kick-off or set play that follows."""
        x, y, _ = self._view.ball
        out = ball_out(self._view.ball, self.rules, goal_margin=0.0)    # in the goal: its centre
        if out is None:
            return
        if abs(x) >= 50 or abs(y) >= 50:                          # the ball held away
            return
        if self.set_play and self.phase == 0:
            return
        if out.line == "goal":
            side = out.side
            attacker = self.left if side > 0 else other(self.left)     # the goal at +x is the right team's
            right_way = self.last_touch == attacker
            if out.in_goal:
                self._goal(attacker, right_way, side, y)
            elif right_way:
                self._goal_kick(y)
            else:
                self._corner_kick(side, y)
        else:
            self._award(STATE2_THROW_IN, (x, out.side * (self._half_w - LINE / 2)))

    def _goal(self, attacker: str, right_way: bool, side: int, y: float) -> None:
        if not self.can_score:
            if right_way or self.restart == KICK_OFF:
                self._goal_kick(y)
            else:
                self._corner_kick(side, y)
            return
        if not right_way and not self.can_score_own:
            self._corner_kick(side, y)
            return
        scorer = self.players.get(self._last_toucher) if self._last_toucher else None
        if right_way and (scorer is None or scorer.off):
            self._goal_kick(y)                                   # scored by a penalised robot
            return
        self.score[attacker] += 1
        self.secondary, self.phase = self._normal, 0
        self._kick_off_restart(other(attacker))
        self._set(STATE_READY)

    def _goal_kick(self, y: float) -> None:
        self._award(STATE2_GOAL_KICK, (0.0, math.copysign(self._half_w - LINE / 2, y)))

    def _corner_kick(self, side: int, y: float) -> None:
        self._award(STATE2_CORNER_KICK, (side * (self._half_l - LINE / 2), math.copysign(self._half_w - LINE / 2, y)))

    def _award(self, kind: int, spot: tuple[float, float]) -> None:
        """A set play for the team that did not touch the ball last (blue when nobody did)."""
        team = "red" if self.last_touch == "blue" else "blue"
        self._start_set_play(kind, team, spot)

    def _start_set_play(self, kind: int, team: Colour, spot: tuple[float, float]) -> None:
        self.secondary, self.set_play_team, self.phase = kind, team, 0
        self._phase_since, self.changed = self.clock, True
        self._restart(kind, team, spot)

    def _set_play_step(self) -> None:
        """Phase 0, the ball put on its spot, phase 1, phase 2, executed."""
        if self.clock - self._phase_since < self.set_play_times[self.phase] - EPS:
            return
        self._phase_since, self.changed = self.clock, True
        if self.phase == 0:
            self._put_set_play_ball()
            self.phase = 1
        elif self.phase == 1:
            self.phase = 2
        else:
            self._keep_away(other(self.set_play_team))
            if self.secondary == STATE2_PENALTY_KICK:
                self._penalty_kick_positions()
            self.secondary, self.phase = self._normal, 0
            self._in_play_from = self.clock

    def _set_play_touched(self, p: _Player) -> None:
        """The ball touched in phase 1 or 2: a warning, and a retake (an opponent) or the ball in
        play (the awarded team)."""
        self._warn(p)
        if p.colour == self.set_play_team:
            self.secondary, self.phase, self.changed = self._normal, 0, True
            self._ball_in_play()
        else:
            self._start_set_play(self.secondary, self.set_play_team, self._spot)

    def _put_set_play_ball(self) -> None:
        """The ball on its spot: penalised robots near it go to another re-entry spot, fallen
        robots are penalised; if a robot is still near, the first free spot along the line (or
        around a free kick's), else the robots near are moved away (the league's referee,
        game_interruption_place_ball)."""
        spot, near = self._spot, self.place_distance
        if self._robot_near(spot, near):
            for p in self.players.values():
                if p.info.penalty and not p.info.red_cards and math.dist(self._pose(p)[:2], spot) < near:
                    self._put(p, *self._penalty_spot(p))
        if self._robot_near(spot, near):
            for p in self.players.values():
                if not p.off and self._view.upright.get((p.colour, p.number), 1.0) < UPRIGHT:
                    self._penalise(p)
        if self._robot_near(spot, near):
            for alternative in self._alternative_spots(spot):
                if abs(alternative[0]) <= self._half_l and abs(alternative[1]) <= self._half_w and \
                        not self._robot_near(alternative, near):
                    spot = alternative
                    break
        if self._robot_near(spot, near):
            self._move_away(spot)
        self._spot = spot
        self._place_ball(*spot)
        self._ball_waits = False

    def _alternative_spots(self, spot: tuple[float, float]) -> list[tuple[float, float]]:
        towards = 1 if (self.set_play_team == self.left) else -1      # towards the opponents' goal
        d = self.place_distance
        if self.secondary == STATE2_THROW_IN:
            return [(spot[0] + s * towards * d * k, spot[1]) for s in (1, -1) for k in range(1, 6)]
        if self.secondary == STATE2_DIRECT_FREEKICK:
            centre = -1 if spot[1] > 0 else 1
            return [(spot[0] + dx * d * k, spot[1] + dy * d * k) for k in range(1, 6)
                    for dx, dy in ((towards, 0), (0, centre), (0, -centre), (-towards, 0))]
        return []

    def _robot_near(self, spot: tuple[float, float], distance: float, but: _Player | None = None) -> bool:
        return bool(nearer_than({key: self._pose(p)[:2] for key, p in self.players.items()
                                 if p is not but and not p.info.red_cards}, spot, distance))

    def _move_away(self, spot: tuple[float, float]) -> None:
        """Robots nearer ``spot`` than the placing distance are moved straight away from it to
        that distance (or a multiple, clear of the others), keeping their heading."""
        d = self.place_distance
        for p in sorted(self.players.values(), key=lambda q: (q.colour != "blue", q.number)):   # blue first
            if p.info.red_cards:
                continue
            x, y, yaw = self._pose(p)
            dx, dy = x - spot[0], y - spot[1]
            dist = math.hypot(dx, dy)
            if dist >= d:
                continue
            if dist < 1e-3:
                dx, dy, dist = 1.0, 0.0, 1.0
            others = [self._pose(q)[:2] for q in self.players.values() if q is not p]
            for k in range(1, 6):
                tx, ty = spot[0] + dx / dist * d * k, spot[1] + dy / dist * d * k
                if all(math.dist((tx, ty), o) >= d for o in others):
                    self._actions.append(PlaceRobot((p.colour, p.number), tx, ty, yaw))
                    self._moved(p, tx, ty, yaw)
                    break

    def _penalty_kick_positions(self) -> None:
        """When a penalty kick is executed: no robot between the penalty mark and the goal line
        but the defending goalkeeper, on its goal line; no defender near the ball, and one
        attacker only (the league's referee, check_penalty_kick_positions)."""
        ball_x, ball = self._view.ball[0], self._view.ball[:2]
        mark = self._half_l - self.markings.penalty_mark
        for colour in COLOURS:
            defending = colour != self.set_play_team
            striker = False
            for p in sorted(self._team(colour), key=lambda q: q.number):
                x, y, _ = self._pose(p)
                if ball_x * x > 0 and abs(x) > mark:
                    on_goal_line = (p.footing.on_outer_line or p.footing.outside_field) and abs(y) <= GOAL_LINE_WIDTH
                    if not (defending and p.info.goalkeeper and on_goal_line):
                        self._penalise(p)
                elif math.dist((x, y), ball) < self.rules.free_kick_distance:
                    if defending or striker:
                        self._penalise(p)
                    striker = True

    def _dropped_ball(self) -> None:
        """The ball lay still for 120 s: ``ready`` and ``set`` again, either team may play it."""
        self._restart(DROPPED, self.kick_off, (0.0, 0.0))
        self.secondary, self.phase = self._normal, 0
        self._ball_moved_at = self.clock
        self._set(STATE_READY)

    # ------------------------------------------------------------------------------- robots
    def _team(self, colour: Colour) -> list[_Player]:
        return [p for p in self.players.values() if p.colour == colour and not p.off]

    def _update_footing(self) -> None:
        """Where each robot stands, from its ground contacts (a robot in the air keeps what it had)."""
        for key, p in self.players.items():
            points = self._view.footprints.get(key)
            if points is None or len(points) == 0:
                continue
            p.footing = footing(points, self._own_side(p.colour), self.rules, self.markings)
            if not p.footing.outside_turf:
                p.outside_turf_since = None
            elif p.outside_turf_since is None:
                p.outside_turf_since = self.clock

    def _check_set_positions(self) -> None:
        """In ``set``: every robot wholly inside the field and its own half, the defenders of a
        kick-off outside the centre circle; for a dropped ball everyone outside the circle."""
        for p in self.players.values():
            if p.off:
                continue
            f = p.footing
            if self.restart == DROPPED:
                wrong = not f.outside_circle or not f.inside_own_side
            else:
                wrong = not f.inside_field or not f.inside_own_side or \
                    (p.colour != self.kick_off and not f.outside_circle)
            if wrong:
                self._penalise(p)

    def _release_kick_off_penalties(self) -> None:
        """Penalties for where robots stood before the kick-off end when it is played (the
        league's GameController; its test scenarios positioning/initial and ready)."""
        for p in self.players.values():
            if p.for_kick_off and p.info.penalty and not p.info.red_cards:
                self._lift_penalty(p)
            p.for_kick_off = False

    def _keep_away(self, colour: Colour) -> None:
        """Robots of ``colour`` nearer the ball than the free-kick distance are penalised."""
        team = {p.number: p for p in self._team(colour)}
        near = nearer_than({n: self._pose(p)[:2] for n, p in team.items()}, self._view.ball[:2],
                           self.rules.free_kick_distance)
        for number in near:
            self._penalise(team[number])

    def _field_pose(self, p: _Player, pose: Pose) -> tuple[float, float, float]:
        """A pose of the team's own frame on the field now: (x, y, yaw)."""
        if p.colour != self.left:
            pose = pose.mirrored()
        return pose.translation[0], pose.translation[1], pose.yaw

    def _penalty_spot(self, p: _Player) -> tuple[float, float, float]:
        """The re-entry pose at the penalty mark's x, on the side away from the ball, moved along
        the touch line (within the half) while another robot stands within ``robot_radius``;
        the other side if that one is full (the league's referee, place_player_at_penalty)."""
        x, y, yaw = self._field_pose(p, p.reentry_pose)
        x = math.copysign(self._half_l - self.markings.penalty_mark, x)
        ball_y = self._view.ball[1]
        if y * ball_y > 0:
            y, yaw = -y, -yaw
        for side in (1, -1):
            sy, syaw = y * side, yaw * side
            for k in range(12):
                sx = x + self.spot_offset * ((k + 1) // 2) * (1 if k % 2 else -1) * (1 if sy > ball_y else -1)
                if sx * x < 0 or abs(sx) > self._half_l:
                    continue
                if not self._robot_near((sx, sy), self.robot_radius, but=p):
                    return sx, sy, syaw
        return x, y, yaw

    def _put(self, p: _Player, x: float, y: float, yaw: float, sensors: bool = True) -> None:
        """Put a robot somewhere, joints at rest and motors off for a moment (or while penalised)."""
        key = (p.colour, p.number)
        self._actions += [PlaceRobot(key, x, y, yaw, rest_joints=True), SwitchRobot(key, motors=False, sensors=sensors)]
        p.motors_at = self.clock + ACTUATORS_OFF
        p.settle = (self.clock + SETTLE, x, y, yaw)
        p.down_since = None
        self._moved(p, x, y, yaw)

    def _moved(self, p: _Player, x: float, y: float, yaw: float) -> None:
        """The rest of this decision sees ``p`` where it was just put."""
        self._view = replace(self._view, poses={**self._view.poses, (p.colour, p.number): (x, y, yaw)})

    def _motors_back(self) -> None:
        """Robots put somewhere are put there again, at rest, a moment later (the league's
        referee stabilises them 5 steps after a reset), and their motors obey again after
        ``ACTUATORS_OFF`` s unless penalised."""
        for p in self.players.values():
            if p.settle is not None and self.clock >= p.settle[0] - EPS:
                self._actions.append(PlaceRobot((p.colour, p.number), *p.settle[1:]))
                p.settle = None
            if p.motors_at is not None and self.clock >= p.motors_at - EPS and not p.off:
                self._actions.append(SwitchRobot((p.colour, p.number), motors=True))
                p.motors_at = None

    def penalise(self, colour: Colour, player: int, view: FieldView, seconds: float = PENALTY_REMOVAL,
                 reason: int = HL_PICKUP_OR_INCAPABLE) -> list[Action]:
        """Remove a robot for ``seconds`` with the GameController penalty code ``reason``: it is
        put at its penalty spot, joints held, commands ignored. KeyError for no such robot; a
        robot already penalised or sent off stays as it is."""
        self._act(view)
        self._penalise(self.players[(colour, player)], reason, seconds)
        return self._done()

    def _penalise(self, p: _Player, reason: int = HL_PICKUP_OR_INCAPABLE, seconds: float = PENALTY_REMOVAL,
                  again: bool = False) -> None:
        if p.info.red_cards or (p.info.penalty and not again):
            return
        p.info.penalty, p.penalty_left = reason, seconds
        p.info.secs_till_unpenalised = math.ceil(seconds)
        p.for_kick_off = self.state in (STATE_INITIAL, STATE_READY, STATE_SET)
        p.immune_until = self.clock + FOUL_IMMUNITY
        self._put(p, *self._penalty_spot(p))
        p.footing = Footing(outside_field=True, inside_own_side=p.footing.inside_own_side)
        self.changed = True

    def _count_penalties(self, dt: float) -> None:
        """Penalty time counts down while the robots get ready or the ball is in play (not while
        a set play is on); a penalty that ends lets the robot play on from where it stands."""
        counting = self.state in (STATE_READY, STATE_SET) or (self.state == STATE_PLAYING and not self.set_play)
        for p in self.players.values():
            if not p.info.penalty or p.info.red_cards or not counting:
                continue
            p.penalty_left -= dt
            if p.penalty_left <= EPS:
                self._lift_penalty(p)
            else:
                left = math.ceil(p.penalty_left - 1e-9)
                self.changed |= left != p.info.secs_till_unpenalised
                p.info.secs_till_unpenalised = left

    def _lift_penalty(self, p: _Player) -> None:
        """The penalty ends: the robot plays on from where it stands, its motors obey again."""
        p.info.penalty, p.info.secs_till_unpenalised, p.penalty_left = 0, 0, 0.0
        p.motors_at = self.clock
        self.changed = True

    def _warn(self, p: _Player) -> None:
        """A warning; the second makes a yellow card."""
        p.info.warnings += 1
        if p.info.warnings >= 2:
            p.info.warnings = 0
            self._yellow_card(p)
        self.changed = True

    def _yellow_card(self, p: _Player) -> None:
        """A yellow card; the second makes a red card."""
        p.info.yellow_cards += 1
        if p.info.yellow_cards >= 2:
            p.info.yellow_cards = 0
            self._send_off(p)
        self.changed = True

    def _penalised_in_field(self) -> None:
        """A penalised robot that enters the field: a yellow card and a new penalty."""
        for p in self.players.values():
            if p.info.penalty and not p.info.red_cards and not p.footing.outside_field:
                self._yellow_card(p)
                if not p.info.red_cards:
                    self._penalise(p, again=True)
                else:
                    p.info.penalty = HL_PICKUP_OR_INCAPABLE

    def red_card(self, colour: Colour, player: int, view: FieldView) -> list[Action]:
        """A red card: the robot leaves the field for the rest of the game (2 m beyond its
        penalty spot), its sensors and motors off. KeyError for no such robot."""
        self._act(view)
        p = self.players[(colour, player)]
        p.info.penalty, p.info.secs_till_unpenalised = 0, 0
        self._send_off(p)
        return self._done()

    def _send_off(self, p: _Player) -> None:
        p.info.red_cards += 1
        x, y, yaw = self._penalty_spot(p)
        self._put(p, x, y + math.copysign(2.0, y), yaw, sensors=False)
        p.motors_at = None
        self.changed = True

    def _fallen(self) -> None:
        """A robot lying down for ``fallen_timeout`` s, or ``OUTSIDE_TURF_TIMEOUT`` s outside the
        turf while the ball is in play, is penalised as incapable."""
        for p in self.players.values():
            if p.off:
                continue
            if self._view.upright.get((p.colour, p.number), 1.0) >= UPRIGHT:
                p.down_since = None
            elif p.down_since is None:
                p.down_since = self.clock
            elif self.clock - p.down_since >= self.fallen_timeout - EPS:
                if self.shootout and p is self._shootout_kicker():
                    p.down_since = None
                    self._next_penalty(False)                # a shoot-out's kicker: the penalty is over
                else:
                    self._penalise(p)
                continue
            if self.state == STATE_PLAYING and not (self.set_play and self.phase == 0) and \
                    p.outside_turf_since is not None and \
                    self.clock - p.outside_turf_since >= OUTSIDE_TURF_TIMEOUT - EPS:
                self._penalise(p)

    # ------------------------------------------------------------------------------- shoot-out
    @property
    def _attacker(self) -> str:
        """The team taking the current penalty: the kick-off team first, then in turn."""
        return self.kick_off if self.kicks % 2 == 0 else other(self.kick_off)

    def _shootout_kicker(self) -> _Player | None:
        """The attacking team's kicker: its lowest-numbered robot not sent off."""
        team = sorted((p for p in self.players.values() if p.colour == self._attacker and not p.info.red_cards),
                      key=lambda p: p.number)
        return team[0] if team else None

    def _penalty_positions(self) -> None:
        """A penalty of the shoot-out: the kicker at its shoot-out pose, the defending goalkeeper
        at its goalkeeper pose (the first ten penalties), everyone else at its half-time pose,
        the ball on the penalty mark of the goal the kick-off team attacks first; ``set``."""
        kicker, attacker = self._shootout_kicker(), self._attacker
        if kicker is None:                            # a team without robots: its penalty is missed
            self._set(STATE_SET)
            self._next_penalty(False)
            return
        for p in self.players.values():
            if p.info.red_cards:
                continue
            if p.info.penalty:                        # each penalty starts with every robot back
                self._lift_penalty(p)
            pose = p.half_time_pose
            if p is kicker and p.shootout_pose is not None:
                pose = p.shootout_pose
            elif p.colour != attacker and p.info.goalkeeper and self.kicks < SHOOTOUT_KICKS and p.goalkeeper_pose:
                pose = p.goalkeeper_pose
            self._put(p, *self._field_pose(p, pose))
        mark = self._half_l - self.markings.penalty_mark
        x = -mark if (self.left == self.kick_off) != (self.kicks % 2 == 0) else mark
        self._restart(STATE2_PENALTY_KICK, attacker, (x, 0.0))
        self.secondary, self.can_score = STATE2_PENALTY_SHOOT, True
        self._place_ball(x, 0.0)
        self._ball_waits, self._off_line_since = False, None
        self._set(STATE_SET)

    def _shootout_step(self) -> None:
        since = self.clock - self._since
        if self.in_play is None:
            self._goal_line()
        if self.state == STATE_SET:
            if since >= SHOOTOUT_SET_TIME - EPS:
                self._set(STATE_PLAYING)
            return
        self._track_contacts()
        self._forceful_contacts()
        if self.shootout is False or self.state != STATE_PLAYING:
            return                                    # (a foul by the kicker ended the penalty)
        if self.in_play is None and self._first_touch is not None and \
                math.dist(self._view.ball[:2], self._spot) > IN_PLAY_MOVE:
            self.in_play = self.clock
        x, y, z = self._view.ball
        r, half_l = self.rules.ball_radius, self._half_l
        depth, width = self.markings.goal_area
        if abs(x) >= half_l + r or abs(y) >= self._half_w + r:
            scored = abs(x) >= half_l + r and abs(y) < self.rules.goal_width / 2 and z < self.rules.goal_height
            self._next_penalty(scored and (x > 0) == (self._attacker == self.left))
            return
        still_in_area = abs(x) - r > half_l - depth and abs(x) + r < half_l and abs(y) + r < width / 2 and \
            self._ball_speed < STATIC_SPEED
        kicker = self._shootout_kicker()
        kicker_in_area = kicker is None or (self.kicks < SHOOTOUT_KICKS and not kicker.footing.outside_goal_area
                                            and not kicker.footing.inside_own_side)
        if still_in_area or kicker_in_area or since >= SHOOTOUT_TRIAL_TIME - EPS:
            self._next_penalty(False)

    def _goal_line(self) -> None:
        """The defending goalkeeper stays on its goal line (or behind it) until the ball is in
        play; off it for over INVALID_GOALKEEPER_TIMEOUT s it is penalised."""
        for p in self._team(other(self._attacker)):
            if not p.info.goalkeeper:
                continue
            f, (_, y, _) = p.footing, self._pose(p)
            if (f.on_outer_line or f.outside_field) and abs(y) <= GOAL_LINE_WIDTH and f.inside_own_side:
                self._off_line_since = None
            elif self._off_line_since is None:
                self._off_line_since = self.clock
            elif self.clock - self._off_line_since > INVALID_GOALKEEPER_TIMEOUT + EPS:
                self._penalise(p)

    def _next_penalty(self, scored: bool) -> None:
        """The penalty is over: the score, the end of the shoot-out, or the next penalty with
        ends changed (the league's referee, next_penalty_shootout and stop_penalty_shootout)."""
        attacker = self._attacker
        self.shots[attacker].append(scored)
        if scored:
            self.score[attacker] += 1
        self.kicks += 1
        self.changed = True
        if self._shootout_decided():
            self._set(STATE_FINISHED)
            return
        self.left = other(self.left)
        self._penalty_positions()

    def _shootout_decided(self) -> bool:
        """Whether the shoot-out is over (the league's referee, stop_penalty_shootout): after
        ten penalties with a winner, after twenty, or when the team behind cannot catch up (3 goals
        behind after 6 or 7 penalties, 2 after 8 or 9; after 7 and 9 also 2 resp. 1 behind when
        the team that kicked first leads); ``kicks`` counted from 10 again in the extra ones."""
        n = self.kicks
        diff = abs(self.score["red"] - self.score["blue"])
        if n == 2 * SHOOTOUT_KICKS or (n == SHOOTOUT_KICKS and diff > 0):
            return True
        first = self.score[self.kick_off]
        first_leads = first >= max(self.score.values())
        n %= SHOOTOUT_KICKS
        if (n == 6 and diff == 3) or (n == 8 and diff == 2):
            return True
        if n == 7:
            return diff == 3 or (diff == 2 and not first_leads)
        if n == 9:
            return diff == 2 or (diff == 1 and not first_leads)
        return False

    # ------------------------------------------------------------------------------- fouls
    def _track_speeds(self, dt: float) -> None:
        window = max(1, round(SPEED_WINDOW / dt))
        for key, p in self.players.items():
            p.speeds.append(self._view.velocities.get(key, (0.0, 0.0)))
            while len(p.speeds) > window:
                p.speeds.popleft()

    def _track_contacts(self) -> None:
        """Which red and blue robots touched each other, per step over FOUL_PUSHING_PERIOD s."""
        now = set()
        for a, b in self._view.contacts:
            if a[0] != b[0]:
                now.add((a, b) if a[0] == "red" else (b, a))
        window = max(1, round(FOUL_PUSHING_PERIOD / self._dt))
        for pair in now - self._contacts.keys():
            self._contacts[pair] = deque(maxlen=window)
        for pair, history in list(self._contacts.items()):
            history.append(pair in now)
            if not any(history):
                del self._contacts[pair]

    def _forceful_contacts(self) -> None:
        """Each red and blue robot touching now: the first that charged or pushed the other
        commits a foul (the league's referee, check_team_forceful_contacts)."""
        for (red, blue), history in list(self._contacts.items()):
            if not history or not history[-1]:
                continue
            p, q = self.players.get(red), self.players.get(blue)
            if p is None or q is None or p.off or q.off:
                continue
            if not self._charges(p, q, history):
                self._charges(q, p, history)

    def _moves_to_ball(self, p: _Player) -> bool:
        vx, vy = p.velocity()
        speed = math.hypot(vx, vy)
        if speed < FOUL_SPEED:
            return True
        x, y, _ = self._pose(p)
        rx, ry = self._view.ball[0] - x, self._view.ball[1] - y
        distance = math.hypot(rx, ry)
        if distance < 1e-9:
            return True
        cos = max(-1.0, min(1.0, (rx * vx + ry * vy) / (distance * speed)))
        return math.acos(cos) < FOUL_DIRECTION

    def _charges(self, p: _Player, q: _Player, history: deque) -> bool:
        """Whether ``p`` commits a foul on ``q`` (and if so, the foul is dealt with): charging
        the goalkeeper in its goal area; pushing for over a second near the ball while further
        from it; faster than FOUL_SPEED near the ball, into a robot moving to the ball, while not
        moving to it or from behind; away from the ball, much faster than the other."""
        if self.clock < p.immune_until - EPS:
            return False
        ball = self._view.ball[:2]
        d1, d2 = math.dist(self._pose(p)[:2], ball), math.dist(self._pose(q)[:2], ball)
        if q.info.goalkeeper and not q.footing.outside_goal_area and q.footing.inside_own_side:
            return self._foul(p, q, d1)
        pushing = sum(history) * (FOUL_PUSHING_PERIOD / history.maxlen) > FOUL_PUSHING_TIME
        if pushing and d1 < FOUL_VICINITY and d1 - d2 > FOUL_DISTANCE:
            return self._foul(p, q, d1)
        v1, v2 = math.hypot(*p.velocity()), math.hypot(*q.velocity())
        if v1 <= FOUL_SPEED:
            return False
        if d1 < FOUL_VICINITY:
            if self._moves_to_ball(q) and (not self._moves_to_ball(p) or d1 - d2 > FOUL_DISTANCE):
                return self._foul(p, q, d1)
            return False
        if v1 - v2 > FOUL_SPEED:
            return self._foul(p, q, d1)
        return False

    def _foul(self, p: _Player, q: _Player, distance: float) -> bool:
        """``p``'s forceful contact on ``q``, ``distance`` m from the ball: a removal penalty far
        from the ball or while it is not in play, else a direct free kick for ``q``'s team where
        it happened (a penalty kick when that is in ``p``'s penalty area)."""
        self._contacts.clear()
        p.immune_until = q.immune_until = self.clock + FOUL_IMMUNITY
        if self.shootout:
            self._penalise(p, HL_PHYSICAL_CONTACT)
            if p is self._shootout_kicker():
                self._next_penalty(False)
            return True
        if distance > FOUL_BALL_DISTANCE or self.in_play is None:
            self._penalise(p, HL_PHYSICAL_CONTACT)
            return True
        self._free_kick(q.colour, self._pose(p)[:2])
        return True

    def _free_kick(self, team: Colour, location: tuple[float, float]) -> None:
        """A direct free kick for ``team`` at ``location``, or a penalty kick when the ball lies
        wholly inside the other team's penalty area (the league's referee, interruption)."""
        half_l, r = self._half_l, self.rules.ball_radius
        bx, by, _ = self._view.ball
        depth, width = self.markings.penalty_area
        in_area = abs(bx) - r > half_l - depth and abs(bx) + r < half_l and abs(by) + r < width / 2
        if in_area and (bx < 0) != (team == self.left):          # the ball in the other team's half
            mark = half_l - self.markings.penalty_mark
            self._start_set_play(STATE2_PENALTY_KICK, team, (math.copysign(mark, location[0]), 0.0))
        else:
            self._start_set_play(STATE2_DIRECT_FREEKICK, team, tuple(location))

    def _track_holding(self, dt: float) -> None:
        """Per team and step: whether the hands and feet of its robots within half the
        free-kick distance of the ball (the league's ball vicinity) touch a circle of a third of
        the ball's radius around its centre (the league's referee, update_team_ball_holding)."""
        window = max(1, round(BALL_HOLDING_TIMEOUT / dt))
        ball = self._view.ball[:2]
        vicinity = self.rules.free_kick_distance / 2
        for colour, history in self._holding.items():
            points = [point for p in self._team(colour) if math.dist(self._pose(p)[:2], ball) <= vicinity
                      for point in self._view.extremities.get((p.colour, p.number), ())]
            history.append(encloses(points, ball, self.rules.ball_radius * BALL_HOLDING_RATIO))
            while len(history) > window:
                history.popleft()

    def _ball_holding(self) -> bool:
        """A team that held the ball in play more than half of the last BALL_HOLDING_TIMEOUT s:
        a free kick for the other team where the ball is. True when that happened."""
        window = round(BALL_HOLDING_TIMEOUT / self._dt)
        for colour, history in self._holding.items():
            if self.set_play or sum(history) * 2 <= window:
                continue
            history.clear()
            self._free_kick(other(colour), self._view.ball[:2])
            return True
        return False

    def _note_distances(self) -> None:
        """Each robot's distance to the ball and whether it stands in its goal area, once a
        second over the last INACTIVE_GOALKEEPER_TIMEOUT s."""
        for p in self.players.values():
            if p.history and self.clock - p.history[0][0] > INACTIVE_GOALKEEPER_TIMEOUT + EPS:
                p.history.popleft()
            if not p.history or self.clock - p.history[-1][0] > HISTORY_PERIOD + EPS:
                distance = math.dist(self._pose(p)[:2], self._view.ball[:2])
                in_area = p.footing.inside_own_side and not p.footing.outside_goal_area
                p.history.append((self.clock, distance, in_area))

    def _inactive_goalkeepers(self) -> None:
        """A goalkeeper that stayed in its goal area within INACTIVE_GOALKEEPER_DISTANCE of the
        ball for INACTIVE_GOALKEEPER_TIMEOUT s without once coming INACTIVE_GOALKEEPER_PROGRESS
        nearer it is penalised (the league's referee, check_team_inactive_goalkeeper)."""
        for p in self.players.values():
            if not p.info.goalkeeper or p.off or not p.history:
                continue
            if not all(in_area for _, _, in_area in p.history):
                continue
            distances = [d for _, d, _ in p.history]
            if max(distances) > INACTIVE_GOALKEEPER_DISTANCE:
                continue
            nearer, moved = 0.0, False
            for d in distances:
                if d < nearer:
                    moved = True
                    break
                nearer = max(nearer, d - INACTIVE_GOALKEEPER_PROGRESS)
            if not moved:
                self._penalise(p)

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
            if not p.off:
                actions = self.penalise(colour, player, view, reason=HL_SERVICE)
                return True, f"{colour} {player} asked to be taken out: removed for service", actions
            return False, f"{colour} {player} asked to be taken out: already off the field", []
        return False, f"{colour} {player} asked to be unpenalised: ignored, only the referee lifts a penalty", []

    def alive(self, colour: Colour, within: float = 5.0) -> int:
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
        if self.set_play:
            info = bytes([self.numbers[self.set_play_team], self.phase, 0, 0])
            secondary_time = max(0, math.ceil(self.set_play_times[self.phase] - (self.clock - self._phase_since)))
        elif self.state == STATE_PLAYING and self.in_play is None and self._in_play_from is not None:
            secondary_time = max(0, math.ceil(self.in_play_timeout - (self.clock - self._in_play_from)))
        kick_off = DROPPED_BALL_TEAM if self.restart == DROPPED else self.numbers[self.kick_off]
        remaining = self.half_length - self.played
        if self.shootout:
            kick_off = self.numbers[self._attacker]
            remaining = SHOOTOUT_TRIAL_TIME - (self.clock - self._since if self.state == STATE_PLAYING else 0.0)
            for team, colour in zip(teams, COLOURS):
                team.penalty_shot = len(self.shots[colour])
                team.single_shots = sum(1 << i for i, scored in enumerate(self.shots[colour][:16]) if scored)
        self.changed = False
        return GameData((teams[0], teams[1]), packet_number=packet_number,
                        players_per_team=max(n for _, n in self.players) if self.players else 0,
                        state=self.state, first_half=self.half % 2 == 1, kick_off_team=kick_off,
                        secondary_state=self.secondary, secondary_state_info=info,
                        secs_remaining=max(0, math.ceil(remaining - 1e-9)),
                        secondary_time=secondary_time)
