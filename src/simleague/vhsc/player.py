"""The sample player of the humanoid virtual soccer API, for simleague's kid robot (issue 32):
connects with the environment the simulator gives robot software (``ROBOCUP_SIMULATOR_ADDR``,
``ROBOCUP_ROBOT_ID``, ``ROBOCUP_TEAM_COLOR``), reads the GameController's packets (``RGme`` on UDP
3838), and plays: walks (:mod:`simleague.walking` on the kid's legs, :mod:`simleague.vhsc.kid`),
finds the ball in its camera's images (:mod:`simleague.vhsc.camera`), and the robots standing near,
goes behind the ball and walks it or kicks it towards the opponents' goal, walking slowly near the
ball when a robot stands near it or in its way (the referee's charging rule) and waiting while a
robot nearer the ball plays it; the nearest field player goes for the ball (the team's
players tell each other their distances to it and where they see it over UDP), the others follow
it at their places, walking round robots they see on the way; a ball lost at the feet, under the
camera's view, is looked for by stepping back before turning, one lost elsewhere where a team-mate
sees it, else by turning on the spot and then from the centre spot; the goalkeeper (player 1)
keeps to its goal and clears balls that come near. A fallen player gets up
(:func:`simleague.vhsc.kid.get_up`, from its front or back) once it has lain still for
:data:`LIE_STILL` s, longer when it fell next to a robot in play (:meth:`Player._lie_for`); one
lying on its side is left to the referee, who takes it off after its fallen timeout and puts it back.

Where it is comes from its own sensors: the heading from the gyro (:class:`Attitude`), the
position from the walk's own steps (odometry), both reset where the rules put a robot: at its
starting pose before each half, at the penalty mark's touch line when penalised (seed 000's
referee; which line, checked by where a team-mate sees the ball), and corrected by the painted
lines it sees (:mod:`simleague.vhsc.localise`, five times a second) and by the ball on the centre
spot before a kick-off. Positions are in the team's own frame (metres, x towards the
opponents' goal, the field's centre the origin), as the league's team files give them; the
starting poses are the sample team's (``examples/vhsc/kid.json``).

Run it as ``python -m simleague.vhsc.player`` or ``simleague vhsc player``. With
``SIMLEAGUE_PLAYER_TRACE`` set to a folder, each player writes there what it thinks four times a
second (``<colour>-<number>.txt``: time, game state, where it thinks it and the ball are).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import re
import socket
import sys
from dataclasses import InitVar, dataclass, field, replace

import numpy as np

from ..angles import wrap
from ..soccer.field import humanoid_lines
from ..soccer.rules import SoccerRules
from . import camera, kid, localise
from . import gamecontroller as gc
from .client import RobotClient
from .launch import FIELD_SIDE, GAME_CONTROLLER_PORT

DEFAULT_ADDRESS = "127.0.0.1:10001"
TRACE = "SIMLEAGUE_PLAYER_TRACE"
STEP = kid.STEP                  # s: the API's basic step, our control cycle
CAMERA_MS = 96                   # ms between camera images
HALF_LENGTH, HALF_WIDTH = 4.5, 3.0                 # m: the kid-size field (seed 000's league)
GOAL = (HALF_LENGTH, 0.0)                           # the opponents' goal, own frame
PENALTY_MARK = 1.5               # m from the goal line
#: the lines painted on the kid field (simleague.vhsc.setup.KID_FIELD and MARKINGS, which the
#: player, a client, does not import with the world): goal areas 1 x 3 m, penalty areas 2 x 5 m,
#: the penalty marks 1.5 m from the goal lines, the centre circle 0.75 m
FIELD_LINES = humanoid_lines(SoccerRules(field_length=2 * HALF_LENGTH, field_width=2 * HALF_WIDTH),
                             (1.0, 3.0), (2.0, 5.0), PENALTY_MARK, 0.75)
TOUCH_LINE_START = 3.06          # m from the middle: where the sample team's robots stand outside the field
#: own-frame (x, y, heading) of each player at the start of a half (examples/vhsc/kid.json)
STARTS = {1: (-3.5, -TOUCH_LINE_START, math.pi / 2), 2: (-3.5, TOUCH_LINE_START, -math.pi / 2),
          3: (-1.0, -TOUCH_LINE_START, math.pi / 2), 4: (-1.0, TOUCH_LINE_START, -math.pi / 2)}
#: own-frame (x, y) to walk to before a kick-off (when we kick off, when they do), for a team on
#: the left; on the right each player starts on the other touch line, and the places are mirrored
#: too (:meth:`Player.ready_place`). Kept 0.4 m or more inside our half and out of the centre
#: circle (0.75 m): the odometry of the walk there from the touch line is that far off at times,
#: and a robot in the wrong place at ``set`` is taken off. At our kick-off player 4 stands at
#: its kick's place instead (:data:`KICK_OFF_TAKER`).
KICK_OFF_PLACES = {1: ((-4.0, 0.0), (-4.0, 0.0)), 2: ((-2.2, 0.8), (-2.2, 0.8)),
                   3: ((-1.2, -1.0), (-1.2, -1.0)), 4: ((-0.6, 0.0), (-1.4, 0.3))}
KICK_OFF_TAKER = 4               # the player nearest the ball at our kick-off, who stands ready to kick it
KICK_OFF_STAGE = 0.25            # m short of the kick's place it stands at (Player.ready_place): the toes 0.3 m
                                 # inside our half, where the referee wants the whole robot at set
TEAM_PORTS = {"red": 3737, "blue": 3738}           # UDP ports of the players' own messages (one per team)
MAX_DATAGRAMS = 64               # UDP packets (GameController, team) read in one step
SAY_EVERY = 0.25                 # s between a player's messages to its team
HEARD_FOR = 1.0                  # s a team-mate's message counts
KEEP_BALL = 0.3                  # m: the player on the ball keeps it unless a team-mate is this much nearer
KEEPER_ZONE = (1.5, 1.8)         # m from our goal line and from the middle: the goalkeeper's ball in here
SUPPORT = {2: (-1.6, 0.0), 3: (-1.0, 1.2), 4: (-1.0, -1.2)}   # own-frame offsets from the ball of those not on it
BALL_FORGET = 4.0                # s after which a ball not seen is searched for
AT_FEET = 0.6                    # m: a ball last seen this near and not seen for BALL_FORGET s lies at the feet,
STEP_BACK = 2.0                  # under the camera: the player steps back this long (s) before it searches
                                 # (benchmarks/bench_dribble.py: 7.54 m of ball a minute, 6.94 without)
LOOK_FROM = 1.0                  # m short of where a team-mate sees the ball that a searching player walks to
TURN_ROUND = 8.0                 # s: a turn on the spot, after which a player that sees no ball walks to the centre
CENTRE_NEAR = 0.5                # m from the centre spot that counts as there
BEHIND = 0.3                     # m behind the ball (from the goal) to walk to before pushing it
APPROACH = 0.7                   # m further back on that line when coming from the ball's side (:meth:`Player._approach`)
APPROACH_FROM = 0.5              # m from the ball beyond which the player approaches so
#: m: where the ball must be seen (robot frame x, y) for the right foot's kick (mirrored, y > 0, for the
#: left's): kid.KICK_BALL before the right ankle, which is 0.016 m ahead of and 0.040 m right of the
#: torso in the walking crouch; from a stand the kick carries 1.6 to 2.5 m with the ball 3 cm either
#: side of the ankle's line and 0.14 to 0.17 m before it, and the camera sees a ball at the feet up to
#: 3 cm further and 1 cm more to the right than it lies (measured)
KICK_WINDOW = ((0.155, 0.205), (-0.08, -0.01))
KICK_HELD = 0.02                 # m the window widens by once standing still for a kick: the ball seen at its edge
                                 # (the camera's estimate jitters by 1 to 2 cm) sent the player stepping again
                                 # and back, and stepping off from the stand it fell (bench_dribble.py traces)
KICK_STILL = 1.0                 # s standing still, feet together, before a kick: after a walk the kick fell 10 times
                                 # in 10 from the walk stepping in place, 2 in 10 from 1 s standing (bench_kid.py)
KICK_ALIGNED = 0.25              # rad: facing the goal (the kick's own off-line allowed for) this well to kick
ALIGNED = 0.35                   # rad: facing the goal this well, the player walks the ball on
STAGE = 0.15                     # m short of the kick's place that the taker of a restart walks to (Player._restart),
CREEP = 0.2                      # then steps up at this share of full speed (0.1 m/s), side-stepping to keep
RESTART_STILL = 1.5              # s standing still before it kicks
#: m: before our set play's end the taker steps up only until it sees the ball this far ahead (the
#: window's near edge is 0.155 m) and stands there, so that it kicks as the set play ends: the ankle's
#: front touches a ball less than 0.14 m ahead of the torso (kid.xml), the camera sees a ball at the
#: feet up to 3 cm further than it lies, and a touch before the end is a warning (seed 000's referee)
EARLY_NEAR = 0.18
LINED_UP = 0.12                  # the ball this near (m) its place across the foot
KEEP_AWAY = 1.0                  # m from the ball at the opponents' set plays (free-kick distance 0.75)
INSIDE = 0.3                     # m inside the field's lines that waiting and supporting places are kept
KEEP_OFF = 0.9                   # m: nearer the ball than this, a way to a waiting place goes round it,
ROUND_STEP = 0.9                 # rad on along the circle of KEEP_AWAY m about it at a time
PLACED_LOOK = 3.0                # s at most a player stands, turning to the ball, after the referee puts the
                                 # ball of the other team's set play on its spot, until it sees it there
WAIT_BEHIND = 0.6                # m behind the ball (from the goal) to wait at while our set play's ball is put down
CAREFUL_NEAR = 1.5               # m from the ball within which the player walks carefully while a robot
CROWD = 1.0                      # stands this near the ball (m), but when it walks the ball on,
CAREFUL = 0.3                    # at this share of full speed: 0.14 m/s, under the
                                 # referee's FOUL_SPEED of 0.2 m/s (a faster robot near the ball that runs
                                 # into one moving to the ball fouls, unless it moves to the ball and is
                                 # nearer); at 0.4 of full speed robots were called at 0.20 to 0.23 m/s
VICINITY = 2.3                   # m from the ball within which it walks carefully, even walking the ball on,
CLEAR_AHEAD = 0.8                # while something stands less than this ahead (m, from the torso) and
CLEAR_SIDE = 0.3                 # less than this to either side: the referee's 2 m and a margin
CLOSE = 0.7                      # m: while something stands this near the torso, beside it or ahead, it walks
CLOSE_BEHIND = 0.1               # carefully within VICINITY of the ball, even first to it (what stands further
                                 # than this behind the torso, it walks away from)
GIVE_WAY = 4.0                   # s at most that a player waits while a robot nearer the ball plays it
GIVE_WAY_MARGIN = 0.1            # m: how much nearer the ball that robot stands (the referee's FOUL_DISTANCE)
TO_BALL = 0.3                    # rad: the ball this near straight ahead, the player walks to it (the referee's
                                 # FOUL_DIRECTION, 30 deg, and a margin for the side steps and the odometry:
                                 # at 0.4 a player walking the ball on was called with it 22 deg off its heading)
SEEN_FOR = 1.0                   # s a thing seen standing on the turf is remembered
DETOUR_AHEAD = 1.0               # m: a thing standing on the way less than this ahead,
DETOUR_SIDE = 0.35               # and less than this either side of it (two robots' half widths and a margin),
DETOUR_PASS = 0.4                # is passed this far beside its edge (:meth:`Player._detour`)
BALL_CLEAR = 0.2                 # m: what stands this near the ball is the ball's own shaded underside
SETTLE = 0.8                     # s standing in the crouch before walking off
LIE_STILL = 0.5                  # s lying on the front or back before getting up (the fall is over)
LIE_NEAR = (1.5, 4.0)            # s (least, most) lying there when a robot stood within NEAR_ME m
NEAR_ME = 0.7                    # of the torso in the last RECALL s before the fall: a get-up
RECALL = 2.0                     # touching it is the referee's charging or pushing
TURN_WALKING = 0.4              # most turn (share of full) while walking on
TURN_ON_SPOT = 0.5               # rad: a target further off than this is turned to first
TURN_CLEAR = 0.5                 # m: with the ball less than this ahead, a turn on the spot does not step on
SIDE_CHECK = 10.0                # s after a penalty in which the touch line it was put on is checked
SIDE_MARGIN = 1.0                # m: by the ball, the other line is taken when it fits this much better
SIDE_AGREE = 2.0                 # and there lies within this of where a team-mate sees the ball
LOOK_ROUND = 1.0                 # s: a ball not seen this long is looked for round where it should lie,
LOOK_SWEEP = 0.5                 # rad either side of its bearing (the camera sees 0.7 either side), odometry
LOOK_PERIOD = 2.0                # being half a metre off at times: s a sweep there and back
FIX_EVERY = 0.2                  # s between looks for the lines (2 ms a search, 8 players on 2 cores)
FIX_GAIN = 0.3                   # share of a line fix (:func:`simleague.vhsc.localise.fix`) taken at once
TILT_GAIN = 0.002                # share of the accelerometer's tilt taken into the attitude each step


@dataclass
class Sensed:
    """One step's sensor measurements as the player uses them: ``time`` (s), joint ``angles``
    (rad by joint name), ``gyro`` (rad/s, torso frame x forward, y left, z up), ``accelerometer``
    (m/s^2, same frame) and the camera's ``image`` (BGR bytes) when one came."""

    time: float
    angles: dict[str, float]
    gyro: tuple[float, float, float]
    accelerometer: tuple[float, float, float]
    image: bytes | None = None

    @classmethod
    def from_measurements(cls, m) -> Sensed:
        """From a ``SensorMeasurements`` (the joints' ``<joint>_sensor`` readings)."""
        angles = {s.name.removesuffix("_sensor"): s.value for s in m.position_sensors}
        gyro = next(((g.value.X, g.value.Y, g.value.Z) for g in m.gyros), (0.0, 0.0, 0.0))
        acc = next(((a.value.X, a.value.Y, a.value.Z) for a in m.accelerometers), (0.0, 0.0, 9.81))
        image = next((c.image for c in m.cameras if len(c.image) == camera.WIDTH * camera.HEIGHT * 3), None)
        return cls(m.time / 1000, angles, gyro, acc, image)


