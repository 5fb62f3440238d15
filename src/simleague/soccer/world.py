"""The SimSpark soccer world on MuJoCo: field, goals, ball and Nao robots, with the original's
physics. Pure and deterministic for a seed (ARCHITECTURE.md rule 1): no sockets, clocks or wire
text. The pitch is :mod:`simleague.soccer.pitch`'s, the robots :mod:`simleague.soccer.nao`'s.

rcssserver3d 0.7.3 steps ODE once per cycle (``dWorldStep``, 0.02 s, semi-implicit Euler), and the
teams' motor skills are tuned to how ODE solves its constraints there. This world takes the same
step (one MuJoCo Euler step of 0.02 s per cycle) and gives MuJoCo's constraint solver the
original's constraint equations, by setting each row's reference acceleration before the solve:

- **Motors** (hingejoint.rsg, spark's HingeEffector): ODE's velocity motor makes a joint turn at
  the commanded velocity by the end of the step, with at most 10 N m. Here each hinge's
  friction-loss constraint (bounded by 10 N m) is aimed at the commanded velocity instead of at
  rest, and the small compliance of MuJoCo's soft constraint is made up with the row's force of
  the previous step, so a loaded joint holds its angle as ODE's does. A commanded velocity takes
  effect only while the joint is strictly inside its range (the HingeEffector sets the motor only
  then); at or beyond a limit the motor pushes with its full 10 N m in its velocity's direction,
  and with 1e-5 of it when that leads away from the limit (ODE's powered stop, fudge factor 1e-5).
- **Contacts** (:mod:`simleague.soccer.surfaces`): each contact's penetration beyond the 1 mm
  surface layer is corrected by its ERP per step, an approach faster than its bounce speed is
  reflected with its restitution, and its tangential velocity is aimed at zero with unbounded
  friction (MuJoCo's elliptic cone with friction 100); normal compliance (CFM) and slip come from
  MuJoCo's constraint softness, set per geom and with ``impratio`` to the robot-ground values.
- **Joint limits**: ODE's stops (hingejoint.rsg: stop ERP 0.8, bounce 1): a joint beyond its limit
  is brought back by 0.8 of the overshoot per step, and an incoming joint bounces back. A joint
  within 0.15 rad of a limit may come up to 1e-4 rad from it and no further: ODE's stiff motor
  brings a joint driven into its stop to rest just inside the range (-0.99997 deg for a -1 deg
  stop, measured), where the HingeEffector still takes commands; MuJoCo's softer constraints
  would let it creep past the limit, where commands are ignored and the joint stays stuck.
- **Drag**: the ball's linear drag 0.01 N s/m and angular drag 5e-5 N m s (ball.rsg); the robots'
  drag of 0.01 (dragcontroller.rsg) changes nothing measurable and is left out.

Measured against the original's recordings (tests/simspark/test_simspark_physics.py, README): a robot stands
and settles where the original's does, a ball rolls and bounces as the original's does; an
open-loop replay of FC Portugal's walk follows the original for 160 cycles and differs after.
What differs from ODE: ODE moves every body on its own and pulls its joints together afterwards,
so a robot turning fast stretches a little (a falling robot's lower arm lands 1-2 cm further out
than here) and a foot pivoting on its toe keeps touching the ground, where here, with the torso as
the root of one tree of joints, it lifts by a fraction of a millimetre; MuJoCo's contacts have no
friction at zero normal force (ODE's do); the contact softness is set per geom rather than per
contact. Bodies of a resting robot never fall asleep here (ODE's do, so a resting robot beamed in
the original hovers until a joint moves).

Sensors as the original reads them: the gyro gives the torso's angular velocity at the end of the
step; the accelerometer, the torso's acceleration over the step before (spark's Accelerometer
differences velocities before each step), minus gravity, in the torso's frame.

Robots join and leave by rebuilding the MuJoCo model from text (about 40 ms with 22 robots) and
carrying every other body's state over by name, so the others do not notice.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import mujoco
import numpy as np

from . import surfaces
from .nao import MAX_MOTOR_TORQUE, Part, nao_parts
from .pitch import GRAVITY, ball_touchers, field_mjcf
from .rules import SoccerRules
from .senses import Senses, snapshot, vector

log = logging.getLogger("simleague.soccer")

CYCLE = 0.02                  # s, the original's agent step and physics step (spark.rb agentStep)
FRICTION = 100.0              # ODE's mu is infinite; high enough never to limit a contact
STOP_ERP = 0.8                # hingejoint.rsg setStopERP
STOP_BOUNCE = 1.0             # hingejoint.rsg setBounce
LIMIT_MARGIN = 0.15           # rad: a limit row exists this far inside the range (more than a step at top speed)
STOP_INSIDE = 1e-4            # rad: where a joint driven into its stop comes to rest, inside the range
FUDGE = 1e-5                  # hingejoint.rsg setFudgeFactor: a motor pushing away from its stop
BALL_DRAG = (0.01, 0.00005)   # ball.rsg: N per m/s, N m per rad/s
MOTOR_IMPEDANCE = 0.9999      # MuJoCo's stiffest, for motors (their softness made up) and stops
_FRICTION_DOF = int(mujoco.mjtConstraint.mjCNSTR_FRICTION_DOF)   # ints: numpy compares enums one by one
_LIMIT = int(mujoco.mjtConstraint.mjCNSTR_LIMIT_JOINT)


@dataclass(frozen=True)
class Pressure:
    """A force resistance perceptor's reading: where the contact forces act (``centre``, m) and
    their sum (``force``, N), both in the part's frame, as the original's ``FRP`` perceptor."""

    name: str
    centre: tuple[float, float, float]
    force: tuple[float, float, float]


@dataclass
class _Robot:
    """A robot in the world: its number in the world, type and parts."""

    rid: int
    robot_type: int
    parts: tuple[Part, ...]
    velocity: dict[str, float]           # effector name -> commanded joint velocity, rad/s
    spawn: tuple[float, float, float]    # where it was put when it joined, m
    yaw: float                           # the direction it faced then, radians (0: +x)


def _vec(v) -> str:
    return " ".join(f"{x:.9g}" for x in v)


def _geom(part: Part, prefix: str) -> str:
    kind = part.shape
    if kind == "box":
        size = [s / 2 for s in part.size]
    elif kind == "sphere":
        size = list(part.size)
    else:                                  # capsule: radius and half the cylinder's length
        size = [part.size[0], part.size[1] / 2]
    collide = 'contype="1" conaffinity="1"' if part.collides else 'contype="0" conaffinity="0"'
    return (f'<geom name="{prefix}{part.name}" type="{kind}" size="{_vec(size)}" '
            f'mass="{part.mass:.9g}" {collide}/>')


def robot_mjcf(parts: tuple[Part, ...], prefix: str, position, yaw: float) -> str:
    """The MJCF ``<body>`` tree of a robot whose torso is at ``position`` (m) facing ``yaw``
    radians (0: +x, counter-clockwise), names prefixed by ``prefix``."""
    children: dict[str | None, list[Part]] = {}
    for part in parts:
        children.setdefault(part.parent, []).append(part)
    turn = yaw - math.pi / 2                   # the robot's own forward is its +y

    def body(part: Part, parent_position) -> str:
        local = [a - b for a, b in zip(part.position, parent_position)]
        inner = [_geom(part, prefix)]
        if part.joint is None:
            inner.insert(0, f'<freejoint name="{prefix}root"/>')
        else:
            j = part.joint
            inner.insert(0, f'<joint name="{prefix}{j.effector}" type="hinge" pos="{_vec(j.anchor)}" '
                            f'axis="{_vec(j.axis)}" range="{j.low:.9g} {j.high:.9g}" margin="{LIMIT_MARGIN}"/>')
        inner += [body(child, part.position) for child in children.get(part.name, [])]
        extra = ""
        if part.parent is None:
            local = list(position)
            extra = f' quat="{_vec((math.cos(turn / 2), 0, 0, math.sin(turn / 2)))}"'
        return f'<body name="{prefix}{part.name}" pos="{_vec(local)}"{extra}>' + "".join(inner) + "</body>"

    return body(children[None][0], (0.0, 0.0, 0.0))


class SoccerWorld:
    """The soccer field with a ball and any number of Nao robots, physics as the original's
    (module docstring).

    ``rules`` give the sizes (m); ``seed`` the world's random stream. Robot numbers (``rid``) are
    the world's own and are never reused. Angles are radians, lengths metres."""

    def __init__(self, rules: SoccerRules | None = None, seed: int = 0):
        self.rules = rules or SoccerRules()
        self.rng = np.random.default_rng(seed)
        self.cycle = 0
        self._robots: dict[int, _Robot] = {}
        self._next_rid = 1
        self._contacts = surfaces.contact_table()
        self._build()

    # ----------------------------------------------------------------------------- the model
    def _build(self) -> None:
        """Compile the model with the current robots; every joint that was in the previous model
        (free joints of the ball and the robots, hinges) keeps its position and velocity, every
        motor its command."""
        robots_xml, excludes = [], []
        for robot in self._robots.values():
            prefix = f"r{robot.rid}_"
            robots_xml.append(robot_mjcf(robot.parts, prefix, robot.spawn, robot.yaw))
            solid = [p.name for p in robot.parts if p.collides]
            excludes += [f'<exclude body1="{prefix}{a}" body2="{prefix}{b}"/>'
                         for i, a in enumerate(solid) for b in solid[i + 1:]]
        robot_ground = self._contacts[surfaces.KIND_ROBOT, surfaces.KIND_GROUND]
        xml = (
            '<mujoco model="simspark soccer"><compiler angle="degree" inertiafromgeom="true"/>'
            f'<option timestep="{CYCLE}" integrator="Euler" cone="elliptic" '
            f'impratio="{robot_ground[1] / robot_ground[2]:.9g}" gravity="0 0 {-GRAVITY}"/>'
            f'<default><joint armature="0" damping="0" frictionloss="{MAX_MOTOR_TORQUE}" '
            f'solimpfriction="{MOTOR_IMPEDANCE} {MOTOR_IMPEDANCE} 0.001" '
            f'solimplimit="{MOTOR_IMPEDANCE} {MOTOR_IMPEDANCE} 0.001"/>'
            f'<geom friction="{FRICTION} 0 0" condim="3"/></default>'
            "<worldbody>" + field_mjcf(self.rules, 'condim="3"') + "".join(robots_xml) + "</worldbody>"
            "<contact>" + "".join(excludes) + "</contact></mujoco>")
        old, old_model = getattr(self, "data", None), getattr(self, "model", None)
        self.model = mujoco.MjModel.from_xml_string(xml)
        self.model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_AUTORESET    # step() recovers instead
        self.data = mujoco.MjData(self.model)
        if old is not None:
            self.data.time = old.time
            for j in range(self.model.njnt):
                k = mujoco.mj_name2id(old_model, mujoco.mjtObj.mjOBJ_JOINT, self.model.joint(j).name)
                if k < 0:
                    continue
                free = self.model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE
                nq, nv = (7, 6) if free else (1, 1)
                qa, va = self.model.jnt_qposadr[j], self.model.jnt_dofadr[j]
                qb, vb = old_model.jnt_qposadr[k], old_model.jnt_dofadr[k]
                self.data.qpos[qa:qa + nq] = old.qpos[qb:qb + nq]
                self.data.qvel[va:va + nv] = old.qvel[vb:vb + nv]
        self._index(old_model, old)
        mujoco.mj_forward(self.model, self.data)

    def _index(self, old_model, old) -> None:
        """Addresses of every robot's joints and the per-geom contact settings of the current
        model; motor state (commands, forces, the accelerometer's memory) carried over."""
        m = self.model
        self._joint_qpos, self._effectors, self._roots = {}, {}, {}
        hinge_dofs = []
        for robot in self._robots.values():
            prefix = f"r{robot.rid}_"
            joints = [p.joint for p in robot.parts if p.joint is not None]
            ids = [m.joint(prefix + j.effector).id for j in joints]
            self._effectors[robot.rid] = {j.effector: (int(m.jnt_dofadr[i]), j.max_speed) for j, i in zip(joints, ids)}
            self._joint_qpos[robot.rid] = m.jnt_qposadr[ids]
            self._roots[robot.rid] = (int(m.joint(prefix + "root").qposadr[0]), int(m.joint(prefix + "root").dofadr[0]))
            hinge_dofs += [int(m.jnt_dofadr[i]) for i in ids]
        self._hinges = np.array(hinge_dofs, dtype=int)
        dof_joint = m.dof_jntid[self._hinges]
        self._hinge_qpos = m.jnt_qposadr[dof_joint]
        self._hinge_range = m.jnt_range[dof_joint]
        self._command = np.zeros(m.nv)                  # commanded velocity per dof, rad/s
        self._motor = np.zeros(m.nv)                    # the velocity each motor holds (HingeEffector)
        self._motor_force = np.zeros(m.nv)              # last step's motor torque, N m
        self._stop_force = np.zeros(m.njnt)             # last step's torque of each joint's stop, N m
        self._last_velocity = {}                        # rid -> torso velocity before the last step
        self._acceleration = {}                         # rid -> the accelerometer's reading
        for robot in self._robots.values():
            for effector, velocity in robot.velocity.items():
                self._command[self._effectors[robot.rid][effector][0]] = velocity
        if old_model is not None:
            for robot in self._robots.values():
                for effector, (dof, _) in self._effectors[robot.rid].items():
                    k = mujoco.mj_name2id(old_model, mujoco.mjtObj.mjOBJ_JOINT, f"r{robot.rid}_{effector}")
                    if k >= 0:
                        old_dof = old_model.jnt_dofadr[k]
                        self._motor[dof] = self._old_motor[old_dof]
                        self._motor_force[dof] = self._old_motor_force[old_dof]
                if robot.rid in self._old_acceleration:
                    self._acceleration[robot.rid] = self._old_acceleration[robot.rid]
                    self._last_velocity[robot.rid] = self._old_last_velocity[robot.rid]
        self._ball = m.joint("ball").qposadr[0], m.joint("ball").dofadr[0]
        self._ball_body, self._ball_geom = m.body("ball").id, m.geom("ball").id
        self._bodies = {robot.rid: np.array([m.body(f"r{robot.rid}_{p.name}").id for p in robot.parts])
                        for robot in self._robots.values()}
        self._owner = np.full(m.nbody, 0)                 # body -> robot number (0: none)
        for rid, bodies in self._bodies.items():
            self._owner[bodies] = rid
        self._pressure_geoms = {m.geom(f"r{robot.rid}_{p.name}").id: (robot.rid, p.pressure)
                                for robot in self._robots.values() for p in robot.parts if p.pressure}
        self._pressures = None
        # the surface kind of every geom and, from the original's CFM, its constraint softness
        kind = np.full(m.ngeom, surfaces.KIND_OTHER)
        kind[m.geom("ground").id] = surfaces.KIND_GROUND
        kind[self._ball_geom] = surfaces.KIND_BALL
        kind[self._owner[m.geom_bodyid] > 0] = surfaces.KIND_ROBOT
        self._geom_kind = kind
        for g in range(m.ngeom):
            weight = m.body_invweight0[m.geom_bodyid[g], 0]
            if weight > 0:                              # R = (1 - d)/d * weight = CFM / step
                target = self._contacts[kind[g], surfaces.KIND_GROUND, 1] / CYCLE
                m.geom_solimp[g, :2] = min(weight / (weight + target), MOTOR_IMPEDANCE)
                m.geom_priority[g] = 1                  # its settings, not the ground's, make the contact

    def _keep_motors(self) -> None:
        """Remember the motors' state by dof before the model is rebuilt."""
        self._old_motor, self._old_motor_force = self._motor.copy(), self._motor_force.copy()
        self._old_acceleration, self._old_last_velocity = dict(self._acceleration), dict(self._last_velocity)

    # ----------------------------------------------------------------------------- robots
    @property
    def robots(self) -> tuple[int, ...]:
        """The numbers of the robots in the world, in the order they joined."""
        return tuple(self._robots)

    def robot_type(self, rid: int) -> int:
        """The type (0-4) of robot ``rid``."""
        return self._robots[rid].robot_type

    def parts(self, rid: int) -> tuple[Part, ...]:
        """The parts of robot ``rid`` (:func:`simleague.soccer.nao.nao_parts`)."""
        return self._robots[rid].parts

    def add_robot(self, robot_type: int, x: float, y: float, yaw: float = 0.0) -> int:
        """Put a robot of ``robot_type`` at (x, y) m facing ``yaw`` radians (0: along +x,
        counter-clockwise), its torso ``agent_radius`` (0.4 m) high, joints straight, and return
        its number. Raises ValueError for an unknown type."""
        parts = nao_parts(robot_type)
        rid = self._next_rid
        self._next_rid += 1
        self._robots[rid] = _Robot(rid, robot_type, parts, {}, (x, y, self.rules.agent_radius), yaw)
        self._keep_motors()
        self._build()
        return rid

    def remove_robot(self, rid: int) -> None:
        """Take robot ``rid`` off the field; the others keep their state. Raises KeyError when it
        is not in the world."""
        del self._robots[rid]
        self._keep_motors()
        self._build()

    def set_joint_velocity(self, rid: int, effector: str, velocity: float) -> None:
        """Drive joint ``effector`` (``he1``, ``lle4``, ...) of robot ``rid`` at ``velocity`` rad/s
        from now on, clamped to the joint's top speed as the original (hingejoint.rsg
        ``setJointMaxSpeed1``). Raises KeyError for a joint the robot lacks."""
        dof, top = self._effectors[rid][effector]
        velocity = max(-top, min(top, float(velocity)))
        self._robots[rid].velocity[effector] = velocity
        self._command[dof] = velocity

    def place_robot(self, rid: int, x: float, y: float, yaw: float, z: float | None = None) -> None:
        """Move robot ``rid`` as a whole, at rest, so that its torso is upright at (x, y, z) m
        facing ``yaw`` radians (0: +x); its joints keep their angles. ``z`` defaults to
        ``agent_radius`` (0.4 m), where the original's beam puts the torso (beameffector)."""
        adr, dof = self._roots[rid]
        turn = yaw - math.pi / 2
        height = self.rules.agent_radius if z is None else z
        self.data.qpos[adr:adr + 7] = (x, y, height, math.cos(turn / 2), 0, 0, math.sin(turn / 2))
        self.data.qvel[dof:dof + 6] = 0
        self.data.qvel[[hinge for hinge, _ in self._effectors[rid].values()]] = 0
        mujoco.mj_kinematics(self.model, self.data)
        self._pressures = None

    def translate_robot(self, rid: int, x: float, y: float, z: float) -> None:
        """Move robot ``rid`` as a whole, at rest, so that its torso is at (x, y, z) m, keeping its
        orientation and joint angles (the original trainer's ``(agent (pos ..))``,
        SoccerBase::MoveAgent)."""
        adr, dof = self._roots[rid]
        self.data.qpos[adr:adr + 3] = (x, y, z)
        self.data.qvel[dof:dof + 6] = 0
        self.data.qvel[[hinge for hinge, _ in self._effectors[rid].values()]] = 0
        mujoco.mj_kinematics(self.model, self.data)
        self._pressures = None

    # ----------------------------------------------------------------------------- ball
    def ball(self) -> tuple[np.ndarray, np.ndarray]:
        """The ball's position (m) and velocity (m/s), each shape (3,)."""
        q, v = self._ball
        return self.data.qpos[q:q + 3].copy(), self.data.qvel[v:v + 3].copy()

    def place_ball(self, position, velocity=(0.0, 0.0, 0.0)) -> None:
        """Put the ball at ``position`` (x, y, z m) with ``velocity`` (m/s) and no spin (the
        trainer's ``ball pos``/``vel``)."""
        q, v = self._ball
        self.data.qpos[q:q + 3] = position
        self.data.qpos[q + 3:q + 7] = (1, 0, 0, 0)
        self.data.qvel[v:v + 3] = velocity
        self.data.qvel[v + 3:v + 6] = 0
        mujoco.mj_kinematics(self.model, self.data)
        self._pressures = None

    # ----------------------------------------------------------------------------- stepping
    @property
    def time(self) -> float:
        """Simulated time, s."""
        return self.cycle * CYCLE

    def step(self) -> None:
        """Advance one cycle (0.02 s) with the joint velocities last set, as the original's ODE
        step (module docstring)."""
        m, d = self.model, self.data
        self._sense_acceleration()
        self._drag_ball()
        before = (d.time, d.qpos.copy(), d.qvel.copy())
        mujoco.mj_step1(m, d)
        self._drive_motors()
        self._shape_contacts()
        self._shape_limits()
        mujoco.mj_step2(m, d)
        if not (np.isfinite(d.qacc).all() and np.isfinite(d.qvel).all() and np.isfinite(d.qpos).all()):
            self._recover(*before)
        kind = d.efc_type[:d.nefc]
        rows = np.flatnonzero(kind == _FRICTION_DOF)
        self._motor_force[:] = 0
        self._motor_force[d.efc_id[rows]] = d.efc_force[rows]
        rows = np.flatnonzero(kind == _LIMIT)
        self._stop_force[:] = 0
        self._stop_force[d.efc_id[rows]] = d.efc_force[rows]
        d.qfrc_applied[:] = 0
        mujoco.mj_kinematics(m, d)                  # poses at the end of the step, as ODE's
        self.cycle += 1
        self._pressures = None

    def _recover(self, time: float, qpos: np.ndarray, qvel: np.ndarray) -> None:
        """A step that blew up (a non-finite acceleration, velocity or position): instead of
        MuJoCo's reset of the whole world to its initial state (robots piled up where the model
        put them), every body goes back to where it was before the step, and the robots whose
        degrees of freedom went bad (and the ball, if it did) stop moving. Logged."""
        m, d = self.model, self.data
        bad = ~(np.isfinite(d.qacc) & np.isfinite(d.qvel))
        d.time, d.qpos[:], d.qvel[:] = time + m.opt.timestep, qpos, qvel
        stopped = []
        for rid in self._robots:
            dofs = [self._roots[rid][1] + k for k in range(6)] + [a for a, _ in self._effectors[rid].values()]
            if bad[dofs].any():
                d.qvel[dofs] = 0.0
                self._command[dofs] = self._motor[dofs] = 0.0
                stopped.append(rid)
        ball = slice(int(self._ball[1]), int(self._ball[1]) + 6)
        if not stopped or bad[ball].any():
            d.qvel[ball] = 0.0
        d.qacc_warmstart[:] = 0.0
        mujoco.mj_forward(m, d)
        log.warning("cycle %d: the physics step blew up; bodies kept where they were, robots %s stopped",
                    self.cycle, stopped or "none")

    def _sense_acceleration(self) -> None:
        """The accelerometer before this step: the torso's velocity change over the step before,
        minus gravity, in the torso's frame (spark's Accelerometer, in PrePhysicsUpdate)."""
        for rid, (_, dof) in self._roots.items():
            velocity = self.data.qvel[dof:dof + 3].copy()
            last = self._last_velocity.get(rid, velocity)
            rotation = self.data.xmat[self._bodies[rid][0]].reshape(3, 3)
            self._acceleration[rid] = rotation.T @ ((velocity - last) / CYCLE + (0.0, 0.0, GRAVITY))
            self._last_velocity[rid] = velocity

    def _drag_ball(self) -> None:
        linear, angular = BALL_DRAG
        _, v = self._ball
        rotation = self.data.xmat[self._ball_body].reshape(3, 3)
        self.data.xfrc_applied[self._ball_body, :3] = -linear * self.data.qvel[v:v + 3]
        self.data.xfrc_applied[self._ball_body, 3:] = -angular * (rotation @ self.data.qvel[v + 3:v + 6])

    def _drive_motors(self) -> None:
        """Aim each hinge's motor row at its velocity (module docstring, "Motors")."""
        d = self.data
        angle = d.qpos[self._hinge_qpos]
        low, high = self._hinge_range[:, 0], self._hinge_range[:, 1]
        inside = (angle > low) & (angle < high)
        self._motor[self._hinges[inside]] = self._command[self._hinges[inside]]
        rows = np.flatnonzero(d.efc_type[:d.nefc] == _FRICTION_DOF)
        dofs = d.efc_id[rows]
        d.efc_aref[rows] = (self._motor[dofs] - d.efc_vel[rows]) / CYCLE + d.efc_R[rows] * self._motor_force[dofs]
        # at a stop: no motor row, but the motor's full torque in its velocity's direction
        at_stop = ~inside
        if at_stop.any():
            dofs_at = self._hinges[at_stop]
            velocity = self._motor[dofs_at]
            at_high = angle[at_stop] >= high[at_stop]
            push = np.where((velocity > 0) | ((velocity == 0) & at_high), MAX_MOTOR_TORQUE, -MAX_MOTOR_TORQUE)
            away = (~at_high & (velocity > 0)) | (at_high & (velocity < 0))
            d.qfrc_applied[dofs_at] = np.where(away, push * FUDGE, push)
            limited = np.isin(dofs, dofs_at)
            d.efc_frictionloss[rows[limited]] = 0.0
            if d.nisland > 0:
                d.iefc_frictionloss[d.map_efc2iefc[rows[limited]]] = 0.0

    def _shape_contacts(self) -> None:
        """Aim each contact at the original's correction (module docstring, "Contacts")."""
        d = self.data
        if d.ncon == 0:
            return
        contact = d.contact
        address = contact.efc_address[:d.ncon]
        active = address >= 0
        if not active.any():
            return
        rows = address[active]
        pair = self._geom_kind[contact.geom[:d.ncon][active]]
        erp, _, _, restitution, bounce_speed = self._contacts[pair[:, 0], pair[:, 1]].T
        velocity = d.efc_vel[rows]
        depth = -d.efc_pos[rows]
        correction = erp * np.maximum(depth - surfaces.SURFACE_LAYER, 0.0) / CYCLE
        bounce = (restitution > 0) & (-velocity > bounce_speed)
        correction = np.where(bounce, np.maximum(correction, -restitution * velocity), correction)
        d.efc_aref[rows] = (correction - velocity) / CYCLE
        for k in (1, 2):                            # the two friction directions: stick
            d.efc_aref[rows + k] = -d.efc_vel[rows + k] / CYCLE

    def _shape_limits(self) -> None:
        """Aim each joint limit row at ODE's stop (module docstring, "Joint limits"): a joint
        beyond its limit is brought back, one inside it may come up to ``STOP_INSIDE`` from it; the
        rows' softness made up as the motors' is (ODE's stops are all but rigid: CFM 1e-8)."""
        d = self.data
        rows = np.flatnonzero(d.efc_type[:d.nefc] == _LIMIT)
        if len(rows) == 0:
            return
        velocity = d.efc_vel[rows]                  # positive: back into the range
        gap = d.efc_pos[rows]                       # positive: inside the range by so much
        correction = STOP_ERP * np.maximum(-gap, 0.0) / CYCLE
        correction = np.where(velocity < 0, np.maximum(correction, -STOP_BOUNCE * velocity), correction)
        correction = np.where(gap > 0, -(gap - STOP_INSIDE) / CYCLE, correction)
        held = np.where(gap > 0, 0.0, self._stop_force[d.efc_id[rows]])
        d.efc_aref[rows] = (correction - velocity) / CYCLE + d.efc_R[rows] * held

    # ----------------------------------------------------------------------------- observing
    def joint_angles(self, rid: int) -> np.ndarray:
        """Robot ``rid``'s joint angles, radians, shape (n,), in the order of its parts (the ``HJ`` order)."""
        return self.data.qpos[self._joint_qpos[rid]].copy()

    def gyro(self, rid: int) -> np.ndarray:
        """The torso's angular velocity in its own frame at the end of the step, rad/s, shape (3,)."""
        _, dof = self._roots[rid]
        return self.data.qvel[dof + 3:dof + 6].copy()

    def accelerometer(self, rid: int) -> np.ndarray:
        """The torso's proper acceleration in its own frame, m/s^2, shape (3,): (0, 0, 9.81) when
        upright at rest; the step before the last one's, as the original's (module docstring)."""
        return self._acceleration.get(rid, np.array([0.0, 0.0, 0.0])).copy()

    def pose(self, rid: int, part: str = "torso") -> tuple[np.ndarray, np.ndarray]:
        """Position (m, shape (3,)) and rotation matrix (shape (3, 3)) in the world of robot
        ``rid``'s ``part`` (default its torso, the root). KeyError for no such robot or part."""
        b = self.data.body(f"r{rid}_{part}")
        return b.xpos.copy(), b.xmat.reshape(3, 3).copy()

    def poses(self, rid: int) -> tuple[np.ndarray, np.ndarray]:
        """Positions (shape (n, 3), m) and rotation matrices (shape (n, 3, 3)) of all parts of
        robot ``rid``, in part order."""
        bodies = self._bodies[rid]
        return self.data.xpos[bodies].copy(), self.data.xmat[bodies].reshape(-1, 3, 3).copy()

    def heading(self, rid: int) -> float:
        """The direction robot ``rid``'s torso faces, radians (0: +x, counter-clockwise)."""
        rotation = self.data.xmat[self._bodies[rid][0]].reshape(3, 3)
        return math.atan2(rotation[1, 1], rotation[0, 1])

    def ball_touchers(self) -> set[int]:
        """The robots touching the ball now."""
        return ball_touchers(self.model, self.data, self._ball_geom, self._owner)

    def observe(self, rid: int) -> Senses:
        """What robot ``rid``'s own sensors read after the last cycle (:class:`~simleague.soccer.senses.Senses`:
        joints by their ``HJ`` perceptor name, the torso's gyro and accelerometer, the feet's
        pressure forces). KeyError for no such robot."""
        names = [part.joint.perceptor for part in self.parts(rid) if part.joint is not None]
        return Senses(self.cycle, dict(zip(names, map(float, self.joint_angles(rid)))), vector(self.gyro(rid)),
                      vector(self.accelerometer(rid)), {p.name: vector(p.force) for p in self.pressures(rid)})

    def snapshot(self) -> dict:
        """The world as JSON-ready data (:func:`simleague.soccer.senses.snapshot`)."""
        return snapshot(self)

    def pressures(self, rid: int) -> list[Pressure]:
        """The force resistance perceptors of robot ``rid`` that touch something now (the
        original sends ``FRP`` only while touching), in part order."""
        if self._pressures is None:
            self._pressures = self._all_pressures()
        return self._pressures.get(rid, [])

    def _all_pressures(self) -> dict[int, list[Pressure]]:
        """Every robot's touching pressure perceptors, from one pass over the contacts."""
        m, d = self.model, self.data
        sums: dict[int, list] = {}
        force6 = np.zeros(6)
        for i in range(d.ncon):
            c = d.contact[i]
            for geom, sign in ((c.geom1, -1.0), (c.geom2, 1.0)):
                if geom in self._pressure_geoms:
                    mujoco.mj_contactForce(m, d, i, force6)
                    world = sign * (c.frame.reshape(3, 3).T @ force6[:3])
                    weight = max(float(np.linalg.norm(world)), 1e-9)
                    entry = sums.setdefault(geom, [np.zeros(3), np.zeros(3), 0.0])
                    entry[0] += world
                    entry[1] += weight * c.pos
                    entry[2] += weight
        result: dict[int, list[Pressure]] = {}
        for geom, (rid, name) in self._pressure_geoms.items():
            if geom in sums:
                force, moment, weight = sums[geom]
                position, rotation = d.geom_xpos[geom], d.geom_xmat[geom].reshape(3, 3)
                centre = rotation.T @ (moment / weight - position)
                result.setdefault(rid, []).append(Pressure(name, tuple(centre), tuple(rotation.T @ force)))
        return result
