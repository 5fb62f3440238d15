"""Robots from MuJoCo model files, and the devices they offer (issue 6; seed 000 "devices").

A model file is an MJCF file whose first body carries a free joint (the robot's root). Its devices
are read from the model:

* every hinge joint is a **motor** named as the joint, with the joint's range and its
  ``actuatorfrcrange`` as the most torque (10 N m when it has none); the model's own actuators are
  dropped, the world drives the joints itself (:mod:`simleague.soccer.world`);
* every hinge joint also has a **position sensor** named ``<joint>_sensor`` (rad);
* the model's ``accelerometer`` and ``gyro`` sensors (m/s^2, rad/s) keep their names;
* a ``touch`` sensor is a **bumper** (true while touched) when its name contains ``bumper``, else a
  **force** sensor (N); a ``force`` sensor is a **force3d** sensor (N, its site's frame);
* every ``camera`` is a **camera** with the camera's ``resolution`` (width x height pixels).

Other sensors of the model (ground-truth positions and the like) are not offered to teams. A model
may say more in its ``custom`` section (as the Webots importer, :mod:`simleague.soccer.webots`,
writes it): numerics ``maxVelocity:<joint>`` (rad/s), ``pid:<joint>`` (P, I, D),
``lookup:<sensor>`` (a Webots lookup table, rows of input, output, noise) and
``resolution:<sensor>``; texts ``kind:<touch sensor>`` (bumper, force or force3d) and
``passive:<joint>`` (a hinge without a motor); a ``jointpos`` sensor names a joint's position
sensor. A team's ``proto`` may name a Webots PROTO file instead of a model file
(:func:`find_model`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import mujoco
import numpy as np

from .. import errors

DEFAULT_MAX_TORQUE = 10.0          # N m, for a joint without actuatorfrcrange
DEFAULT_MAX_VELOCITY = 10.0        # rad/s, the motors' top speed (MJCF has no such attribute)
DEFAULT_PID = (10.0, 0.0, 0.0)     # Webots' RotationalMotor.controlPID
MAX_PROTO_SEARCH = 10_000          # files looked at for a PROTO under one models folder
MAX_MODEL_BYTES = 16 << 20


class ModelError(errors.Error, ValueError):
    """A model file that cannot be a robot; ``str()`` names the file and the problem."""


@dataclass(frozen=True)
class Motor:
    """A motor: ``name`` (the joint's), range ``low``..``high`` rad, ``max_torque`` N m,
    ``max_velocity`` rad/s."""

    name: str
    low: float
    high: float
    max_torque: float
    max_velocity: float = DEFAULT_MAX_VELOCITY
    pid: tuple[float, float, float] = DEFAULT_PID


@dataclass(frozen=True)
class Sensor:
    """A sensor offered to the robot's software: ``name`` on the wire, ``kind`` (position,
    accelerometer, gyro, bumper, force, force3d, camera), ``source`` (the joint, MuJoCo sensor or
    camera it reads), for cameras ``width`` x ``height`` pixels; ``lookup`` (rows of input,
    output, noise: Webots' lookupTable, applied by :meth:`reading`) and ``resolution``."""

    name: str
    kind: str
    source: str
    width: int = 0
    height: int = 0
    lookup: tuple[tuple[float, float, float], ...] = ()
    resolution: float = 0.0

    def reading(self, values):
        """What the sensor reports for the physical ``values`` (a float or an array): through
        the lookup table (linear between rows, the end values beyond them, as Webots), then
        rounded to the resolution."""
        out = np.asarray(values, dtype=float)
        if self.lookup:
            table = np.array(self.lookup)
            order = np.argsort(table[:, 0])
            out = np.interp(out, table[order, 0], table[order, 1])
        if self.resolution > 0:
            out = np.round(out / self.resolution) * self.resolution
        return out


@dataclass(frozen=True)
class RobotModel:
    """A robot model read from ``path``: its ``name`` (the file's stem, or the folder's for a
    ``robot.xml``), motors and sensors.
    :meth:`spec` gives a fresh MuJoCo spec to put into a world."""

    path: Path
    name: str
    motors: tuple[Motor, ...]
    sensors: tuple[Sensor, ...]
    standing_height: float          # m: the root's height when the lowest colliding point is on the ground
    root: str                       # the name of the first body (the robot's root)
    root_joint: str                 # and of its free joint

    @classmethod
    def load(cls, path: str | Path) -> RobotModel:
        """Read and check a model file. Raises :class:`ModelError`."""
        path = Path(path)
        spec = _read(path)
        root = spec.worldbody.first_body()
        free = [j.name for j in root.joints if j.type == mujoco.mjtJoint.mjJNT_FREE] if root is not None else []
        if not free:
            raise ModelError(f"{path}: the first body must have a free joint (the robot's root)")
        try:
            model = spec.compile()
        except ValueError as e:
            raise ModelError(f"{path}: MuJoCo cannot compile it: {e}") from None
        numeric = {model.numeric(i).name: tuple(float(v) for v in model.numeric(i).data)
                   for i in range(model.nnumeric)}
        text = {mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_TEXT, i):
                bytes(model.text_data[model.text_adr[i]:model.text_adr[i] + model.text_size[i] - 1]).decode()
                for i in range(model.ntext)}
        named = {int(model.sensor_objid[s]): model.sensor(s).name for s in range(model.nsensor)
                 if model.sensor_type[s] == mujoco.mjtSensor.mjSENS_JOINTPOS}

        def extras(name: str) -> dict:
            rows = numeric.get(f"lookup:{name}", ())
            return {"lookup": tuple(tuple(rows[i:i + 3]) for i in range(0, len(rows) - 2, 3)),
                    "resolution": numeric.get(f"resolution:{name}", (0.0,))[0]}
        motors, sensors = [], []
        for j in range(model.njnt):
            if model.jnt_type[j] != mujoco.mjtJoint.mjJNT_HINGE:
                continue
            name = model.joint(j).name
            if not name:
                raise ModelError(f"{path}: hinge joint {j} has no name; motors are named after their joint")
            if f"passive:{name}" not in text:
                low, high = model.jnt_range[j] if model.jnt_limited[j] else (-3.14159265, 3.14159265)
                torque = float(model.jnt_actfrcrange[j][1]) if model.jnt_actfrclimited[j] else DEFAULT_MAX_TORQUE
                velocity = numeric.get(f"maxVelocity:{name}", (DEFAULT_MAX_VELOCITY,))[0]
                pid = numeric.get(f"pid:{name}", DEFAULT_PID)
                if len(pid) != 3:
                    raise ModelError(f"{path}: custom numeric pid:{name} must have 3 values (P, I, D)")
                motors.append(Motor(name, float(low), float(high), torque, velocity, pid))
            if j in named or f"passive:{name}" not in text:
                sensor_name = named.get(j, f"{name}_sensor")
                sensors.append(Sensor(sensor_name, "position", name, **extras(sensor_name)))
        kinds = {int(mujoco.mjtSensor.mjSENS_ACCELEROMETER): "accelerometer",
                 int(mujoco.mjtSensor.mjSENS_GYRO): "gyro", int(mujoco.mjtSensor.mjSENS_FORCE): "force3d"}
        for s in range(model.nsensor):
            name, kind = model.sensor(s).name, int(model.sensor_type[s])
            if kind == int(mujoco.mjtSensor.mjSENS_TOUCH):
                default = "bumper" if "bumper" in name.lower() else "force"
                sensors.append(Sensor(name, text.get(f"kind:{name}", default), name, **extras(name)))
            elif kind in kinds:
                sensors.append(Sensor(name, text.get(f"kind:{name}", kinds[kind]), name, **extras(name)))
        for c in range(model.ncam):
            width, height = (int(v) for v in model.cam_resolution[c])
            sensors.append(Sensor(model.camera(c).name, "camera", model.camera(c).name, width, height))
        if not motors:
            raise ModelError(f"{path}: no hinge joint, so no motor")
        names = [s.name for s in sensors] + [m.name for m in motors]
        if len(set(names)) != len(names):
            twice = sorted({n for n in names if names.count(n) > 1})
            raise ModelError(f"{path}: device names must differ; {', '.join(twice)} appear twice")
        name = path.parent.name if path.name == "robot.xml" else path.stem
        return cls(path, name, tuple(motors), tuple(sensors), _standing_height(model), root.name, free[0])

    def spec(self) -> mujoco.MjSpec:
        """A fresh spec of the model without its own actuators, ready to be attached to a world."""
        spec = _read(self.path)
        for actuator in list(spec.actuators):
            spec.delete(actuator)
        return spec

    def device(self, name: str) -> Motor | Sensor | None:
        """The motor or sensor called ``name``, or None."""
        return next((d for d in (*self.motors, *self.sensors) if d.name == name), None)