@dataclass
class Game:
    """What the player takes from the GameController: ``state`` (gc.STATE_*), whether we
    ``kick_off`` (the packets' kicking team; while the ball waits to be put in play after a set
    play, :meth:`Player._follow_game` makes it whether the set play was ours), our ``penalised``
    status, whether the opponents have a set play under way, whether the ball is ``free`` (not
    waiting to be put in play after a kick-off or an executed set play: the packets count down its
    ``secondary_time`` then; a dropped ball's is free to both teams), the half, whether the set
    play under way is a penalty kick, whether we have a set play under way, and its ``phase``
    (0: the ball being put on its spot, 1 and 2: the teams taking their places; the packets'
    ``secondary_state_info[1]``, seed 000's GameController; 0 when no set play is under way)."""

    state: int = gc.STATE_PLAYING
    kick_off: bool = True
    penalised: bool = False
    their_set_play: bool = False
    first_half: bool = True
    free: bool = True
    penalty_kick: bool = False
    our_set_play: bool = False
    phase: int = 0

    @property
    def set_play(self) -> bool:
        """Whether a set play is under way, ours or theirs."""
        return self.our_set_play or self.their_set_play

    @classmethod
    def from_packet(cls, data: gc.GameData, colour: str, number: int) -> Game | None:
        """Our view of ``data`` for player ``number`` of ``colour`` ("red"/"blue"); None when
        no team has that colour."""
        wanted = gc.TEAM_RED if colour == "red" else gc.TEAM_BLUE
        ours = next((t for t in data.teams if t.colour == wanted), None)
        if ours is None:
            return None
        penalised = 1 <= number <= len(ours.players) and ours.players[number - 1].penalty != gc.PENALTY_NONE
        set_play = data.secondary_state in gc.SET_PLAYS        # not overtime, a shoot-out or a timeout
        their = set_play and data.secondary_state_info[0] != ours.number
        # the ball waits to be put in play by the kicking team; a dropped ball, by either team
        waiting = (data.state == gc.STATE_PLAYING and data.secondary_state == gc.STATE2_NORMAL
                   and data.secondary_time > 0 and data.kick_off_team != gc.DROPPED_BALL_TEAM)
        return cls(data.state, data.kick_off_team == ours.number, penalised, their, data.first_half, not waiting,
                   data.secondary_state == gc.STATE2_PENALTY_KICK, set_play and not their,
                   data.secondary_state_info[1] if set_play else 0)


class Attitude:
    """The torso's orientation (a rotation matrix, torso to world, rows of floats) kept by
    integrating the gyro, its tilt pulled towards the accelerometer's gravity a little each step:
    a complementary filter (R. Mahony, T. Hamel, J.-M. Pflimlin, "Nonlinear complementary filters
    on the special orthogonal group", IEEE Trans. Automatic Control 53(5), 2008). The gyro keeps
    the heading through falls and get-ups; the accelerometer only corrects the tilt.
    ``Attitude(heading)`` starts upright facing ``heading`` rad."""

    def __init__(self, heading: float):
        c, s = math.cos(heading), math.sin(heading)
        self.matrix = [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]

    @property
    def up(self) -> tuple[float, float, float]:
        """The world's up in the torso's frame (unit vector)."""
        return tuple(self.matrix[2])

    @property
    def heading(self) -> float:
        """Where the torso's forward axis points, rad about the world's vertical."""
        return math.atan2(self.matrix[1][0], self.matrix[0][0])

    def update(self, gyro, accelerometer, dt: float) -> None:
        """One step of ``dt`` s: the gyro's rates (rad/s, torso frame), the accelerometer (m/s^2)."""
        rate = list(gyro)
        norm = math.sqrt(sum(a * a for a in accelerometer))
        if abs(norm - 9.81) < 2.0:                          # near 1 g: the accelerometer shows up
            measured = [a / norm for a in accelerometer]
            predicted = self.up
            error = (predicted[1] * measured[2] - predicted[2] * measured[1],
                     predicted[2] * measured[0] - predicted[0] * measured[2],
                     predicted[0] * measured[1] - predicted[1] * measured[0])
            rate = [r - TILT_GAIN / dt * e for r, e in zip(rate, error)]
        self.matrix = _times(self.matrix, _rotation(rate, dt))

    def turn(self, angle: float) -> None:
        """Turn the heading by ``angle`` rad about the world's vertical, the tilt kept."""
        self.matrix = _times(_rotation((0.0, 0.0, angle), 1.0), self.matrix)


def _rotation(rate, dt: float) -> list[list[float]]:
    """The rotation by ``rate`` (rad/s, an axis times a speed) over ``dt`` s (Rodrigues' formula)."""
    x, y, z = (r * dt for r in rate)
    angle = math.sqrt(x * x + y * y + z * z)
    if angle < 1e-12:
        return [[1.0, -z, y], [z, 1.0, -x], [-y, x, 1.0]]
    x, y, z = x / angle, y / angle, z / angle
    c, s = math.cos(angle), math.sin(angle)
    t = 1 - c
    return [[c + x * x * t, x * y * t - z * s, x * z * t + y * s],
            [y * x * t + z * s, c + y * y * t, y * z * t - x * s],
            [z * x * t - y * s, z * y * t + x * s, c + z * z * t]]


