"""Team configuration files of the humanoid virtual soccer API (seed 000 "Configuration file",
seed 001 for ``robotModelName``; specs/vhsc.md "Team configuration").

    {"name": "teamA",
     "players": {"1": {"proto": "robotA", "dockerTag": "robotA", "dockerCmd": "launch.sh",
                       "halfTimeStartingPose": {"translation": [-3.5, -3.06, 0.24],
                                                "rotation": [0, 0, 1, 1.57]},
                       "reentryStartingPose": {...}, "shootoutStartingPose": {...},
                       "goalKeeperStartingPose": {...}}}}

:func:`load_team` reads one, checks it and returns a :class:`TeamConfig` with the warnings the
original gives (a name over 12 characters is truncated). Anything unusable raises
:class:`ConfigError` naming the file, the place (a line and column for broken JSON, else the JSON
path such as ``players.2.halfTimeStartingPose.rotation``) and the problem. Poses are in metres and
radians in the team's own frame (x towards the opponent's goal); :meth:`Pose.mirrored` gives the
field frame of the team that plays on the right.
"""

from __future__ import annotations

import math
from pathlib import Path

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from .. import errors
from ..wire.json_text import JsonTextError, TextFileError, parse_json, read_text

MAX_NAME = 12
TEAM_SIZES = {"kid": 4, "adult": 2}           # players a team may field per league
MAX_FILE_BYTES = 1 << 20


class ConfigError(errors.Error, ValueError):
    """A team configuration that cannot be used; ``str()`` names the file, where and what."""


class Pose(BaseModel):
    """Where a robot is put: ``translation`` [x, y, z] m and ``rotation`` [ax, ay, az, angle]
    (axis and radians); robots are put upright with the rotation's heading (:attr:`yaw`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    translation: tuple[float, float, float]
    rotation: tuple[float, float, float, float]

    @field_validator("translation", "rotation")
    @classmethod
    def _finite(cls, values):
        if not all(math.isfinite(v) for v in values):
            raise ValueError("numbers must be finite")
        return values

    @field_validator("rotation")
    @classmethod
    def _axis(cls, rotation):
        ax, ay, az, angle = rotation
        if angle != 0 and math.hypot(ax, ay, az) < 1e-9:
            raise ValueError(f"a rotation of {angle} about the axis [0, 0, 0]")
        return rotation

    @property
    def yaw(self) -> float:
        """The heading, radians counter-clockwise about +z: where the rotation turns the x axis,
        seen from above (a robot is placed upright with it; the league's test files also tilt
        poses, which the original's robots would lie down in)."""
        ax, ay, az, angle = self.rotation
        if not angle:
            return 0.0
        n = math.hypot(ax, ay, az)
        ax, ay, az = ax / n, ay / n, az / n
        c, s = math.cos(angle), math.sin(angle)
        x = c + ax * ax * (1 - c)                        # the rotated x axis (Rodrigues), x and y
        y = ay * ax * (1 - c) + az * s
        return math.atan2(y, x) if math.hypot(x, y) > 1e-3 else 0.0     # x axis (nearly) vertical: none

    def mirrored(self) -> Pose:
        """The pose seen by the team playing on the right: x -> -x, heading -> pi - heading
        (specs/vhsc.md)."""
        x, y, z = self.translation
        return Pose(translation=(-x, y, z), rotation=(0.0, 0.0, 1.0, math.pi - self.yaw))


class Player(BaseModel):
    """One robot of the team: its model (``proto`` in v1.0a, ``robotModelName`` later), the
    docker image tag and command of its control software, and its poses."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    proto: str | None = Field(default=None, min_length=1)
    robot_model_name: str | None = Field(default=None, alias="robotModelName", min_length=1)
    docker_tag: str = Field(default="latest", alias="dockerTag", min_length=1)
    docker_cmd: str | None = Field(default=None, alias="dockerCmd")
    half_time_starting_pose: Pose = Field(alias="halfTimeStartingPose")
    reentry_starting_pose: Pose = Field(alias="reentryStartingPose")
    shootout_starting_pose: Pose = Field(alias="shootoutStartingPose")
    goal_keeper_starting_pose: Pose | None = Field(default=None, alias="goalKeeperStartingPose")

    @model_validator(mode="after")
    def _one_model(self):
        if (self.proto is None) == (self.robot_model_name is None):
            raise ValueError("give the robot model as either proto (v1.0a) or robotModelName, not both or none")
        return self

    @property
    def model(self) -> str:
        """The name of the robot model."""
        return self.proto or self.robot_model_name


class TeamConfig(BaseModel):
    """A team: ``name`` (at most 12 characters) and its players by number, 1..n."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = Field(min_length=1)
    players: dict[int, Player]


_SHAPES = {"translation": "[x, y, z] (3 numbers)", "rotation": "[ax, ay, az, angle] (4 numbers)"}


def _explain(error: dict) -> str:
    """One pydantic error as 'json.path: problem'."""
    location = list(error["loc"])
    message = error["msg"].removeprefix("Value error, ")
    for name, shape in _SHAPES.items():                # a pose's list of the wrong length or kind
        if name in location and error["type"] != "value_error":
            location = location[:location.index(name) + 1]
            message = f"{shape} expected"
    return f"{'.'.join(str(p) for p in location) or '(top)'}: {message}"


def load_team(path: str | Path, league: str = "kid") -> tuple[TeamConfig, list[str]]:
    """Read and check a team configuration for ``league`` (kid: up to 4 players, adult: up to
    2). Returns the team and the warnings to show. Raises :class:`ConfigError`."""
    path = Path(path)
    if league not in TEAM_SIZES:
        raise ConfigError(f"unknown league {league!r}; one of {', '.join(TEAM_SIZES)}")
    try:
        data = parse_json(read_text(path, "a team configuration", MAX_FILE_BYTES), str(path))
    except (TextFileError, JsonTextError) as e:
        raise ConfigError(str(e)) from None
    return parse_team(data, str(path), league)


def parse_team(data, source: str = "<team>", league: str = "kid") -> tuple[TeamConfig, list[str]]:
    """:func:`load_team` for already decoded JSON ``data``; ``source`` names it in errors."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: (top): a JSON object with name and players expected")
    players = data.get("players")
    if isinstance(players, dict):
        keys = list(players)
        expected = [str(n) for n in range(1, len(keys) + 1)]
        if keys != expected:
            raise ConfigError(f"{source}: players: the players must be numbered {', '.join(expected)} in "
                              f"this order, not {', '.join(keys)}")
        if len(keys) > TEAM_SIZES[league]:
            raise ConfigError(f"{source}: players: {len(keys)} players; the {league} size league allows "
                              f"{TEAM_SIZES[league]}")
    try:
        team = TeamConfig.model_validate(data)
    except ValidationError as e:
        raise ConfigError(f"{source}: {_explain(e.errors()[0])}") from None
    warnings = []
    if len(team.name) > MAX_NAME:
        short = team.name[:MAX_NAME]
        warnings.append(f'team name "{team.name}" is longer than {MAX_NAME} characters; truncated to "{short}"')
        team = team.model_copy(update={"name": short})
    return team, warnings
