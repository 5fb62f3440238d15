"""CiberRato scoring rules and robot states.

Two rule sets share one robot state machine (original ``updateStateCompetitive``):

* ``"2008"`` (default): the 2008 rules, section 5.4 items 1-11, with the visiting time as the
  second criterion (section 5.5).
* ``"competitive"``: the original simulator's default mode today ("scoring 0"), as recorded in
  ``../shared/golden/ciberrato/traces/scoring_*.json`` (golden README, "Scoring").

Scores are integers, lower is better. Times are in cycles, distances in u_m. The return scoring
needs the shortest path length through the maze to the robot's grid position:
:class:`simleague.ciberrato.cornergraph.PathDistance`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .scenario import Lab, Parameters

STATES = ("Stopped", "Running", "Waiting", "Returning", "Finished", "Removed")
MAX_SPEED = 0.15               # u_m per cycle: rule 9's "driving at maximum speed"
NOT_FINISHED_PENALTY = 15      # rule 10
VISITING_LED_PENALTY = 5       # rule 5
COMPETITIVE_BASE = 100         # original: score shown while the visiting LED is on


@dataclass
class RobotScore:
    """The rules' view of one robot: state, score and the records behind it (all integers)."""

    n_targets: int
    state: str = "Stopped"
    resume_state: str = "Running"
    score: int = 0
    penalties: int = 0
    arrival_time: int = 0
    visiting_time: int | None = None       # cycle at which the last target was visited
    returning_time: int = 0
    start_returning_time: int = 0
    collisions: int = 0
    collision_prev: bool = False
    visited: list[bool] = field(default_factory=list)
    return_distance: float = 0.0           # D_R
    removed: bool = False

    @property
    def visited_mask(self) -> str:
        """Targets visited, one character per target, target 0 first."""
        return "".join("1" if v else "0" for v in self.visited)

    @property
    def finished(self) -> bool:
        """Whether the robot has finished its mission (state ``Finished``)."""
        return self.state == "Finished"


@dataclass(frozen=True)
class StepFacts:
    """What the rules need to know about one robot after a running step."""

    time: int
    sim_time: int
    target: int                   # index of the first target whose area holds the robot, or -1
    collision_wall: bool
    collision_robot: bool
    visiting_led: bool
    returning_led: bool
    end_led: bool
    returning_led_received: bool  # a ReturningLed order arrived this step
    distance_home: "callable"     # () -> path distance (u_m) from the robot to its grid position


class Rules:
    """Base: the robot state machine shared by both scorings (original ``updateStateCompetitive``)."""

    name = "base"

    def __init__(self, params: Parameters, n_targets: int, n_beacons: int):
        self.params, self.n_targets, self.n_beacons = params, n_targets, n_beacons

    def new_robot(self) -> RobotScore:
        """The record of a robot that has just registered, with the rules' initial score."""
        rec = RobotScore(n_targets=self.n_targets, visited=[False] * self.n_targets)
        rec.penalties = self.initial_score()
        return rec

    def initial_score(self) -> int:
        """A robot's score before it has done anything (points; each rule set defines it)."""
        raise NotImplementedError

    def update_score(self, rec: RobotScore, f: StepFacts) -> None:
        """Take one cycle's facts about the robot into its score (each rule set defines how)."""
        raise NotImplementedError

    def update_state(self, rec: RobotScore, sim_state: str, f: StepFacts | None) -> None:
        """State transition at the end of a step (golden README "Timing", step 5).

        ``sim_state`` is the simulation state after this step (Stopped, Running or Finished: at the
        end of time robots keep their state); ``f`` the robot's facts, None when removed.
        """
        s = rec.state
        if rec.removed:
            rec.state = "Removed"
        elif s == "Stopped":
            if sim_state == "Running":
                rec.state = rec.resume_state
        elif s in ("Running", "Returning") and sim_state == "Stopped":
            rec.resume_state, rec.state = s, "Stopped"
        elif s == "Running" and f is not None:
            if f.end_led:
                rec.state = "Finished"
            elif f.returning_led:
                rec.state = "Returning" if f.target >= 0 and all(rec.visited) else "Finished"
        elif s == "Returning" and f is not None and f.end_led:
            rec.state = "Finished"

    def _count_collision(self, rec: RobotScore, f: StepFacts) -> None:
        collided = f.collision_wall or f.collision_robot
        if collided and not rec.collision_prev:
            rec.penalties += (self.params.collision_wall_penalty * f.collision_wall
                              + self.params.collision_robot_penalty * f.collision_robot)
            rec.collisions += 1
        rec.collision_prev = collided

    def _visit(self, rec: RobotScore, f: StepFacts, reward: int, outside_penalty: int) -> None:
        if f.target >= 0:
            if not rec.visited[f.target]:
                rec.visited[f.target] = True
                rec.penalties -= reward
                if all(rec.visited):
                    rec.visiting_time = f.time
        else:
            rec.penalties += outside_penalty

    def _begin_return(self, rec: RobotScore, f: StepFacts) -> None:
        rec.return_distance = f.distance_home()
        rec.start_returning_time = f.time
        rec.returning_time = 0

    def ranking_key(self, rec: RobotScore) -> tuple[int, int]:
        """Rule 5.5: ascending score, then ascending visiting time (SimTime if never completed)."""
        visiting = rec.visiting_time if rec.visiting_time is not None else self.params.sim_time
        return rec.score, visiting