def _times(a, b) -> list[list[float]]:
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


@dataclass
class Estimate:
    """Where the player thinks it and the ball are (own frame, m and rad): ``Estimate(x, y,
    heading)``; the heading is the :class:`Attitude`'s; ``ball_time`` (s) when the ball was last
    seen."""

    x: float
    y: float
    start_heading: InitVar[float]
    ball: tuple[float, float] = (0.0, 0.0)
    ball_time: float = -math.inf
    attitude: Attitude = field(init=False)

    def __post_init__(self, start_heading: float):
        self.attitude = Attitude(start_heading)

    def place(self, x: float, y: float, heading: float) -> None:
        """Where the robot was put (by the referee, or at the start of a half)."""
        self.x, self.y = x, y
        self.attitude = Attitude(heading)

    @property
    def heading(self) -> float:
        """Where the torso faces, rad (own frame)."""
        return self.attitude.heading

    @property
    def up(self) -> tuple[float, float, float]:
        """The world's up in the torso's frame (unit vector)."""
        return self.attitude.up

    def to_robot(self, x: float, y: float) -> tuple[float, float]:
        """An own-frame point in the robot's ground frame (x forward, y left); numpy arrays of
        points too, element by element."""
        dx, dy = x - self.x, y - self.y
        c, s = math.cos(self.heading), math.sin(self.heading)
        return c * dx + s * dy, -s * dx + c * dy

    def to_field(self, x: float, y: float) -> tuple[float, float]:
        """A point of the robot's ground frame in the own frame; numpy arrays of points too."""
        c, s = math.cos(self.heading), math.sin(self.heading)
        return self.x + c * x - s * y, self.y + s * x + c * y


def _clamp(value: float, most: float = 1.0) -> float:
    """``value`` within [-most, most]."""
    return max(-most, min(most, value))


def _turn(angle: float, slow_over: float, most: float = 1.0) -> float:
    """The turn (share of full, at most ``most`` either way) towards ``angle`` (rad) off: slowing
    linearly over the last ``slow_over`` rad (0: not), and slow enough to stop there, the walk
    changing its speed a little a step (:func:`simleague.vhsc.kid.stopping_speed`)."""
    most = min(most, kid.stopping_speed(abs(angle), kid.FULL_TURN))
    if slow_over > 0:
        most = min(most, abs(angle) / slow_over)
    return math.copysign(most, angle)


def _keepers_ball(bx: float, by: float) -> bool:
    """Whether a ball at own-frame (``bx``, ``by``) (m) lies in the goalkeeper's zone
    (:data:`KEEPER_ZONE`), where the goalkeeper leaves its goal for it."""
    return bx < -HALF_LENGTH + KEEPER_ZONE[0] and abs(by) < KEEPER_ZONE[1]


def _in_kick_window(rx: float, ry: float, mirror: float, margin: float = 0.0, near: float | None = None) -> bool:
    """Whether the ball seen at (``rx``, ``ry``) (robot frame, m) lies in :data:`KICK_WINDOW`
    before the right foot (``mirror`` 1) or the left (-1), widened by ``margin`` m on each side;
    ``near`` (m), when given, in place of the window's near edge."""
    (window_near, far), (low, high) = KICK_WINDOW
    near = window_near if near is None else near
    return near - margin < rx < far + margin and low - margin < mirror * ry < high + margin


def _behind(bx: float, by: float, distance: float) -> tuple[tuple[float, float], float]:
    """The own-frame point ``distance`` m behind the ball at (``bx``, ``by``) as seen from the
    opponents' goal, and the direction (rad) from the ball to the goal."""
    aim = math.atan2(GOAL[1] - by, GOAL[0] - bx)
    return (bx - distance * math.cos(aim), by - distance * math.sin(aim)), aim


