"""From two team configurations to a world ready to serve: the kid-size field, each player's robot
model found by name, placed at its half-time starting pose (the team on the left as configured,
the team on the right mirrored: specs/vhsc.md "Team configuration").
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from ..soccer.field import humanoid_lines
from ..soccer.humanoids import HumanoidWorld
from ..soccer.models import find_model
from ..soccer.rules import SoccerRules
from .config import TeamConfig
from .robot import RobotSession

#: the kid-size field (RoboCup humanoid league): 9 x 6 m, goals 2.6 m wide and 1.2 m high, a
#: size-1 ball of 0.07 m radius and 0.205 kg (the league's RobocupTexturedSoccerBall)
KID_FIELD = SoccerRules(field_length=9.0, field_width=6.0, goal_width=2.6, goal_depth=0.6, goal_height=1.2,
                        ball_radius=0.07, ball_mass=0.205, free_kick_distance=0.75)
#: the adult-size field: 14 x 9 m, goals 2.6 m wide and 1.8 m high, a size-5 ball of 0.1125 m
#: radius and 0.43 kg (the league's referee, game.py, and ball), 1.5 m free-kick distance
ADULT_FIELD = SoccerRules(field_length=14.0, field_width=9.0, goal_width=2.6, goal_depth=0.6, goal_height=1.8,
                          ball_radius=0.1125, ball_mass=0.43, free_kick_distance=1.5)
FIELDS = {"kid": KID_FIELD, "adult": ADULT_FIELD}


@dataclass(frozen=True)
class Markings:
    """The lines of a humanoid league field besides the touch and goal lines (the league's rules,
    law 1), in metres: ``goal_area`` and ``penalty_area`` (depth from the goal line, width),
    ``penalty_mark`` (from the goal line), ``circle`` (the centre circle's radius)."""

    goal_area: tuple[float, float]
    penalty_area: tuple[float, float]
    penalty_mark: float
    circle: float

    def lines(self, rules: SoccerRules) -> np.ndarray:
        """The lines painted on a field of ``rules``' size with these markings, segments of shape
        (n, 2, 3) (:func:`simleague.soccer.field.humanoid_lines`)."""
        return humanoid_lines(rules, self.goal_area, self.penalty_area, self.penalty_mark, self.circle)


MARKINGS = {"kid": Markings((1.0, 3.0), (2.0, 5.0), 1.5, 0.75), "adult": Markings((1.0, 4.0), (3.0, 6.0), 2.1, 1.5)}
BUILT_IN_MODELS = Path(str(resources.files("simleague.soccer") / "robots"))
DEFAULT_MODEL = "kid"


@dataclass
class Match:
    """The world and a session per robot, keyed ("red"|"blue", player number), the teams and
    the league ("kid" or "adult")."""

    world: HumanoidWorld
    sessions: dict[tuple[str, int], RobotSession]
    teams: dict[str, TeamConfig]
    league: str = "kid"


def build(red: TeamConfig, blue: TeamConfig, models: list[Path] | None = None, seed: int = 0,
          league: str = "kid", left: str = "red") -> Match:
    """The world of ``league``'s field with both teams' robots, ``left`` ("red" or "blue") on the
    left. Raises :class:`~simleague.soccer.models.ModelError` for a model that cannot be found or
    used, KeyError for a league that is not kid or adult."""
    rules = FIELDS[league]
    directories = [*(models or []), BUILT_IN_MODELS]
    world = HumanoidWorld(rules, seed, painted=MARKINGS[league].lines(rules))
    placed, keys = [], []
    for colour, team in (("red", red), ("blue", blue)):
        for number, player in team.players.items():
            model = find_model(player.model, directories)
            pose = player.half_time_starting_pose
            if colour != left:
                pose = pose.mirrored()
            x, y, _ = pose.translation
            placed.append((model, x, y, pose.yaw))
            keys.append((colour, number))
    rids = world.add_robots(placed)
    sessions = {key: RobotSession(world, rid, model)
                for key, rid, (model, *_) in zip(keys, rids, placed)}
    return Match(world, sessions, {"red": red, "blue": blue}, league)
