"""The soccer world on MuJoCo: field, goals, ball and Nao robots. Pure and deterministic for a seed
(ARCHITECTURE.md rule 1): no sockets, clocks or wire text.

Geometry from the original's scene (reference/simspark-rsg/nao/soccer.rsg, goal.rsg): the field is
``field_length`` x ``field_width`` m centred on the origin, x towards the right team's goal, z up;
each goal is a box of ``goal_depth`` x ``goal_width`` x ``goal_height`` m behind its goal line with
posts and a top bar 0.04 m thick and a back wall; walls far outside the field keep the ball in. The
robots are built from :mod:`simleague.soccer.nao`.

One cycle (:meth:`SoccerWorld.step`) is ``cycle`` s (0.02, the original's agent step); MuJoCo
integrates it in ``substeps`` steps, 2 by default: 10 ms (the original: one ODE step of 20 ms per
cycle; 20 ms steps make MuJoCo's stiff motors shake). Deviations from the
original, kept because MuJoCo differs from ODE:

- joints have an armature of 0.01 kg m^2; a motor is a position servo (300 N m/rad, 0.5 N m s/rad,
  at most 10 N m) following a target angle that moves at the commanded velocity (the original:
  ODE's velocity motor with at most 10 N m, an exact velocity where the torque allows it; a pure
  velocity servo in MuJoCo either sags under the robot's weight or, stiff enough not to, shakes
  the robot off its feet);
- contacts use MuJoCo's soft contacts (the original: ERP 0.6, CFM 1e-4, slip 5e-3), friction 1;
- the bodies' linear and angular drag of 0.01 becomes a damping of 0.01 on every joint; the ball
  rolls with a rolling friction of 0.004 m, so that a ball rolling at 3 m/s stops after about 4 m (ball.rsg is not in
  the reference);
- parts of one robot never collide with each other (the original: ``disableInnerCollision``).

Robots join and leave by rebuilding the MuJoCo model from text (about 40 ms with 22 robots) and
carrying every other body's state over by name, so the others do not notice.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np

from .field import lines
from .nao import MAX_MOTOR_TORQUE, Part, nao_parts, standing_height
from .rules import SoccerRules

CYCLE = 0.02                  # s, the original's agent step (defaults.json simulation.agentStep)
GRAVITY = 9.81                # m/s^2 (physicsGlobalGravity)
MOTOR_STIFFNESS = 300.0       # N m/rad
MOTOR_DAMPING = 0.5           # N m s/rad
MOTOR_LEAD = 0.1              # rad: how far a motor's target may run ahead of its joint
ARMATURE = 0.01               # kg m^2
BAR = 0.04                    # m, goal posts and bar (goal.rsg BarDiameter)


@dataclass(frozen=True)
class Pressure:
    """A force resistance perceptor's reading: where the contact forces act (``centre``, m) and
    their sum (``force``, N), both in the part's frame, as the original's ``FRP`` perceptor."""

    name: str
    centre: tuple[float, float, float]
    force: tuple[float, float, float]


@dataclass
class _Robot:
    """A robot in the world: its number in the world, type and parts; indices filled per model."""

    rid: int
    robot_type: int
    parts: tuple[Part, ...]
    velocity: dict[str, float]           # effector name -> target joint velocity, rad/s
    spawn: tuple[float, float, float]    # where it was put when it joined, m
    yaw: float                           # and its turn then, radians (0: facing +y)


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
    """The MJCF ``<body>`` tree of a robot whose torso is at ``position`` (m) turned by ``yaw``
    (radians about z; 0 = facing +y as the original's robot frame), names prefixed by ``prefix``."""
    children: dict[str | None, list[Part]] = {}
    for part in parts:
        children.setdefault(part.parent, []).append(part)

    def body(part: Part, parent_position) -> str:
        local = [a - b for a, b in zip(part.position, parent_position)]
        inner = [_geom(part, prefix)]
        if part.joint is None:
            inner.insert(0, f'<freejoint name="{prefix}root"/>')
            inner.append(f'<site name="{prefix}imu" size="0.01"/>')
        else:
            j = part.joint
            inner.insert(0, f'<joint name="{prefix}{j.effector}" type="hinge" pos="{_vec(j.anchor)}" '
                            f'axis="{_vec(j.axis)}" range="{j.low:.9g} {j.high:.9g}"/>')
        if part.pressure is not None:
            inner.append(f'<site name="{prefix}{part.pressure}" size="0.005"/>')
        inner += [body(child, part.position) for child in children.get(part.name, [])]
        extra = ""
        if part.parent is None:
            local = list(position)
            extra = f' quat="{_vec((math.cos(yaw / 2), 0, 0, math.sin(yaw / 2)))}"'
        return f'<body name="{prefix}{part.name}" pos="{_vec(local)}"{extra}>' + "".join(inner) + "</body>"

    return body(children[None][0], (0.0, 0.0, 0.0))


def ball_touchers(model, data, ball_geom: int, owner: np.ndarray) -> set[int]:
    """The robots with a part in contact with the ball now, from MuJoCo's contacts: ``ball_geom``
    is the ball's geom id, ``owner`` maps body id -> robot number (shape (nbody,), 0: no robot).
    Shared by both soccer worlds."""
    pairs = data.contact.geom                          # shape (ncon, 2)
    pairs = pairs[(pairs == ball_geom).any(axis=1)]
    other = np.where(pairs[:, 0] == ball_geom, pairs[:, 1], pairs[:, 0])
    return {int(rid) for rid in owner[model.geom_bodyid[other]] if rid}


def field_mjcf(r: SoccerRules) -> str:
    """The MJCF of the field's ground and painted lines, goals (posts, bar and back wall,
    goal.rsg), the walls far outside it that keep the ball in, the ball (a free body named
    ``ball``) and a light, for a ``<worldbody>``; sizes from the rules (m, kg)."""
    hl, hw = r.field_length / 2, r.field_width / 2
    gd, gw, gh = r.goal_depth, r.goal_width, r.goal_height
    goals = []
    for side, sign in (("left", -1), ("right", 1)):
        x = sign * (hl + gd / 2)
        goals.append(
            f'<body name="{side}goal" pos="{x:.9g} 0 {gh / 2:.9g}">'
            f'<geom type="box" size="{gd / 2:.9g} {BAR / 2:.9g} {gh / 2:.9g}" pos="0 {gw / 2 + BAR / 2:.9g} 0"/>'
            f'<geom type="box" size="{gd / 2:.9g} {BAR / 2:.9g} {gh / 2:.9g}" pos="0 {-(gw / 2 + BAR / 2):.9g} 0"/>'
            f'<geom type="box" size="{BAR / 2:.9g} {gw / 2:.9g} {gh / 2:.9g}" pos="{sign * (gd / 2 - BAR / 2):.9g} 0 0"/>'
            f'<geom type="box" size="{gd / 2:.9g} {gw / 2 + BAR:.9g} {BAR / 2:.9g}" pos="0 0 {gh / 2 + BAR / 2:.9g}"/>'
            "</body>")
    wall_x, wall_y = hl + r.field_length * 0.333 + 0.5, hw + r.field_width * 0.75 + 0.5
    walls = "".join(
        f'<geom type="box" size="{sx:.9g} {sy:.9g} 0.5" pos="{px:.9g} {py:.9g} 0.5"/>'
        for sx, sy, px, py in ((0.5, wall_y, -wall_x, 0), (0.5, wall_y, wall_x, 0),
                               (wall_x, 0.5, 0, wall_y), (wall_x, 0.5, 0, -wall_y)))
    ball = (f'<body name="ball" pos="0 0 {r.ball_radius:.9g}"><freejoint name="ball"/>'
            f'<geom name="ball" type="sphere" size="{r.ball_radius:.9g}" mass="{r.ball_mass:.9g}" '
            'condim="6" friction="1 0.005 0.004" rgba="1 1 1 1"/></body>')
    ground = '<geom name="ground" type="plane" size="0 0 1" rgba="0.18 0.5 0.18 1"/>'
    # the field lines, 5 cm wide, to be seen by cameras only (no collision)
    painted = []
    for (x0, y0, _), (x1, y1, _) in lines(r):
        length = math.hypot(x1 - x0, y1 - y0)
        angle = math.atan2(y1 - y0, x1 - x0)
        painted.append(f'<geom type="box" contype="0" conaffinity="0" size="{length / 2 + 0.025:.9g} 0.025 0.0005" '
                       f'pos="{(x0 + x1) / 2:.9g} {(y0 + y1) / 2:.9g} 0.0005" '
                       f'quat="{math.cos(angle / 2):.9g} 0 0 {math.sin(angle / 2):.9g}" rgba="1 1 1 1"/>')
    light = '<light directional="true" castshadow="false" pos="0 0 20" dir="0.2 0.1 -1" diffuse="0.7 0.7 0.7"/>'
    return light + ground + "".join(painted) + walls + "".join(goals) + ball


class SoccerWorld:
    """The soccer field with a ball and any number of Nao robots.

    ``rules`` give the sizes (m); ``seed`` the random stream (beam noise); ``substeps`` the MuJoCo
    steps per cycle. Robot numbers (``rid``) are the world's own and are never reused."""

    def __init__(self, rules: SoccerRules | None = None, seed: int = 0, substeps: int = 2):
        self.rules = rules or SoccerRules()
        self.rng = np.random.default_rng(seed)
        self.substeps = substeps
        self.cycle = 0
        self._robots: dict[int, _Robot] = {}
        self._next_rid = 1
        self._build()

    # ----------------------------------------------------------------------------- the model
    def _build(self) -> None:
        """Compile the model with the current robots; every joint that was in the previous model
        (free joints of the ball and the robots, hinges) keeps its position and velocity."""
        robots_xml, actuators, sensors, excludes = [], [], [], []
        for robot in self._robots.values():
            prefix = f"r{robot.rid}_"
            robots_xml.append(robot_mjcf(robot.parts, prefix, robot.spawn, robot.yaw))
            for part in robot.parts:
                if part.joint is not None:
                    j = part.joint
                    actuators.append(
                        f'<position name="{prefix}{j.effector}" joint="{prefix}{j.effector}" '
                        f'kp="{MOTOR_STIFFNESS}" kv="{MOTOR_DAMPING}" '
                        f'forcerange="{-MAX_MOTOR_TORQUE} {MAX_MOTOR_TORQUE}"/>')
            sensors.append(f'<gyro name="{prefix}gyro" site="{prefix}imu"/>'
                           f'<accelerometer name="{prefix}acc" site="{prefix}imu"/>')
            solid = [p.name for p in robot.parts if p.collides]
            excludes += [f'<exclude body1="{prefix}{a}" body2="{prefix}{b}"/>'
                         for i, a in enumerate(solid) for b in solid[i + 1:]]
        xml = (
            '<mujoco model="soccer"><compiler angle="degree" inertiafromgeom="true"/>'
            f'<option timestep="{CYCLE / self.substeps:.9g}" integrator="implicitfast" '
            f'gravity="0 0 {-GRAVITY}"/>'
            f'<default><joint armature="{ARMATURE}" damping="0.01"/><geom friction="1 0.005 0.0001"/></default>'
            "<worldbody>" + field_mjcf(self.rules) + "".join(robots_xml) + "</worldbody>"
            "<contact>" + "".join(excludes) + "</contact>"
            "<actuator>" + "".join(actuators) + "</actuator>"
            "<sensor>" + "".join(sensors) + "</sensor></mujoco>")
        old = getattr(self, "data", None)
        old_model = getattr(self, "model", None)
        self.model = mujoco.MjModel.from_xml_string(xml)
        self.data = mujoco.MjData(self.model)
        if old is not None:
            self.data.time = old.time
            for j in range(self.model.njnt):
                name = mujoco.mj_id2name(self.model, mujoco.mjtObj.mjOBJ_JOINT, j)
                k = mujoco.mj_name2id(old_model, mujoco.mjtObj.mjOBJ_JOINT, name)
                if k < 0:
                    continue
                free = self.model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE
                nq, nv = (7, 6) if free else (1, 1)
                qa, va = self.model.jnt_qposadr[j], self.model.jnt_dofadr[j]
                qb, vb = old_model.jnt_qposadr[k], old_model.jnt_dofadr[k]
                self.data.qpos[qa:qa + nq] = old.qpos[qb:qb + nq]
                self.data.qvel[va:va + nv] = old.qvel[vb:vb + nv]
        self._index(old_model, None if old is None else old.ctrl)
        mujoco.mj_forward(self.model, self.data)

    def _index(self, old_model=None, old_ctrl=None) -> None:
        """Addresses of every robot's joints and motors in the current model; motors that were in
        ``old_model`` keep their target (``old_ctrl``), new ones hold their joint where it is."""
        m = self.model
        self._joint_qpos, self._effectors = {}, {}
        for robot in self._robots.values():
            prefix = f"r{robot.rid}_"
            joints = [p.joint for p in robot.parts if p.joint is not None]
            self._effectors[robot.rid] = {j.effector: (m.actuator(prefix + j.effector).id, j.max_speed)
                                          for j in joints}
            self._joint_qpos[robot.rid] = np.array(
                [m.jnt_qposadr[m.joint(prefix + j.effector).id] for j in joints], dtype=int)
        joint = m.actuator_trnid[:, 0]
        self._motor_qpos = m.jnt_qposadr[joint]
        self._motor_range = m.jnt_range[joint]
        self._velocity = np.zeros(m.nu)
        self.data.ctrl[:] = self.data.qpos[self._motor_qpos]
        for robot in self._robots.values():
            for effector, velocity in robot.velocity.items():
                self._velocity[self._effectors[robot.rid][effector][0]] = velocity
        if old_model is not None:
            for a in range(m.nu):
                k = mujoco.mj_name2id(old_model, mujoco.mjtObj.mjOBJ_ACTUATOR, m.actuator(a).name)
                if k >= 0:
                    self.data.ctrl[a] = old_ctrl[k]
        self._ball = m.joint("ball").qposadr[0], m.joint("ball").dofadr[0]
        self._ball_geom = m.geom("ball").id
        self._bodies = {robot.rid: np.array([m.body(f"r{robot.rid}_{p.name}").id for p in robot.parts])
                        for robot in self._robots.values()}
        self._pressure_geoms = {m.geom(f"r{robot.rid}_{p.name}").id: (robot.rid, p.pressure)
                                for robot in self._robots.values() for p in robot.parts if p.pressure}
        self._pressures = None
        self._owner = np.full(m.nbody, 0)                 # body -> robot number (0: none)
        for rid, bodies in self._bodies.items():
            self._owner[bodies] = rid

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

    def add_robot(self, robot_type: int, x: float, y: float, direction: float = 0.0) -> int:
        """Put a standing robot of ``robot_type`` on the ground at (x, y) m facing ``direction``
        degrees (0: along +x, counter-clockwise) and return its number. Raises ValueError for an
        unknown type."""
        parts = nao_parts(robot_type)
        rid = self._next_rid
        self._next_rid += 1
        self._robots[rid] = _Robot(rid, robot_type, parts, {}, (x, y, standing_height(robot_type) + 0.005),
                                   math.radians(direction - 90.0))
        self._build()
        return rid

    def remove_robot(self, rid: int) -> None:
        """Take robot ``rid`` off the field; the others keep their state. Raises KeyError when it
        is not in the world."""
        del self._robots[rid]
        self._build()

    def set_joint_velocity(self, rid: int, effector: str, velocity: float) -> None:
        """Drive joint ``effector`` (``he1``, ``lle4``, ...) of robot ``rid`` at ``velocity`` rad/s
        from now on, clamped to the joint's top speed as the original (hingejoint.rsg
        ``setJointMaxSpeed1``). Raises KeyError for a joint the robot lacks."""
        motor, top = self._effectors[rid][effector]
        velocity = max(-top, min(top, float(velocity)))
        self._robots[rid].velocity[effector] = velocity
        self._velocity[motor] = velocity

    def place_robot(self, rid: int, x: float, y: float, direction: float, z: float | None = None) -> None:
        """Put robot ``rid`` standing upright at (x, y) m facing ``direction`` degrees (0: +x), at
        rest, its joints where they are (a beam or the trainer's ``agent pos``/``move``)."""
        adr = self.model.joint(f"r{rid}_root").qposadr[0]
        dof = self.model.joint(f"r{rid}_root").dofadr[0]
        height = standing_height(self._robots[rid].robot_type) + 0.005 if z is None else z
        yaw = math.radians(direction - 90.0)
        self.data.qpos[adr:adr + 7] = (x, y, height, math.cos(yaw / 2), 0, 0, math.sin(yaw / 2))
        self.data.qvel[dof:dof + 6] = 0
        mujoco.mj_forward(self.model, self.data)
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
        mujoco.mj_forward(self.model, self.data)
        self._pressures = None

    # ----------------------------------------------------------------------------- stepping
    @property
    def time(self) -> float:
        """Simulated time, s."""
        return self.cycle * CYCLE

    def step(self) -> None:
        """Advance one cycle (0.02 s) with the joint velocities last set.

        Each motor's target angle moves by its velocity times the cycle, stays within the joint's
        range and at most ``MOTOR_LEAD`` from the joint, and a stiff servo follows it with at most
        10 N m: a joint moves at the commanded speed unless something stops it, as the original's
        ODE velocity motors."""
        d = self.data
        angle = d.qpos[self._motor_qpos]
        target = d.ctrl + self._velocity * CYCLE
        target = np.clip(target, angle - MOTOR_LEAD, angle + MOTOR_LEAD)
        d.ctrl[:] = np.clip(target, self._motor_range[:, 0], self._motor_range[:, 1])
        mujoco.mj_step(self.model, d, nstep=self.substeps)
        self.cycle += 1
        self._pressures = None

    # ----------------------------------------------------------------------------- observing
    def joint_angles(self, rid: int) -> np.ndarray:
        """Robot ``rid``'s joint angles in degrees, in the order of its parts (the ``HJ`` order)."""
        return np.degrees(self.data.qpos[self._joint_qpos[rid]])

    def gyro(self, rid: int) -> np.ndarray:
        """The torso's angular velocity in its own frame, deg/s, shape (3,)."""
        return np.degrees(self.data.sensor(f"r{rid}_gyro").data)

    def accelerometer(self, rid: int) -> np.ndarray:
        """The torso's proper acceleration in its own frame, m/s^2 (about (0, 0, 9.81) when
        upright at rest), shape (3,)."""
        return self.data.sensor(f"r{rid}_acc").data.copy()

    def pose(self, rid: int, part: str) -> tuple[np.ndarray, np.ndarray]:
        """Position (m, shape (3,)) and rotation matrix (shape (3, 3)) of a part in the world."""
        b = self.data.body(f"r{rid}_{part}")
        return b.xpos.copy(), b.xmat.reshape(3, 3).copy()

    def poses(self, rid: int) -> tuple[np.ndarray, np.ndarray]:
        """Positions (shape (n, 3), m) and rotation matrices (shape (n, 3, 3)) of all parts of
        robot ``rid``, in part order."""
        bodies = self._bodies[rid]
        return self.data.xpos[bodies].copy(), self.data.xmat[bodies].reshape(-1, 3, 3).copy()

    def ball_touchers(self) -> set[int]:
        """The robots touching the ball now."""
        return ball_touchers(self.model, self.data, self._ball_geom, self._owner)

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