class Competitive(Rules):
    """The original's default scoring ("COMPETITIVE", scoring 0), as recorded in the golden traces.

    Starts at 100 + 100·n_targets; each collision episode adds the wall/robot penalty; the
    visiting LED inside an unvisited target subtracts 100, outside adds 5 per cycle (and the score
    shows 100 + penalties meanwhile); the returning LED inside a target with all visited subtracts
    100 and starts the return, scored as ``penalties + int(100·d/D_R)`` with d the path distance
    home; 15 is added when time runs out while returning.
    """

    name = "competitive"

    def initial_score(self) -> int:
        """The original's competitive base plus 100 points per target area."""
        return COMPETITIVE_BASE + 100 * self.n_targets

    def _distance_score(self, rec: RobotScore, f: StepFacts) -> int:
        # The original divides a float (single precision) by a double: at the start of the
        # return the ratio is just below 1, so the score starts at 99 (golden README quirk 3).
        d = float(np.float32(f.distance_home()))
        if rec.return_distance <= 0 or not math.isfinite(d):
            return 0
        return int(100 * d / rec.return_distance)

    def update_score(self, rec: RobotScore, f: StepFacts) -> None:
        """Collisions, target visits and the way home, as the original's competitive mode counts them."""
        if rec.removed or rec.finished:
            return
        self._count_collision(rec, f)
        if rec.state == "Running":
            rec.score = rec.penalties
            if f.end_led and f.target >= 0 and all(rec.visited):
                self._begin_return(rec, f)
                rec.arrival_time = f.time
                rec.score = rec.penalties + self._distance_score(rec, f)
            elif f.returning_led and f.target >= 0 and all(rec.visited):
                self._begin_return(rec, f)
                rec.penalties -= self.params.home_reward
                rec.score = rec.penalties + self._distance_score(rec, f)
            elif f.visiting_led:
                self._visit(rec, f, self.params.target_reward, VISITING_LED_PENALTY)
                rec.score = COMPETITIVE_BASE + rec.penalties
            if not any(rec.visited):
                rec.arrival_time = f.time
        elif rec.state == "Returning":
            if f.time == f.sim_time and not f.end_led:
                rec.penalties += NOT_FINISHED_PENALTY
            rec.returning_time = f.time - rec.start_returning_time
            rec.score = rec.penalties + self._distance_score(rec, f)
            if f.returning_led and f.returning_led_received and f.target >= 0 and all(rec.visited):
                self._begin_return(rec, f)
                rec.score = rec.penalties + self._distance_score(rec, f)
            elif f.visiting_led:
                self._visit(rec, f, self.params.target_reward, VISITING_LED_PENALTY)
                rec.score = rec.penalties + self._distance_score(rec, f)


class Rules2008(Rules):
    """The 2008 rules, section 5.4 (seed 004), items 1-11.

    1. start with I = 200 + 100·n (n beacons); 2-3. each collision episode with a wall or a robot
    adds CollisionWallPenalty / CollisionRobotPenalty (5 by default); 4. the visiting LED inside an
    unvisited target subtracts TargetReward (100); 5. each cycle with the visiting LED on outside a
    target adds 5; 6. the returning LED inside a target after all visits subtracts HomeReward (100)
    and starts the return; 7. the returning LED outside a target (or before all visits) ends the
    trial with the score held; 8. while returning, each D_R/100 closer to (further from) the grid
    position subtracts (adds) one point, D_R the path distance at the start of the return;
    9. each ReturnTimePenalty (25) cycles beyond T_R = round(D_R / 0.15) adds one point;
    10. the end LED ends the trial; at the time limit an unfinished robot gets 15 more and ends;
    11. no score above I + 100.
    """

    name = "2008"

    def initial_score(self) -> int:
        """Rule 5.4: 200 points plus 100 per beacon."""
        return 200 + 100 * self.n_beacons

    def _return_score(self, rec: RobotScore, f: StepFacts) -> int:
        d_r = rec.return_distance
        if d_r <= 0:
            return 0
        d = f.distance_home()
        if not math.isfinite(d):
            d = d_r
        steps = math.trunc(round(100 * (d - d_r) / d_r, 9))
        t_r = round(d_r / MAX_SPEED)
        late = max(0, rec.returning_time - t_r) // self.params.return_time_penalty
        return steps + late

    def _capped(self, score: int) -> int:
        return min(score, self.initial_score() + 100)

    def update_score(self, rec: RobotScore, f: StepFacts) -> None:
        """Rule 5.4: collisions, target visits, the return home and its timing, capped."""
        if rec.removed or rec.finished:
            return
        self._count_collision(rec, f)
        if rec.state == "Running":
            if f.returning_led and f.target >= 0 and all(rec.visited):
                self._begin_return(rec, f)
                rec.penalties -= self.params.home_reward
            elif f.visiting_led:
                self._visit(rec, f, self.params.target_reward, VISITING_LED_PENALTY)
            if rec.visiting_time is None:
                rec.arrival_time = f.time
            if f.time >= f.sim_time and not f.end_led and not f.returning_led:
                rec.penalties += NOT_FINISHED_PENALTY
            rec.score = self._capped(rec.penalties)
        elif rec.state == "Returning":
            rec.returning_time = f.time - rec.start_returning_time
            if f.visiting_led and f.target < 0:
                rec.penalties += VISITING_LED_PENALTY
            if f.time >= f.sim_time and not f.end_led:
                rec.penalties += NOT_FINISHED_PENALTY
            rec.score = self._capped(rec.penalties + self._return_score(rec, f))


RULES = {"2008": Rules2008, "competitive": Competitive}


def make_rules(name: str, params: Parameters, lab: Lab) -> Rules:
    """The rule set called ``name`` ("2008" or "competitive"); ValueError for another name."""
    try:
        cls = RULES[name]
    except KeyError:
        raise ValueError(f"unknown scoring {name!r}; choose one of {', '.join(RULES)}") from None
    return cls(params, len(lab.targets), len(lab.beacons))
