"""CiberRato sensor models: obstacle (IR), beacon, compass, ground, GPS, line sensor; latency.

Every function is vectorised over robots and pure: noise comes in as already drawn arrays, so the
world decides which random stream feeds which robot. Lengths in u_m, angles in radians unless a
name ends in ``_deg``. Sources: 2008 rules (seed 004) sections 3.1 and 7; the original simulator's
behaviour as recorded in ``../shared/golden/ciberrato/README.md`` ("Units and formatting").
"""

from __future__ import annotations

import numpy as np

from . import kernels
from .geometry import LabGeometry

ROBOT_RADIUS = 0.5
#: Default obstacle sensor angles (degrees): front, left, right, back (rules figure 2).
DEFAULT_IR_ANGLES_DEG = (0.0, 60.0, -60.0, 180.0)
IR_HALF_APERTURE = np.pi / 6
IR_MAX = 100.0
#: Line sensor: 7 elements 0.08 apart, 0.438 ahead of the centre; element 0 on the left.
LINE_ELEMENTS = 7
LINE_SPACING = 0.08
LINE_AHEAD = 0.438


def round_half_up(x: np.ndarray) -> np.ndarray:
    """``floor(x + 0.5)``: the original's rounding of compass, beacon, IR and GPS values."""
    return np.floor(x + 0.5)


def ir_distances(geo: LabGeometry, x: np.ndarray, y: np.ndarray, theta: np.ndarray,
                 ir_angles: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Distance (N, 4) seen by each obstacle sensor of each robot; ``inf`` where nothing is seen.

    ``x, y, theta`` (N,) robot poses; ``ir_angles`` (N, 4) sensor angles on the rim (rad);
    ``present`` (N,) robots that exist (only those are obstacles for the others).
    As the original (golden README, "IR sensors"): the smallest of the distances along the
    sensor axis and the two cone edges (±30°) to wall faces, to wall corners inside the cone, and
    to other robots' discs overlapping the cone.
    """
    return kernels.ir_distances(np.ascontiguousarray(x, dtype=float), np.ascontiguousarray(y, dtype=float),
                                np.ascontiguousarray(theta, dtype=float), np.ascontiguousarray(ir_angles, dtype=float),
                                np.ascontiguousarray(present), ROBOT_RADIUS, IR_HALF_APERTURE,
                                *geo.faces, *geo.corner_xy, geo.all_faces)


def ir_values(distance: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """Obstacle sensor readings: 1/d (100 when d <= 0.01), plus noise, rounded to 0.1 (rules 3.1)."""
    return kernels.ir_readings(np.ascontiguousarray(distance, dtype=float), np.ascontiguousarray(noise, dtype=float), IR_MAX)


def beacon_values_deg(geo: LabGeometry, x, y, theta, noise, aperture: float) -> np.ndarray:
    """Beacon sensor readings (N, B) in integer degrees, NaN when not visible.

    ``noise`` (N, B) radians, one column per beacon of the lab. Not visible when a wall at least as
    high as the beacon cuts the line of sight, or when the noisy bearing is outside ±aperture (rad).
    Rules 3.1; original ``cbBeaconSensor::update``. The bearing straight above or below (same x) is
    ±pi/2 with the sign of dy, and -pi/2 when the points coincide (golden README quirk 8, trace b
    at Time 0).
    """
    return kernels.beacon_values_deg(np.ascontiguousarray(x, dtype=float), np.ascontiguousarray(y, dtype=float),
                                     np.ascontiguousarray(theta, dtype=float), *geo.beacon_xyh,
                                     np.ascontiguousarray(noise, dtype=float), float(aperture), *geo.faces,
                                     geo.seg_h)


def compass_deg(theta: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """Compass readings (N,) in integer degrees: heading + noise, wrapped, rounded (rules 3.1)."""
    return kernels.compass_readings(np.ascontiguousarray(theta, dtype=float), np.ascontiguousarray(noise, dtype=float))


def target_areas(geo: LabGeometry, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first, last) (N,): index of the first and of the last target area holding the whole robot
    (centre within radius - 0.5), -1 if none. The ground sensor reports the last (as the
    original's loop does); scoring uses the first."""
    tx, ty, radius = geo.target_xyr
    return kernels.target_areas(np.ascontiguousarray(x, dtype=float), np.ascontiguousarray(y, dtype=float),
                                tx, ty, radius - ROBOT_RADIUS)


def line_points(x: np.ndarray, y: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Positions (N, 7, 2) of the line sensor elements, element 0 on the robot's left."""
    offsets = (3 - np.arange(LINE_ELEMENTS)) * LINE_SPACING               # left is positive
    cx = x + LINE_AHEAD * np.cos(theta)
    cy = y + LINE_AHEAD * np.sin(theta)
    px = cx[:, None] - offsets[None, :] * np.sin(theta)[:, None]
    py = cy[:, None] + offsets[None, :] * np.cos(theta)[:, None]
    return np.stack([px, py], axis=2)


def line_sensor(geo: LabGeometry, x, y, theta, flips: np.ndarray) -> np.ndarray:
    """Line sensor readings (N, 7) of 0/1: 1 over a floor line, XOR the given random flips."""
    if geo.n_lines == 0:
        return flips.copy()
    pts = line_points(x, y, theta).reshape(-1, 2)
    over = geo.on_line(pts).reshape(len(x), LINE_ELEMENTS)
    return over ^ flips


class DelayLine:
    """A sensor's latency FIFO for all robots: values pushed at update k come out at update k+L.

    ``shape`` is the per-update array shape (robots first). Until L updates have been pushed for a
    robot, ``default`` comes out (golden README "Before Start": stopped steps count as updates).
    """

    def __init__(self, latency: int, shape: tuple[int, ...], default, dtype=float):
        self.size = latency + 1
        self.default = default
        self.buf = np.full((self.size,) + shape, default, dtype=dtype)
        self.k = 0

    def push(self, value: np.ndarray) -> np.ndarray:
        """Store this update's values and return the ones measured ``latency`` updates ago."""
        self.buf[self.k % self.size] = value
        self.k += 1
        return self.buf[self.k % self.size].copy()

    def reset(self, robot: int) -> None:
        """Forget a robot's history (a new robot starts with defaults)."""
        self.buf[:, robot] = self.default
