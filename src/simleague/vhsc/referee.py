"""The referee of humanoid virtual soccer games: the game states (initial, ready, set, playing,
finished), goals, penalties and red cards (seed 000 "robot status"; specs/vhsc.md: a penalized
robot's motors stop, a red card disables all its sensors), and the GameController packet that
tells the robots (:mod:`simleague.vhsc.gamecontroller`). Pure: the server calls :meth:`step`
once per basic step with the ball's position.

Flow: ``initial`` until :meth:`start`; ``ready`` for ``ready_time`` s (robots walk to their
places); ``set`` for ``set_time`` s; ``playing`` until a goal (then ``ready`` again, kick-off for
the team that conceded) or the end of the half; ``finished``. Game time runs only while playing.
Distances in metres, times in seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..soccer.rules import SoccerRules
from .gamecontroller import (
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
from .robot import RobotSession

PENALTY_REMOVAL = 30          # seconds of the league's usual removal penalty
PENALTY_CODE = 34             # the GameController's "pushing" code, used for every penalty here


@dataclass
class _Player:
    session: RobotSession
    info: RobotInfo
    penalised_until: float = 0.0


class HumanoidReferee:
    """``HumanoidReferee(rules, sessions, team_numbers, ready_time, set_time, half_time)``;
    ``sessions`` maps ("red"|"blue", player) to the robot's session, ``team_numbers`` the
    colours to the teams' GameController numbers. The red team defends x < 0."""

    def __init__(self, rules: SoccerRules, sessions: dict[tuple[str, int], RobotSession],
                 team_numbers: dict[str, int] | None = None, ready_time: float = 30.0, set_time: float = 5.0,
                 half_time: float = 600.0):
        self.rules = rules
        self.numbers = team_numbers or {"red": 1, "blue": 2}
        self.ready_time, self.set_time, self.half_time = ready_time, set_time, half_time
        self.players = {key: _Player(s, RobotInfo(goalkeeper=key[1] == 1)) for key, s in sessions.items()}
        self.state = STATE_INITIAL
        self.score = {"red": 0, "blue": 0}
        self.kick_off = "red"
        self.clock = 0.0               # seconds since start
        self.played = 0.0              # game time of the half
        self._since = 0.0              # when the state began
        self.changed = True            # the packet changed since it was last taken

    def start(self) -> None:
        """Leave ``initial``: the robots get ``ready``."""
        if self.state == STATE_INITIAL:
            self._set(STATE_READY)

    def _set(self, state: int) -> None:
        self.state, self._since, self.changed = state, self.clock, True

    def penalise(self, colour: str, player: int, seconds: float = PENALTY_REMOVAL) -> None:
        """Penalise a robot for ``seconds``: its motors stop until then. KeyError for no such robot."""
        p = self.players[(colour, player)]
        p.info.penalty, p.penalised_until = PENALTY_CODE, self.clock + seconds
        p.info.secs_till_unpenalised = int(seconds)
        self._stop_motors(p.session)
        self.changed = True

    @staticmethod
    def _stop_motors(session: RobotSession) -> None:
        """Hold every joint where it is and ignore the robot's motor commands."""
        for motor in session.model.motors:
            session.world.set_position(session.rid, motor.name, session.world.position(session.rid, motor.name))
        session.motors_on = False

    def red_card(self, colour: str, player: int) -> None:
        """A red card: the robot's sensors and motors stop for the rest of the game."""
        p = self.players[(colour, player)]
        p.info.red_cards += 1
        self._stop_motors(p.session)
        p.session.sensors_on = False
        p.penalised_until = float("inf")
        self.changed = True

    def step(self, dt: float, ball: tuple[float, float, float]) -> None:
        """One basic step of ``dt`` s after which the ball is at ``ball`` (x, y, z)."""
        self.clock += dt
        for p in self.players.values():
            if p.info.penalty and self.clock >= p.penalised_until:
                p.info.penalty, p.info.secs_till_unpenalised = 0, 0
                p.session.motors_on = True
                self.changed = True
            elif p.info.penalty and p.penalised_until != float("inf"):
                left = int(p.penalised_until - self.clock + 0.999)
                self.changed |= left != p.info.secs_till_unpenalised
                p.info.secs_till_unpenalised = left
        since = self.clock - self._since
        if self.state == STATE_READY and since >= self.ready_time:
            self._set(STATE_SET)
        elif self.state == STATE_SET and since >= self.set_time:
            self._set(STATE_PLAYING)
        elif self.state == STATE_PLAYING:
            self.played += dt
            scorer = self._goal(ball)
            if scorer is not None:
                self.score[scorer] += 1
                self.kick_off = "blue" if scorer == "red" else "red"
                self._set(STATE_READY)
            elif self.played >= self.half_time:
                self._set(STATE_FINISHED)

    def _goal(self, ball) -> str | None:
        """The team that scored: the ball wholly over a goal line between the posts, under the bar."""
        r, x, y, z = self.rules.ball_radius, *ball
        if abs(y) < self.rules.goal_width / 2 and z < self.rules.goal_height and abs(x) > self.rules.field_length / 2 + r:
            return "red" if x > 0 else "blue"
        return None

    def game_data(self, packet_number: int) -> GameData:
        """The ``RGme`` packet of the game now."""
        teams = []
        for colour, code in (("red", TEAM_RED), ("blue", TEAM_BLUE)):
            team = TeamInfo(self.numbers[colour], code, self.score[colour])
            for (c, n), p in self.players.items():
                if c == colour and 1 <= n <= len(team.players):
                    team.players[n - 1] = p.info
            teams.append(team)
        self.changed = False
        return GameData((teams[0], teams[1]), packet_number=packet_number,
                        players_per_team=max(n for _, n in self.players) if self.players else 0,
                        state=self.state, first_half=True, kick_off_team=self.numbers[self.kick_off],
                        secs_remaining=max(0, int(self.half_time - self.played)))
