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

Other sensors of the model (ground-truth positions and the like) are not offered to teams.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import mujoco
import numpy as np

DEFAULT_MAX_TORQUE = 10.0          # N m, for a joint without actuatorfrcrange
DEFAULT_MAX_VELOCITY = 10.0        # rad/s, the motors' top speed (MJCF has no such attribute)
MAX_MODEL_BYTES = 16 << 20


class ModelError(ValueError):
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


@dataclass(frozen=True)
class Sensor:
    """A sensor offered to the robot's software: ``name`` on the wire, ``kind`` (position,
    accelerometer, gyro, bumper, force, force3d, camera), ``source`` (the joint, MuJoCo sensor or
    camera it reads) and, for cameras, ``width`` x ``height`` pixels."""

    name: str
    kind: str
    source: str
    width: int = 0
    height: int = 0


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
        motors, sensors = [], []
        for j in range(model.njnt):
            if model.jnt_type[j] != mujoco.mjtJoint.mjJNT_HINGE:
                continue
            name = model.joint(j).name
            if not name:
                raise ModelError(f"{path}: hinge joint {j} has no name; motors are named after their joint")
            low, high = model.jnt_range[j] if model.jnt_limited[j] else (-3.14159265, 3.14159265)
            torque = float(model.jnt_actfrcrange[j][1]) if model.jnt_actfrclimited[j] else DEFAULT_MAX_TORQUE
            motors.append(Motor(name, float(low), float(high), torque))
            sensors.append(Sensor(f"{name}_sensor", "position", name))
        kinds = {int(mujoco.mjtSensor.mjSENS_ACCELEROMETER): "accelerometer",
                 int(mujoco.mjtSensor.mjSENS_GYRO): "gyro", int(mujoco.mjtSensor.mjSENS_FORCE): "force3d"}
        for s in range(model.nsensor):
            name, kind = model.sensor(s).name, int(model.sensor_type[s])
            if kind == int(mujoco.mjtSensor.mjSENS_TOUCH):
                sensors.append(Sensor(name, "bumper" if "bumper" in name.lower() else "force", name))
            elif kind in kinds:
                sensors.append(Sensor(name, kinds[kind], name))
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
    ``<dir>/<name>/robot.xml`` in the first of ``directories`` that has it. Raises
    :class:`ModelError`."""
    if not name or "/" in name or "\\" in name or name.startswith("."):
        raise ModelError(f"{name!r} is not a model name")
    for directory in directories:
        for candidate in (directory / f"{name}.xml", directory / name / "robot.xml"):
            if candidate.is_file():
                return RobotModel.load(candidate)
    raise ModelError(f"no model {name!r} in {', '.join(str(d) for d in directories)}")
