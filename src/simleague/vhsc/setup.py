"""From two team configurations to a world ready to serve: the kid-size field, each player's robot
model found by name, placed at its half-time starting pose (the red team as configured, on the
left; the blue team mirrored, on the right: specs/vhsc.md "Team configuration").
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..soccer.humanoids import HumanoidWorld
from ..soccer.models import find_model
from ..soccer.rules import SoccerRules
from .config import TeamConfig
from .robot import RENDER_LIMIT, RobotSession

#: the kid-size field (RoboCup humanoid league): 9 x 6 m, goals 2.6 m wide and 1.2 m high, a
#: size-1 ball of 0.07 m radius
KID_FIELD = SoccerRules(field_length=9.0, field_width=6.0, goal_width=2.6, goal_depth=0.6, goal_height=1.2,
                        ball_radius=0.07, ball_mass=0.15, free_kick_distance=0.75)
BUILT_IN_MODELS = Path(str(resources.files("simleague.soccer") / "robots"))
DEFAULT_MODEL = "kid"


@dataclass
class Match:
    """The world and a session per robot, keyed ("red"|"blue", player number)."""

    world: HumanoidWorld
    sessions: dict[tuple[str, int], RobotSession]
    teams: dict[str, TeamConfig]


def build(red: TeamConfig, blue: TeamConfig, models: list[Path] | None = None, seed: int = 0,
          rules: SoccerRules = KID_FIELD) -> Match:
    """The world with both teams' robots. Raises
    :class:`~simleague.soccer.models.ModelError` for a model that cannot be found or used."""
    directories = [*(models or []), BUILT_IN_MODELS]
    world = HumanoidWorld(rules, seed)
    placed, keys = [], []
    for colour, team in (("red", red), ("blue", blue)):
        for number, player in team.players.items():
            model = find_model(player.model, directories)
            pose = player.half_time_starting_pose
            if colour == "blue":
                pose = pose.mirrored()
            x, y, _ = pose.translation
            placed.append((model, x, y, pose.yaw))
            keys.append((colour, number))
    rids = world.add_robots(placed)
    sessions = {key: RobotSession(world, rid, model, render_limit=RENDER_LIMIT)
                for key, rid, (model, *_) in zip(keys, rids, placed)}
    return Match(world, sessions, {"red": red, "blue": blue})
