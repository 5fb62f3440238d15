"""Webots PROTO robots as MuJoCo models (issue 29; seed 000 "Configuration file": a team's
``proto`` names its robot as a Webots PROTO).

:func:`import_proto` reads a PROTO with :mod:`simleague.soccer.vrml` and writes an MJCF file that
:class:`~simleague.soccer.models.RobotModel` loads, once per set of PROTO files (a cache keyed by
their contents). What is imported, as Webots R2022b defines it (z up, a camera looking along +x):

* ``Robot`` is the root body (a free joint); ``Solid`` and ``TouchSensor`` nodes are bodies, welded
  to their parent unless they are a joint's ``endPoint``; ``Transform``/``Pose``/``Group`` place
  their children; a ``Slot``'s ``endPoint`` is one of them where the slot is (the league's
  RobocupRobot wears its jersey so);
* ``Physics``: ``mass``, ``centerOfMass``, ``inertiaMatrix`` (about the centre of mass); without an
  inertia matrix the mass is spread over the bounding object by volume, without a mass the
  ``density`` (1000 kg/m^3) fills it; a Solid without Physics adds no mass (Webots merges it into
  its parent), and a joint's endPoint without Physics gets 1 g, which MuJoCo needs to move it;
* ``boundingObject``: ``Box``, ``Sphere``, ``Cylinder``, ``Capsule`` (axes along z),
  ``IndexedFaceSet`` and ``Mesh`` (as convex hulls), inside ``Transform``/``Pose``/``Group``/``Shape``;
* ``Shape`` outside bounding objects: visual geometry (primitives, ``IndexedFaceSet``, ``Mesh`` from
  STL files) in the appearance's ``baseColor``/``diffuseColor``, for cameras and the viewer;
* ``HingeJoint`` (and Webots' ``HingeJointWithBacklash``, backlash not simulated) and
  ``Hinge2Joint``: ``axis``, ``anchor``, ``position``, ``minStop``/``maxStop``,
  ``dampingConstant``, ``staticFriction``;
* devices by their names: ``RotationalMotor`` (``maxVelocity``, ``maxTorque``,
  ``minPosition``/``maxPosition``, ``controlPID``), ``PositionSensor``, ``Accelerometer``,
  ``Gyro`` (``lookupTable``, ``resolution``), ``Camera`` (``fieldOfView``, ``width``,
  ``height``), ``TouchSensor`` (``bumper``, ``force``, ``force-3d``).

Left out: appearances' textures, ``InertialUnit``, ``LED``, ``Speaker``, ``Emitter``/``Receiver``
and other devices the API has no message for, ``Brake``, ``springConstant``, the backlash and
gear mass of ``HingeJointWithBacklash``, sensor noise, motor acceleration limits.
"""

from __future__ import annotations

import hashlib
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import mujoco
import numpy as np
from scipy.spatial.transform import Rotation

from .vrml import Node, ProtoError, load_robot

IMPORTER_VERSION = "2"               # part of the cache key: bump when the output changes
DEFAULT_DENSITY = 1000.0             # kg/m^3 (Webots' Physics.density)
KINEMATIC_MASS = 0.001               # kg, for a joint's endPoint without Physics
IGNORED = {"LED", "Speaker", "Emitter", "Receiver", "Display", "InertialUnit", "GPS", "Compass",
           "DistanceSensor", "LightSensor", "Lidar", "RangeFinder", "Radar", "Pen", "Connector", "Brake",
           "Microphone", "Altimeter", "Charger", "Propeller", "Track", "Skin", "Fog", "Background",
           "DirectionalLight", "PointLight", "SpotLight", "Viewpoint", "WorldInfo"}
