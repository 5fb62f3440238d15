"""Static lab geometry as numpy arrays, and the vectorised queries the world and sensors need.

Shared by ``world`` (collisions: point-to-wall distance) and ``sensors`` (the arrays the compiled
ray casts of :mod:`.kernels` read, the floor lines under the line sensor). Lengths in u_m, angles in
radians.

The queries follow the original simulator's geometry (golden README, "IR sensors" and
"Collision"): distances are measured to wall *faces* (polygon edges), the border wall
(0,0)-(W,H) of height 4 is always present, and walls of height 0 are floor lines that neither
block robots nor hide beacons nor reflect infra-red.
"""

from __future__ import annotations

import numpy as np

from . import kernels
from .scenario import Lab, Wall


def _edges(walls: list[Wall]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(a, b, height) arrays of every polygon edge: shapes (S, 2), (S, 2), (S,)."""
    a, b, h = [], [], []
    for wall in walls:
        pts = np.asarray(wall.corners, dtype=float)
        a.append(pts)
        b.append(np.roll(pts, -1, axis=0))
        h.append(np.full(len(pts), wall.height))
    if not a:
        return np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0)
    return np.concatenate(a), np.concatenate(b), np.concatenate(h)


class LabGeometry:
    """Arrays describing a lab's walls.

    Attributes: ``seg_a``, ``seg_b`` (S, 2) edges of obstacle walls (height > 0, border included),
    ``seg_h`` (S,) their heights, ``corners`` (C, 2) the corners of those walls; ``line_a``,
    ``line_b`` (E, 2) and ``line_poly`` (E,) the edges of floor lines (height 0) with the index of
    their polygon, for the line sensor; ``beacon_xyh`` (x, y, height) and ``target_xyr`` (x, y,
    radius), each (B,) or (T,), of the beacons and target areas.
    """

    def __init__(self, lab: Lab):
        obstacles = [lab.border] + [w for w in lab.walls if w.height > 0]
        self.seg_a, self.seg_b, self.seg_h = _edges(obstacles)
        self.corners = np.concatenate([np.asarray(w.corners, dtype=float) for w in obstacles])
        lines = [w for w in lab.walls if w.height <= 0]
        self.line_a, self.line_b, _ = _edges(lines)
        self.line_poly = np.concatenate(
            [np.full(len(w.corners), i) for i, w in enumerate(lines)]) if lines else np.zeros(0, int)
        self.n_lines = len(lines)
        edge = self.seg_b - self.seg_a
        # contiguous columns for the compiled kernels: ``faces`` = (start x, start y, edge x, edge y)
        # of every obstacle face, ``corner_xy`` = (x, y) of every corner
        self.faces = tuple(np.ascontiguousarray(v) for v in (self.seg_a[:, 0], self.seg_a[:, 1],
                                                              edge[:, 0], edge[:, 1]))
        self.all_faces = np.ones(len(self.seg_a), dtype=bool)
        self.corner_xy = (np.ascontiguousarray(self.corners[:, 0]), np.ascontiguousarray(self.corners[:, 1]))
        self.beacon_xyh = tuple(np.array([getattr(b, k) for b in lab.beacons], dtype=float)
                                for k in ("x", "y", "height"))
        self.target_xyr = tuple(np.array([getattr(t, k) for t in lab.targets], dtype=float)
                                for k in ("x", "y", "radius"))

    def wall_distance(self, points: np.ndarray) -> np.ndarray:
        """Distance (P,) from each point (P, 2) to the nearest face of an obstacle wall."""
        points = np.asarray(points, dtype=float)
        return kernels.wall_distance(points[:, 0].copy(), points[:, 1].copy(), *self.faces)

    def on_line(self, points: np.ndarray) -> np.ndarray:
        """Boolean (P,): is each point (P, 2) inside a floor line polygon (crossing-number test)."""
        if self.n_lines == 0:
            return np.zeros(len(points), dtype=bool)
        a, b = self.line_a, self.line_b
        px, py = points[:, 0:1], points[:, 1:2]                             # (P, 1)
        straddles = (a[None, :, 1] > py) != (b[None, :, 1] > py)           # (P, E)
        with np.errstate(divide="ignore", invalid="ignore"):
            x_cross = a[None, :, 0] + (py - a[None, :, 1]) * (b[None, :, 0] - a[None, :, 0]) / (
                b[None, :, 1] - a[None, :, 1])
        crossings = straddles & (px < x_cross)
        per_poly = np.zeros((len(points), self.n_lines), dtype=int)
        np.add.at(per_poly, (slice(None), self.line_poly), crossings.astype(int))
        return np.any(per_poly % 2 == 1, axis=1)
