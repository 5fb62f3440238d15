"""The referee of RoboCup 3D simulated soccer: play modes, game time and halves, kick-off (with the
coin toss), goals with their pause, the ball leaving the field (kick-in, corner kick, goal kick,
after the kick-in pause), dropping the ball when a set piece is not taken, the free-kick distance
and when players may beam. Pure: it knows no world, no sockets and no clock; the soccer world
calls :meth:`Referee.step` once per cycle with what happened to the ball.

Sources: the seed document 002 (the monitor protocol's environment information: play mode names
and order, FreeKickDistance, WaitBeforeKickOff, RuleGoalPauseTime, RuleKickInPauseTime,
RuleHalfTime and their meaning; the trainer commands ``kickOff Left|Right|None`` and
``dropBall``), ``specs/simspark.md`` (play mode indices, beam rules, the original's defaults) and
``reference/simspark-rsg/defaults.json`` (rcssserver3d 0.7.3: field and goal sizes,
GoalKickDist, RuleDropBallTime, AutomaticKickOff, CoinTossForKickOff, the PassMode* parameters of
the pass mode, BeamNoiseXY and BeamNoiseAngle).

Coordinates: metres, field frame, origin at the centre spot; the left team defends the goal at
x = -FieldLength/2 and attacks +x. Times: seconds of game time.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

import numpy as np

from .geometry import EPS, ball_out, nearer_than


class PlayMode(enum.IntEnum):
    """The 21 play modes; the value is the index monitors receive as ``play_mode`` (specs/simspark.md,
    "Play modes") and :attr:`wire` the name agents and monitors see."""

    BeforeKickOff = 0
    KickOff_Left = 1
    KickOff_Right = 2
    PlayOn = 3
    KickIn_Left = 4
    KickIn_Right = 5
    corner_kick_left = 6
    corner_kick_right = 7
    goal_kick_left = 8
    goal_kick_right = 9
    offside_left = 10
    offside_right = 11
    GameOver = 12
    Goal_Left = 13
    Goal_Right = 14
    free_kick_left = 15
    free_kick_right = 16
    direct_free_kick_left = 17
    direct_free_kick_right = 18
    pass_left = 19
    pass_right = 20

    @property
    def wire(self) -> str:
        """The name on the wire, case as the original (``KickOff_Left``, ``corner_kick_left``)."""
        return self.name

    @classmethod
    def from_wire(cls, name: str) -> PlayMode:
        """The play mode called ``name`` (case-sensitive, as the trainer's ``playMode``); ValueError
        naming the valid modes otherwise."""
        try:
            return cls[name]
        except KeyError:
            raise ValueError(f"unknown play mode {name!r}; one of: {' '.join(m.name for m in cls)}") from None


class Team(enum.Enum):
    """A side of the field: ``left`` defends x < 0."""

    LEFT = "left"
    RIGHT = "right"

    @property
    def other(self) -> Team:
        """The opposing team."""
        return Team.RIGHT if self is Team.LEFT else Team.LEFT

    @property
    def attacks(self) -> int:
        """+1 when the team attacks the goal at +x, -1 otherwise."""
        return 1 if self is Team.LEFT else -1


# the set pieces, per team: the play mode the team takes
_KICK_OFF = {Team.LEFT: PlayMode.KickOff_Left, Team.RIGHT: PlayMode.KickOff_Right}
_KICK_IN = {Team.LEFT: PlayMode.KickIn_Left, Team.RIGHT: PlayMode.KickIn_Right}
_CORNER = {Team.LEFT: PlayMode.corner_kick_left, Team.RIGHT: PlayMode.corner_kick_right}
_GOAL_KICK = {Team.LEFT: PlayMode.goal_kick_left, Team.RIGHT: PlayMode.goal_kick_right}
_GOAL = {Team.LEFT: PlayMode.Goal_Left, Team.RIGHT: PlayMode.Goal_Right}
_PASS = {Team.LEFT: PlayMode.pass_left, Team.RIGHT: PlayMode.pass_right}
_SET_PIECES = {mode: team for table in (_KICK_OFF, _KICK_IN, _CORNER, _GOAL_KICK,
                                        {Team.LEFT: PlayMode.free_kick_left, Team.RIGHT: PlayMode.free_kick_right},
                                        {Team.LEFT: PlayMode.direct_free_kick_left,
                                         Team.RIGHT: PlayMode.direct_free_kick_right})
               for team, mode in table.items()}


@dataclass(frozen=True)
class SoccerRules:
    """The rule parameters, with rcssserver3d 0.7.3's defaults (reference/simspark-rsg/defaults.json);
    lengths in metres, times in seconds."""

    field_length: float = 30.0
    field_width: float = 20.0
    field_height: float = 40.0
    goal_width: float = 2.1
    goal_depth: float = 0.6
    goal_height: float = 0.8
    border_size: float = 0.0
    agent_radius: float = 0.4
    ball_radius: float = 0.042
    ball_mass: float = 0.026                 # kg
    pass_mode_min_opp_ball_dist: float = 1.0  # no opponent nearer the ball to ask; kept this far away
    pass_mode_duration: float = 4.0           # longest pass mode
    pass_mode_max_ball_speed: float = 0.05    # m/s: the ball must lie still to ask
    pass_mode_max_ball_dist: float = 0.5      # the asking robot this near the ball
    pass_mode_score_wait_time: float = 10.0   # after a pass mode the team cannot score this long
    pass_mode_retry_wait_time: float = 3.0    # nor ask again this long
    beam_noise_xy: float = 0.05               # a beam lands up to this far off (BeamNoiseXY)
    beam_noise_angle: float = 10.0            # degrees, and turned up to this much (BeamNoiseAngle)
    free_kick_distance: float = 2.0
    goal_kick_distance: float = 1.0          # GoalKickDist: the ball this far in front of the goal line
    wait_before_kick_off: float = 30.0
    automatic_kick_off: bool = False
    coin_toss: bool = False                  # CoinTossForKickOff: who kicks off the first half
    goal_pause: float = 3.0                  # RuleGoalPauseTime
    kick_in_pause: float = 1.0               # RuleKickInPauseTime
    half_time: float = 300.0                 # RuleHalfTime
    single_half: bool = False
    drop_ball_time: float = 15.0             # RuleDropBallTime: a set piece not taken by then is dropped

    def __post_init__(self):
        for name in ("field_length", "field_width", "goal_width", "goal_height", "ball_radius", "half_time"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be above 0, not {getattr(self, name)!r}")
        for name in ("free_kick_distance", "goal_kick_distance", "wait_before_kick_off", "goal_pause",
                     "kick_in_pause", "drop_ball_time"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"{name} must be 0 or more, not {getattr(self, name)!r}")


@dataclass(frozen=True)
class Placement:
    """The referee moves the ball to ``ball`` (x, y, z metres), at rest."""

    ball: tuple[float, float, float]


class Referee:
    """The game's state and its rules. ``Referee(rules=SoccerRules(), rng=None)``; ``rng`` (a
    numpy Generator) tosses the coin, needed only for a coin toss.

    State: :attr:`play_mode`, :attr:`time` (game time, s), :attr:`half` (1 or 2), :attr:`score`
    ({Team: goals}), :attr:`last_touch` (the team that touched the ball last).
    """

    def __init__(self, rules: SoccerRules | None = None, rng: np.random.Generator | None = None):
        self.rules = rules or SoccerRules()
        self.rng = rng
        self.play_mode = PlayMode.BeforeKickOff
        self.time = 0.0
        self.half = 1
        self.score = {Team.LEFT: 0, Team.RIGHT: 0}
        self.last_touch: Team | None = None
        self.first_kick_off: Team | None = None  # who kicked off the first half
        self._mode_since = 0.0                   # game time of the last play mode change
        self._waiting = 0.0                      # seconds in BeforeKickOff (game time stands still)
        self._out: tuple[float, PlayMode, tuple[float, float, float]] | None = None   # ball out: when, what next, where
        self._pass_ended = {Team.LEFT: -math.inf, Team.RIGHT: -math.inf}   # when each team's pass mode ended
        self._may_score = {Team.LEFT: True, Team.RIGHT: True}    # False: a pass mode's score wait runs

    # -- what agents may do -----------------------------------------------------------------

    def may_beam(self, team: Team) -> bool:
        """Beaming is allowed before a kick-off and after a goal (specs/simspark.md, effectors)."""
        return self.play_mode in (PlayMode.BeforeKickOff, PlayMode.Goal_Left, PlayMode.Goal_Right)

    def beam_allowed_at(self, team: Team, x: float) -> bool:
        """A beam must put the robot in its own half (``x`` in the field frame, metres)."""
        return x * team.attacks <= 0

    def free_kick_team(self) -> Team | None:
        """The team taking the current set piece (kick-off, kick-in, corner, goal kick, free kick)."""
        return _SET_PIECES.get(self.play_mode)

    def keep_away(self) -> tuple[Team, float] | None:
        """The team whose opponents must now stay away from the ball, and how far (m): at a set
        piece FreeKickDistance, in a pass mode PassModeMinOppBallDist; None in open play."""
        team = self.free_kick_team()
        if team is not None:
            return team, self.rules.free_kick_distance
        for team, mode in _PASS.items():
            if self.play_mode is mode:
                return team, self.rules.pass_mode_min_opp_ball_dist
        return None

    def request_pass(self, team: Team, robot_ball_distance: float, opponent_ball_distance: float,
                     ball_speed: float) -> str | None:
        """A robot of ``team`` sent ``(pass)`` (rcssserver3d 0.7.3, defaults.json PassMode*): in
        play on, with the ball still (at most PassModeMaxBallSpeed m/s), the robot within
        PassModeMaxBallDist m of it, no opponent within PassModeMinOppBallDist m, and the team's
        last pass mode over for PassModeRetryWaitTime s, the play mode becomes ``pass_<side>``.
        Returns None when granted, else why not (distances in m)."""
        r = self.rules
        if self.play_mode is not PlayMode.PlayOn:
            return f"only in PlayOn, not {self.play_mode.wire}"
        if self.time - self._pass_ended[team] < r.pass_mode_retry_wait_time - EPS:
            return f"the team's last pass mode ended less than {r.pass_mode_retry_wait_time:g} s ago"
        if ball_speed > r.pass_mode_max_ball_speed:
            return f"the ball moves ({ball_speed:.2f} m/s)"
        if robot_ball_distance > r.pass_mode_max_ball_dist:
            return f"the robot is {robot_ball_distance:.2f} m from the ball (at most {r.pass_mode_max_ball_dist:g})"
        if opponent_ball_distance < r.pass_mode_min_opp_ball_dist:
            return f"an opponent is {opponent_ball_distance:.2f} m from the ball"
        self._set(_PASS[team])
        return None

    def too_close(self, players: dict[tuple[Team, int], tuple[float, float]],
                  ball: tuple[float, float]) -> list[tuple[Team, int]]:
        """The players that must move away from the ball now (:meth:`keep_away`): ``players``
        maps (team, number) to (x, y) metres; none in open play. The world moves them."""
        rule = self.keep_away()
        if rule is None:
            return []
        team, distance = rule
        return [key for key in nearer_than(players, ball, distance) if key[0] is team.other]

    # -- trainer commands -------------------------------------------------------------------

    def kick_off(self, team: Team | None = None) -> Placement | None:
        """``(kickOff Left|Right|None)``: a kick-off for ``team``, None tossing a coin (seed 002).
        Only before a kick-off (else ignored, as the original ignores commands that do not fit the
        play mode). Raises ValueError for a coin toss without an rng. The ball goes to the centre."""
        if self.play_mode is not PlayMode.BeforeKickOff:
            return None
        if team is None:
            if self.rng is None:
                raise ValueError("a coin toss needs the referee's random generator (Referee(rng=...))")
            team = Team.LEFT if self.rng.random() < 0.5 else Team.RIGHT
        if self.half == 1 and self.first_kick_off is None:
            self.first_kick_off = team
        self._set(_KICK_OFF[team])
        return Placement((0.0, 0.0, self.rules.ball_radius))

    def set_play_mode(self, mode: PlayMode) -> None:
        """``(playMode NAME)``: the trainer sets the play mode, whatever it was."""
        self._out = None
        self._set(mode)

    def drop_ball(self, ball: tuple[float, float, float]) -> Placement:
        """``(dropBall)``: play on with the ball where it is, brought inside the field if it left
        it (seed 002); players near it are moved away by the world (:meth:`too_close` after this
        returns nothing, so the world uses FreeKickDistance round the ball itself)."""
        half_l, half_w = self.rules.field_length / 2, self.rules.field_width / 2
        x = min(max(ball[0], -half_l), half_l)
        y = min(max(ball[1], -half_w), half_w)
        self._out = None
        self._set(PlayMode.PlayOn)
        return Placement((x, y, self.rules.ball_radius))

    # -- the cycle ---------------------------------------------------------------------------

    def step(self, dt: float, ball: tuple[float, float, float], touched_by: Team | None = None
             ) -> Placement | None:
        """One cycle of ``dt`` seconds after which the ball is at ``ball`` (x, y, z metres);
        ``touched_by``: the team whose robot touched the ball in it (None: nobody). Returns where
        the ball must be put, when a rule moves it. Raises ValueError for a negative ``dt``."""
        if dt < 0:
            raise ValueError(f"a cycle cannot last {dt} s")
        rules = self.rules
        if self.play_mode is PlayMode.GameOver:
            return None
        if self.play_mode is PlayMode.BeforeKickOff:
            # game time stands still; the kick-off is the trainer's, or automatic after a wait
            self._waiting += dt
            if rules.automatic_kick_off and self._waiting >= rules.wait_before_kick_off - EPS:
                return self.kick_off(self._next_kick_off())
            # the ball stays on the centre spot (seed 002: moving it away is counteracted)
            return Placement((0.0, 0.0, rules.ball_radius)) if math.hypot(ball[0], ball[1]) > 1e-9 else None
        self.time += dt
        if touched_by is not None:
            self.last_touch = touched_by
        if (end := self._half_over()) is not None:
            return end
        if self.play_mode in (PlayMode.Goal_Left, PlayMode.Goal_Right):
            if self.time - self._mode_since >= rules.goal_pause - EPS:
                conceded = Team.RIGHT if self.play_mode is PlayMode.Goal_Left else Team.LEFT
                self._set(_KICK_OFF[conceded])
                return Placement((0.0, 0.0, rules.ball_radius))
            return None
        if self._out is not None:                        # the ball left the field: wait, then place it
            since, mode, where = self._out
            if self.time - since >= rules.kick_in_pause - EPS:
                self._out = None
                self._set(mode)
                return Placement(where)
            return None
        if touched_by is not None:
            self._may_score[touched_by.other] = True      # an opponent's touch ends a score wait
        for team, mode in _PASS.items():
            if self.play_mode is mode:                    # the pass mode ends with a touch or its time
                if touched_by is not None or self.time - self._mode_since >= rules.pass_mode_duration - EPS:
                    self._pass_ended[team] = self.time
                    self._may_score[team] = touched_by is team.other
                    self._set(PlayMode.PlayOn)
                else:
                    return None
        team = self.free_kick_team()
        if team is not None:
            if touched_by is team:
                self._set(PlayMode.PlayOn)
            elif self.time - self._mode_since >= rules.drop_ball_time - EPS:
                return self.drop_ball(ball)
            else:
                return None
        if self.play_mode is not PlayMode.PlayOn:
            return None
        return self._check_ball(ball)

    # -- rules -------------------------------------------------------------------------------

    def _check_ball(self, ball: tuple[float, float, float]) -> Placement | None:
        """Goal, or the ball over a line: the next play mode (a goal at once, a set piece after
        the kick-in pause)."""
        rules = self.rules
        x, y, _ = ball
        half_l, half_w, r = rules.field_length / 2, rules.field_width / 2, rules.ball_radius
        out = ball_out(ball, rules, goal_margin=r)       # in the goal: wholly inside it
        if out is None:
            return None
        if out.line == "goal":
            side = out.side                              # +1: the right team's goal
            attacker = Team.LEFT if side > 0 else Team.RIGHT
            scored = out.in_goal
            if scored and (self._may_score[attacker]
                           or self.time - self._pass_ended[attacker] >= rules.pass_mode_score_wait_time - EPS):
                self.score[attacker] += 1
                self._set(_GOAL[attacker])
                return None
            if scored:                                   # too soon after a pass mode: a goal kick
                self._out = (self.time, _GOAL_KICK[attacker.other],
                             (side * (half_l - rules.goal_kick_distance), 0.0, r))
                return None
            if self.last_touch is attacker.other:        # the defenders put it out: corner
                where = (side * half_l, math.copysign(half_w, y), r)
                self._out = (self.time, _CORNER[attacker], where)
            else:
                where = (side * (half_l - rules.goal_kick_distance), 0.0, r)
                self._out = (self.time, _GOAL_KICK[attacker.other], where)
            return None
        taker = self.last_touch.other if self.last_touch is not None else Team.LEFT if x > 0 else Team.RIGHT
        where = (min(max(x, -half_l), half_l), out.side * half_w, r)
        self._out = (self.time, _KICK_IN[taker], where)
        return None

    def _half_over(self) -> Placement | None:
        rules = self.rules
        if self.half == 1 and self.time >= rules.half_time - EPS and not rules.single_half:
            self.half, self._out, self._waiting = 2, None, 0.0
            self.time = rules.half_time
            self._set(PlayMode.BeforeKickOff)
            return Placement((0.0, 0.0, rules.ball_radius))
        game = rules.half_time * (1 if rules.single_half else 2)
        if self.time >= game - EPS:
            self.time, self._out = game, None
            self._set(PlayMode.GameOver)
        return None

    def _next_kick_off(self) -> Team | None:
        """Who kicks off now: the second half is the other team's; the first half's is the left
        team's unless a coin is tossed (None)."""
        if self.half == 2 and self.first_kick_off is not None:
            return self.first_kick_off.other
        return None if self.rules.coin_toss else Team.LEFT

    def _set(self, mode: PlayMode) -> None:
        self.play_mode = mode
        self._mode_since = self.time
