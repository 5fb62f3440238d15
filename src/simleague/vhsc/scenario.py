"""Referee test scenarios in the league's format (issue 31; the league's simulator repository,
controllers/test_supervisor): a folder with ``game.json``, its team files and
``test_scenario.json``, a list of events

    {"description": "...", "timing": {"time": 5.0 | [start, end], "clock_type": "Simulated",
                                      "state": "READY", "state_count": 1,
                                      "secondary_state": "CORNERKICK", "phase": 0},
     "actions": [{"target": "RED_PLAYER_1" | "BALL", "position": [x, y, z],
                  "orientation": [ax, ay, az, angle], "force": [fx, fy, fz], "velocity": [...]}],
     "tests": [{"name": "...", "target": ..., "position": [...], "abs_tol": 0.03, "state": "PLAYING",
                "secondary_state": ..., "secondary_team_id": ..., "secondary_phase": ..., "penalty": 34,
                "score": 1, "kick_off_team": 4, "warnings": ..., "yellow_cards": ..., "red_cards": ...}]}

As the league's test supervisor: an event's time counts from the n-th start (``state_count``) of
its game state (or secondary state and phase), else from the start; a time point is carried out
once, after that time, an interval on every step inside it; tests run before actions. Here the
supervisor moves the ball and robots in our world and reads our referee's GameController data.
The run goes on for 5 s after the game is over (the league's END_OF_GAME_TIMEOUT). A game is run
as fast as possible when its ``maximum_real_time_factor`` or ``minimum_real_time_factor`` is 0;
its real-time waits (the league's initial wait and half-time break) then last ``FAST_SPEED``
simulated seconds per real second, and so do times on its "System" (real-time) clock; otherwise
one. Differences, stated: positions are compared in x and y (the robots' reference points differ
in height); a force acts on the ball for one basic step (Webots' ``addForce``), a velocity on a
robot sets its trunk's linear velocity and stops its spin (Webots' ``setVelocity`` with the
test supervisor's null angular velocity), an orientation about another axis than z lays the
robot down; a test whose event never became active fails ("never checked"). Robot models are looked
for in the folders given, then in the league repository's ``protos`` folder above the scenario
(:func:`league_protos`), then among our own; one found nowhere is our kid robot.
:func:`run_scenario` raises :class:`ScenarioError` for a scenario it cannot read.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import multiprocessing
import os
import shlex
import signal
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from multiprocessing import resource_tracker, spawn
from pathlib import Path

from .. import errors
from ..soccer.models import ModelError, find_model
from .config import ConfigError
from .game import load_game
from .gamecontroller import STATES
from .options import COLOURS, GameOptions
from .referee import HumanoidReferee
from .robot import BASIC_STEP_MS
from .server import apply_actions, field_view
from .setup import BUILT_IN_MODELS, DEFAULT_MODEL, MARKINGS, build

SECONDARY_STATES = ("NORMAL", "PENALTYSHOOT", "OVERTIME", "TIMEOUT", "DIRECT_FREEKICK", "INDIRECT_FREEKICK",
                    "PENALTYKICK", "CORNERKICK", "GOALKICK", "THROWIN")
POS_ABS_TOL = 0.03              # m, the league's default tolerance on positions
READY_TIME, SET_TIME = 45.0, 5.0  # s: the GameController's ready and set states (humanoid league)
# the league's referee configuration (referee_config.yaml): INITIAL before the first READY (5 s when
# the game runs as fast as possible), the half-time break (2 s then), in seconds of real time
INITIAL_TIME, INITIAL_TIME_FAST = 120.0, 5.0
BREAK_TIME, BREAK_TIME_FAST = 15.0, 2.0
FAST_SPEED = 5.0                # simulated seconds per real second of a game run as fast as possible
LYING_HEIGHT = 0.15             # m: where a robot laid down by an action is put (it falls the rest)
END_OF_GAME = 5.0               # s the supervisor goes on after the game is over (the league's END_OF_GAME_TIMEOUT)
MAX_SIMULATED = 1800.0          # s: a scenario that has not finished by then stops
MAX_EVENTS = 1000
MAX_HALF = 3600.0               # s: the longest half a scenario's game file may ask for


class ScenarioError(errors.Error, ValueError):
    """A scenario that cannot be read; ``str()`` names the file and what is wrong."""


@dataclass
class Timing:
    """When an event is active (see the module's text)."""

    start: float
    end: float | None                  # None: a time point
    state: str | None = None
    state_count: int = 1
    secondary_state: str | None = None
    phase: int | None = None
    system: bool = False               # times in real seconds (the "System" clock)


@dataclass
class Event:
    """Tests (dicts as written) and actions (dicts as written) at a :class:`Timing`."""

    timing: Timing
    tests: list[dict]
    actions: list[dict]
    done: bool = False
    checked: set = field(default_factory=set)   # indices of tests performed at least once
    failed: dict = field(default_factory=dict)  # index -> the first failure's text


@dataclass
class ScenarioResult:
    """A scenario's outcome: its ``name`` and per test (name, passed, why it failed)."""

    name: str
    tests: list[tuple[str, bool, str]]
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """Every test passed."""
        return all(ok for _, ok, _ in self.tests)


def _timing(data: dict, where: str) -> Timing:
    t = data.get("time")
    state = data.get("state")
    if state is not None and state not in STATES_UPPER:
        raise ScenarioError(f"{where}: timing.state {state!r} is not one of {', '.join(STATES_UPPER)}")
    if isinstance(t, (int, float)) and not isinstance(t, bool):
        start, end = float(t), None
    elif isinstance(t, list) and len(t) == 2 and all(isinstance(v, (int, float)) for v in t):
        start, end = float(t[0]), float(t[1])
    else:
        raise ScenarioError(f"{where}: timing.time must be a number or [start, end]")
    if data.get("clock_type", "Simulated") not in ("Simulated", "System"):
        raise ScenarioError(f"{where}: timing.clock_type must be Simulated or System")
    return Timing(start, end, state, int(data.get("state_count", 1)), data.get("secondary_state"),
                  data.get("phase"), data.get("clock_type", "Simulated") == "System")


STATES_UPPER = [s.upper() for s in STATES]


def load_events(path: Path) -> list[Event]:
    """The events of a ``test_scenario.json``. Raises :class:`ScenarioError`."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
        raise ScenarioError(f"{path}: cannot read it: {e}") from None
    if not isinstance(data, list) or len(data) > MAX_EVENTS:
        raise ScenarioError(f"{path}: a list of at most {MAX_EVENTS} events expected")
    events = []
    for n, item in enumerate(data):
        where = f"{path}: event {n}"
        if not isinstance(item, dict) or not isinstance(item.get("timing"), dict):
            raise ScenarioError(f"{where}: an object with a timing expected")
        tests, actions = item.get("tests", []), item.get("actions", [])
        if not all(isinstance(t, dict) and "name" in t for t in tests):
            raise ScenarioError(f"{where}: every test needs a name")
        if not all(isinstance(a, dict) and "target" in a for a in actions):
            raise ScenarioError(f"{where}: every action needs a target")
        events.append(Event(_timing(item["timing"], where), tests, actions))
    return events


class _Status:
    """When each game state and secondary state (with phase) began, in simulated seconds."""

    def __init__(self):
        self.starts: dict[str, list[float]] = {}
        self.secondary_starts: dict[tuple[str, int], list[float]] = {}
        self.last: tuple | None = None

    def update(self, now: float, state: str, secondary: str, phase: int) -> None:
        if self.last is None or self.last[0] != state:
            self.starts.setdefault(state, []).append(now)
        if self.last is None or self.last[1:] != (secondary, phase):
            self.secondary_starts.setdefault((secondary, phase), []).append(now)
        self.last = (state, secondary, phase)

    def elapsed(self, timing: Timing, now: float) -> float | None:
        """Seconds since the event's reference (None: not reached yet)."""
        if timing.state is not None:
            starts = self.starts.get(timing.state, [])
        elif timing.secondary_state is not None:
            starts = self.secondary_starts.get((timing.secondary_state, timing.phase or 0), [])
        else:
            return now
        return now - starts[timing.state_count - 1] if len(starts) >= timing.state_count else None


def _durations(args: list[str], where: Path) -> dict[str, float]:
    """The GameController options a scenario's game file ``where`` gives (``--halftimeduration
    S``, ``--overtimeduration S``, 1 to ``MAX_HALF`` seconds) as the referee's keyword arguments.
    Raises :class:`ScenarioError` for a value that is not such a number."""
    names = {"--halftimeduration": "half_time", "--overtimeduration": "overtime_time"}
    out = {}
    for option, value in itertools.pairwise(args):
        if option in names:
            try:
                seconds = float(value)
            except ValueError:
                seconds = math.nan
            if not 1.0 <= seconds <= MAX_HALF:
                raise ScenarioError(f"{where}: game_controller_extra_args: {option} needs seconds "
                                    f"(1-{MAX_HALF:g}), not {value!r}")
            out[names[option]] = seconds
    return out


def league_protos(folder: Path) -> list[Path]:
    """The ``protos`` folder of the nearest folder above scenario ``folder`` that has one: in the
    league's simulator repository the scenarios are under ``controllers/referee/tests`` and the
    robots their team files name (``RobocupRobot``) under ``protos/robots``. [] if there is none."""
    for parent in folder.resolve().parents:
        if (parent / "protos").is_dir():
            return [parent / "protos"]
    return []


class _Table:
    """The world and referee a scenario runs on, with the supervisor's reads and moves."""

    def __init__(self, folder: Path, models: list[Path], notes: list[str]):
        try:
            game = load_game(folder / "game.json")
        except ConfigError as e:
            raise ScenarioError(str(e)) from None
        config = game.config
        models = [*models, *league_protos(folder)]
        directories = [*models, BUILT_IN_MODELS]
        teams = {}
        for colour, team in game.teams.items():
            players = {}
            for number, player in team.players.items():
                try:
                    find_model(player.model, directories)
                except ModelError:
                    if player.model not in {n.split(" ")[0] for n in notes}:
                        notes.append(f"{player.model} replaced by our {DEFAULT_MODEL} robot (not found)")
                    player = player.model_copy(update={"proto": DEFAULT_MODEL, "robot_model_name": None})
                players[number] = player
            teams[colour] = team.model_copy(update={"players": players})
        left = config.side_left if config.side_left != "random" else "red"
        kick_off = config.kickoff if config.kickoff != "random" else "red"
        league = config.league.lower()
        self.match = build(teams["red"], teams["blue"], models, league=league, left=left)
        self.numbers = {"red": config.red.id, "blue": config.blue.id}
        fast = config.maximum_real_time_factor <= 0 or config.minimum_real_time_factor <= 0
        self.speed = FAST_SPEED if fast else 1.0
        options = GameOptions(self.numbers, left, kick_off, ready_time=READY_TIME, set_time=SET_TIME,
                              overtime=config.type == "KNOCKOUT", markings=MARKINGS[league],
                              shootout=config.type == "PENALTY",
                              break_time=(BREAK_TIME_FAST if fast else BREAK_TIME) * self.speed,
                              **_durations(game.config.game_controller_extra_args or [], folder / "game.json"))
        self.referee = HumanoidReferee(self.match.world.rules, self.match.sessions, self.match.teams, options)
        self.initial_time = (INITIAL_TIME_FAST if fast else INITIAL_TIME) * self.speed
        self.clock = 0.0

    def start_when_due(self) -> None:
        """The referee leaves the first half's INITIAL once the league's initial wait is over
        (it ends the breaks between halves itself)."""
        if self.referee.state == 0 and self.referee.half == 1 and self.clock >= self.initial_time - 1e-9:
            self.apply(self.referee.start(self.view()))

    def view(self):
        return field_view(self.match.world, self.match.sessions)

    def apply(self, actions) -> None:
        apply_actions(self.match.world, self.match.sessions, actions)

    def step(self) -> None:
        self.match.world.step()
        self.apply(self.referee.step(BASIC_STEP_MS / 1000, self.view()))
        self.clock += BASIC_STEP_MS / 1000
        self.start_when_due()

    def player(self, target: str) -> tuple[str, int] | None:
        parts = target.lower().split("_")
        if len(parts) == 3 and parts[0] in COLOURS and parts[1] == "player" and parts[2].isdigit():
            key = (parts[0], int(parts[2]))
            return key if key in self.match.sessions else None
        return None

    # -------------------------------------------------------------------------- actions
    def act(self, action: dict) -> str | None:
        """Carry out one action; returns why it could not be."""
        target, world = action["target"], self.match.world
        position, force, velocity = action.get("position"), action.get("force"), action.get("velocity")
        if target == "BALL":
            ball, speed = world.ball()
            place = list(position) if position is not None else list(ball)
            v = list(velocity[:3]) if velocity is not None else ([0.0, 0.0, 0.0] if position is not None else list(speed))
            if force is not None:
                dt = BASIC_STEP_MS / 1000
                v = [v[i] + force[i] * dt / world.rules.ball_mass for i in range(3)]
            world.place_ball(place, v)
            return None
        key = self.player(target)
        if key is None:
            return f"no robot {target}"
        rid = self.match.sessions[key].rid
        (x, y, _), yaw = world.pose(rid)[0], world.heading(rid)
        if position is not None:
            x, y = position[0], position[1]
        orientation = action.get("orientation")
        quat = None
        if orientation is not None:
            ax, ay, az, angle = orientation
            norm = math.sqrt(ax * ax + ay * ay + az * az) or 1.0
            if abs(ax) + abs(ay) > 1e-6:                 # tilted: the robot is laid down
                s = math.sin(angle / 2) / norm
                quat = (math.cos(angle / 2), ax * s, ay * s, az * s)
            else:
                yaw = math.copysign(angle, az)
        if position is not None or orientation is not None:
            z = None if quat is None else LYING_HEIGHT
            world.place_robot(rid, x, y, yaw, z=z, quat=quat)
        if velocity is not None:
            world.push_robot(rid, [float(v) for v in (list(velocity[:3]) + [0.0, 0.0])[:3]])
        return None

    # -------------------------------------------------------------------------- tests
    def check(self, test: dict) -> str | None:
        """Perform one test now; returns the failure's text or None."""
        referee, world = self.referee, self.match.world
        problems = []
        target = test.get("target")
        data = referee.game_data(0)
        if "position" in test:
            if target == "BALL":
                where = world.ball()[0]
            elif (key := self.player(target or "")) is not None:
                where = world.pose(self.match.sessions[key].rid)[0]
            else:
                return f"no target {target} to test the position of"
            want, tol = test["position"], float(test.get("abs_tol", POS_ABS_TOL))
            if abs(where[0] - want[0]) > tol or abs(where[1] - want[1]) > tol:
                problems.append(f"position: expected {want[:2]}, got [{where[0]:.3f}, {where[1]:.3f}]")
        if "state" in test and STATES_UPPER[referee.state] != test["state"]:
            problems.append(f"state: expected {test['state']}, got {STATES_UPPER[referee.state]}")
        if "secondary_state" in test and SECONDARY_STATES[referee.secondary] != test["secondary_state"]:
            problems.append(f"secondary state: expected {test['secondary_state']}, "
                            f"got {SECONDARY_STATES[referee.secondary]}")
        if "secondary_team_id" in test and data.secondary_state_info[0] != test["secondary_team_id"]:
            problems.append(f"secondary team: expected {test['secondary_team_id']}, got {data.secondary_state_info[0]}")
        if "secondary_phase" in test and data.secondary_state_info[1] != test["secondary_phase"]:
            problems.append(f"secondary phase: expected {test['secondary_phase']}, got {data.secondary_state_info[1]}")
        if "kick_off_team" in test and data.kick_off_team != test["kick_off_team"]:
            problems.append(f"kick-off team: expected {test['kick_off_team']}, got {data.kick_off_team}")
        for name in ("penalty", "warnings", "yellow_cards", "red_cards", "score"):
            if name not in test:
                continue
            got = self._gc_value(target, name)
            if got is None:
                return f"no target {target} for {name}"
            if got != test[name]:
                problems.append(f"{name} of {target}: expected {test[name]}, got {got}")
        return "; ".join(problems) or None

    def _gc_value(self, target: str | None, name: str):
        """A team's score or a robot's penalty, warnings or cards as the GameController packet
        carries them (a robot not in the game: its empty slot); None for no such target."""
        parts = (target or "").lower().split("_")
        if not parts or parts[0] not in COLOURS:
            return None
        team = next(t for t in self.referee.game_data(0).teams if t.number == self.numbers[parts[0]])
        if name == "score":
            return team.score
        if len(parts) != 3 or not parts[2].isdigit() or not 1 <= int(parts[2]) <= len(team.players):
            return None
        info = team.players[int(parts[2]) - 1]
        return {"penalty": info.penalty, "warnings": info.warnings,
                "yellow_cards": info.yellow_cards, "red_cards": info.red_cards}[name]


def run_scenario(folder: str | Path, models: list[Path] | None = None) -> ScenarioResult:
    """Run the scenario in ``folder`` on our referee and world. Raises :class:`ScenarioError`."""
    folder = Path(folder)
    events = load_events(folder / "test_scenario.json")
    notes: list[str] = []
    table = _Table(folder, list(models or []), notes)
    status = _Status()
    dt = BASIC_STEP_MS / 1000
    now, over = 0.0, None
    while now < MAX_SIMULATED and not all(e.done for e in events):
        referee = table.referee
        status.update(now, STATES_UPPER[referee.state], SECONDARY_STATES[referee.secondary],
                      referee.phase if referee.secondary not in (0, 2) else 0)
        for event in events:
            if event.done:
                continue
            t = status.elapsed(event.timing, now)
            if t is None:
                continue
            timing = event.timing
            if timing.system:
                t /= table.speed
            end = timing.end if timing.end is not None else timing.start
            if t > timing.start and t <= end + (dt if timing.end is None else 0.0):
                for n, test in enumerate(event.tests):
                    event.checked.add(n)
                    if n not in event.failed:
                        problem = table.check(test)
                        if problem:
                            event.failed[n] = f"{problem} (at {now:.2f} s)"
                for action in event.actions:
                    problem = table.act(action)
                    if problem:
                        notes.append(f"action on {action['target']}: {problem}")
                if timing.end is None:
                    event.done = True
            if timing.end is not None and t > timing.end:
                event.done = True
        if referee.game_over:
            over = over if over is not None else now
            if now - over >= END_OF_GAME - 1e-9:
                break
        table.step()
        now += dt
    results = []
    for event in events:
        for n, test in enumerate(event.tests):
            if n in event.failed:
                results.append((test["name"], False, event.failed[n]))
            elif n not in event.checked:
                reference = event.timing.state or event.timing.secondary_state or "the start"
                results.append((test["name"], False, f"never checked: {reference} not reached"))
            else:
                results.append((test["name"], True, ""))
    return ScenarioResult(folder.name, results, notes)


def _run_or_error(folder: Path, models: list[Path]) -> ScenarioResult | ScenarioError:
    try:
        return run_scenario(folder, models)
    except ScenarioError as e:
        return e


def _pool_deaf_to_ctrl_c(jobs: int, folder: Path):
    """A spawn pool of ``jobs`` workers that ignore SIGINT before Python starts in them: a
    terminal's Ctrl-C goes to its whole process group, and a worker still importing would print a
    KeyboardInterrupt traceback. Each worker is started through a shell script in ``folder`` that
    ignores SIGINT and execs Python (an ignored signal stays ignored across exec, and Python keeps
    it so; a Ctrl-C before the script's first line ends that worker quietly, and the pool starts
    another). This process keeps catching SIGINT meanwhile: a Ctrl-C while the pool starts is
    noted and raised as KeyboardInterrupt once the pool is whole (and stopped). Ignoring it here
    instead, as the workers inherit, lost such a Ctrl-C now and then: Linux may hand a signal sent
    to the process to another thread (numpy's), which drops it while it is ignored. Elsewhere than
    in the main thread, where signals cannot be handled, or where there is no POSIX shell, the pool
    is started as it is."""
    context = multiprocessing.get_context("spawn")
    if threading.current_thread() is not threading.main_thread() or os.name != "posix":
        return context.Pool(jobs)
    resource_tracker.ensure_running()
    executable = spawn.get_executable()
    python = folder / "python-deaf-to-ctrl-c"
    python.write_text(f"#!/bin/sh\ntrap '' INT\nexec {shlex.quote(os.fsdecode(executable))} \"$@\"\n")
    python.chmod(0o700)
    caught = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    spawn.set_executable(str(python))
    try:
        pool = context.Pool(jobs)
    finally:
        spawn.set_executable(executable)
        signal.signal(signal.SIGINT, previous)
    if caught:
        pool.terminate()
        pool.join()
        raise KeyboardInterrupt
    return pool


def run_scenarios(folders: list[Path], models: list[Path] | None = None,
                  jobs: int = 0) -> Iterator[tuple[Path, ScenarioResult | ScenarioError]]:
    """Each scenario of ``folders`` run as :func:`run_scenario` does, ``jobs`` at a time in worker
    processes (0: one per core; 1: in this process), yielded in the order of ``folders`` with its
    result or the :class:`ScenarioError` that kept it from running. Scenarios share nothing (each
    has its own world and referee), so they run side by side; a league's suite of scenarios takes
    the time of its longest share. Ctrl-C reaches the caller alone (as KeyboardInterrupt), and
    the workers are stopped as the iteration ends."""
    models = list(models or [])
    jobs = min(jobs or os.cpu_count() or 1, len(folders))
    if jobs <= 1:
        for folder in folders:
            yield folder, _run_or_error(folder, models)
        return
    with tempfile.TemporaryDirectory(prefix="simleague-scenarios-") as folder:
        pool = _pool_deaf_to_ctrl_c(jobs, Path(folder))
        try:
            yield from zip(folders, pool.imap(functools.partial(_run_or_error, models=models), folders))
        finally:
            pool.terminate()
            pool.join()


def find_scenarios(paths: list[Path]) -> list[Path]:
    """Every folder holding a ``test_scenario.json`` at or under ``paths``, sorted."""
    found = []
    for path in paths:
        if (path / "test_scenario.json").is_file():
            found.append(path)
        elif path.is_dir():
            found += sorted(p.parent for p in path.rglob("test_scenario.json"))
    return found