_BODIES = {"Solid", "TouchSensor", "Robot"}
_FRAMES = {"Transform", "Pose", "Group"}
_DEVICES = {"Accelerometer", "Gyro", "Camera"}
_JOINTS = {"HingeJoint", "Hinge2Joint"}
_UNSUPPORTED_JOINTS = {"SliderJoint", "BallJoint"}
#: a MuJoCo camera looks along its -z with y up; a Webots camera along its +x with z up
_CAMERA = Rotation.from_matrix([[0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "simleague" / "webots"


def import_proto(path: str | Path, cache: Path | None = None) -> Path:
    """The MJCF file of the robot in PROTO file ``path``, made once and kept in ``cache``
    (``$XDG_CACHE_HOME/simleague/webots`` by default) under a key of every PROTO file's bytes.
    Raises :class:`~simleague.soccer.vrml.ProtoError` (one line: file, line, node)."""
    path = Path(path).resolve()
    root, files = load_robot(path)
    digest = hashlib.sha256(IMPORTER_VERSION.encode())
    for file in files:
        digest.update(str(file).encode())
        digest.update(file.read_bytes())
    target = (cache or _cache_dir()) / digest.hexdigest()[:16] / f"{path.stem}.xml"
    if target.is_file():
        return target
    spec = build_spec(root, path.stem)
    try:
        spec.compile()
    except ValueError as e:
        raise ProtoError(f"{path}: the robot it describes is not a valid MuJoCo model: {e}") from None
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".part")
    partial.write_text(spec.to_xml())
    partial.replace(target)
    return target


# ---------------------------------------------------------------------------------- transforms
@dataclass(frozen=True)
class _Frame:
    """A rigid transform: ``pos`` (3,) m and ``rot`` (scipy Rotation)."""

    pos: np.ndarray
    rot: Rotation

    def __mul__(self, other: _Frame) -> _Frame:
        return _Frame(self.pos + self.rot.apply(other.pos), self.rot * other.rot)

    def inverse(self) -> _Frame:
        inv = self.rot.inv()
        return _Frame(-inv.apply(self.pos), inv)

    @property
    def quat(self) -> list[float]:
        x, y, z, w = self.rot.as_quat()
        return [w, x, y, z]


IDENTITY = _Frame(np.zeros(3), Rotation.identity())


def _local(node: Node) -> _Frame:
    """The node's ``translation`` and ``rotation`` (axis x y z, angle rad) as a frame."""
    t = np.array(node.numbers("translation", 3, [0.0, 0.0, 0.0]))
    x, y, z, angle = node.numbers("rotation", 4, [0.0, 0.0, 1.0, 0.0])
    axis = np.array([x, y, z])
    norm = float(np.linalg.norm(axis))
    rot = Rotation.from_rotvec(axis / norm * angle) if norm > 1e-12 and angle else Rotation.identity()
    return _Frame(t, rot)


# ---------------------------------------------------------------------------------- the builder
@dataclass
class _Builder:
    spec: mujoco.MjSpec
    names: set = field(default_factory=set)
    meshes: int = 0
    hinges: int = 0
    devices: set = field(default_factory=set)

    def unique(self, name: str) -> str:
        candidate, n = name, 1
        while candidate in self.names:
            n += 1
            candidate = f"{name}#{n}"
        self.names.add(candidate)
        return candidate

    def device_name(self, node: Node, default: str) -> str:
        name = node.string("name", default)
        if name in self.devices:
            raise ProtoError(f"{node.where()}: a second device named {name!r}; the API needs distinct names")
        self.devices.add(name)
        return name

    # ------------------------------------------------------------------ bodies
    def body(self, parent, node: Node, frame: _Frame, free: bool = False):
        """A body for Solid-like ``node`` at ``frame`` of ``parent`` (welded, or the root with a
        free joint); its children follow."""
        body = parent.add_body(name=self.unique(node.string("name", "") or "solid"), pos=frame.pos, quat=frame.quat)
        if free:
            body.add_freejoint(name="root")
        self.fill(body, node, moving=free)
        return body

    def fill(self, body, node: Node, moving: bool) -> None:
        """What Solid-like ``node`` puts in its ``body``: bounding geometry, mass, a touch sensor,
        its children; ``moving`` (a joint or the root) gives it mass even without Physics."""
        bounding = node.node("boundingObject")
        geoms = []
        if bounding is not None:
            self.collision(body, bounding, IDENTITY, geoms)
        self.physics(body, node, geoms, moving=moving)
        if node.type == "TouchSensor":
            self.touch_sensor(body, node, geoms)
        self.children(body, node.nodes("children"), IDENTITY)

    def physics(self, body, node: Node, geoms: list, moving: bool) -> None:
        physics = node.node("physics")
        if physics is None:
            for g in geoms:
                g.density = 0.0
            if moving:
                body.explicitinertial = True
                body.mass = KINEMATIC_MASS
                body.inertia = [1e-7, 1e-7, 1e-7]
            return
        mass = physics.number("mass", -1.0)
        inertia = physics.numbers("inertiaMatrix", None, [])
        com = physics.numbers("centerOfMass", None, [])
        if mass > 0 and len(inertia) == 6:
            body.explicitinertial = True
            body.mass = mass
            body.ipos = com[:3] if len(com) >= 3 else [0.0, 0.0, 0.0]
            body.fullinertia = inertia
        elif mass > 0:
            volume = sum(_volume(g) for g in geoms)
            if volume <= 0:
                raise ProtoError(f"{physics.where()}: a mass without an inertiaMatrix needs a boundingObject")
            for g in geoms:
                g.density = mass / volume
        else:
            density = physics.number("density", DEFAULT_DENSITY)
            if not geoms or density <= 0:
                raise ProtoError(f"{physics.where()}: neither a mass nor a density with a boundingObject")
            for g in geoms:
                g.density = density

    def children(self, body, nodes: list[Node], frame: _Frame) -> None:
        for child in nodes:
            kind = child.type
            if kind in _FRAMES:
                self.children(body, child.nodes("children"), frame * _local(child) if kind != "Group" else frame)
            elif kind == "Shape":
                self.visual(body, child, frame)
            elif kind in _BODIES:
                self.body(body, child, frame * _local(child))
            elif kind in _JOINTS:
                self.joint(body, child, frame)
            elif kind in _DEVICES:
                self.device(body, child, frame * _local(child))
            elif kind == "Slot":
                plugged = child.node("endPoint")
                if plugged is not None:
                    self.children(body, [plugged], frame)
            elif kind in _UNSUPPORTED_JOINTS:
                raise ProtoError(f"{child.where()}: not supported (hinge joints only)")
            elif kind not in IGNORED:
                raise ProtoError(f"{child.where()}: not a node this importer knows")

    # ------------------------------------------------------------------ joints and motors
    def joint(self, parent, node: Node, frame: _Frame) -> None:
        end = node.node("endPoint")
        if end is None:
            return                                   # a joint without endPoint moves nothing
        if end.type not in _BODIES:
            raise ProtoError(f"{end.where()}: a joint's endPoint must be a Solid")
        child_frame = frame * _local(end)
        axes = [(node.node("jointParameters"), node.nodes("device"), [1.0, 0.0, 0.0])]
        if node.type == "Hinge2Joint":
            axes.append((node.node("jointParameters2"), node.nodes("device2"), [0.0, 1.0, 0.0]))
        body = parent.add_body(name=self.unique(end.string("name", "") or "solid"), pos=child_frame.pos,
                               quat=child_frame.quat)
        to_child = child_frame.inverse() * frame
        for parameters, devices, default_axis in axes:
            self.hinge(body, node, parameters, devices, default_axis, to_child)
        self.fill(body, end, moving=True)

    def hinge(self, body, node: Node, parameters: Node | None, devices: list[Node], default_axis, to_child: _Frame):
        p = parameters or Node("HingeJointParameters", {}, node.file, node.line)
        axis = np.array(p.numbers("axis", 3, default_axis))
        if np.linalg.norm(axis) < 1e-9:
            raise ProtoError(f"{p.where()}: axis 0 0 0")
        anchor = np.array(p.numbers("anchor", 3, [0.0, 0.0, 0.0]))
        motor = next((d for d in devices if d.type == "RotationalMotor"), None)
        sensor = next((d for d in devices if d.type == "PositionSensor"), None)
        for d in devices:
            if d.type not in ("RotationalMotor", "PositionSensor", "Brake"):
                raise ProtoError(f"{d.where()}: not a device of a hinge joint")
        self.hinges += 1
        name = self.device_name(motor, "rotational motor") if motor else f"passive hinge {self.hinges}"
        joint = body.add_joint(name=name, type=mujoco.mjtJoint.mjJNT_HINGE, pos=to_child.pos + to_child.rot.apply(anchor),
                               axis=to_child.rot.apply(axis / np.linalg.norm(axis)))
        position = p.number("position", 0.0)
        joint.ref = position
        joint.damping = [p.number("dampingConstant", 0.0), 0.0, 0.0]
        joint.frictionloss = p.number("staticFriction", 0.0)
        low, high = p.number("minStop", 0.0), p.number("maxStop", 0.0)
        if motor is not None:
            m_low, m_high = motor.number("minPosition", 0.0), motor.number("maxPosition", 0.0)
            if m_low or m_high:
                low, high = (max(low, m_low), min(high, m_high)) if (low or high) else (m_low, m_high)
            torque = motor.number("maxTorque", 10.0)
            joint.actfrclimited = mujoco.mjtLimited.mjLIMITED_TRUE
            joint.actfrcrange = [-torque, torque]
            self.spec.add_numeric(name=f"maxVelocity:{name}", data=[motor.number("maxVelocity", 10.0)])
            self.spec.add_numeric(name=f"pid:{name}", data=motor.numbers("controlPID", 3, [10.0, 0.0, 0.0]))
        else:
            self.spec.add_text(name=f"passive:{name}", data="1")
        if low or high:
            joint.limited = mujoco.mjtLimited.mjLIMITED_TRUE
            joint.range = [low, high]
        if sensor is not None:
            sensor_name = self.device_name(sensor, "position sensor")
            self.spec.add_sensor(name=sensor_name, type=mujoco.mjtSensor.mjSENS_JOINTPOS,
                                 objtype=mujoco.mjtObj.mjOBJ_JOINT, objname=name)
            self.resolution(sensor, sensor_name)

    # ------------------------------------------------------------------ devices
    def resolution(self, node: Node, name: str) -> None:
        resolution = node.number("resolution", -1.0)
        if resolution > 0:
            self.spec.add_numeric(name=f"resolution:{name}", data=[resolution])

    def device(self, body, node: Node, frame: _Frame) -> None:
        if node.type == "Camera":
            name = self.device_name(node, "camera")
            width, height = int(node.number("width", 64)), int(node.number("height", 64))
            fov = node.number("fieldOfView", 0.7854)
            fovy = math.degrees(2 * math.atan(math.tan(fov / 2) * height / width))
            camera = body.add_camera(name=name, pos=frame.pos, quat=_Frame(frame.pos, frame.rot * _CAMERA).quat)
            camera.fovy = fovy
            camera.resolution = [width, height]
        else:
            default = "accelerometer" if node.type == "Accelerometer" else "gyro"
            name = self.device_name(node, default)
            site = body.add_site(name=f"{name}:site", pos=frame.pos, quat=frame.quat)
            kind = mujoco.mjtSensor.mjSENS_ACCELEROMETER if node.type == "Accelerometer" else mujoco.mjtSensor.mjSENS_GYRO
            self.spec.add_sensor(name=name, type=kind, objtype=mujoco.mjtObj.mjOBJ_SITE, objname=site.name)
            table = node.numbers("lookupTable", None, [])
            if table:
                if len(table) % 3:
                    raise ProtoError(f"{node.where()}: lookupTable must be rows of 3 numbers")
                self.spec.add_numeric(name=f"lookup:{name}", data=table)
            self.resolution(node, name)
        self.children(body, node.nodes("children"), frame)

    def touch_sensor(self, body, node: Node, geoms: list) -> None:
        name = self.device_name(node, "touch sensor")
        kind = node.string("type", "bumper")
        if kind not in ("bumper", "force", "force-3d"):
            raise ProtoError(f"{node.where()}: type {kind!r}; bumper, force or force-3d")
        if not geoms:
            raise ProtoError(f"{node.where()}: a TouchSensor needs a boundingObject")
        low = np.min([np.asarray(g.pos) - _radius(g) for g in geoms], axis=0) - 0.001
        high = np.max([np.asarray(g.pos) + _radius(g) for g in geoms], axis=0) + 0.001
        site = body.add_site(name=f"{name}:site", type=mujoco.mjtGeom.mjGEOM_BOX, pos=(low + high) / 2,
                             size=(high - low) / 2)
        sensor = mujoco.mjtSensor.mjSENS_FORCE if kind == "force-3d" else mujoco.mjtSensor.mjSENS_TOUCH
        self.spec.add_sensor(name=name, type=sensor, objtype=mujoco.mjtObj.mjOBJ_SITE, objname=site.name)
        self.spec.add_text(name=f"kind:{name}", data={"force-3d": "force3d"}.get(kind, kind))
        self.resolution(node, name)

    # ------------------------------------------------------------------ geometry
    def collision(self, body, node: Node, frame: _Frame, out: list) -> None:
        kind = node.type
        if kind in _FRAMES:
            inner = frame * _local(node) if kind != "Group" else frame
            for child in node.nodes("children"):
                self.collision(body, child, inner, out)
        elif kind == "Shape":
            geometry = node.node("geometry")
            if geometry is not None:
                self.collision(body, geometry, frame, out)
        else:
            geom = self.geometry(body, node, frame)
            geom.rgba = [0.5, 0.5, 0.5, 0.0]
            geom.group = 3
            out.append(geom)

    def visual(self, body, shape: Node, frame: _Frame) -> None:
        geometry = shape.node("geometry")
        if geometry is None:
            return
        geom = self.geometry(body, geometry, frame, visual=True)
        geom.contype = geom.conaffinity = 0
        geom.density = 0.0
        geom.group = 1
        appearance = shape.node("appearance")
        colour = [0.6, 0.6, 0.6]
        if appearance is not None:
            material = appearance.node("material")
            colour = (appearance.numbers("baseColor", 3, None)
                      or (material.numbers("diffuseColor", 3, None) if material is not None else None) or colour)
        geom.rgba = [*colour, 1.0]

    def geometry(self, body, node: Node, frame: _Frame, visual: bool = False):
        kind = node.type
        geom = body.add_geom(pos=frame.pos, quat=frame.quat)
        if kind == "Box":
            geom.type = mujoco.mjtGeom.mjGEOM_BOX
            geom.size = np.array(node.numbers("size", 3, [0.1, 0.1, 0.1])) / 2
        elif kind == "Sphere":
            geom.type = mujoco.mjtGeom.mjGEOM_SPHERE
            geom.size = [node.number("radius", 1.0), 0, 0]
        elif kind in ("Cylinder", "Capsule"):
            geom.type = mujoco.mjtGeom.mjGEOM_CYLINDER if kind == "Cylinder" else mujoco.mjtGeom.mjGEOM_CAPSULE
            geom.size = [node.number("radius", 1.0), node.number("height", 2.0) / 2, 0]
        elif kind in ("IndexedFaceSet", "Mesh"):
            geom.type = mujoco.mjtGeom.mjGEOM_MESH
            geom.meshname = self.mesh(node, visual)
        else:
            raise ProtoError(f"{node.where()}: this geometry is not supported "
                             f"(Box, Sphere, Cylinder, Capsule, IndexedFaceSet, Mesh)")
        return geom

    def mesh(self, node: Node, visual: bool) -> str:
        self.meshes += 1
        mesh = self.spec.add_mesh(name=f"mesh{self.meshes}")
        if visual:
            mesh.inertia = mujoco.mjtMeshInertia.mjMESH_INERTIA_SHELL
        if node.type == "Mesh":
            urls = node.strings("url")
            if not urls:
                raise ProtoError(f"{node.where()}: no url")
            file = (Path(node.file).parent / urls[0]).resolve()
            if file.suffix.lower() not in (".stl", ".obj") or not file.is_file():
                raise ProtoError(f"{node.where()}: url {urls[0]!r}: an STL or OBJ file beside the PROTO expected")
            mesh.file = str(file)
            return mesh.name
        coord = node.node("coord")
        points = coord.numbers("point", None, []) if coord is not None else []
        index = node.numbers("coordIndex", None, [])
        if len(points) < 9 or len(points) % 3 or not index:
            raise ProtoError(f"{node.where()}: an IndexedFaceSet needs coord points and a coordIndex")
        faces, polygon = [], []
        count = len(points) // 3
        for i in [*index, -1.0]:
            if i < 0:
                faces.extend([polygon[0], polygon[k], polygon[k + 1]] for k in range(1, len(polygon) - 1))
                polygon = []
            elif int(i) >= count:
                raise ProtoError(f"{node.where()}: coordIndex {int(i)} but {count} points")
            else:
                polygon.append(int(i))
        mesh.uservert = points
        mesh.userface = [v for face in faces for v in face]
        return mesh.name


def _volume(geom) -> float:
    """m^3 of a primitive geom (0 for meshes: their mass comes from an inertia matrix)."""
    a, b, _ = geom.size
    if geom.type == mujoco.mjtGeom.mjGEOM_BOX:
        return 8 * float(np.prod(geom.size))
    if geom.type == mujoco.mjtGeom.mjGEOM_SPHERE:
        return 4 / 3 * math.pi * a ** 3
    if geom.type == mujoco.mjtGeom.mjGEOM_CYLINDER:
        return math.pi * a * a * 2 * b
    if geom.type == mujoco.mjtGeom.mjGEOM_CAPSULE:
        return math.pi * a * a * 2 * b + 4 / 3 * math.pi * a ** 3
    return 0.0


def _radius(geom) -> float:
    """A radius around the geom's centre that holds it."""
    a, b, _ = geom.size
    if geom.type == mujoco.mjtGeom.mjGEOM_BOX:
        return float(np.linalg.norm(geom.size))
    if geom.type in (mujoco.mjtGeom.mjGEOM_CYLINDER, mujoco.mjtGeom.mjGEOM_CAPSULE):
        return float(math.hypot(a, b) + (a if geom.type == mujoco.mjtGeom.mjGEOM_CAPSULE else 0))
    return float(a)


def build_spec(root: Node, name: str) -> mujoco.MjSpec:
    """The MuJoCo spec of a robot's node tree (its ``Robot`` node at the root)."""
    if root.type != "Robot":
        raise ProtoError(f"{root.where()}: the PROTO must be a Robot")
    spec = mujoco.MjSpec()
    spec.modelname = name
    spec.compiler.balanceinertia = True
    spec.compiler.degree = False
    builder = _Builder(spec)
    builder.body(spec.worldbody, root, IDENTITY, free=True)
    return spec