class Player:
    """The sample player's decisions: ``Player(number, colour, left_first)`` (whether its team
    plays on the left in the first half); each step :meth:`act` with the step's :class:`Sensed`
    and the latest :class:`Game` gives the joints' target angles (rad by joint name). Pure: no
    sockets.

    The team's own frame is the field's turned so that x points at the opponents' goal. The
    referee mirrors a team's poses for the team on the right by x alone (seed 000's referee,
    :meth:`simleague.vhsc.config.Pose.mirrored`), so there a starting pose's y and heading change
    sign in the own frame."""

    def __init__(self, number: int, colour: str, left_first: bool = True):
        self.number, self.colour, self.left_first = number, colour, left_first
        self.me = Estimate(*self._start(first_half=True))
        self.walk = kid.walk()
        self.motion = None
        self.lying = False
        self.game = Game(state=gc.STATE_INITIAL)
        self._time: float | None = None
        self._scan = 0.0
        self.standing_since: float | None = None           # when the robot last stood up to walk
        # number -> (distance to the ball (m), when heard (s), where it sees the ball, where it stands
        # (own frame, m))
        self.mates: dict[int, tuple[float, float, tuple[float, float] | None, tuple[float, float] | None]] = {}
        self._said = -math.inf
        self.on_ball = False
        self.kicking: str | None = None                   # the foot of a kick about to start
        self._stopped: float | None = None                 # when the walk came to a stop for a kick
        self._lying_since: float | None = None             # when it was last seen lying, not yet getting up
        self._lying_for = LIE_STILL                        # s it lies still this time
        self._stagger = random.Random(f"{colour}-{number}")  # the wait next to a robot: each player's own
        self.dribbling = False                             # walking the ball on this step
        self.still = False                                 # standing still before a kick this step
        self._giving_way: float | None = None             # since when it waits while another plays the ball
        self._foot: str | None = None                      # the foot that kicks the restart's ball (_restart)
        self.obstacles = np.empty((0, 3))                   # things seen standing: when (s), own-frame x, y (m)
        self._side_check_until: float | None = None        # s: the touch line checked until then (_check_side)
        self._placed_at: float | None = None               # s: when the other team's set play's ball was put down
        self._centre_ball = False                          # the kick-off's ball lies on the centre spot
        # the painted lines, to find its place by
        self._lines = localise.line_map(FIELD_LINES, 2 * HALF_LENGTH, 2 * HALF_WIDTH)
        self._fixed = -math.inf                            # s: when it last looked for the lines

    # ------------------------------------------------------------------ bookkeeping
    def _on_left(self, first_half: bool) -> bool:
        return self.left_first == first_half

    def _start(self, first_half: bool) -> tuple[float, float, float]:
        """The own-frame (x, y, heading) of the player's starting pose in a half."""
        x, y, heading = STARTS.get(self.number, STARTS[4])
        return (x, y, heading) if self._on_left(first_half) else (x, -y, -heading)

    def ready_place(self) -> tuple[float, float, float]:
        """The own-frame (x, y) (m) and heading (rad) the player walks to before a kick-off:
        :data:`KICK_OFF_PLACES` facing the opponents' goal, mirrored across the field's long axis
        while the team plays on the right, where the starting poses are the left's reflected in
        x (:meth:`simleague.vhsc.config.Pose.mirrored`), which puts each player on the other
        touch line in the team's own frame; unmirrored, two players walked across each other's
        way there and collided. At our kick-off its taker (:data:`KICK_OFF_TAKER`) stands to kick
        the ball on the centre spot, :data:`KICK_OFF_STAGE` m short of the kick's place
        (:meth:`_kick_place`)."""
        if self.game.kick_off and self.number == KICK_OFF_TAKER:
            return self._kick_place(0.0, 0.0, KICK_OFF_STAGE)
        ours, theirs = KICK_OFF_PLACES.get(self.number, KICK_OFF_PLACES[3])
        x, y = ours if self.game.kick_off else theirs
        return (x, y, 0.0) if self._on_left(self.game.first_half) else (x, -y, 0.0)

    def _follow_game(self, game: Game) -> None:
        before = self.game
        new_half = game.state == gc.STATE_INITIAL and (before.state != gc.STATE_INITIAL
                                                       or game.first_half != before.first_half)
        if new_half:
            self.me.place(*self._start(game.first_half))
            self._side_check_until = None
        if game.penalised and not before.penalised:
            # taken to the penalty mark's x on the touch line, facing the field: away from the
            # ball in play; on the re-entry pose's side with the ball on the centre spot (set);
            # before that the referee's ball waits off the field at y > 0: on the field's y < 0 side
            seen = self._time is not None and self._time - self.me.ball_time < BALL_FORGET
            if game.state == gc.STATE_PLAYING and seen:
                side = -1.0 if self.me.ball[1] > 0 else 1.0
            elif game.state == gc.STATE_SET:
                side = 1.0 if self._start(game.first_half)[1] > 0 else -1.0
            else:
                side = -1.0 if self._on_left(game.first_half) else 1.0
            self.me.place(-(HALF_LENGTH - PENALTY_MARK), side * TOUCH_LINE_START, -side * math.pi / 2)
            self.motion, self.walk = None, kid.walk()
            self._side_check_until = math.inf
        if game.their_set_play and game.phase > 0 and not (before.their_set_play and before.phase > 0):
            self._placed_at = self._time if self._time is not None else -math.inf
        if before.penalised and not game.penalised and self._side_check_until is not None:
            self._side_check_until = (self._time or 0.0) + SIDE_CHECK
        if game.state == gc.STATE_SET:
            self._centre_ball = True
        elif game.state != gc.STATE_PLAYING or game.free or game.set_play:
            self._centre_ball = False
        if game.free and not game.our_set_play:
            self._foot = None
        if not game.free:
            # the ball waits (its 10 s counted down) for the team that restarts; the packets name
            # the half's kick-off team throughout, but after a set play the team whose set play it
            # was restarts, and the referee takes off opponents nearer the ball than the free-kick
            # distance until it is in play (simleague.vhsc.referee.HumanoidReferee._before_in_play)
            if before.set_play:
                game = replace(game, kick_off=before.our_set_play)
            elif not before.free:
                game = replace(game, kick_off=before.kick_off)
        self.game = game

    def _sense(self, s: Sensed) -> None:
        """Dead reckoning from the last step."""
        dt = STEP if self._time is None else max(0.0, min(0.1, s.time - self._time))
        self._time = s.time
        self.me.attitude.update(s.gyro, s.accelerometer, dt)
        if self.motion is None:
            forward, sideways = kid.odometry(self.walk)
            self.me.x, self.me.y = self.me.to_field(forward * dt, sideways * dt)
        if self._centre_ball and s.time - self.me.ball_time >= LOOK_ROUND:
            # from the set state until the kick-off's ball is in play it lies on the centre spot (seed
            # 000's referee), whatever the camera saw: remembered as last seen LOOK_ROUND s ago, the
            # head looks round it (:meth:`_head`) and a sighting takes over
            self.me.ball, self.me.ball_time = (0.0, 0.0), s.time - LOOK_ROUND

    def look(self, s: Sensed) -> None:
        """Find the ball in the step's camera image (none: nothing to do) and remember where
        it lies on the field."""
        if s.image is None or self.motion is not None or self.me.up[2] < 0.9:
            return
        pitch, roll = camera.tilt(self.me.up)
        position, orientation = camera.camera_pose(kid.TORSO_HEIGHT, pitch, roll, s.angles.get("head_yaw", 0.0),
                                                   s.angles.get("head_pitch", 0.0))
        sighting = camera.find_ball(s.image, position, orientation)
        if sighting is not None:
            self._check_side(sighting.x, sighting.y, s.time)
        if s.time - self._fixed >= FIX_EVERY:
            self._fixed = s.time
            self._fix_pose(camera.find_lines(s.image, position, orientation, sighting))
        if sighting is not None:
            self.me.ball = self.me.to_field(sighting.x, sighting.y)
            self.me.ball_time = s.time
            if self.game.state == gc.STATE_SET and sighting.distance < 2.0:
                # the ball lies on the centre spot: where we see it tells where we are
                self.me.x -= self.me.ball[0]
                self.me.y -= self.me.ball[1]
                self.me.ball = (0.0, 0.0)
        self._see_obstacles(s.time, camera.find_obstacles(s.image, position, orientation))

    def _fix_pose(self, points: np.ndarray) -> None:
        """Move the pose estimate :data:`FIX_GAIN` of the way to where the painted lines seen
        (``points``, robot ground frame, m: :func:`simleague.vhsc.camera.find_lines`) put it
        (:func:`simleague.vhsc.localise.fix`), when they do. Without it the player knew its place
        from its steps alone: in 290 s of a traced half the players' estimates in play were 0.42 to
        1.41 m off (medians per player), the goalkeepers' 0.48 and 0.74 m; with it, in a traced
        300 s half, 0.07 to 0.18 m (docs/humanoid.md)."""
        found = localise.fix(self._lines, points, self.me.x, self.me.y, self.me.heading)
        if found is not None:
            self.me.x += FIX_GAIN * found.dx
            self.me.y += FIX_GAIN * found.dy
            self.me.attitude.turn(FIX_GAIN * found.turn)

    def _check_side(self, rx: float, ry: float, now: float) -> None:
        """Seeing the ball at (``rx``, ``ry``) (robot frame, m) while penalised or in the
        :data:`SIDE_CHECK` s after: whether the referee put the robot on the other touch line
        than :meth:`_follow_game` guessed. The referee takes the line away from the ball (seed
        000's referee; the league's referee, place_player_at_penalty), which the player may not
        have seen for a while, or sees where it is not (its odometry's error); in a traced half,
        three players put on the other line than they thought walked off the field. On the
        other line the robot's pose, and where it sees the ball, are this line's turned half
        round about (x0, 0), x0 the penalty mark's x. When the ball a team-mate sees
        (:meth:`_told_ball`) fits the other line :data:`SIDE_MARGIN` m better, and within
        :data:`SIDE_AGREE` m, the player takes it: its pose and the ball turned so, what it saw
        standing forgotten. A sighting that fits neither line is no evidence: in a traced half a
        player put on the line it thought saw a ball 6 m away where none lay, 8.7 m from the
        team-mate's on the other line and 9.9 m on this one, turned its pose round, and a
        team-mate walking to where it then told the ball lay walked off the field, twice."""
        if self._side_check_until is None or now > self._side_check_until:
            return
        told = self._told_ball(now)
        if told is None:
            return
        x0 = -(HALF_LENGTH - PENALTY_MARK)
        here = self.me.to_field(rx, ry)
        there = (2 * x0 - here[0], -here[1])
        off_there = math.dist(there, told)
        if off_there < SIDE_AGREE and off_there + SIDE_MARGIN < math.dist(here, told):
            me = self.me
            me.place(2 * x0 - me.x, -me.y, wrap(me.heading + math.pi))
            me.ball = (2 * x0 - me.ball[0], -me.ball[1])
            self.obstacles = np.empty((0, 3))

    def _see_obstacles(self, now: float, points: np.ndarray) -> None:
        """Remember where things stand (``points``: robot frame, shape (n, 2), m) in the own frame,
        but for the ball (within :data:`BALL_CLEAR` of where it was seen lately), and forget
        what was seen more than :data:`SEEN_FOR` s ago."""
        seen = np.column_stack(self.me.to_field(points[:, 0], points[:, 1]))
        if now - self.me.ball_time < BALL_FORGET:
            seen = seen[np.hypot(*(seen - self.me.ball).T) > BALL_CLEAR]
        kept = self._recent(now)
        self.obstacles = np.vstack((kept, np.column_stack((np.full(len(seen), now), seen))))

    def _recent(self, now: float, within: float = SEEN_FOR) -> np.ndarray:
        """The things seen in the last ``within`` s: rows of (when (s), own-frame x, y (m))."""
        return self.obstacles[now - self.obstacles[:, 0] < within]

    def _around(self, now: float, within: float = SEEN_FOR) -> np.ndarray:
        """The things seen in the last ``within`` s and the team-mates that said where they stand
        in that time (:meth:`hear`): rows of (when (s), own-frame x, y (m)). A team-mate beside or
        behind is out of the camera's view: in two traced halves 8 of 17 and 14 of 24 falls
        followed a team-mate's touch, at the ball and on the way to the set plays' places. Its
        place is its odometry's, which may be half a metre off."""
        mates = [(when, *at) for _, when, _, at in self.mates.values() if at is not None and now - when < within]
        return np.vstack((self._recent(now, within), np.array(mates).reshape(-1, 3)))

    def _distances(self, x: float, y: float, now: float, within: float = SEEN_FOR, mates: bool = True) -> np.ndarray:
        """The distances (m, shape (n,)) from own-frame (``x``, ``y``) (m) to the things around
        (:meth:`_around`) in the last ``within`` s; with ``mates`` False, to the things seen."""
        around = self._around(now, within) if mates else self._recent(now, within)
        return np.hypot(around[:, 1] - x, around[:, 2] - y)

    def _lie_for(self, now: float) -> float:
        """How long (s) to lie still after a fall found at ``now``: :data:`LIE_STILL`, but when a
        robot stood within :data:`NEAR_ME` m in the last :data:`RECALL` s, a time drawn between
        the :data:`LIE_NEAR` bounds, each player's own (two fallen together rise apart). The
        league's referee counts a torso's speed averaged over a second, whatever moves it: a
        robot getting up (or falling) against another near the ball charges it, and one touching
        it for over a second while further from the ball pushes it (check_team_forceful_contacts;
        :meth:`simleague.vhsc.referee.HumanoidReferee._charges`). Lying on, the other robot may
        walk away; the player's camera sees nothing while it lies (nor while it falls: the memory
        holds what was seen in the last :data:`SEEN_FOR` s before the fall). While a set play is
        under way :meth:`act` waits only :data:`LIE_STILL`: when the referee puts the set play's
        ball down (its phase 0 over: 5 s, :data:`simleague.vhsc.options.SET_PLAY_TIMES`) with a
        robot near it, it takes off every robot then down (the league's referee,
        game_interruption_place_ball), and a get-up takes about 4 s."""
        if not np.any(self._distances(self.me.x, self.me.y, now, RECALL) < NEAR_ME):
            return LIE_STILL
        return self._stagger.uniform(*LIE_NEAR)

    def _in_the_way(self, now: float) -> bool:
        """Whether something around (:meth:`_around`) stands ahead: less than
        :data:`CLEAR_AHEAD` m before the torso and :data:`CLEAR_SIDE` m to either side."""
        x, y = self._around_here(now)
        return bool(np.any((x > 0) & (x < CLEAR_AHEAD) & (np.abs(y) < CLEAR_SIDE)))

    def _close_by(self, now: float) -> bool:
        """Whether something around (:meth:`_around`) stands less than :data:`CLOSE` m
        from the torso and not more than :data:`CLOSE_BEHIND` m behind it. Of 11 fouls in a
        traced half, 5 were by upright robots at 0.20 to 0.33 m/s touching an opponent beside
        them near the ball (none of them in the way ahead), 4 of those at the ball itself, where
        the referee's judgement of which robot moves to the ball (within 30 degrees) turns on a
        few centimetres; 4 came while the ball waited after a set play, the robots 1 to 1.5 m from
        it, walking to their places."""
        x, y = self._around_here(now)
        return bool(np.any((x > -CLOSE_BEHIND) & (np.hypot(x, y) < CLOSE)))

    def _around_here(self, now: float) -> tuple[np.ndarray, np.ndarray]:
        """Where the things around in the last :data:`SEEN_FOR` s (:meth:`_around`) stand from
        here: robot-frame x and y (m, shape (n,) each)."""
        around = self._around(now)
        return self.me.to_robot(around[:, 1], around[:, 2])

    # ------------------------------------------------------------------ the team
    def hear(self, number: int, distance: float, now: float, ball: tuple[float, float] | None = None,
             at: tuple[float, float] | None = None) -> None:
        """A team-mate's message: player ``number`` is ``distance`` m from the ball (inf: it does
        not see it, lies or is penalised), which it sees at own-frame ``ball`` (m), and stands
        ``at`` (own frame, m)."""
        if number != self.number:
            self.mates[number] = (distance, now, ball, at)

    def say(self, now: float) -> tuple[float, tuple[float, float], tuple[float, float]] | None:
        """What to tell the team now (every :data:`SAY_EVERY` s), else None: the distance to the
        ball (m, inf when not in reach), where it lies and where the player stands (own frame, m)."""
        if now - self._said < SAY_EVERY:
            return None
        self._said = now
        return self._ball_distance(now), self.me.ball, (self.me.x, self.me.y)

    def _told_ball(self, now: float) -> tuple[float, float] | None:
        """Where the team-mate nearest the ball, heard in the last :data:`HEARD_FOR` s, sees it
        (own frame, m; its odometry's error with it), or None when no team-mate sees it."""
        told = [(d, ball) for d, when, ball, _ in self.mates.values()
                if now - when < HEARD_FOR and math.isfinite(d) and ball is not None]
        return min(told)[1] if told else None

    def _ball_distance(self, now: float) -> float:
        if self.game.penalised or self.motion is not None or self.lying or now - self.me.ball_time > BALL_FORGET:
            return math.inf
        return math.dist(self.me.ball, (self.me.x, self.me.y))

    def _takes_ball(self, now: float) -> bool:
        """Whether this player goes to the ball: the nearest field player by what the team says
        (the one on it keeps it unless another is :data:`KEEP_BALL` nearer), or the goalkeeper
        too with the ball in its zone (:func:`_keepers_ball`), where it goes for the ball (in a
        traced 300 s half 12 of 31 falls followed a touch by a team-mate, two of them the
        goalkeeper's, at the ball with a field player)."""
        mine = self._ball_distance(now) - (KEEP_BALL if self.on_ball else 0.0)
        keeper = _keepers_ball(*self.me.ball)
        heard = [(n, d) for n, (d, when, _, _) in self.mates.items() if (n != 1 or keeper) and now - when < HEARD_FOR]
        self.on_ball = all(mine < d or (mine == d and self.number < n) for n, d in heard)
        return self.on_ball

    # ------------------------------------------------------------------ acting
    def act(self, s: Sensed, game: Game | None = None, look: bool = True) -> dict[str, float]:
        """The joints' targets (rad by joint name) for this step. With ``look`` False the
        step's camera image is left for :meth:`look`, to be called once the targets are sent
        (as :func:`run` does): finding the ball in an image takes 3 ms alone, 10 to 40 ms in a
        match where eight players share two cores with the server, several of its steps, which
        the motors would otherwise wait for."""
        if game is not None:
            self._follow_game(game)
        self._sense(s)
        if look:
            self.look(s)
        head = self._head(s)
        if self.game.penalised or self.game.state in (gc.STATE_INITIAL, gc.STATE_FINISHED):
            # held still: a walk stopped too, or the odometry would go on counting its last steps
            self.motion, self.standing_since, self.walk = None, None, kid.walk()
            return kid.stand(self.walk) | head
        if self.motion is not None:
            targets = self.motion.step()
            if targets is not None:
                return targets
            self.motion, self.standing_since = None, None
        side = kid.lying([9.81 * u for u in self.me.up])   # filtered: a step's jolt is no fall
        self.lying = side is not None
        if not self.lying:
            self._lying_since = None
        else:
            self.standing_since, self.walk = None, kid.walk()
            if self._lying_since is None:
                self._lying_since, self._lying_for = s.time, self._lie_for(s.time)
            if s.time - self._lying_since < (LIE_STILL if self.game.set_play else self._lying_for):
                return kid.stand(self.walk)
            self.motion, self._lying_since = kid.get_up(side, s.angles), None
            return self.motion.step()
        if self.standing_since is None:
            self.standing_since = s.time
        if s.time - self.standing_since < SETTLE:          # bend into the crouch before walking
            return kid.stand(self.walk) | head
        self.dribbling = self.still = False
        forward, sideways, turn = self._decide(s)
        forward = self._careful(forward, s.time)
        if self.kicking is not None:
            self.motion = kid.kick(s.angles, self.kicking)
            self.kicking, self._stopped = None, None
            return self.motion.step() | head
        if self.still:        # feet together: the walk stepping in place, however slowly, topples the kick
            return kid.stand(self.walk) | head
        self._stopped = None
        return kid.leg_targets(self.walk.step(forward, sideways, turn, s.gyro)) | kid.ARMS | head

    def _careful(self, forward: float, now: float) -> float:
        """The walk's forward speed (share of full) made careful near the ball in play: at most
        :data:`CAREFUL` within :data:`CAREFUL_NEAR` m of it while a robot stands near it
        (:meth:`_crowded`) unless walking it on with the ball straight ahead (:meth:`_ball_ahead`), and within
        :data:`VICINITY` m while something stands in the way (:meth:`_in_the_way`); at full
        speed, though, while it is the first to the ball (:meth:`_first_to_ball`), unless something
        stands close by (:meth:`_close_by`: careful then within :data:`VICINITY` m). Near the
        ball the referee calls a robot faster than 0.2 m/s that runs into another a foul unless
        it is the nearer of the two moving to the ball (the league's referee,
        check_team_forceful_contacts; :meth:`simleague.vhsc.referee.HumanoidReferee._charges`)."""
        if self.game.state != gc.STATE_PLAYING or forward <= CAREFUL:
            return forward
        near = self._ball_distance(now)
        if near >= VICINITY:
            return forward
        if self._close_by(now):
            return CAREFUL
        if self._first_to_ball(now):
            return forward
        walking_on = self.dribbling and self._ball_ahead()
        if (near < CAREFUL_NEAR and not walking_on and self._crowded(now)) or self._in_the_way(now):
            return CAREFUL
        return forward

    def _ball_ahead(self) -> bool:
        """Whether the ball lies within :data:`TO_BALL` of straight ahead: walking, the player
        moves towards it as the referee sees it (within 30 degrees)."""
        rx, ry = self.me.to_robot(*self.me.ball)
        return abs(math.atan2(ry, rx)) < TO_BALL

    def _first_to_ball(self, now: float) -> bool:
        """Whether the player walks to the ball (:meth:`_ball_ahead`) and everything seen stands
        :data:`GIVE_WAY_MARGIN` m further from it than the player: the referee's charging and
        pushing rules spare such a robot."""
        mine = math.dist(self.me.ball, (self.me.x, self.me.y))
        return self._ball_ahead() and not np.any(self._distances(*self.me.ball, now) < mine + GIVE_WAY_MARGIN)

    def _contested(self, now: float) -> bool:
        """Whether something seen stands within :data:`CROWD` m of the ball and
        :data:`GIVE_WAY_MARGIN` m nearer it than this player. Team-mates told about do not count:
        which of them plays the ball the team settles by what they say (:meth:`_takes_ball`)."""
        mine = math.dist(self.me.ball, (self.me.x, self.me.y))
        return bool(np.any(self._distances(*self.me.ball, now, mates=False) < min(CROWD, mine - GIVE_WAY_MARGIN)))

    def _crowded(self, now: float) -> bool:
        """Whether something stands within :data:`CROWD` m of the ball."""
        return bool(np.any(self._distances(*self.me.ball, now) < CROWD))

    def trace(self, now: float) -> str:
        """One line of what the player thinks: time, game state, penalised, its own and the
        ball's estimated positions and the ball's age, whether it goes to the ball, walks it on,
        sees something in its way, near the ball, nearer the ball than itself, whether it is the
        first to the ball, whose set play is under way, whether it lies or makes a motion (a
        get-up or kick), the walk's speed."""
        me = self.me
        return (f"{now:8.2f} {gc.STATES[self.game.state]:8} {'penalised' if self.game.penalised else '-':9} "
                f"me {me.x:6.2f} {me.y:6.2f} {math.degrees(me.heading):5.0f} ball {me.ball[0]:6.2f} {me.ball[1]:6.2f} "
                f"age {min(99.0, now - me.ball_time):5.1f} on_ball {int(self.on_ball)} dribbling {int(self.dribbling)} "
                f"in_the_way {int(self._in_the_way(now))} crowded {int(self._crowded(now))} "
                f"contested {int(self._contested(now))} first {int(self._first_to_ball(now))} "
                f"{'ours' if self.game.our_set_play else 'theirs' if self.game.their_set_play else '-'} "
                f"{'motion' if self.motion else 'lying' if self.lying else '-'} "
                f"speed {' '.join(f'{v:5.2f}' for v in self.walk.speed)}")

    def _decide(self, s: Sensed) -> tuple[float, float, float]:
        """The walk's wanted (forward, sideways, turn), fractions of full speed."""
        state, me = self.game.state, self.me
        if state == gc.STATE_SET:
            return 0.0, 0.0, 0.0
        if state == gc.STATE_READY:
            return self._go_to(*self.ready_place())
        unseen = s.time - me.ball_time
        if unseen >= BALL_FORGET:
            return self._search(unseen, s.time)
        bx, by = me.ball
        to_ball = math.atan2(by - me.y, bx - me.x)
        if self._ball_unplaced(s.time):
            return 0.0, 0.0, self._turn_to(to_ball)
        if self.game.their_set_play and self.game.penalty_kick:
            return self._their_penalty_kick(bx, by, to_ball)
        if not (self.game.free or self.game.kick_off) and self.number != 1 and \
                math.dist((bx, by), (me.x, me.y)) > KEEP_AWAY:  # theirs to restart: the places were right
            return 0.0, 0.0, self._turn_to(to_ball)
        if self.game.our_set_play:               # a touch before the set play's end is a warning
            if self.number == 1:
                return self._keep_goal(by)
            if self._takes_ball(s.time):
                if self.game.phase == 0:                    # the ball not yet on its spot
                    spot, aim = _behind(bx, by, WAIT_BEHIND)
                    return self._go_to(*spot, aim, avoid=(bx, by))
                return self._restart(bx, by, s.time, early=True)
        if self.game.kick_off and not self.game.free and self.number != 1 and self._takes_ball(s.time):
            return self._restart(bx, by, s.time)
        keep_away = self.game.their_set_play or not (self.game.free or self.game.kick_off)
        if keep_away and self.number == 1:
            return self._keep_goal(by, clear_of=(bx, by))
        if keep_away:                                      # wait on our side, out of the free-kick distance
            return self._go_to(*self._round_ball(bx, by, *self._wait_place(bx, by)), to_ball, avoid=(bx, by))
        if self.number == 1 and not _keepers_ball(bx, by):
            return self._keep_goal(by)
        if self.number == 1 or self._takes_ball(s.time):
            return self._attack(bx, by, s.time)
        dx, dy = SUPPORT.get(self.number, SUPPORT[3])
        x = max(-HALF_LENGTH + KEEPER_ZONE[0] + 0.3, min(HALF_LENGTH - 1.0, bx + dx))   # out of the keeper's way
        y = _clamp(by + dy, HALF_WIDTH - INSIDE)
        return self._go_to(x, y, math.atan2(by - me.y, bx - me.x))

    def _search(self, unseen: float, now: float) -> tuple[float, float, float]:
        """Look for a ball not seen for ``unseen`` s (at least :data:`BALL_FORGET`): step back
        from one lost at the feet (under the camera's view) for :data:`STEP_BACK` s; walk to
        :data:`LOOK_FROM` m of where a team-mate sees it (:meth:`_told_ball`); else turn on the spot,
        and after :data:`TURN_ROUND` s walk to the centre spot, within the camera's range
        (:data:`simleague.vhsc.camera.MAX_RANGE`) of every ball on the field, turning there. The
        goalkeeper turns in its place."""
        me = self.me
        if unseen < BALL_FORGET + STEP_BACK and math.dist(me.ball, (me.x, me.y)) < AT_FEET:
            return kid.MOST_BACKWARDS, 0.0, 0.0
        turn = 1.0 if self.number % 2 else -1.0
        if self.number == 1:
            return 0.0, 0.0, turn
        told = self._told_ball(now)
        if told is not None:
            bearing = math.atan2(told[1] - me.y, told[0] - me.x)
            distance = math.dist(told, (me.x, me.y))
            if distance <= LOOK_FROM:
                return 0.0, 0.0, self._turn_to(bearing)
            shy = LOOK_FROM / distance
            return self._go_to(told[0] + shy * (me.x - told[0]), told[1] + shy * (me.y - told[1]), bearing)
        if unseen >= BALL_FORGET + TURN_ROUND and math.hypot(me.x, me.y) > CENTRE_NEAR:
            return self._go_to(0.0, 0.0, me.heading)
        return 0.0, 0.0, turn

    def _attack(self, bx: float, by: float, now: float) -> tuple[float, float, float]:
        """Go behind the ball as seen from the goal, then walk it towards the goal; when it comes
        to lie before a foot (:data:`KICK_WINDOW`, mirrored for the left) stand still and kick it.
        While a robot nearer the ball plays it (:meth:`_contested`) wait, facing the ball, for at
        most :data:`GIVE_WAY` s: robots that meet at the ball fall and foul."""
        me = self.me
        if not self._contested(now):
            self._giving_way = None
        else:
            if self._giving_way is None:
                self._giving_way = now
            if now - self._giving_way < GIVE_WAY:
                return 0.0, 0.0, self._turn_to(math.atan2(by - me.y, bx - me.x), TURN_WALKING)
        spot, aim = _behind(bx, by, BEHIND)
        rx, ry = me.to_robot(bx, by)
        facing = wrap(aim - me.heading)
        if rx > 0.05 and abs(ry) < 0.15 and abs(facing) < ALIGNED:
            foot, mirror = ("right", 1.0) if ry < 0 else ("left", -1.0)
            if _in_kick_window(rx, ry, mirror, self._held()) and \
                    abs(wrap(facing - mirror * kid.KICK_OFF_LINE)) < KICK_ALIGNED:
                return self._kick(foot, now, KICK_STILL)
            # walk the ball on: steer to keep it before the feet and to face the goal
            self.dribbling = True
            steer = 0.5 * facing + 1.5 * math.atan2(ry, max(rx, 0.1))
            return 1.0, _clamp(ry / 0.1), _clamp(steer, TURN_WALKING)
        if math.dist(spot, (me.x, me.y)) > 0.15 or abs(facing) > ALIGNED:
            return self._go_to(*self._approach(bx, by, aim), aim, avoid=(bx, by))
        return 0.6, _clamp(ry / 0.1), _clamp(facing / 0.5, TURN_WALKING)

    def _held(self) -> float:
        """How much (m) the kick's window widens: :data:`KICK_HELD` while the player stood still
        for a kick the step before, else nothing."""
        return KICK_HELD if self._stopped is not None else 0.0

    def _kick(self, foot: str, now: float, still: float) -> tuple[float, float, float]:
        """With the ball before ``foot`` ("right" or "left"): the walk stopped, stand still
        with the feet together for ``still`` s (from ``now``, s), then kick (:meth:`act` starts
        :func:`simleague.vhsc.kid.kick`). A walk, or standing less than 1 s, topples the kick (bench_kid.py)."""
        if self.walk.moving:
            self._stopped = None
        else:
            self.still = True
            self._stopped = now if self._stopped is None else self._stopped
            if now - self._stopped >= still:
                self.kicking = foot
        return 0.0, 0.0, 0.0

    def _restart(self, bx: float, by: float, now: float, early: bool = False) -> tuple[float, float, float]:
        """Our kick-off's or set play's ball at own-frame (``bx``, ``by``) (m), kicked towards
        the goal once it waits to be put in play. The player walks to where the ball lies
        :data:`STAGE` m beyond the kick's place before a foot (the middle of :data:`KICK_WINDOW`),
        turned :data:`simleague.vhsc.kid.KICK_OFF_LINE` off the goal for that foot's kick, then steps
        up at :data:`CREEP` of full speed, side-stepping the ball onto the foot's line, stops with
        the ball in the window, stands :data:`RESTART_STILL` s and kicks. ``early``, at our set
        play's phases 1 and 2 (:meth:`_decide`), it stops with the ball in the window's far part
        (from :data:`EARLY_NEAR` m) and stands there without kicking, so that it kicks as soon as
        the set play ends. The opponents keep the free-kick distance until the ball is touched and
        moved 5 cm, or for 10 s (seed 000's referee); a touch on the way puts the ball in play as
        the kick would."""
        me = self.me
        place = self._kick_place(bx, by, STAGE)
        (near, far), (low, high) = KICK_WINDOW
        if early:
            near = EARLY_NEAR
        mirror = 1.0 if self._foot == "right" else -1.0
        place_y = mirror * (low + high) / 2
        rx, ry = me.to_robot(bx, by)
        off = wrap(place[2] - me.heading)
        if abs(off) < KICK_ALIGNED and abs(ry - place_y) < LINED_UP and near - 0.05 < rx < far + STAGE + 0.1:
            if _in_kick_window(rx, ry, mirror, self._held(), near):
                return self._kick(self._foot, now, math.inf if early else RESTART_STILL)
            aside = ry - place_y
            forward = CREEP if rx > far else -CREEP if rx < near else 0.0
            if abs(aside) > (high - low) / 2 - 0.005:          # on the foot's line first
                forward = 0.0
            return forward, _clamp(aside / 0.05), _clamp(off / 0.5, TURN_WALKING)
        return self._go_to(*place, avoid=(bx, by))

    def _kick_place(self, bx: float, by: float, short: float) -> tuple[float, float, float]:
        """Where to stand (own frame, m) and face (rad) to kick the ball at (``bx``, ``by``)
        towards the goal, ``short`` m back from where the ball lies in the middle of
        :data:`KICK_WINDOW` before the foot: the foot on the ball's side as the player comes
        (then kept until the ball is in play), turned :data:`simleague.vhsc.kid.KICK_OFF_LINE` off the goal for its
        kick."""
        me = self.me
        _, aim = _behind(bx, by, BEHIND)
        if self._foot is None:
            across = math.sin(aim) * (me.x - bx) - math.cos(aim) * (me.y - by)
            self._foot = "right" if across < 0 else "left"
        mirror = 1.0 if self._foot == "right" else -1.0
        (near, far), (low, high) = KICK_WINDOW
        heading = aim - mirror * kid.KICK_OFF_LINE
        back, aside = (near + far) / 2 + short, mirror * (low + high) / 2
        cos, sin = math.cos(heading), math.sin(heading)
        return bx - cos * back + sin * aside, by - sin * back - cos * aside, heading

    def _approach(self, bx: float, by: float, aim: float) -> tuple[float, float]:
        """Where to walk (own frame, m) to come behind the ball at (``bx``, ``by``) facing
        ``aim`` (rad): :data:`BEHIND` m behind it, but from further than :data:`APPROACH_FROM` m
        a place further back on that line, by up to :data:`APPROACH` m the more the way to the
        ball turns from ``aim`` (all of it from 90 degrees on), so that the player comes round on
        its way rather than at the ball, where it side-steps at 0.08 m/s; kept within the field's
        lines. ``benchmarks/bench_dribble.py``: the ball 9.90 and 8.60 m a minute (runs 0 to 39,
        40 to 79), 8.92 and 8.40 without (0.4 m: 9.02; 1.0 m: 8.13)."""
        me, back = self.me, BEHIND
        if math.dist((bx, by), (me.x, me.y)) > APPROACH_FROM:
            off = abs(wrap(aim - math.atan2(by - me.y, bx - me.x)))
            back += APPROACH * min(1.0, off / (math.pi / 2))
        (x, y), _ = _behind(bx, by, back)
        return _clamp(x, HALF_LENGTH), _clamp(y, HALF_WIDTH)

    def _wait_place(self, bx: float, by: float) -> tuple[float, float]:
        """Where a field player waits (own frame, m) while the other team restarts with the ball
        at (``bx``, ``by``): :data:`KEEP_AWAY` m and a margin on our side of it, the players side
        by side :data:`SUPPORT`'s 1.2 m apart, the line of them kept :data:`INSIDE` m inside the
        field (at 0.6 m apart, with their odometry's errors, they walked into each other there)."""
        across = SUPPORT.get(self.number, SUPPORT[3])[1]
        spread = max(abs(dy) for _, dy in SUPPORT.values())
        middle = _clamp(by, HALF_WIDTH - INSIDE - spread)
        return max(-HALF_LENGTH + INSIDE, bx - KEEP_AWAY * 1.3), middle + across

    def _keep_goal(self, by: float, clear_of: tuple[float, float] | None = None) -> tuple[float, float, float]:
        """The goalkeeper's place in its goal, 0.4 m before the line, following the ball's ``by``
        halfway, within 0.8 m of the middle. With ``clear_of`` (the ball of the other team's
        restart, own frame, m) the place is moved along the line to :data:`KEEP_AWAY` m from it,
        and the way there goes round it (:meth:`_round_ball`): an opponent's touch of a set play's
        ball is a retake, one nearer it than the free-kick distance when it is taken is penalised
        (seed 000's referee). A goalkeeper that went for such a ball in its zone touched it."""
        x, y = -HALF_LENGTH + 0.4, _clamp(by * 0.5, 0.8)
        if clear_of is None:
            return self._go_to(x, y, 0.0)
        ball_x, ball_y = clear_of
        if math.dist((x, y), clear_of) < KEEP_AWAY:
            aside = math.sqrt(KEEP_AWAY ** 2 - (x - ball_x) ** 2)
            y = _clamp(ball_y - aside if y < ball_y else ball_y + aside, HALF_WIDTH - INSIDE)
        return self._go_to(*self._round_ball(ball_x, ball_y, x, y), 0.0, avoid=clear_of)

    def _ball_unplaced(self, now: float) -> bool:
        """Whether the ball of the other team's set play may have been put on its spot since it
        was last seen (``now``, s): the referee puts it there when the set play's phase 0 ends,
        moving robots near it 0.5 m away (seed 000's referee), 0.5 to 1 m from where a player
        last saw it at times, and two of three retakes in three benchmark halves were players
        walking into it on their way to their places. For at most :data:`PLACED_LOOK` s after
        that the player stands, turning to where it saw the ball."""
        placed = self._placed_at
        return (self.game.their_set_play and self.game.phase > 0 and placed is not None
                and self.me.ball_time < placed and now - placed < PLACED_LOOK)

    def _their_penalty_kick(self, bx: float, by: float, to_ball: float) -> tuple[float, float, float]:
        """Where the rules want the defenders when the penalty kick is taken: the goalkeeper on
        its goal line, the others neither between the penalty mark and the goal line nor within
        the free-kick distance of the ball (seed 000's referee; the league's referee,
        check_penalty_kick_positions)."""
        if self.number == 1:
            return self._go_to(-HALF_LENGTH - 0.05, 0.0, 0.0)
        x = max(bx, -HALF_LENGTH + PENALTY_MARK) + KEEP_AWAY
        return self._go_to(*self._round_ball(bx, by, x, by + SUPPORT.get(self.number, SUPPORT[3])[1]), to_ball,
                           avoid=(bx, by))

    def _round_ball(self, bx: float, by: float, x: float, y: float) -> tuple[float, float]:
        """Where to head (own frame, m) for the place (``x``, ``y``) while the other team
        restarts with the ball at (``bx``, ``by``): the place itself unless the straight way
        there passes nearer the ball than :data:`KEEP_OFF` m; else round the ball, a point on the
        circle of :data:`KEEP_AWAY` m about it :data:`ROUND_STEP` rad on from where the player
        stands (fewer when the place lies nearer), the shorter way round (the other way where
        that point lies less than :data:`INSIDE` m inside the field's lines). An opponent's touch of the
        set play's ball is a warning and the set play is taken again (the league's referee;
        :meth:`simleague.vhsc.referee.HumanoidReferee._set_play_touched`), and the referee puts
        the robots near the ball 0.5 m from it, on whatever side they stood."""
        me = self.me
        way = np.array([x - me.x, y - me.y])
        to_ball = np.array([bx - me.x, by - me.y])
        length2 = float(way @ way)
        along = float(to_ball @ way) / max(length2, 1e-12)
        if along <= 0.0 or math.dist(min(along, 1.0) * way, to_ball) >= KEEP_OFF:    # behind, or clear of it
            return x, y
        here = math.atan2(me.y - by, me.x - bx)
        turn = wrap(math.atan2(y - by, x - bx) - here)
        for sign in (1.0, -1.0):
            on = here + sign * math.copysign(min(ROUND_STEP, abs(turn)), turn)
            px, py = bx + KEEP_AWAY * math.cos(on), by + KEEP_AWAY * math.sin(on)
            if abs(px) <= HALF_LENGTH - INSIDE and abs(py) <= HALF_WIDTH - INSIDE:
                return px, py
        return x, y

    def _turn_to(self, heading: float, most: float = 1.0) -> float:
        """The turn (share of full, at most ``most`` either way) that brings the player round to
        own-frame ``heading`` (rad) on the spot, slowing over the last 0.4 rad and in time to
        stop there (:func:`_turn`)."""
        return _turn(wrap(heading - self.me.heading), 0.4, most)

    def _go_to(self, x: float, y: float, heading: float, avoid: tuple[float, float] | None = None):
        """Walk to own-frame (x, y), facing ``heading`` (rad) once there; around ``avoid`` (the
        ball) rather than through it. Turns while walking are kept to :data:`TURN_WALKING` (the
        kid's gait falls walking and turning at full speed), larger turns made on the spot; walks
        and turns slow down in time to stop where they aim (:func:`simleague.vhsc.kid.stopping_speed`);
        round robots and posts seen on the way (:meth:`_detour`). A turn on the spot steps on at
        0.2 of full speed, but not towards ``avoid`` less than :data:`TURN_CLEAR` m ahead: at the
        other team's set play a player turning to leave the ball walked into it (a traced half)."""
        me = self.me
        rx, ry = me.to_robot(x, y)
        distance = math.hypot(rx, ry)
        creep = 0.2
        if avoid is not None:
            ax, ay = me.to_robot(*avoid)
            if 0 < ax < rx and abs(ay) < 0.25 and distance > 0.3:     # the ball on the way: step past it
                ry += 0.35 if ay < 0 else -0.35
            if 0 < ax < TURN_CLEAR and abs(ay) < 0.25:
                creep = 0.0
        if distance < 0.12:
            return 0.0, 0.0, self._turn_to(heading)
        bearing = math.atan2(*reversed(self._detour(rx, ry)))
        forward = kid.stopping_speed(distance, kid.FULL_SPEED[0])      # slow enough to stop there
        if distance < 0.6:                                            # near: step there, face the heading
            return (max(-0.5, min(forward, rx / 0.3)), _clamp(ry / 0.15),
                    _turn(wrap(heading - me.heading), 0.5, TURN_WALKING))
        if abs(bearing) > TURN_ON_SPOT:
            return creep, 0.0, _turn(bearing, 0.0)
        return min(forward, distance / 0.5), 0.0, _turn(bearing, 0.5, TURN_WALKING)

    def _detour(self, rx: float, ry: float) -> tuple[float, float]:
        """Where to head (robot frame, m) on the way to (``rx``, ``ry``) (robot frame, m, not the
        origin): beside the nearest thing around (:meth:`_around`) that stands on
        the way, less than :data:`DETOUR_AHEAD` m along it (and more than :data:`DETOUR_PASS` m
        short of the place) and :data:`DETOUR_SIDE` m either side; :data:`DETOUR_PASS` m past
        that thing's edge on the side where less of it stands. Else (``rx``, ``ry``). In a traced
        half 24 of 57 falls followed a team-mate's touch, 8 of them on the way to the kick-off
        places after a goal and 2 at the places of the opponents' set play."""
        if self._time is None:
            return rx, ry
        ox, oy = self._around_here(self._time)
        distance = math.hypot(rx, ry)
        ux, uy = rx / distance, ry / distance
        along, across = ox * ux + oy * uy, oy * ux - ox * uy
        ahead = (along > 0) & (along < min(DETOUR_AHEAD, distance - DETOUR_PASS)) & (np.abs(across) < DETOUR_SIDE)
        if not np.any(ahead):
            return rx, ry
        nearest = along[ahead].min()
        thing = (np.abs(along - nearest) < DETOUR_SIDE) & (np.abs(across) < 2 * DETOUR_SIDE)   # its other points
        if np.mean(across[thing]) > 0:
            side = across[thing].min() - DETOUR_PASS                # pass on its right
        else:
            side = across[thing].max() + DETOUR_PASS
        return nearest * ux - side * uy, nearest * uy + side * ux

    def _head(self, s: Sensed) -> dict[str, float]:
        """The head's yaw and pitch (rad): at the ball while it was seen in the last
        :data:`LOOK_ROUND` s; then round where it should lie (where a team-mate sees it, else where
        it was last seen, within :data:`BALL_FORGET` s), the yaw sweeping :data:`LOOK_SWEEP` rad
        either side of its bearing, since the player's or the team-mate's odometry may be half a
        metre off (a traced kick-off: the taker 0.57 m from where it thought, its head held on the
        bearing kept the ball out of the camera's view for the ball's 10 s); else sweep all round."""
        me = self.me
        unseen = s.time - me.ball_time
        target = self._told_ball(s.time) if unseen >= LOOK_ROUND else None
        if target is None and unseen < BALL_FORGET:
            target = me.ball
        if target is None:
            self._scan += STEP
            return {"head_yaw": 1.3 * math.sin(2 * math.pi * self._scan / 3.0),
                    "head_pitch": 0.25 if int(self._scan / 3.0) % 2 else 0.6}
        rx, ry = me.to_robot(*target)
        distance = max(0.2, math.hypot(rx, ry))
        yaw = math.atan2(ry, rx)
        if unseen >= LOOK_ROUND:
            self._scan += STEP
            yaw += LOOK_SWEEP * math.sin(2 * math.pi * self._scan / LOOK_PERIOD)
        pitch = max(0.0, min(0.85, math.atan2(kid.CAMERA_HEIGHT - camera.BALL_RADIUS, distance)))
        return {"head_yaw": _clamp(yaw, 1.5), "head_pitch": pitch}


