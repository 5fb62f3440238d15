"""The game-state part of SimSpark monitor messages (seed 002, "Environment information" and
"GameState Message"; layout and number format as a real rcssserver3d 0.7.3 sent them, in
golden/simspark/monitor_sample.txt).

A full message starts with the rule parameters, the play mode names, then the game state:
``((FieldLength 30)...(play_modes BeforeKickOff ...)(time 0)(team_left A)(half 1)(score_left 0)
(score_right 0)(play_mode 0))``; a team name appears once the team has one. An update carries the
time and only what changed since the last message: ``((time 3.04)(play_mode 3))``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..soccer.rules import PlayMode, Referee, SoccerRules, Team

# (name on the wire, SoccerRules field), in the original's order
_PARAMETERS = (
    ("FieldLength", "field_length"), ("FieldWidth", "field_width"), ("FieldHeight", "field_height"),
    ("GoalWidth", "goal_width"), ("GoalDepth", "goal_depth"), ("GoalHeight", "goal_height"),
    ("BorderSize", "border_size"), ("FreeKickDistance", "free_kick_distance"),
    ("WaitBeforeKickOff", "wait_before_kick_off"), ("AgentRadius", "agent_radius"),
    ("BallRadius", "ball_radius"), ("BallMass", "ball_mass"), ("RuleGoalPauseTime", "goal_pause"),
    ("RuleKickInPauseTime", "kick_in_pause"), ("RuleHalfTime", "half_time"),
    ("PassModeMinOppBallDist", "pass_mode_min_opp_ball_dist"), ("PassModeDuration", "pass_mode_duration"),
)


def number(value: float) -> str:
    """A number as the original prints it: up to six significant digits, no trailing zeros
    (``30``, ``2.1``, ``0.042``, ``3.04``)."""
    return f"{value:g}"


@dataclass(frozen=True)
class GameState:
    """What a monitor is told of the game: game time (s), team names (None: no team yet), half,
    score and play mode."""

    time: float
    team_left: str | None
    team_right: str | None
    half: int
    score_left: int
    score_right: int
    play_mode: PlayMode

    @classmethod
    def of(cls, referee: Referee, team_left: str | None = None, team_right: str | None = None) -> GameState:
        """The state of ``referee``'s game, with the teams' names; time to the cycle (0.01 s)."""
        return cls(round(referee.time, 2), team_left, team_right, referee.half,
                   referee.score[Team.LEFT], referee.score[Team.RIGHT], referee.play_mode)

    def _fields(self) -> list[tuple[str, str]]:
        fields = [("time", number(self.time))]
        if self.team_left is not None:
            fields.append(("team_left", self.team_left))
        if self.team_right is not None:
            fields.append(("team_right", self.team_right))
        fields += [("half", str(self.half)), ("score_left", str(self.score_left)),
                   ("score_right", str(self.score_right)), ("play_mode", str(int(self.play_mode)))]
        return fields


def full_header(rules: SoccerRules, state: GameState) -> str:
    """The environment information and the whole game state, for a full (``RSG``) message."""
    parameters = "".join(f"({name} {number(getattr(rules, field))})" for name, field in _PARAMETERS)
    modes = "(play_modes " + " ".join(m.wire for m in sorted(PlayMode)) + ")"
    return "(" + parameters + modes + "".join(f"({k} {v})" for k, v in state._fields()) + ")"


def update_header(previous: GameState, state: GameState) -> str:
    """The time and what changed since ``previous``, for an update (``RDS``) message."""
    before = dict(previous._fields())
    changed = [(k, v) for k, v in state._fields() if k == "time" or before.get(k) != v]
    return "(" + "".join(f"({k} {v})" for k, v in changed) + ")"