def _standing_height(model: mujoco.MjModel) -> float:
    """The height of the root body above the lowest point of the colliding geoms, in the model's
    own pose (axis-aligned boxes around the geoms)."""
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    lowest = np.inf
    for g in range(model.ngeom):
        if model.geom_contype[g] == 0 and model.geom_conaffinity[g] == 0:
            continue
        centre, half = model.geom_aabb[g][:3], model.geom_aabb[g][3:]
        rotation = data.geom_xmat[g].reshape(3, 3)
        corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * half + centre
        lowest = min(lowest, float((data.geom_xpos[g] + corners @ rotation.T)[:, 2].min()))
    root = model.body_rootid[1] if model.nbody > 1 else 0
    return float(data.xpos[root][2] - lowest)


def _read(path: Path) -> mujoco.MjSpec:
    try:
        if path.stat().st_size > MAX_MODEL_BYTES:
            raise ModelError(f"{path}: {path.stat().st_size} bytes; a model file is at most {MAX_MODEL_BYTES}")
        return mujoco.MjSpec.from_file(str(path))
    except OSError as e:
        raise ModelError(f"{path}: cannot read it: {e.strerror}") from None
    except ValueError as e:
        raise ModelError(f"{path}: not a MuJoCo model: {e}") from None


def find_model(name: str, directories: list[Path]) -> RobotModel:
    """The model ``name`` (a team's ``proto``/``robotModelName``): ``<dir>/<name>.xml`` or
    ``<dir>/<name>/robot.xml``, else a Webots PROTO file ``<name>.proto`` anywhere under ``<dir>``
    (imported by :func:`simleague.soccer.webots.import_proto`, once), in the first of
    ``directories`` that has it. Raises :class:`ModelError` (a broken PROTO: its file, line and
    node)."""
    if not name or "/" in name or "\\" in name or name.startswith("."):
        raise ModelError(f"{name!r} is not a model name")
    for directory in directories:
        for candidate in (directory / f"{name}.xml", directory / name / "robot.xml"):
            if candidate.is_file():
                return RobotModel.load(candidate)
        proto = _find_proto(directory, f"{name}.proto")
        if proto is not None:
            from .vrml import ProtoError
            from .webots import import_proto
            try:
                return RobotModel.load(import_proto(proto))
            except ProtoError as e:
                raise ModelError(str(e)) from None
    raise ModelError(f"no model {name!r} (a .xml model or a .proto file) in {', '.join(str(d) for d in directories)}")


def _find_proto(directory: Path, filename: str) -> Path | None:
    """The first ``filename`` under ``directory`` (sorted walk, at most MAX_PROTO_SEARCH files)."""
    if (directory / filename).is_file():
        return directory / filename
    seen = 0
    for folder, subfolders, files in os.walk(directory):
        subfolders.sort()
        if filename in files:
            return Path(folder) / filename
        seen += len(files)
        if seen > MAX_PROTO_SEARCH:
            break
    return None
