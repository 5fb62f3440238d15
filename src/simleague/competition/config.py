"""Competition files (TOML) and judges' decision files, validated with pydantic.

A CiberRato competition (seed 004, section 5.3: legs of trials, three robots a trial, the grid
rotated between the trials of a leg, the best teams going on to the final leg)::

    [competition]
    name = "CiberRato 2026"
    world = "ciberrato"
    seed = 7                 # every trial's seed is drawn from it
    retries = 2              # re-runs of a trial whose infrastructure failed

    [[team]]
    name = "Alpha"
    command = "python -m simleague.ciberrato.agent --host {host} --port {port} --pos {pos} --name {name}"
    workdir = "teams/alpha"  # optional, relative to this file

    [[team]]
    name = "Beta"
    image = "beta:2026"      # a docker image, started with --network host
    command = "./agent -h {host} -p {port} -pos {pos} -r {name}"

    [[leg]]
    name = "Leg 1"
    lab = "labs/leg1-lab.xml"      # optional (the bundled lab); also grid, params
    trials = 3
    robots_per_trial = 3
    best_trials = 1                # trials of the leg that count (section 5.5)
    cumulative = false             # add the previous legs' totals (5.5 item 2)
    qualify = 0                    # teams going on to the next leg (0: all)

Errors are :class:`CompetitionError` naming the file, the key and the problem.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .. import errors
from ..programs import fill
from ..wire.toml_text import TomlTextError, first_problem, read_toml

#: the placeholders of a team's command line, per world
PLACEHOLDERS = {"ciberrato": ("{host}", "{port}", "{pos}", "{name}"),
                "simspark": ("{host}", "{port}", "{unum}", "{team}")}
MAX_TEAMS = 1000
MAX_LEGS = 20
MAX_TRIALS = 1000
MAX_FILE = 1 << 20                   # bytes of a competition or decisions file


class CompetitionError(errors.Error):
    """A competition or decisions file that cannot be used; ``str()`` names the file, the key and
    the problem in one line."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Team(_Strict):
    """One team: ``name``; how to start one robot: ``command`` (a command line with the
    world's placeholders, :data:`PLACEHOLDERS`), run in ``workdir`` or, with ``image``, inside
    that docker image (host network)."""

    name: str = Field(min_length=1, max_length=64)
    command: str = Field(min_length=1, max_length=4096)
    workdir: Path | None = None
    image: str | None = Field(default=None, min_length=1, max_length=256)

    @field_validator("command")
    @classmethod
    def _command(cls, value: str) -> str:
        try:
            words = shlex.split(value)
        except ValueError as e:
            raise ValueError(f"not a command line: {e}") from None
        if not words:
            raise ValueError("empty command")
        return value

    def argv(self, **values) -> list[str]:
        """The command line that starts one robot: the command's words with the placeholders of
        ``values`` (e.g. ``host="127.0.0.1"``) filled in, the others left for the world to fill;
        inside ``docker run --rm --init --network host IMAGE`` when the team has an image."""
        words = fill(shlex.split(self.command), values)
        if self.image is None:
            return words
        return ["docker", "run", "--rm", "--init", "--network", "host", self.image, *words]


class Leg(_Strict):
    """One leg (seed 004, 5.3): the lab, grid and parameter files (None: the bundled ones),
    ``trials`` per group of teams, ``robots_per_trial``, the ``scoring`` rules, how many of a team's
    best trials count (``best_trials``), whether the previous legs' totals are added
    (``cumulative``) and how many teams go on to the next leg (``qualify``, 0: all)."""

    name: str = Field(min_length=1, max_length=64)
    lab: Path | None = None
    grid: Path | None = None
    params: Path | None = None
    trials: int = Field(default=3, ge=1, le=MAX_TRIALS)
    robots_per_trial: int = Field(default=3, ge=1, le=64)
    scoring: Literal["2008"] = "2008"
    mode: Literal["lockstep", "fast"] = "lockstep"
    best_trials: int = Field(default=1, ge=1)
    cumulative: bool = False
    qualify: int = Field(default=0, ge=0)

    @model_validator(mode="after")
    def _counted(self) -> Leg:
        if self.best_trials > self.trials:
            raise ValueError(f"best_trials {self.best_trials} is more than the leg's {self.trials} trials")
        return self


class Settings(_Strict):
    """The ``[competition]`` table: ``name``, ``world`` (ciberrato, or simspark for a soccer
    tournament), ``seed``, ``retries`` of a trial or match whose infrastructure failed,
    ``register_timeout`` (s) for a trial's robots to register or a match's agents to join (a team
    whose agents have not all joined by then forfeits the match); for a tournament its ``format``
    (round_robin or knockout), the ``agents`` a side and the ``half_time`` (s of game time; the
    first half is played)."""

    name: str = Field(min_length=1, max_length=128)
    world: Literal["ciberrato", "simspark"] = "ciberrato"
    seed: int = Field(default=0, ge=0, lt=2**63)
    retries: int = Field(default=2, ge=0, le=10)
    register_timeout: float = Field(default=60.0, gt=0, le=3600)
    format: Literal["round_robin", "knockout"] = "round_robin"
    agents: int = Field(default=3, ge=1, le=11)
    half_time: float = Field(default=300.0, ge=1.0, le=3600.0)