class GameListener:
    """The GameController's ``RGme`` packets on UDP ``port`` (every interface, shared with the
    other players on this machine): :meth:`latest` gives the newest as a :class:`Game`; packets
    that are not ``RGme`` v12 are ignored."""

    def __init__(self, colour: str, number: int, port: int = gc.GAME_PORT):
        self.colour, self.number = colour, number
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("", port))
        self.sock.setblocking(False)
        self.game: Game | None = None

    def latest(self) -> Game | None:
        """The newest game state heard (None before the first); at most :data:`MAX_DATAGRAMS`
        packets are read a call, the rest wait for the next."""
        for _ in range(MAX_DATAGRAMS):
            try:
                data = self.sock.recv(2048)
            except (BlockingIOError, InterruptedError):
                return self.game
            try:
                game = Game.from_packet(gc.GameData.decode(data), self.colour, self.number)
            except ValueError:
                continue
            self.game = game or self.game
        return self.game

    def close(self) -> None:
        """Stop listening."""
        self.sock.close()


class TeamChannel:
    """The team's own messages over UDP (the league lets team-mates talk): each player broadcasts
    ``simleague <number> <distance to the ball, cm> <ball x, cm> <ball y, cm> <x, cm> <y, cm>`` (the
    ball where it sees it and where the player stands, in the team's own frame) on its team's port
    (:data:`TEAM_PORTS`) to ``broadcast``; :meth:`heard` gives what arrived. A malformed message is
    ignored."""

    MAX_DISTANCE_CM = 100_000
    MAX_COORDINATE_CM = 99_999
    MESSAGE = re.compile(rb"simleague (\d{1,2}) (\d{1,6})" + rb" (-?\d{1,5})" * 4)

    def __init__(self, colour: str, broadcast: str):
        self.address = (broadcast, TEAM_PORTS[colour])
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        self.sock.bind(("", TEAM_PORTS[colour]))
        self.sock.setblocking(False)

    def say(self, number: int, distance: float, ball: tuple[float, float], at: tuple[float, float]) -> None:
        """Tell the team (``distance`` m, inf when the ball is not in reach; ``ball``: where it
        lies, ``at``: where the player stands, own frame, m)."""
        centimetres = self.MAX_DISTANCE_CM
        if math.isfinite(distance):
            centimetres = min(centimetres, round(distance * 100))
        places = " ".join(str(max(-self.MAX_COORDINATE_CM, min(self.MAX_COORDINATE_CM, round(v * 100))))
                          for v in (*ball, *at))
        try:
            self.sock.sendto(f"simleague {number} {centimetres} {places}".encode(), self.address)
        except OSError:                                   # no route: the team plays on without talk
            pass

    def heard(self) -> list[tuple[int, float, tuple[float, float], tuple[float, float]]]:
        """(number, distance m, ball (x, y) m, where it stands (x, y) m) of the messages that
        arrived since the last call, at most :data:`MAX_DATAGRAMS` a call (the rest wait for the
        next); a player number outside 1 to 11 is not one of ours."""
        out = []
        for _ in range(MAX_DATAGRAMS):
            try:
                data = self.sock.recv(64)
            except (BlockingIOError, InterruptedError):
                break
            message = self.MESSAGE.fullmatch(data)
            if message is not None and 1 <= int(message[1]) <= gc.MAX_PLAYERS:
                centimetres = int(message[2])
                x, y, at_x, at_y = (int(v) / 100 for v in message.groups()[2:])
                out.append((int(message[1]), math.inf if centimetres >= self.MAX_DISTANCE_CM else centimetres / 100,
                            (x, y), (at_x, at_y)))
        return out

    def close(self) -> None:
        """Stop talking and listening."""
        self.sock.close()


