"""What a robot's camera sees: points and field-line segments in polar coordinates of the camera's
frame, as the original's ``RestrictedVisionPerceptor`` computes them in the mode the Nao uses
(naoneckhead.rsg: view cones 120 x 120 degrees, ``setStaticSenseAxis false``, lines on, noise on).

The rules below are the original's behaviour; with noise off they give the original's values for
every one of the 84 recorded poses of all five robot types in
golden/simspark/original/part1_see_poses (tests/simspark/test_simspark_vision.py).

- The camera is the head body: its centre, and its axes (x to the robot's right, y forward, z up).
- Polar coordinates of a point at (x, y, z) in that frame: distance (m), horizontal angle
  ``atan2(y, x) - 90`` (degrees, 0 straight ahead, positive to the left) and vertical angle
  ``atan2(z, |(x, y)|)`` (degrees, positive up).
- A point is seen when it is more than ``NEAR`` (0.1 m) from the camera and both angles are within
  ``HALF_VIEW`` (60 degrees). So a robot never sees its own head, and sees its own lower arms.
- A line segment whose two ends are seen is sent whole. Otherwise it is cut at the plane
  ``FOCAL_LENGTH`` (0.1 m) in front of the camera, projected onto the image plane at that distance,
  and crossed with the image's rectangle (half-sides ``tan 60 * 0.1`` m; its top and bottom are a
  pyramid's faces, not the points' cone) in the order top, bottom, left, right, keeping the first
  two crossings: two crossings replace both ends, one replaces the end not seen (the begin point if
  neither is); a segment with an end still not seen is dropped. The original does this in single
  precision, and keeps a crossing with the top or bottom edge only when the computed point lies
  exactly on the edge, which rounding often prevents; the same single-precision steps are done
  here, so the same segments are kept.
- Noise (``VisionNoise``): a calibration error, uniform within +-0.005 m per axis and drawn once per
  robot, is added to every point and segment end in the camera frame (after the 0.1 m test of
  points); then each seen value gets normal noise: distance times ``1 + N(0, 0.0965 %)``,
  horizontal angle ``+ N(0, 0.1480)`` degrees, vertical angle ``+ N(0, 0.1225)`` degrees (the
  original's ``SetNoiseParams(0.0965, 0.1225, 0.1480, 0.005)``, whose second sigma goes to the
  vertical angle and third to the horizontal).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

HALF_VIEW = 60.0                    # degrees either side of straight ahead, both directions
NEAR = 0.1                          # m: nearer points are not seen
FOCAL_LENGTH = np.float32(0.1)      # m: the image plane lines are clipped on
_EDGE = np.float32(math.tan(math.radians(HALF_VIEW)) * 0.1)     # half-side of the image, m
_EPSILON = np.finfo(np.float32).eps
# the image's edges as the original's lines a*y + b*x + c = 0 (top, bottom, left, right)
_EDGE_A = np.array([1, 1, 0, 0], dtype=np.float32)
_EDGE_B = np.array([-0.0, -0.0, 1, 1], dtype=np.float32)
_EDGE_C = np.array([-_EDGE, _EDGE, _EDGE, -_EDGE], dtype=np.float32)
# each edge's extent in the image: (x low, x high, y low, y high)
_EDGE_BOX = np.array([[-_EDGE, _EDGE, _EDGE, _EDGE], [-_EDGE, _EDGE, -_EDGE, -_EDGE],
                      [-_EDGE, -_EDGE, -_EDGE, _EDGE], [_EDGE, _EDGE, -_EDGE, _EDGE]], dtype=np.float32)


@dataclass(frozen=True)
class VisionNoise:
    """The original's vision noise: sigma of the distance in percent of it, of the horizontal and
    vertical angles in degrees, and the half-range (m) of the per-robot calibration error. All
    zero: exact values (the original's ``addNoise false``)."""

    distance_percent: float = 0.0965
    horizontal: float = 0.1480
    vertical: float = 0.1225
    calibration: float = 0.005

    @property
    def off(self) -> bool:
        """True when every value is 0: exact values."""
        return self.distance_percent == self.horizontal == self.vertical == self.calibration == 0

    def calibration_error(self, rng: np.random.Generator) -> np.ndarray:
        """A robot's calibration error, shape (3,), m in the camera frame, drawn once per robot."""
        return rng.uniform(-self.calibration, self.calibration, 3)

    def apply(self, pol: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``pol`` (n, 3) with normal noise added to each value (a new array; unchanged if off)."""
        if self.off or len(pol) == 0:
            return pol
        n = len(pol)
        noisy = pol.copy()
        noisy[:, 0] *= 1 + rng.normal(0.0, self.distance_percent / 100, n)
        noisy[:, 1] += rng.normal(0.0, self.horizontal, n)
        noisy[:, 2] += rng.normal(0.0, self.vertical, n)
        return noisy


#: no noise at all: the original's values exactly (its ``addNoise false``)
EXACT = VisionNoise(0.0, 0.0, 0.0, 0.0)


def polar(local: np.ndarray) -> np.ndarray:
    """Camera-frame points ``local`` (..., 3; x right, y forward, z up, m) as (..., 3) polar
    coordinates: distance (m), horizontal and vertical angle (degrees)."""
    x, y, z = local[..., 0], local[..., 1], local[..., 2]
    horizontal = np.degrees(np.arctan2(y, x)) - 90.0
    horizontal = np.where(horizontal < -180.0, horizontal + 360.0, horizontal)
    return np.stack([np.sqrt(x * x + y * y + z * z), horizontal, np.degrees(np.arctan2(z, np.hypot(x, y)))],
                    axis=-1)


def seen(pol: np.ndarray) -> np.ndarray:
    """Which polar coordinates ``pol`` (..., 3) are seen: farther than NEAR, both angles within
    HALF_VIEW; shape (...)."""
    return (pol[..., 0] > NEAR) & (np.abs(pol[..., 1]) <= HALF_VIEW) & (np.abs(pol[..., 2]) <= HALF_VIEW)


def camera_frame(points: np.ndarray, eyes: np.ndarray, rotations: np.ndarray) -> np.ndarray:
    """World points (n, 3) in the frames of ``a`` cameras at ``eyes`` (a, 3) with axes
    ``rotations`` (a, 3, 3; columns are the camera's axes in the world): shape (a, n, 3)."""
    return (np.asarray(points, dtype=float)[None, :, :] - eyes[:, None, :]) @ rotations


def see_points(points: np.ndarray, eyes: np.ndarray, rotations: np.ndarray,
               errors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """What ``a`` cameras see of ``n`` world points (n, 3): polar coordinates (a, n, 3) and
    whether each is seen (a, n). ``errors`` (a, 3) are the cameras' calibration errors (m, zeros
    with noise off); the 0.1 m test is on the true distance, as the original's."""
    relative = np.asarray(points, dtype=float)[None, :, :] - eyes[:, None, :]
    near = np.einsum("anj,anj->an", relative, relative) <= NEAR * NEAR
    pol = polar(relative @ rotations + errors[:, None, :])
    return pol, seen(pol) & ~near


def see_lines(segments: np.ndarray, eyes: np.ndarray, rotations: np.ndarray,
              errors: np.ndarray) -> list[np.ndarray]:
    """What ``a`` cameras see of ``n`` line segments (n, 2, 3; world m, begin and end): for each
    camera, an array (k, 2, 3) with the polar coordinates of the begin and end points of the k
    segments it sees, clipped to its view (module docstring), in segment order."""
    begin = camera_frame(segments[:, 0], eyes, rotations) + errors[:, None, :]       # (a, n, 3)
    end = camera_frame(segments[:, 1], eyes, rotations) + errors[:, None, :]
    pol_b, pol_e = polar(begin), polar(end)
    seen_b, seen_e = seen(pol_b), seen(pol_e)
    clip = ~(seen_b & seen_e)
    if clip.any():
        crossings, count = _crossings(begin[clip], end[clip])
        two, one = count >= 2, count == 1
        sb, se = seen_b[clip], seen_e[clip]
        new_b = np.where((two | (one & ~sb))[:, None], crossings[:, 0], begin[clip])
        new_e = np.where(two[:, None], crossings[:, 1], np.where((one & sb)[:, None], crossings[:, 0], end[clip]))
        pol_b[clip], pol_e[clip] = polar(new_b), polar(new_e)
        seen_b[clip] = sb | two | one
        seen_e[clip] = se | two | (one & sb)
    keep = seen_b & seen_e
    return [np.stack([pol_b[k][keep[k]], pol_e[k][keep[k]]], axis=1) for k in range(len(eyes))]


def _crossings(begin: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For m segments (``begin``, ``end`` each (m, 3), camera frame), the points (m, 2, 3) where
    the first two of their crossings with the image's edges lie on the segment, and how many
    there are (m,), 0 to 2: the original's clipping in single precision (module docstring)."""
    f = FOCAL_LENGTH
    b3, e3 = begin.astype(np.float32), end.astype(np.float32)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        cut_b = (b3[:, 1] < f) & (e3[:, 1] >= f)              # the near plane cuts off the begin
        cut_e = (e3[:, 1] < f) & (b3[:, 1] >= f)
        t_b = ((f - e3[:, 1]) / (b3[:, 1] - e3[:, 1]))[:, None]
        t_e = ((f - b3[:, 1]) / (e3[:, 1] - b3[:, 1]))[:, None]
        b3, e3 = (np.where(cut_b[:, None], e3 + (b3 - e3) * t_b, b3),
                  np.where(cut_e[:, None], b3 + (e3 - b3) * t_e, e3))
        front = (b3[:, 1] > 0) & (e3[:, 1] > 0)
        bx, by = b3[:, 0] * f / b3[:, 1], b3[:, 2] * f / b3[:, 1]     # the image of the segment
        ex, ey = e3[:, 0] * f / e3[:, 1], e3[:, 2] * f / e3[:, 1]
        # the projected segment as the line a*y + b*x + c = 0 (a 0 when vertical)
        dx = ex - bx
        vertical = np.abs(dx) < _EPSILON
        a = np.where(vertical, np.float32(0), np.float32(1))
        b = np.where(vertical, np.float32(1), -(ey - by) / dx)
        c = -a * ey - b * ex
        hits = np.zeros((len(b3), 4), dtype=bool)
        points = np.zeros((len(b3), 4, 2), dtype=np.float32)
        for k in range(4):
            ea, eb, ec = _EDGE_A[k], _EDGE_B[k], _EDGE_C[k]
            parallel = np.abs(ea * b - a * eb) < _EPSILON
            if ea == 0:                         # left or right edge: x is the edge's
                x = np.full_like(b, -ec / eb)
                y = -(b * x + c) / a
            else:                               # top or bottom edge
                x = np.where(vertical, -c / b, (a * ec - ea * c) / (ea * b - a * eb))
                y = np.where(vertical, -(eb * x + ec) / ea, -(b * x + c) / a)
            low_x, high_x, low_y, high_y = _EDGE_BOX[k]
            hits[:, k] = (front & ~parallel
                          & (x >= np.minimum(bx, ex)) & (x <= np.maximum(bx, ex))
                          & (y >= np.minimum(by, ey)) & (y <= np.maximum(by, ey))
                          & (x >= low_x) & (x <= high_x) & (y >= low_y) & (y <= high_y))
            points[:, k, 0], points[:, k, 1] = x, y
        # the point of the (clipped) segment e3 + s (b3 - e3) whose image is each crossing
        e64, d64 = e3.astype(float)[:, None, :], (b3 - e3).astype(float)[:, None, :]
        u, v, fl = points[..., 0].astype(float), points[..., 1].astype(float), float(f)
        den_x = d64[..., 0] * fl - u * d64[..., 1]
        den_z = d64[..., 2] * fl - v * d64[..., 1]
        s = np.where(np.abs(den_x) >= np.abs(den_z), (u * e64[..., 1] - e64[..., 0] * fl) / den_x,
                     (v * e64[..., 1] - e64[..., 2] * fl) / den_z)
        at = e64 + s[..., None] * d64                                          # (m, 4, 3)
    order = np.argsort(~hits, axis=1, kind="stable")[:, :2]                   # the first two hits
    chosen = np.take_along_axis(at, order[..., None], axis=1)
    return chosen, np.minimum(hits.sum(axis=1), 2)
