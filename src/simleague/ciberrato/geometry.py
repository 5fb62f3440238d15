"""Static lab geometry as numpy arrays, and the vectorised queries the world and sensors need.

Shared by ``world`` (collisions: point-to-wall distance) and ``sensors`` (ray casts, corners in a
cone, beacon occlusion, the floor lines under the line sensor). Lengths in u_m, angles in radians.

The queries follow the original simulator's geometry (golden README, "IR sensors" and
"Collision"): distances are measured to wall *faces* (polygon edges), the border wall
(0,0)-(W,H) of height 4 is always present, and walls of height 0 are floor lines that neither
block robots nor hide beacons nor reflect infra-red.
"""

from __future__ import annotations

import numpy as np

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
    their polygon, for the line sensor.
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

    def wall_distance(self, points: np.ndarray) -> np.ndarray:
        """Distance (P,) from each point (P, 2) to the nearest face of an obstacle wall."""
        a, e = self.seg_a, self.seg_b - self.seg_a                        # (S, 2)
        rel = points[:, None, :] - a[None, :, :]                           # (P, S, 2)
        length2 = np.einsum("sk,sk->s", e, e)
        t = np.clip(np.einsum("psk,sk->ps", rel, e) / length2, 0.0, 1.0)  # (P, S)
        nearest = rel - t[..., None] * e[None, :, :]
        return np.sqrt(np.min(np.einsum("psk,psk->ps", nearest, nearest), axis=1))

    def ray_distance(self, origins: np.ndarray, angles: np.ndarray,
                     min_height: float | None = None) -> np.ndarray:
        """Distance (R,) along each ray (origin (R, 2), angle (R,)) to the first wall face hit.

        ``inf`` where no face is hit. With ``min_height``, only walls at least that high count
        (beacon occlusion, original ``wallDistanceAboveHeight``).
        """
        a, e = self.seg_a, self.seg_b - self.seg_a
        if min_height is not None:
            keep = self.seg_h >= min_height
            a, e = a[keep], e[keep]
        d = np.stack([np.cos(angles), np.sin(angles)], axis=1)            # (R, 2)
        rel = a[None, :, :] - origins[:, None, :]                          # (R, S, 2)
        denom = d[:, None, 0] * e[None, :, 1] - d[:, None, 1] * e[None, :, 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (rel[..., 0] * e[None, :, 1] - rel[..., 1] * e[None, :, 0]) / denom
            u = (rel[..., 0] * d[:, None, 1] - rel[..., 1] * d[:, None, 0]) / denom
        hit = (denom != 0) & (t >= 0) & (u >= 0) & (u <= 1)
        return np.min(np.where(hit, t, np.inf), axis=1, initial=np.inf)

    def corner_distance(self, origins: np.ndarray, angles: np.ndarray, half_aperture: float) -> np.ndarray:
        """Distance (R,) from each origin to the nearest wall corner within ±half_aperture of its angle."""
        rel = self.corners[None, :, :] - origins[:, None, :]               # (R, C, 2)
        bearing = np.arctan2(rel[..., 1], rel[..., 0])
        delta = np.abs(bearing - angles[:, None])
        delta = np.where(delta > np.pi, 2 * np.pi - delta, delta)
        dist = np.hypot(rel[..., 0], rel[..., 1])
        return np.min(np.where(delta <= half_aperture, dist, np.inf), axis=1, initial=np.inf)

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
