"""The soccer world with robots from MuJoCo model files (:mod:`simleague.soccer.models`), for the
humanoid virtual soccer API (issue 6). Pure and deterministic (ARCHITECTURE.md rule 1): given the
robots and the motor commands it gives the same states every time.

One step is ``step_s`` s (8 ms: the API's basic step, seed 000), integrated by MuJoCo in
``substeps`` steps. Motors follow the original's (Webots) semantics, per motor:

* **position**: the motor turns towards the target position at a velocity of
  P·error + I·∫error + D·d(error)/dt (the model's PID, P 10, I 0, D 0 by default), at most the motor's velocity
  (its top speed by default, lower when set); an infinite target is **velocity** control at the
  set velocity;
* **torque** (or force): the given torque, until a position is set again;
* never more torque than the joint's ``actuatorfrcrange`` (the model's), never outside its range.

As in :mod:`simleague.soccer.world`, a velocity becomes a target angle that a stiff servo follows
(stiffness: the motor's most torque at 0.05 rad; a pure velocity servo either sags or shakes in
MuJoCo). The servo's reference never runs more than 0.1 rad ahead of the joint.

Contacts of the robots and the field are as stiff as MuJoCo allows at the step (a time constant of
two integration steps, critically damped): at its 20 ms default a crouched robot (the league's
Darwin-OP, Chape) rocked heel to toe for ever under the implicit integrator; Webots' stiff ODE
contacts hold it still.

The ball's velocity (linear and angular) decays at 0.77/s (RobocupTexturedSoccerBall's Damping
0.77, 0.77). Webots' Damping reference page and its code (WbSolidMerger) read 0.77 as the
fraction lost per second (0.23 kept each second, a decay twice as fast); with that reading and
the supervisor's force acting for one step, 10 of the league's 31 referee scenarios that push
the ball pass (9 or 10 with the force acting 2 or 3 steps), against 21 of 31 with the decay
here, so the scenarios' outcomes (run on the league's Webots) are followed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np

from .models import RobotModel
from .pitch import GRAVITY, ball_touchers, field_mjcf, robot_contacts
from .rules import SoccerRules
from .senses import Senses, snapshot, vector

BASIC_STEP = 0.008            # s
SATURATION_ERROR = 0.05       # rad: a servo gives its most torque this far from its reference
LEAD = 0.1                    # rad
BALL_DAMPING = 0.77           # 1/s: the ball's velocity shrinks by this times the step each step (the
                              # league's RobocupTexturedSoccerBall: Webots Damping 0.77, 0.77; ODE's damping)
# the ball's contacts (the league's robocup.wbt: friction 0.5 on grass, bounce 0.76): no rolling
# friction (the damping slows it), a stiff spring with little damping (dropped from 0.5 m it comes
# back to 0.33 m; off a robot's leg at 0.54-0.67 of its speed), weighing over the other geom's
BOUNCING_BALL = 'condim="3" friction="0.5 0.005 0.0001" solref="-20000 -10" solmix="1000"'
POSITION, VELOCITY, TORQUE = 0, 1, 2
DEFAULT_SOLREF = [0.02, 1.0]  # MuJoCo's contact time constant (s) and damping ratio


@dataclass
class _Robot:
    rid: int
    model: RobotModel
    spawn: tuple[float, float, float]
    yaw: float                # radians about z; 0 faces +x


def _quat(yaw: float) -> list[float]:
    return [math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)]


class HumanoidWorld:
    """The field, the ball and robots from model files.

    ``HumanoidWorld(rules, seed, step_s=0.008, substeps=2, painted=None)``; ``painted``: the lines
    painted on the turf, segments of shape (n, 2, 3) (a league's: :func:`~simleague.soccer.field.humanoid_lines`;
    by default SimSpark's, :func:`~simleague.soccer.field.lines`). Robot numbers (``rid``) are never
    reused. Motor and sensor names are those of :class:`~simleague.soccer.models.RobotModel`;
    unknown names raise KeyError."""

    def __init__(self, rules: SoccerRules | None = None, seed: int = 0, step_s: float = BASIC_STEP,
                 substeps: int = 2, painted: np.ndarray | None = None):
        self.rules = rules or SoccerRules()
        self.painted = painted
        self.rng = np.random.default_rng(seed)
        self.step_s, self.substeps = step_s, substeps
        self.cycle = 0                   # basic steps taken
        self._robots: dict[int, _Robot] = {}
        self._next = 1
        self._build()

    # ----------------------------------------------------------------------------- the model
    def _build(self) -> None:
        """Compile the world with its robots; every joint already in the previous model keeps
        its state, every motor its command."""
        spec = mujoco.MjSpec.from_string(
            '<mujoco model="humanoid soccer"><visual><quality offsamples="0"/></visual>'
            f'<option timestep="{self.step_s / self.substeps:.9g}" integrator="implicitfast" gravity="0 0 {-GRAVITY}"/>'
            f"<worldbody>{field_mjcf(self.rules, BOUNCING_BALL, self.painted)}</worldbody></mujoco>")
        cameras = [(s.width, s.height) for r in self._robots.values() for s in r.model.sensors if s.kind == "camera"]
        if cameras:                                    # the offscreen buffer holds the largest image
            spec.visual.global_.offwidth = max(640, *(w for w, _ in cameras))
            spec.visual.global_.offheight = max(480, *(h for _, h in cameras))
        for robot in self._robots.values():
            prefix = f"r{robot.rid}_"
            child = robot.model.spec()
            root = child.worldbody.first_body()
            root.pos = [0.0, 0.0, robot.spawn[2]]
            frame = spec.worldbody.add_frame(pos=[robot.spawn[0], robot.spawn[1], 0.0], quat=_quat(robot.yaw))
            frame.attach_body(root, prefix, "")
            for motor in robot.model.motors:
                kp = motor.max_torque / SATURATION_ERROR
                servo = spec.add_actuator(name=f"{prefix}{motor.name}:servo", target=f"{prefix}{motor.name}",
                                          trntype=mujoco.mjtTrn.mjTRN_JOINT)
                servo.set_to_position(kp=kp, kv=0.02 * kp)
                servo.forcelimited, servo.forcerange = True, [-motor.max_torque, motor.max_torque]
                drive = spec.add_actuator(name=f"{prefix}{motor.name}:torque", target=f"{prefix}{motor.name}",
                                          trntype=mujoco.mjtTrn.mjTRN_JOINT)
                drive.set_to_motor()
                drive.forcelimited, drive.forcerange = True, [-motor.max_torque, motor.max_torque]
        # contacts as stiff as the step allows (MuJoCo's default 20 ms time constant lets a crouched
        # robot rock heel to toe for ever under the implicit integrator); the ball keeps its own
        stiff = [2 * self.step_s / self.substeps, 1.0]
        for geom in spec.geoms:
            if list(geom.solref) == DEFAULT_SOLREF:
                geom.solref = stiff
        # parts of one robot never collide with each other (Webots' selfCollision off)
        for robot in self._robots.values():
            names = [b.name for b in spec.bodies if b.name.startswith(f"r{robot.rid}_")]
            for i, a in enumerate(names):
                for b in names[i + 1:]:
                    spec.add_exclude(bodyname1=a, bodyname2=b)
        old_model, old_data = getattr(self, "model", None), getattr(self, "data", None)
        old_rows, old_state = getattr(self, "_motors", {}), getattr(self, "_motor_state", None)
        self.model = spec.compile()
        self.data = mujoco.MjData(self.model)
        if old_data is not None:
            self._carry(old_model, old_data)
        self._index(old_rows, old_state)
        mujoco.mj_forward(self.model, self.data)

    def _carry(self, old_model, old_data) -> None:
        m, d = self.model, self.data
        d.time = old_data.time
        for j in range(m.njnt):
            k = mujoco.mj_name2id(old_model, mujoco.mjtObj.mjOBJ_JOINT, m.joint(j).name)
            if k < 0:
                continue
            nq, nv = (7, 6) if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE else (1, 1)
            d.qpos[m.jnt_qposadr[j]:m.jnt_qposadr[j] + nq] = old_data.qpos[old_model.jnt_qposadr[k]:][:nq]
            d.qvel[m.jnt_dofadr[j]:m.jnt_dofadr[j] + nv] = old_data.qvel[old_model.jnt_dofadr[k]:][:nv]

    def _index(self, old_rows: dict[tuple[int, str], int], old_state: dict | None) -> None:
        """Per motor of the world (one row each): addresses and command state; a motor that
        had row ``old_rows[(rid, name)]`` before the rebuild keeps its commands."""
        m = self.model
        rows, self._motors = [], {}
        for robot in self._robots.values():
            for motor in robot.model.motors:
                name = f"r{robot.rid}_{motor.name}"
                self._motors[(robot.rid, motor.name)] = len(rows)
                rows.append((m.joint(name).qposadr[0], m.actuator(f"{name}:servo").id,
                             m.actuator(f"{name}:torque").id, motor.low, motor.high, motor.max_torque,
                             motor.max_velocity, motor.pid))
        n = len(rows)
        self._qpos = np.array([r[0] for r in rows], dtype=int)
        self._servo = np.array([r[1] for r in rows], dtype=int)
        self._drive = np.array([r[2] for r in rows], dtype=int)
        self._range = np.array([(r[3], r[4]) for r in rows]).reshape(n, 2)
        self._max_torque = np.array([r[5] for r in rows])
        self._max_velocity = np.array([r[6] for r in rows])
        self._servo_gains = (m.actuator_gainprm[self._servo, 0].copy(), m.actuator_biasprm[self._servo, 1:3].copy())
        angle = self.data.qpos[self._qpos]
        state = {"mode": np.zeros(n, dtype=int), "target": angle.copy(), "velocity": self._max_velocity.copy(),
                 "torque": np.zeros(n), "pid": np.array([r[7] for r in rows], dtype=float).reshape(n, 3), "integral": np.zeros(n),
                 "error": np.zeros(n), "reference": angle.copy()}
        if old_state is not None:                      # motors that were there keep their commands
            for motor, i in self._motors.items():
                j = old_rows.get(motor)
                if j is not None:
                    for key in state:
                        state[key][i] = old_state[key][j]
        self._motor_state = state
        self._apply_modes()
        self._ball_geom = m.geom("ball").id
        self._ground_geom = m.geom("ground").id
        self._ball_dof = m.joint("ball").dofadr[0]
        self._owner = np.zeros(m.nbody, dtype=int)     # body -> robot number (0: none)
        for robot in self._robots.values():
            prefix = f"r{robot.rid}_"
            for b in range(m.nbody):
                if m.body(b).name.startswith(prefix):
                    self._owner[b] = robot.rid
        parents = set(m.body_parentid.tolist())
        self._leaves = {rid: np.array([b for b in range(m.nbody) if self._owner[b] == rid and b not in parents], dtype=int)
                        for rid in self._robots}
        self._root_body = {rid: m.body(f"r{rid}_{r.model.root}").id for rid, r in self._robots.items()}
        self._root_dof = {rid: m.joint(f"r{rid}_{r.model.root_joint}").dofadr[0] for rid, r in self._robots.items()}

    def _apply_modes(self, rows=slice(None)) -> None:
        """Servo on for position and velocity control, off (torque alone) for torque control,
        for the motor ``rows`` (all by default)."""
        m, s = self.model, self._motor_state
        on = s["mode"][rows] != TORQUE
        servo = self._servo[rows]
        m.actuator_gainprm[servo, 0] = np.where(on, self._servo_gains[0][rows], 0.0)
        m.actuator_biasprm[servo, 1:3] = np.where(on[:, None], self._servo_gains[1][rows], 0.0)

    def _set_mode(self, i: int, mode: int) -> None:
        """Motor row ``i`` in ``mode``; its servo switched only when that changes whether it is
        torque control (a client sets every motor every step: all rows each time cost 15 % of a
        match's server time)."""
        modes = self._motor_state["mode"]
        switched = (modes[i] == TORQUE) != (mode == TORQUE)
        modes[i] = mode
        if switched:
            self._apply_modes([i])

    # ----------------------------------------------------------------------------- robots
    @property
    def robots(self) -> tuple[int, ...]:
        """The numbers of the robots in the world, in the order they joined."""
        return tuple(self._robots)

    def model_of(self, rid: int) -> RobotModel:
        """The model robot ``rid`` was built from; KeyError for no such robot."""
        return self._robots[rid].model

    def add_robot(self, model: RobotModel, x: float, y: float, yaw: float = 0.0) -> int:
        """Put a robot of ``model`` at (x, y) m standing on the ground (its lowest point 5 mm
        above it, joints as the model has them), facing ``yaw`` radians (0: +x). Returns its
        number."""
        return self.add_robots([(model, x, y, yaw)])[0]

    def add_robots(self, robots: list[tuple[RobotModel, float, float, float]]) -> list[int]:
        """:meth:`add_robot` for several (model, x, y, yaw) at once: the world is compiled once
        (a model with meshes takes a few tenths of a second to compile)."""
        numbers = []
        for model, x, y, yaw in robots:
            rid = self._next
            self._next += 1
            self._robots[rid] = _Robot(rid, model, (x, y, model.standing_height + 0.005), yaw)
            numbers.append(rid)
        self._build()
        return numbers

    def remove_robot(self, rid: int) -> None:
        """Take robot ``rid`` away; KeyError if it is not here."""
        del self._robots[rid]
        self._build()

    def place_robot(self, rid: int, x: float, y: float, yaw: float, z: float | None = None,
                    quat: tuple[float, float, float, float] | None = None) -> None:
        """Put robot ``rid`` upright at (x, y), facing ``yaw`` radians, at rest (z: standing on
        the ground by default); ``quat`` (w, x, y, z), when given, is its orientation instead."""
        joint = self.model.joint(f"r{rid}_{self._robots[rid].model.root_joint}")
        q, v = joint.qposadr[0], joint.dofadr[0]
        height = self._robots[rid].model.standing_height + 0.005 if z is None else z
        self.data.qpos[q:q + 7] = [x, y, height, *(_quat(yaw) if quat is None else quat)]
        self.data.qvel[v:v + 6] = 0
        mujoco.mj_forward(self.model, self.data)

    def rest_joints(self, rid: int) -> None:
        """Put every joint of robot ``rid`` back at its angle in the model file, at rest, each
        motor holding it (position control there, the velocity at its top): what a handler does
        to a robot taken off the field. KeyError for no such robot."""
        s, m = self._motor_state, self.model
        for motor in self._robots[rid].model.motors:
            i = self._row(rid, motor.name)
            joint = m.joint(f"r{rid}_{motor.name}")
            angle = float(m.qpos0[joint.qposadr[0]])
            self.data.qpos[joint.qposadr[0]] = angle
            self.data.qvel[joint.dofadr[0]] = 0.0
            s["mode"][i], s["target"][i], s["reference"][i] = POSITION, angle, angle
            s["velocity"][i], s["integral"][i], s["error"][i] = self._max_velocity[i], 0.0, 0.0
        self._apply_modes()
        mujoco.mj_forward(m, self.data)

    def pose(self, rid: int, part: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Position (m, shape (3,)) and rotation matrix (shape (3, 3)) in the world of robot
        ``rid``'s ``part`` (a body of its model; None: its root), as
        :meth:`simleague.soccer.world.SoccerWorld.pose`. KeyError for no such robot or part."""
        body = self._root_body[rid] if part is None else self.model.body(f"r{rid}_{part}").id
        return self.data.xpos[body].copy(), self.data.xmat[body].reshape(3, 3).copy()

    def heading(self, rid: int) -> float:
        """The direction robot ``rid``'s root faces (its x axis), radians (0: +x, counter-clockwise)."""
        matrix = self.data.xmat[self._root_body[rid]].reshape(3, 3)
        return math.atan2(matrix[1, 0], matrix[0, 0])

    def velocity(self, rid: int) -> np.ndarray:
        """The root's linear velocity, m/s, shape (3,)."""
        dof = self._root_dof[rid]
        return self.data.qvel[dof:dof + 3].copy()

    def push_robot(self, rid: int, velocity) -> None:
        """Give robot ``rid``'s root the linear ``velocity`` (vx, vy, vz m/s) and no spin, as a
        supervisor sets a node's velocity (Webots' ``setVelocity``); its joints keep theirs."""
        joint = self.model.joint(f"r{rid}_{self._robots[rid].model.root_joint}")
        self.data.qvel[joint.dofadr[0]:joint.dofadr[0] + 6] = [*velocity, 0.0, 0.0, 0.0]
        mujoco.mj_forward(self.model, self.data)

    def contacts(self) -> tuple[dict[int, np.ndarray], set[tuple[int, int]]]:
        """Per robot the points (shape (n, 2): x, y m) where it touches the ground now, and the pairs of robots
        touching each other (:func:`simleague.soccer.pitch.robot_contacts`)."""
        return robot_contacts(self.model, self.data, self._ground_geom, self._owner)

    def extremities(self, rid: int) -> np.ndarray:
        """Where robot ``rid``'s hands and feet are: the (x, y) m of the ends of its kinematic
        tree below its root (the head, above, is not one), shape (n, 2)."""
        ends = self.data.xpos[self._leaves[rid]]
        return ends[ends[:, 2] < self.data.xpos[self._root_body[rid], 2], :2]

    def upright(self, rid: int) -> float:
        """How upright the root is: the z component of its z axis (1 upright, 0 lying)."""
        return float(self.data.xmat[self._root_body[rid]][8])

    # ----------------------------------------------------------------------------- ball
    def ball(self) -> tuple[np.ndarray, np.ndarray]:
        """The ball's position (m) and velocity (m/s), each shape (3,)."""
        joint = self.model.joint("ball")
        q, v = joint.qposadr[0], joint.dofadr[0]
        return self.data.qpos[q:q + 3].copy(), self.data.qvel[v:v + 3].copy()

    def place_ball(self, position, velocity=(0.0, 0.0, 0.0)) -> None:
        """Put the ball at ``position`` (x, y, z m) with ``velocity`` (m/s) and no spin."""
        joint = self.model.joint("ball")
        q, v = joint.qposadr[0], joint.dofadr[0]
        self.data.qpos[q:q + 7] = [*position, 1, 0, 0, 0]
        self.data.qvel[v:v + 6] = [*velocity, 0, 0, 0]
        mujoco.mj_forward(self.model, self.data)

    def ball_touchers(self) -> set[int]:
        """The robots touching the ball now (any of their parts in contact with it)."""
        return ball_touchers(self.model, self.data, self._ball_geom, self._owner)

    # ----------------------------------------------------------------------------- motors
    def _row(self, rid: int, motor: str) -> int:
        return self._motors[(rid, motor)]

    def set_position(self, rid: int, motor: str, position: float) -> None:
        """Position control towards ``position`` rad (clamped to the range); +-inf: velocity
        control at the set velocity."""
        i, s = self._row(rid, motor), self._motor_state
        if math.isinf(position):
            self._set_mode(i, VELOCITY)
        else:
            self._set_mode(i, POSITION)
            s["target"][i] = min(max(position, self._range[i, 0]), self._range[i, 1])

    def set_velocity(self, rid: int, motor: str, velocity: float) -> None:
        """The motor's velocity, rad/s: the most in position control, the velocity in velocity
        control; at most its top speed."""
        i = self._row(rid, motor)
        top = self._max_velocity[i]
        self._motor_state["velocity"][i] = min(max(velocity, -top), top)

    def set_torque(self, rid: int, motor: str, torque: float) -> None:
        """Torque control with ``torque`` N m (clamped to the joint's most)."""
        i, s = self._row(rid, motor), self._motor_state
        self._set_mode(i, TORQUE)
        s["torque"][i] = min(max(torque, -self._max_torque[i]), self._max_torque[i])

    def set_pid(self, rid: int, motor: str, p: float, i_gain: float, d: float) -> None:
        """The position controller's gains."""
        self._motor_state["pid"][self._row(rid, motor)] = (p, i_gain, d)

    # ----------------------------------------------------------------------------- stepping
    @property
    def time(self) -> float:
        """Simulated time, s."""
        return self.cycle * self.step_s

    def step(self) -> None:
        """One basic step (8 ms)."""
        d, s, dt = self.data, self._motor_state, self.step_s
        angle = d.qpos[self._qpos]
        error = s["target"] - angle
        s["integral"] += error * dt
        derivative = (error - s["error"]) / dt
        s["error"] = error
        pid = s["pid"]
        limit = np.abs(s["velocity"])
        wanted = np.clip(pid[:, 0] * error + pid[:, 1] * s["integral"] + pid[:, 2] * derivative, -limit, limit)
        wanted = np.where(s["mode"] == VELOCITY, s["velocity"], wanted)
        reference = np.clip(s["reference"] + wanted * dt, angle - LEAD, angle + LEAD)
        if (s["mode"] == POSITION).any():              # do not overshoot the target
            ahead = np.sign(s["target"] - s["reference"]) != np.sign(s["target"] - reference)
            reference = np.where((s["mode"] == POSITION) & ahead, s["target"], reference)
        reference = np.clip(reference, self._range[:, 0], self._range[:, 1])
        torque_mode = s["mode"] == TORQUE
        s["reference"] = np.where(torque_mode, angle, reference)
        d.ctrl[self._servo] = s["reference"]
        d.ctrl[self._drive] = np.where(torque_mode, s["torque"], 0.0)
        mujoco.mj_step(self.model, d, nstep=self.substeps)
        d.qvel[self._ball_dof:self._ball_dof + 6] *= 1.0 - BALL_DAMPING * dt
        self.cycle += 1

    # ----------------------------------------------------------------------------- sensors
    def position(self, rid: int, motor: str) -> float:
        """A joint's angle, rad (its position sensor)."""
        return float(self.data.qpos[self._qpos[self._row(rid, motor)]])

    def sensor(self, rid: int, name: str) -> np.ndarray:
        """A MuJoCo sensor of robot ``rid`` by the model's name (accelerometer m/s^2, gyro rad/s,
        touch N, force N)."""
        return self.data.sensor(f"r{rid}_{name}").data.copy()

    def observe(self, rid: int) -> Senses:
        """What robot ``rid``'s devices measure after the last cycle, physical values before any
        lookup table (:class:`~simleague.soccer.senses.Senses`: joints by motor name, the model's
        first gyro and accelerometer (zeros if it has none), its force and bumper sensors by
        name). KeyError for no such robot."""
        model = self._robots[rid].model
        first = {}
        for s in model.sensors:
            first.setdefault(s.kind, s)
        read = {kind: vector(self.sensor(rid, first[kind].source)) if kind in first else (0.0, 0.0, 0.0)
                for kind in ("gyro", "accelerometer")}
        forces = {s.name: vector(self.sensor(rid, s.source)) for s in model.sensors
                  if s.kind in ("force", "force3d", "bumper")}
        return Senses(self.cycle, {m.name: self.position(rid, m.name) for m in model.motors},
                      read["gyro"], read["accelerometer"], forces)

    def snapshot(self) -> dict:
        """The world as JSON-ready data (:func:`simleague.soccer.senses.snapshot`)."""
        return snapshot(self)
