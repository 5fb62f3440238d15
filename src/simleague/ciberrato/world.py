"""The CiberRato world: robots, motors, movement, collisions, sensors and rules, stepped in cycles.

Pure and deterministic: no sockets, clocks or XML. Given a scenario, a seed and the sequence of
actions it produces the same states and observations every time. Robot state is held in numpy
arrays indexed by grid position (robot id - 1).

One :meth:`World.step` is one simulator cycle, in the original's order (golden README "Timing"):

1. apply the actions received for this cycle (later orders overwrite earlier ones);
2. pending Start/Stop/registrations have already been applied by the caller;
3. if running: advance the time, compute every robot's next pose, detect collisions, commit,
   update sensors, update scores; if stopped: only update sensors (the latency FIFOs advance);
4. the caller then reads :meth:`observe` / :meth:`status` (Measures and viewer status);
5. :meth:`step` finally updates the simulation state and the robot states.

Units: u_m, cycles, radians (degrees only in observations, as on the wire).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from .. import errors
from . import kernels
from . import sensors as S
from .cornergraph import PathDistance
from .geometry import LabGeometry
from .scenario import Scenario
from .scoring import RobotScore, StepFacts, make_rules
from .types import Action, Observation, RobotStatus  # noqa: F401  (re-exported: world.Action ...)

MOTOR_LIMIT = 0.15
ROBOT_DIAMETER = 1.0
SAY_RANGE = 8.0
SAY_MAX_CHARS = 100
#: The original's GPS adds this constant offset even with zero noise (golden README quirk 1).
ORIGINAL_GPS_OFFSET = (840.1877167634666, 394.38292663544416)
SENSOR_NAMES_FIXED = ("Ground", "Compass", "Collision", "GPS")


class RegistrationRefused(errors.Error):
    """A robot cannot join: position taken, grid full, or bad request. ``str()`` says why."""


@dataclass
class _Robot:
    name: str
    ir_angles: np.ndarray
    rng: np.random.Generator
    requests: set = field(default_factory=set)
    say: str | None = None
    returning_led_received: bool = False
    heard: list = field(default_factory=list)


class World:
    """A CiberRato trial in progress.

    ``World(scenario, seed=0, scoring="2008")``. Robots join with :meth:`add_robot` (id = grid
    position, 1-based), orders arrive with the ``actions`` argument of :meth:`step`, the trial starts
    with :meth:`start`. Raises :class:`RegistrationRefused` from :meth:`add_robot`; ValueError for an
    unknown scoring.
    """

    def __init__(self, scenario: Scenario, seed: int = 0, scoring: str = "2008",
                 gps_offset: tuple[float, float] = ORIGINAL_GPS_OFFSET):
        self.scenario = scenario
        self.lab, self.params = scenario.lab, scenario.params
        self.seed = seed
        self.geo = LabGeometry(self.lab)
        kernels.warm_up()
        self.rules = make_rules(scoring, self.params, self.lab)
        starts = [(p.x, p.y) for p in scenario.grid.positions]
        self._path = PathDistance(self.lab, starts) if self.lab.targets else None
        self.gps_offset = np.asarray(gps_offset, dtype=float)
        n = self.capacity = len(scenario.grid.positions)
        self._streams = np.random.SeedSequence(seed).spawn(n)
        self.present = np.zeros(n, dtype=bool)
        self.x = np.array([p.x for p in scenario.grid.positions], dtype=float)
        self.y = np.array([p.y for p in scenario.grid.positions], dtype=float)
        self.theta = np.radians([p.dir for p in scenario.grid.positions]).astype(float)
        self.in_power = np.zeros((n, 2))          # left, right orders
        self.out_power = np.zeros((n, 2))         # motor outputs before noise
        self.leds = np.zeros((n, 3), dtype=bool)  # end, returning, visiting
        self.ir_angles = np.tile(np.radians(S.DEFAULT_IR_ANGLES_DEG), (n, 1))  # (N, 4) rad on the rim
        self.coll_wall = np.zeros(n, dtype=bool)
        self.coll_robot = np.zeros(n, dtype=bool)
        self.robots: dict[int, _Robot] = {}
        self.records: dict[int, RobotScore] = {}
        self.cycle = 0                            # cycles stepped while running (the Measures' Time)
        self.state = "Stopped"                    # Stopped, Running, Finished
        self._next_state = "Stopped"
        p = self.params
        nb = len(self.lab.beacons)
        self._ir_delay = S.DelayLine(p.obstacle_latency, (n, 4), 0.0)
        self._beacon_delay = S.DelayLine(p.beacon_latency, (n, nb), np.nan)
        self._compass_delay = S.DelayLine(p.compass_latency, (n,), 0.0)
        self._ground_delay = S.DelayLine(p.ground_latency, (n,), -1, dtype=int)
        self._collision_delay = S.DelayLine(p.collision_latency, (n,), False, dtype=bool)
        self._measured = None
        # per-step sensor noise: (width, drawn?) of the obstacle, beacon and compass blocks, and
        # the scales of the drawn ones, in that order (see _sensor_noise)
        sensed = nb if p.beacon_sensor else 0
        blocks = ((4, p.obstacle_noise), (sensed, math.radians(p.beacon_noise)), (1, math.radians(p.compass_noise)))
        self._noise_widths = [(width, sigma > 0) for width, sigma in blocks]
        self._noise_sigmas = np.concatenate([np.full(width, sigma) for width, sigma in blocks if sigma > 0] or [np.zeros(0)])
        self._first_target = np.full(n, -1)  # first target area holding each robot (this step)
        self._shown_state: dict[int, str] = {}
        self._button_state = "Stopped"

    # -- membership and control ---------------------------------------------------------------

    def add_robot(self, name: str, robot_id: int = 0, ir_angles_deg: dict[int, float] | None = None) -> int:
        """Register a robot at grid position ``robot_id`` (0: the first free one); returns its id.

        ``ir_angles_deg`` moves obstacle sensors (id 0-3 -> degrees on the rim).
        Raises :class:`RegistrationRefused` when the position is taken or out of the grid, or the
        grid is full.
        """
        if robot_id == 0:
            free = np.flatnonzero(~self.present)
            if len(free) == 0:
                raise RegistrationRefused("the grid is full")
            robot_id = int(free[0]) + 1
        if not 1 <= robot_id <= self.capacity:
            raise RegistrationRefused(f"grid position {robot_id} does not exist (the grid has {self.capacity})")
        i = robot_id - 1
        if self.present[i]:
            raise RegistrationRefused(f"grid position {robot_id} is taken")
        angles = np.radians(S.DEFAULT_IR_ANGLES_DEG)
        for sid, deg in (ir_angles_deg or {}).items():
            if not (0 <= sid < 4 and math.isfinite(deg)):
                raise RegistrationRefused(f"IRSensor Id={sid} Angle={deg} is not a sensor 0-3 with a finite angle")
            angles[sid] = math.radians(deg)
        self.present[i] = True
        self.ir_angles[i] = angles
        self.robots[robot_id] = _Robot(name, angles, np.random.default_rng(self._streams[i]))
        self.records[robot_id] = self.rules.new_robot()
        for delay in (self._ir_delay, self._beacon_delay, self._compass_delay, self._ground_delay,
                      self._collision_delay):
            delay.reset(i)
        return robot_id

    def remove_robot(self, robot_id: int) -> None:
        """Remove a robot (judges' decision): it stops moving, sensing and scoring."""
        if robot_id in self.records:
            self.records[robot_id].removed = True
            self.records[robot_id].state = "Removed"
            self.present[robot_id - 1] = False

    def start(self) -> None:
        """Press Start: the next step still has Time 0, the one after it produces Time 1."""
        if self.state != "Finished":
            self._next_state = "Running"

    def stop(self) -> None:
        """Press Stop: time freezes and robots keep their poses until Start."""
        if self.state != "Finished":
            self._next_state = "Stopped"

    @property
    def finished(self) -> bool:
        """True when time is up or every robot present has finished (or was removed)."""
        if self.state == "Finished":
            return True
        recs = [r for r in self.records.values() if not r.removed]
        return bool(recs) and self.cycle > 0 and all(r.finished for r in recs)

    # -- the cycle ------------------------------------------------------------------------------

    def step(self, actions: dict[int, Action] | None = None) -> None:
        """Run one cycle with the given orders (robot id -> merged Action)."""
        for rid, robot in self.robots.items():
            robot.say, robot.returning_led_received = None, False
            robot.requests = set()
        for rid, action in (actions or {}).items():
            if rid in self.robots and not self.records[rid].removed:
                self._apply(rid, action)
        if self.state == "Running":
            self.cycle += 1
            self._move()
        self._update_sensors()
        facts = self._facts()
        if self.state == "Running":
            self._update_scores(facts)
        self._deliver_messages()
        self._update_states(facts)

    def _apply(self, rid: int, a: Action) -> None:
        i, robot = rid - 1, self.robots[rid]
        if a.left is not None:
            self.in_power[i, 0] = min(max(float(a.left), -MOTOR_LIMIT), MOTOR_LIMIT)
        if a.right is not None:
            self.in_power[i, 1] = min(max(float(a.right), -MOTOR_LIMIT), MOTOR_LIMIT)
        if a.end_led is not None:
            self.leds[i, 0] = a.end_led
        if a.returning_led is not None:
            self.leds[i, 1] = a.returning_led
            robot.returning_led_received = True
        if a.visiting_led is not None:
            self.leds[i, 2] = a.visiting_led
        for name in a.requests:
            if len(robot.requests) >= self.params.n_requests_per_cycle:
                break
            robot.requests.add(name)
        if a.say is not None and len(a.say) <= SAY_MAX_CHARS:
            robot.say = a.say

    def _move(self) -> None:
        """Motors, next poses, collisions, commit (rules section 7; golden README "Collision")."""
        active = self.present
        self.out_power = np.where(active[:, None], (self.in_power + self.out_power) / 2, self.out_power)
        applied = self.out_power.copy()
        if self.params.motors_noise > 0:
            for rid, robot in self.robots.items():
                if active[rid - 1]:
                    applied[rid - 1] *= robot.rng.normal(1.0, self.params.motors_noise / 100, 2)
        vel, nx, ny, nt = kernels.motion(applied, self.x, self.y, self.theta, ROBOT_DIAMETER)
        self.coll_wall = active & (kernels.wall_distance(nx, ny, *self.geo.faces) < S.ROBOT_RADIUS)
        self.coll_robot = self._robot_collisions(nx, ny, vel, active)
        blocked = np.array([not self._moves(rid) for rid in range(1, self.capacity + 1)], dtype=bool)
        hit = self.coll_wall | self.coll_robot
        keep = blocked | ~active
        self.theta = np.where(keep, self.theta, nt)
        self.x = np.where(keep | hit, self.x, nx)
        self.y = np.where(keep | hit, self.y, ny)

    def _moves(self, rid: int) -> bool:
        rec = self.records.get(rid)
        return rec is not None and rec.state in ("Running", "Returning", "Waiting")

    def _robot_collisions(self, nx, ny, vel, active) -> np.ndarray:
        """Robots whose next centres are closer than 1.0 and that move towards the other's
        current centre (original ``isMovingTowards``): both may be flagged, a still one never."""
        return kernels.robot_collisions(nx, ny, self.x, self.y, self.theta, np.ascontiguousarray(vel),
                                        active, S.ROBOT_RADIUS)

    def _update_sensors(self) -> None:
        """Compute every sensor for every robot present and push it through its latency FIFO."""
        p, n = self.params, self.capacity
        live = self.present
        x, y, th = self.x, self.y, self.theta
        angles = self.ir_angles
        ir_noise, beacon_noise, compass_noise = self._sensor_noise()
        ir = S.ir_values(S.ir_distances(self.geo, x, y, th, angles, live), ir_noise)
        beacons = np.full((n, len(self.lab.beacons)), np.nan)
        if p.beacon_sensor and self.lab.beacons:
            beacons = S.beacon_values_deg(self.geo, x, y, th, beacon_noise, p.beacon_aperture)
        compass = S.compass_deg(th, compass_noise)
        self._first_target, ground = S.target_areas(self.geo, x, y)
        collision = self.coll_wall | self.coll_robot
        flips = np.zeros((n, S.LINE_ELEMENTS), dtype=bool)
        if p.line_sensor_true_prob < 1:
            for rid, robot in self.robots.items():
                flips[rid - 1] = robot.rng.random(S.LINE_ELEMENTS) >= p.line_sensor_true_prob
        gps_noise = self._noise(p.gps_lin_noise, 2) if p.gps_lin_noise > 0 else 0.0   # drawn even when GPS is off
        measured = dict(
            ir=self._ir_delay.push(ir),
            beacons=self._beacon_delay.push(beacons),
            compass=self._compass_delay.push(compass),
            ground=self._ground_delay.push(ground),
            collision=self._collision_delay.push(collision),
        )
        if p.gps:
            measured["gps"] = S.round_half_up((np.stack([x, y], axis=1) + gps_noise + self.gps_offset) * 10) / 10
        # plain Python values, converted once per step for every observe() of the step
        self._measured = {k: v.tolist() for k, v in measured.items()}
        self._measured["line"] = ["".join("1" if v else "0" for v in row)
                                  for row in S.line_sensor(self.geo, x, y, th, flips).tolist()]

    def _sensor_noise(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Gaussian noise of a step's readings: obstacle (N, 4), beacon (N, B) in radians and
        compass (N,) in radians, zeros where the parameter is 0 (B = 0 with the beacon sensor off).

        Each robot draws from its own stream, in the order obstacle sensors, beacons, compass, in
        one call: ``normal(0, s, k)`` is ``s`` times the same standard normals, so this is the
        sequence of three separate draws, at a third of the calls.
        """
        n, sigmas = self.capacity, self._noise_sigmas
        drawn = np.zeros((n, len(sigmas)))
        if len(sigmas):
            for rid, robot in self.robots.items():
                if self.present[rid - 1]:
                    drawn[rid - 1] = robot.rng.standard_normal(len(sigmas)) * sigmas
        noise, k = [], 0
        for width, drawn_here in self._noise_widths:
            noise.append(drawn[:, k:k + width] if drawn_here else np.zeros((n, width)))
            k += width if drawn_here else 0
        return noise[0], noise[1], noise[2][:, 0]

    def _noise(self, sigma: float, k: int) -> np.ndarray:
        """(N, k) gaussian noise with std ``sigma`` from each robot's own stream; zeros if sigma=0."""
        out = np.zeros((self.capacity, k))
        if sigma > 0:
            for rid, robot in self.robots.items():
                if self.present[rid - 1]:
                    out[rid - 1] = robot.rng.normal(0.0, sigma, k)
        return out

    def _facts(self) -> dict[int, StepFacts]:
        """What the rules need of this step, for each robot not removed (robot id -> facts)."""
        target, wall, robot = self._first_target.tolist(), self.coll_wall.tolist(), self.coll_robot.tolist()
        leds = self.leds.tolist()
        facts = {}
        for rid, rec in self.records.items():
            if rec.removed:
                continue
            i = rid - 1
            facts[rid] = StepFacts(
                time=self.cycle, sim_time=self.params.sim_time, target=target[i],
                collision_wall=wall[i], collision_robot=robot[i],
                visiting_led=leds[i][2], returning_led=leds[i][1], end_led=leds[i][0],
                returning_led_received=self.robots[rid].returning_led_received,
                distance_home=functools.partial(self._distance_home, i))
        return facts

    def _distance_home(self, i: int) -> float:
        """Path distance (u_m) from robot index ``i`` to its grid position (0 in a lab without targets)."""
        return self._path(i, float(self.x[i]), float(self.y[i])) if self._path else 0.0

    def _update_scores(self, facts: dict[int, StepFacts]) -> None:
        for rid, f in facts.items():
            self.rules.update_score(self.records[rid], f)

    def _deliver_messages(self) -> None:
        speakers = [(rid, r.say) for rid, r in sorted(self.robots.items())
                    if r.say is not None and self.present[rid - 1]]
        for rid, robot in self.robots.items():
            i = rid - 1
            robot.heard = [(sid, text) for sid, text in speakers
                           if math.hypot(self.x[i] - self.x[sid - 1], self.y[i] - self.y[sid - 1]) <= SAY_RANGE]

    def _update_states(self, facts: dict[int, StepFacts]) -> None:
        self._shown_state = {rid: rec.state for rid, rec in self.records.items()}
        self._button_state = self._next_state
        if self.state == "Running" and self.cycle >= self.params.sim_time:
            self._next_state = "Finished"
        self.state = self._next_state
        for rid, rec in self.records.items():
            self.rules.update_state(rec, self.state, facts.get(rid))

    # -- what leaves the world ----------------------------------------------------------------

    def buttons(self) -> tuple[bool, bool]:
        """(Start, Stop) as the Measures show them for the step just made: the state requested
        when the Measures were sent (a Start shows at once; the end of time one step later)."""
        if self._button_state == "Finished":
            return False, False
        return (True, False) if self._button_state == "Running" else (False, True)

    def observe(self, robot_id: int) -> Observation:
        """The Measures content for ``robot_id`` after the last step (needs one step first)."""
        p, i, robot = self.params, robot_id - 1, self.robots[robot_id]
        m = self._measured
        asked = robot.requests
        delivered = lambda requestable, name: not requestable or name in asked  # noqa: E731
        ir = {s: v for s, v in enumerate(m["ir"][i]) if delivered(p.obstacle_requestable, f"IRSensor{s}")}
        beacons = {}
        if p.beacon_sensor:
            for b, v in enumerate(m["beacons"][i]):
                if delivered(p.beacon_requestable, f"Beacon{b}"):
                    beacons[b] = None if math.isnan(v) else v
        rec = self.records[robot_id]
        return Observation(
            time=self.cycle,
            collision=m["collision"][i] if delivered(p.collision_requestable, "Collision") else None,
            compass=int(m["compass"][i]) if p.compass_sensor and delivered(p.compass_requestable, "Compass") else None,
            ground=m["ground"][i] if delivered(p.ground_requestable, "Ground") else None,
            ir=ir, beacons=beacons,
            gps=tuple(m["gps"][i]) if p.gps else None,
            line=m["line"][i],
            score=dict(score=rec.score, arrival_time=rec.arrival_time, returning_time=rec.returning_time,
                       collisions=rec.collisions, collision=bool(self.coll_wall[i] or self.coll_robot[i]),
                       visited_mask=rec.visited_mask) if p.score_sensor else None,
            messages=list(robot.heard),
            leds=(bool(self.leds[i, 0]), bool(self.leds[i, 1]), bool(self.leds[i, 2])),
            buttons=self.buttons(),
        )

    def status(self, robot_id: int) -> RobotStatus:
        """The viewer's view of a robot after the last step (state as before this step's update)."""
        i = robot_id - 1
        rec = self.records[robot_id]
        return RobotStatus(robot_id, self.robots[robot_id].name, float(self.x[i]), float(self.y[i]),
                           math.degrees(self.theta[i]), rec,
                           bool(self.coll_wall[i] or self.coll_robot[i]),
                           self._shown_state.get(robot_id, rec.state))

    def obstacle_view(self, robot_id: int) -> tuple[list[float], list[float]]:
        """For viewers that draw the obstacle sensors' cones: the sensors' angles on the rim
        (degrees, sensor 0 first) and their values after the last step, as the robot measured
        them (noise and latency included; 1/distance in u_m, spec "Sensors")."""
        i = robot_id - 1
        values = self._measured["ir"][i] if self._measured is not None else []
        return [math.degrees(a) for a in self.ir_angles[i]], list(values)

    def snapshot(self) -> dict:
        """A compact, JSON-ready picture of the world: ``time`` (cycles), ``state`` and per robot
        (ascending id) its pose (``x``, ``y`` in u_m, ``dir`` in degrees), ``leds`` (end,
        returning, visiting), the scoreboard (``state``, ``score``, ``collisions``, ``visiting_time``,
        ``returning_time``, ``visited`` mask) and ``rank`` (1 = first by the rules' ranking,
        2008 rules section 5.5); ``collision`` is true while it touches a wall or robot."""
        order = sorted(self.records, key=lambda rid: (self.rules.ranking_key(self.records[rid]), rid))
        rank = {rid: n for n, rid in enumerate(order, 1)}
        robots = []
        for rid, r in sorted(self.robots.items()):
            i, rec = rid - 1, self.records[rid]
            robots.append({
                "id": rid, "name": r.name, "x": round(float(self.x[i]), 6), "y": round(float(self.y[i]), 6),
                "dir": round(math.degrees(self.theta[i]), 4), "leds": [bool(v) for v in self.leds[i]],
                "state": rec.state, "score": rec.score, "collisions": rec.collisions,
                "collision": bool(self.coll_wall[i] or self.coll_robot[i]), "visited": rec.visited_mask,
                "visiting_time": rec.visiting_time, "returning_time": rec.returning_time, "rank": rank[rid]})
        return {"time": self.cycle, "state": self.state, "robots": robots}
