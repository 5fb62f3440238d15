"""The game file of the humanoid league's referee (``game.json``; the league's simulator
repository, controllers/referee/game.json), read as the league writes it:

    {"type": "NORMAL", "class": "KID", "side_left": "blue", "kickoff": "red",
     "host": "127.0.0.1", "maximum_real_time_factor": 1.0,
     "red":  {"id": 8,  "config": "team_1.json", "hosts": ["127.0.0.1", ...], "ports": [10001, ...]},
     "blue": {"id": 25, "config": "team_2.json", "hosts": [...], "ports": [10021, ...]}}

``type`` NORMAL, KNOCKOUT (a draw after the second half goes to overtime: two more halves) or
PENALTY; ``class`` KID or ADULT (the league, hence the team size); ``side_left`` and ``kickoff``
red, blue or random (a coin toss, the default); per team its GameController team number ``id``,
its team file ``config`` (relative to the game file), the client addresses allowed on its robots'
ports (``hosts``) and those ports, player 1 first (``ports``); ``maximum_real_time_factor`` (0: as
fast as possible), ``minimum_real_time_factor``, ``record_simulation`` (a file: here our run
log). The referee's other fields (``host``, ``press_a_key_to_terminate``, ``use_bouncing_server``,
``supervisor``, ``game_controller_extra_args``) are accepted and have no effect. An unknown field
or a wrong value raises
:class:`~simleague.vhsc.config.ConfigError` naming the file and the JSON path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..wire.json_text import JsonTextError, TextFileError, parse_json, read_text
from .config import MAX_FILE_BYTES, ConfigError, TeamConfig, _explain, load_team
from .options import COLOURS

MAX_HOSTS = 64


class GameTeam(BaseModel):
    """One team's entry: GameController ``id`` (0-255), team file ``config``, allowed ``hosts``,
    robot ``ports`` (player 1 first)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: int = Field(ge=0, le=255)
    config: str = Field(min_length=1)
    hosts: tuple[str, ...] = Field(default=("127.0.0.1",), max_length=MAX_HOSTS)
    ports: tuple[int, ...] = Field(default=(), max_length=11)

    @field_validator("id", mode="before")
    @classmethod
    def _number(cls, value):
        if isinstance(value, str) and value.strip().isdigit():    # the league's referee accepts "8"
            return int(value)
        return value

    @field_validator("ports")
    @classmethod
    def _ports(cls, ports):
        if any(not 1 <= p <= 65535 for p in ports):
            raise ValueError("ports are 1-65535")
        if len(set(ports)) != len(ports):
            raise ValueError("a port appears twice")
        return ports


class GameConfig(BaseModel):
    """A game file (see the module's text)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    type: Literal["NORMAL", "KNOCKOUT", "PENALTY"] = "NORMAL"
    league: Literal["KID", "ADULT"] = Field(default="KID", alias="class")
    side_left: Literal["red", "blue", "random"] = "random"
    kickoff: Literal["red", "blue", "random"] = "random"
    maximum_real_time_factor: float = Field(default=1.0, ge=0.0, le=1000.0)
    minimum_real_time_factor: float = Field(default=3.0, ge=0.0)
    record_simulation: str | None = None
    host: str = "127.0.0.1"
    press_a_key_to_terminate: bool = False
    use_bouncing_server: bool = False
    supervisor: str | None = None
    game_controller_extra_args: list[str] | None = None
    red: GameTeam
    blue: GameTeam


class Game(BaseModel):
    """A game file read with its two teams' files: ``config``, ``teams`` by colour, where the
    file was (``path``) and the warnings to show."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)
    config: GameConfig
    teams: dict[str, TeamConfig]
    path: Path
    warnings: tuple[str, ...] = ()

    @property
    def record_path(self) -> Path | None:
        """Where the run log goes (``record_simulation``, relative to the game file; Webots'
        .html and .mp4 recordings become a .jsonl.gz run log of the same name)."""
        name = self.config.record_simulation
        if not name:
            return None
        target = self.path.parent / name
        return target.with_suffix(".jsonl.gz") if target.suffix in (".html", ".mp4") else target

    def toss(self, rng) -> tuple[str, str]:
        """(colour on the left, colour kicking off), a coin (``rng.integers``) tossed for each
        ``random``, as the league's referee does."""
        def pick(value: str) -> str:
            return value if value != "random" else COLOURS[int(rng.integers(2))]
        return pick(self.config.side_left), pick(self.config.kickoff)


def load_game(path: str | Path) -> Game:
    """Read and check a game file and the team files it names. Raises :class:`ConfigError`."""
    path = Path(path)
    try:
        data = parse_json(read_text(path, "a game file", MAX_FILE_BYTES), str(path))
    except (TextFileError, JsonTextError) as e:
        raise ConfigError(str(e)) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: (top): a JSON object expected")
    try:
        config = GameConfig.model_validate(data)
    except ValidationError as e:
        raise ConfigError(f"{path}: {_explain(e.errors()[0])}") from None
    if config.red.id == config.blue.id:
        raise ConfigError(f"{path}: blue.id: {config.blue.id} is the red team's id too")
    if set(config.red.ports) & set(config.blue.ports):
        raise ConfigError(f"{path}: blue.ports: a port of the red team")
    league = config.league.lower()
    teams, warnings = {}, []
    for colour in COLOURS:
        entry = getattr(config, colour)
        team_file = path.parent / entry.config
        if not team_file.is_file() and (path.parent / Path(entry.config).name).is_file():
            team_file = path.parent / Path(entry.config).name     # the league's test folders name their team
        team, notes = load_team(team_file, league)                 # files from the referee's folder
        if entry.ports and len(entry.ports) < len(team.players):
            raise ConfigError(f"{path}: {colour}.ports: {len(entry.ports)} ports for {len(team.players)} players")
        teams[colour] = team
        warnings += [f"{entry.config}: {note}" for note in notes]
    game = Game(config=config, teams=teams, path=path, warnings=tuple(warnings))
    record = game.record_path
    if record is not None and record.name != Path(config.record_simulation).name:
        game = game.model_copy(update={"warnings": (*warnings, f"record_simulation: {config.record_simulation}: "
                                                   f"simleague records a run log (JSON lines), written to {record}")})
    return game
