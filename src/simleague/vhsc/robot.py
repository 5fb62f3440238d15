"""One robot of the humanoid virtual soccer API as its control software sees it: actuator requests
applied to the world, sensor time steps, and the sensor measurements of each basic step (seed 000
"Acting messages", "Sensor messages", "Enabling and disabling sensors"; specs/vhsc.md for the
original's warning texts, which are reproduced word for word). Pure: no sockets, no clock.

Time steps are in ms and count basic steps of 8 ms: a sensor is off until a time step is set
(0 turns it off again); the time step must be a multiple of 8 (16 at least for cameras); a sensor
reports first in the step after its time step was set, then every time step, each sensor keeping
its own phase; a request repeating a sensor's time step changes nothing (clients such as the
league's C++ ``client`` re-send theirs every step). The state belongs to the robot, not the
connection: a client that reconnects finds its sensors as it left them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..soccer.humanoids import HumanoidWorld
from ..soccer.models import RobotModel, Sensor
from . import messages as M
from .options import MB

BASIC_STEP_MS = 8
CAMERA_MIN_STEP_MS = 16
TEAM_RENDER_QUOTA = 350 * MB                 # bytes per second of images per team, shared by its robots


@dataclass
class _Enabled:
    period: int                 # in basic steps
    since: int                  # the step the time step was set in


@dataclass
class RobotSession:
    """The API's view of robot ``rid`` of ``world`` (a model's devices). ``warnings`` collects
    the texts the next measurements carry."""

    world: HumanoidWorld
    rid: int
    model: RobotModel
    enabled: dict[str, _Enabled] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    motors_on: bool = True                   # False while penalized: motors stop
    sensors_on: bool = True                  # False after a red card: no sensor reports
    render_limit: float = TEAM_RENDER_QUOTA  # bytes/s of camera images this robot may ask for

    def apply(self, requests, step: int) -> None:
        """Apply one ``ActuatorRequests`` in the order the original does: motor positions,
        velocities, forces, torques, PIDs, camera qualities (not implemented, as in the
        original: a warning) and exposures (accepted, no effect: only raw images exist), then
        sensor time steps. ``step`` is the current basic step."""
        world, rid = self.world, self.rid
        motors = {m.name for m in self.model.motors}
        commands = ((requests.motor_positions, "position", lambda r: (r.position,), world.set_position),
                    (requests.motor_velocities, "velocity", lambda r: (r.velocity,), world.set_velocity),
                    (requests.motor_forces, "force", lambda r: (r.force,), world.set_torque),
                    (requests.motor_torques, "torque", lambda r: (r.torque,), world.set_torque),
                    (requests.motor_pids, "PID", lambda r: (r.PID.X, r.PID.Y, r.PID.Z), world.set_pid))
        for entries, kind, values_of, command in commands:
            for r in entries:
                values = values_of(r)
                if r.name not in motors:
                    self.warnings.append(f'Motor "{r.name}" not found, {kind} command ignored.')
                elif any(math.isnan(v) for v in values) or (kind != "position" and not all(map(math.isfinite, values))):
                    self.warnings.append(f'Motor "{r.name}": {", ".join(map(str, values))} is not a usable '
                                         f'value, {kind} command ignored.')
                elif self.motors_on:
                    command(rid, r.name, *values)
        cameras = {s.name for s in self.model.sensors if s.kind == "camera"}
        for r in requests.camera_qualities:
            self.warnings.append("CameraQuality is not yet implemented, ignored." if r.name in cameras
                                 else f'Camera "{r.name}" not found, quality command ignored.')
        for r in requests.camera_exposures:
            if r.name not in cameras:
                self.warnings.append(f'Camera "{r.name}" not found, exposure command ignored.')
        sensors = {s.name: s for s in self.model.sensors}
        for r in requests.sensor_time_steps:
            self._time_step(sensors.get(r.name), r.name, r.timeStep, step, r.name in motors)

    def _time_step(self, sensor: Sensor | None, name: str, ms: int, step: int, motor: bool) -> None:
        if sensor is None:
            self.warnings.append(f'Device "{name}" is not supported, time step command, ignored.' if motor
                                 else f'Device "{name}" not found, time step command, ignored.')
            return
        if ms == 0:
            self.enabled.pop(name, None)
            return
        minimum = CAMERA_MIN_STEP_MS if sensor.kind == "camera" else BASIC_STEP_MS
        if ms < minimum:
            self.warnings.append(f'Time step for "{name}" should be greater or equal to {minimum}, ignoring {ms} value.')
            return
        if ms % BASIC_STEP_MS:
            self.warnings.append(f'Time step for "{name}" should be a multiple of {BASIC_STEP_MS}, ignoring {ms} value.')
            return
        if sensor.kind == "camera":                       # the robot's share of the team's quota
            wanted = self.camera_bandwidth(but=name) + sensor.width * sensor.height * 3 * 1000 / ms
            if wanted > self.render_limit:
                self.warnings.append(f"requested rendering bandwidth is above the limit "
                                     f"({round(wanted / MB)}MB/s > {round(self.render_limit / MB)}MB/s)")
                return
        current = self.enabled.get(name)
        if current is None or current.period != ms // BASIC_STEP_MS:   # an unchanged time step keeps
            self.enabled[name] = _Enabled(ms // BASIC_STEP_MS, step)    # the sensor's phase (as Webots)

    def camera_bandwidth(self, but: str | None = None) -> float:
        """Bytes per second of images this robot's enabled cameras ask for (leaving out camera
        ``but``)."""
        total = 0.0
        for s in self.model.sensors:
            e = self.enabled.get(s.name)
            if s.kind == "camera" and e is not None and s.name != but:
                total += s.width * s.height * 3 * 1000 / (e.period * BASIC_STEP_MS)
        return total

    def due(self, step: int) -> list[Sensor]:
        """The sensors that report after ``step`` (in the model's order)."""
        if not self.sensors_on:
            return []
        return [s for s in self.model.sensors if (e := self.enabled.get(s.name)) is not None
                and step > e.since and (step - e.since - 1) % e.period == 0]

    def measurements(self, step: int, real_time_ms: int, images: dict[str, bytes] | None = None):
        """The ``SensorMeasurements`` after basic step ``step``: time (ms), real time (unix ms),
        the collected warnings and errors, and every due sensor's value. ``images`` holds the
        raw images of the due cameras (3 bytes per pixel)."""
        out = M.SensorMeasurements(time=step * BASIC_STEP_MS, real_time=real_time_ms)
        for text in self.errors:
            out.messages.add(message_type=M.ERROR_MESSAGE, text=text)
        for text in self.warnings:
            out.messages.add(message_type=M.WARNING_MESSAGE, text=text)
        self.warnings, self.errors = [], []
        world, rid = self.world, self.rid
        for sensor in self.due(step):
            kind = sensor.kind
            if kind == "position":
                value = float(sensor.reading(world.position(rid, sensor.source)))
                out.position_sensors.add(name=sensor.name, value=value)
            elif kind in ("accelerometer", "gyro", "force3d"):
                x, y, z = sensor.reading(world.sensor(rid, sensor.source))
                group = {"accelerometer": out.accelerometers, "gyro": out.gyros, "force3d": out.force3ds}[kind]
                entry = group.add(name=sensor.name)
                entry.value.X, entry.value.Y, entry.value.Z = float(x), float(y), float(z)
            elif kind == "force":
                out.forces.add(name=sensor.name, value=float(sensor.reading(world.sensor(rid, sensor.source)[0])))
            elif kind == "bumper":
                out.bumpers.add(name=sensor.name, value=bool(world.sensor(rid, sensor.source)[0] > 0))
            elif kind == "camera" and images is not None and sensor.name in images:
                out.cameras.add(name=sensor.name, width=sensor.width, height=sensor.height, quality=-1,
                                image=images[sensor.name])
        return out
