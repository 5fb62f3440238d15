"""CiberRato sensor models: obstacle (IR), beacon, compass, ground, GPS, line sensor; latency.

Every function is vectorised over robots and pure: noise comes in as already drawn arrays, so the
world decides which random stream feeds which robot. Lengths in u_m, angles in radians unless a
name ends in ``_deg``. Sources: 2008 rules (seed 004) sections 3.1 and 7; the original simulator's
behaviour as recorded in ``../shared/golden/ciberrato/README.md`` ("Units and formatting").
"""

from __future__ import annotations

import numpy as np

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


def wrap(angle: np.ndarray | float) -> np.ndarray | float:
    """Wrap angles to [-pi, pi] by one turn, as the original does after each update."""
    angle = np.where(angle > np.pi, angle - 2 * np.pi, angle)
    return np.where(angle < -np.pi, angle + 2 * np.pi, angle)


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
    n = len(x)
    sensor_dir = wrap(theta[:, None] + ir_angles)                         # (N, 4)
    sx = x[:, None] + ROBOT_RADIUS * np.cos(sensor_dir)
    sy = y[:, None] + ROBOT_RADIUS * np.sin(sensor_dir)
    origins = np.stack([sx.ravel(), sy.ravel()], axis=1)                  # (4N, 2)
    dirs = sensor_dir.ravel()
    rays = np.concatenate([dirs, dirs + IR_HALF_APERTURE, dirs - IR_HALF_APERTURE])
    along = geo.ray_distance(np.tile(origins, (3, 1)), rays).reshape(3, -1).min(axis=0)
    corners = geo.corner_distance(origins, dirs, IR_HALF_APERTURE)
    best = np.minimum(along, corners).reshape(n, -1)
    if n > 1:
        best = np.minimum(best, _robot_distances(sx, sy, sensor_dir, x, y, present))
    return best


def _robot_distances(sx, sy, sensor_dir, x, y, present) -> np.ndarray:
    """(N, 4) distance from each sensor to the other robots' discs within its cone (original formula)."""
    dx = x[None, None, :] - sx[:, :, None]                                # (N, 4, M)
    dy = y[None, None, :] - sy[:, :, None]
    big_d = np.hypot(dx, dy)
    phi = np.arctan2(dy, dx)
    delta = np.abs(sensor_dir[:, :, None] - phi)
    delta = np.where(delta > np.pi, 2 * np.pi - delta, delta)
    with np.errstate(invalid="ignore", divide="ignore"):
        margin = np.arcsin(np.minimum(ROBOT_RADIUS / big_d, 1.0))
        psi = delta - IR_HALF_APERTURE
        l2 = big_d * np.sin(psi)
        edge = big_d * np.cos(psi) - np.sqrt(np.maximum(ROBOT_RADIUS ** 2 - l2 * l2, 0.0))
    dist = np.where(delta <= IR_HALF_APERTURE, big_d - ROBOT_RADIUS, edge)
    seen = delta <= IR_HALF_APERTURE + margin
    n = len(x)
    other = present[None, None, :] & ~np.eye(n, dtype=bool)[:, None, :]
    return np.min(np.where(seen & other, dist, np.inf), axis=2)


def ir_values(distance: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """Obstacle sensor readings: 1/d (100 when d <= 0.01), plus noise, rounded to 0.1 (rules 3.1)."""
    with np.errstate(divide="ignore"):
        ideal = np.where(distance > 0.01, 1.0 / distance, IR_MAX)
    return round_half_up(10.0 * (ideal + noise)) / 10.0


def bearing(x: np.ndarray, y: np.ndarray, tx: float, ty: float) -> np.ndarray:
    """Angle (N,) from (x, y) to (tx, ty); straight above or below (same x) is ±pi/2 with the
    sign of dy, and -pi/2 when the points coincide (golden README quirk 8, trace b at Time 0)."""
    dx, dy = tx - x, ty - y
    return np.where(dx == 0, np.where(dy > 0, np.pi / 2, -np.pi / 2), np.arctan2(dy, dx))


def beacon_values_deg(geo: LabGeometry, x, y, theta, beacon, noise, aperture: float) -> np.ndarray:
    """Beacon sensor readings (N,) in integer degrees, NaN when not visible.

    Not visible when a wall at least as high as the beacon cuts the line of sight, or when the
    noisy bearing is outside ±aperture (rad). Rules 3.1; original ``cbBeaconSensor::update``.
    """
    direction = bearing(x, y, beacon.x, beacon.y)
    delta = wrap(direction - theta)
    dist = np.hypot(beacon.x - x, beacon.y - y)
    shadow = geo.ray_distance(np.stack([x, y], axis=1), direction, min_height=beacon.height)
    value = wrap(delta + noise)
    visible = (shadow >= dist) & (np.abs(value) <= aperture)
    return np.where(visible, round_half_up(np.degrees(value)), np.nan)


def compass_deg(theta: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """Compass readings (N,) in integer degrees: heading + noise, wrapped, rounded (rules 3.1)."""
    return round_half_up(np.degrees(wrap(theta + noise)))


def ground(x: np.ndarray, y: np.ndarray, targets) -> np.ndarray:
    """Ground sensor (N,): index of the target whose area holds the whole robot
    (centre within radius - 0.5), else -1; the last such target wins, as in the original."""
    out = np.full(len(x), -1)
    for i, t in enumerate(targets):
        out = np.where(np.hypot(x - t.x, y - t.y) <= t.radius - ROBOT_RADIUS, i, out)
    return out


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