class Competition(_Strict):
    """A whole competition file; paths are made absolute against the file's folder."""

    competition: Settings
    team: list[Team] = Field(min_length=1, max_length=MAX_TEAMS)
    leg: list[Leg] = Field(default_factory=list, max_length=MAX_LEGS)

    @model_validator(mode="after")
    def _names(self) -> Competition:
        world = self.competition.world
        if world == "ciberrato" and not self.leg:
            raise ValueError("a CiberRato competition needs at least one [[leg]]")
        if world != "ciberrato" and self.leg:
            raise ValueError(f"a {world} tournament has no [[leg]]: its format says which matches are played")
        if world != "ciberrato" and len(self.team) < 2:
            raise ValueError("a tournament needs at least two teams")
        for kind, items in (("team", self.team), ("leg", self.leg)):
            names = [item.name for item in items]
            twice = sorted({n for n in names if names.count(n) > 1})
            if twice:
                raise ValueError(f"{kind} names must differ: {', '.join(twice)}")
        return self

    @property
    def teams(self) -> dict[str, Team]:
        """The teams by name."""
        return {t.name: t for t in self.team}


class Void(_Strict):
    """Void run ``run`` of ``trial`` (e.g. "Leg 1/2"); the next competition run runs it again."""

    trial: str
    run: int = Field(default=1, ge=1)
    reason: str = Field(min_length=1, max_length=1000)


class Exclude(_Strict):
    """Exclude ``team``'s robot from ``trial``: it gets the highest score (5.4 item 11)."""

    trial: str
    team: str
    reason: str = Field(min_length=1, max_length=1000)


class Correction(_Strict):
    """Set ``team``'s ``score`` (and ``time``, when given) in ``trial``, for ``reason``."""

    trial: str
    team: str
    score: int
    time: int | None = Field(default=None, ge=0)
    reason: str = Field(min_length=1, max_length=1000)


class Decisions(_Strict):
    """The judges' decisions file (section 5.6-5.7): ``[[void]]``, ``[[exclude]]`` and
    ``[[correction]]`` entries, each with its reason."""

    void: list[Void] = Field(default_factory=list, max_length=10_000)
    exclude: list[Exclude] = Field(default_factory=list, max_length=10_000)
    correction: list[Correction] = Field(default_factory=list, max_length=10_000)


def _read_toml(path: Path) -> dict:
    try:
        return read_toml(path, MAX_FILE)
    except TomlTextError as e:
        raise CompetitionError(str(e)) from None


def _problem(path: Path, error: ValidationError) -> CompetitionError:
    return CompetitionError(first_problem(path, error))


def load_competition(path: str | Path) -> Competition:
    """Read and check a competition file. Raises :class:`CompetitionError`."""
    path = Path(path)
    data = _read_toml(path)
    try:
        comp = Competition.model_validate(data)
    except ValidationError as e:
        raise _problem(path, e) from None
    world = comp.competition.world
    for i, team in enumerate(comp.team):
        for placeholder in re.findall(r"\{[^{}]*\}", team.command):
            if placeholder not in PLACEHOLDERS[world]:
                raise CompetitionError(f"{path}: team.{i}.command: unknown placeholder {placeholder}; a {world} "
                                       f"command has {', '.join(PLACEHOLDERS[world])}")
    base = path.resolve().parent

    def absolute(p: Path | None) -> Path | None:
        return None if p is None else (p if p.is_absolute() else base / p)

    legs = []
    for i, leg in enumerate(comp.leg):
        for key in ("lab", "grid", "params"):
            file = absolute(getattr(leg, key))
            if file is not None and not file.is_file():
                raise CompetitionError(f"{path}: leg.{i}.{key}: no such file {file}")
        legs.append(leg.model_copy(update={k: absolute(getattr(leg, k)) for k in ("lab", "grid", "params")}))
    teams = []
    for i, team in enumerate(comp.team):
        workdir = absolute(team.workdir)
        if workdir is not None and not workdir.is_dir():
            raise CompetitionError(f"{path}: team.{i}.workdir: no such folder {workdir}")
        teams.append(team.model_copy(update={"workdir": workdir}))
    return comp.model_copy(update={"leg": legs, "team": teams})


def load_decisions(path: str | Path | None, comp: Competition, trials: set[str]) -> Decisions:
    """Read and check a decisions file against the competition's teams and ``trials`` (keys such
    as "Leg 1/2"); None: no decisions. Raises :class:`CompetitionError`."""
    if path is None:
        return Decisions()
    path = Path(path)
    try:
        decisions = Decisions.model_validate(_read_toml(path))
    except ValidationError as e:
        raise _problem(path, e) from None
    for kind in ("void", "exclude", "correction"):
        for i, entry in enumerate(getattr(decisions, kind)):
            if entry.trial not in trials:
                raise CompetitionError(f"{path}: {kind}.{i}.trial: no trial {entry.trial!r} in the competition")
            team = getattr(entry, "team", None)
            if team is not None and team not in comp.teams:
                raise CompetitionError(f"{path}: {kind}.{i}.team: no team {team!r} in the competition")
    return decisions