def run(address: str | None = None, number: int = 1, colour: str = "red", steps: int | None = None,
        gc_port: int | None = gc.GAME_PORT, left_first: bool = True) -> int:
    """Play until the simulator closes the connection (or ``steps`` measurements); returns the
    number of measurements read. Without GameController packets (``gc_port`` None, its port
    taken, or none heard) the player plays as in the ``playing`` state. Raises OSError when the
    simulator cannot be reached."""
    player = Player(number, colour, left_first)
    listener = team = None
    try:                           # a port another program holds costs the player its GameController
        listener = GameListener(colour, number, gc_port) if gc_port else None
    except OSError as e:
        print(f"player: no GameController packets (UDP {gc_port}: {e.strerror or e}); playing on", file=sys.stderr)
    host = (address or os.environ.get("ROBOCUP_SIMULATOR_ADDR", DEFAULT_ADDRESS)).rpartition(":")[0]
    try:                           # ... or its team's messages, not the game
        team = TeamChannel(colour, gc.broadcast_address(host))
    except OSError as e:
        print(f"player: no team messages (UDP {TEAM_PORTS[colour]}: {e.strerror or e}); playing on", file=sys.stderr)
    folder, trace = os.environ.get(TRACE), None
    if folder:
        try:
            trace = open(os.path.join(folder, f"{colour}-{number}.txt"), "w")
        except OSError as e:
            print(f"player: no trace ({TRACE}={folder}: {e.strerror or e}); playing on", file=sys.stderr)
    try:
        with RobotClient(address) as robot:
            sensors = {f"{joint}_sensor": 8 for joint in kid.JOINTS} | {"gyro": 8, "accelerometer": 8,
                                                                        "camera": CAMERA_MS}
            robot.send(robot.requests(time_steps=sensors))
            count = 0
            while steps is None or count < steps:
                try:
                    measurements = robot.receive()
                except ConnectionError:
                    break
                count += 1
                game = listener.latest() if listener is not None else None
                sensed = Sensed.from_measurements(measurements)
                for mate, distance, ball, at in team.heard() if team is not None else ():
                    player.hear(mate, distance, sensed.time, ball, at)
                robot.send(robot.requests(positions=player.act(sensed, game or Game(), look=False)))
                player.look(sensed)
                if (told := player.say(sensed.time)) is not None:
                    if team is not None:
                        team.say(number, *told)
                    if trace is not None:
                        print(player.trace(sensed.time), file=trace, flush=True)
            return count
    finally:
        if trace is not None:
            trace.close()
        if team is not None:
            team.close()
        if listener is not None:
            listener.close()


def main(argv: list[str] | None = None) -> int:
    """The command line (``--address``, ``--gc-port``); returns the exit code (1 when the
    simulator cannot be reached or refuses)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--address", default=None, help="host:port (default: ROBOCUP_SIMULATOR_ADDR)")
    parser.add_argument("--gc-port", type=int, default=None,
                        help=f"UDP port of the GameController's packets (default: {GAME_CONTROLLER_PORT}, else 3838)")
    args = parser.parse_args(argv)
    environment = os.environ.get("ROBOCUP_SIMULATOR_ADDR")
    address = args.address or environment or DEFAULT_ADDRESS
    source = ("--address" if args.address else "ROBOCUP_SIMULATOR_ADDR" if environment
              else "the default: ROBOCUP_SIMULATOR_ADDR is not set")
    colour = os.environ.get("ROBOCUP_TEAM_COLOR", "red")
    try:
        number = int(os.environ.get("ROBOCUP_ROBOT_ID", "1"))
    except ValueError:
        print(f"player: ROBOCUP_ROBOT_ID must be a number, not {os.environ['ROBOCUP_ROBOT_ID']!r}", file=sys.stderr)
        return 2
    side = os.environ.get(FIELD_SIDE, "left")
    if side not in ("left", "right"):
        print(f"player: {FIELD_SIDE} must be left or right, not {side!r}", file=sys.stderr)
        return 2
    if colour not in TEAM_PORTS:
        print(f"player: ROBOCUP_TEAM_COLOR must be red or blue, not {colour!r}", file=sys.stderr)
        return 2
    try:
        gc_port = args.gc_port or int(os.environ.get(GAME_CONTROLLER_PORT, gc.GAME_PORT))
    except ValueError:
        print(f"player: {GAME_CONTROLLER_PORT} must be a port number, not {os.environ[GAME_CONTROLLER_PORT]!r}",
              file=sys.stderr)
        return 2
    try:
        run(address, number, colour, gc_port=gc_port, left_first=side == "left")
    except ValueError as e:
        print(f"player: {e} ({source})", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"player: cannot reach the simulator at {address} ({source}): {e.strerror or e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
