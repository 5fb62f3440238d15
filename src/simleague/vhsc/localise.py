"""Where the sample player stands, from the painted lines its camera sees: the points of white on
the turf (:func:`simleague.vhsc.camera.find_lines`, robot ground frame) are laid on the field's
lines (:func:`simleague.soccer.field.humanoid_lines`, as a match's world paints them) from
poses near the player's own estimate, and the pose that lays them best is the fix (:func:`fix`).
This is the field-line matching of RoboCup's standard platform and humanoid leagues (T. Röfer,
T. Laue, D. Thomas, "Particle-filter-based self-localization using landmarks and directed lines",
RoboCup 2005, LNAI 4020: points on lines seen, weighed by their distance to the field's lines),
done here by a search over a grid of poses near the estimate rather than by particles: a
precomputed map gives each place's distance to the nearest line, each point costs its distance,
capped, so that white that is no line (a lit face of a robot, the ball's edge) costs the same
wherever it is laid.

The field's lines repeat: a straight line alone says nothing of where along it the robot stands,
and parallel lines 0.5 to 1 m apart look alike. The search keeps within :data:`SEARCH` m and
:data:`TURN` rad of the estimate, prefers the smaller of two equally good corrections
(:data:`PRIOR`), and a fix counts only when enough points lie on lines laid so and noticeably
better than from the estimate itself; the player moves its estimate part of the way
(:meth:`simleague.vhsc.player.Player._fix_pose`).

Own frame (x towards the opponents' goal; the field's lines are the same turned half round),
metres and radians. numpy only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from ..soccer.field import LINE_WIDTH

CELL = 0.02                      # m: the distance map's grid
MARGIN = 1.5                     # m the map reaches beyond the touch and goal lines
CAP = 0.15                       # m: a point further than this from every line costs this much
SEARCH = 0.5                     # m: corrections looked for up to this far along x and along y,
COARSE = 0.1                     # m apart first,
FINE = 0.025                     # then this far apart about the best
TURN = 0.06                      # rad: and turns up to this either way,
TURN_STEP = 0.03                 # this far apart
PRIOR = 0.02                     # m of cost per metre of correction: the nearer of two equal fits
LEAST_POINTS = 12                # fewer points than this are no fix
ON_LINE = 0.05                   # m: a point this near a line, laid so, lies on it;
LEAST_ON = 0.6                   # at least this share of the points must
BETTER = 0.015                   # m: and the fix's mean cost this much below the estimate's
MOST_POINTS = 80                 # points used at most (evenly chosen): 2 ms a search


@dataclass(frozen=True)
class Fix:
    """A correction of the estimated pose: move it by (``dx``, ``dy``) m and turn it by
    ``turn`` rad; ``on_line`` the share of the points that lie on lines so, ``points`` how many
    were used."""

    dx: float
    dy: float
    turn: float
    on_line: float
    points: int


class LineMap:
    """Each place's distance (m) to the nearest of the painted lines ``segments`` (shape (n, 2, 3),
    :func:`simleague.soccer.field.humanoid_lines`, each the middle of a line 5 cm wide) on a field
    ``length`` x ``width`` m, on a grid of :data:`CELL` m reaching :data:`MARGIN` m beyond it;
    :data:`CAP` where no line is nearer."""

    def __init__(self, segments: np.ndarray, length: float, width: float):
        self.x0, self.y0 = -length / 2 - MARGIN, -width / 2 - MARGIN
        nx = int(round((length + 2 * MARGIN) / CELL)) + 1
        ny = int(round((width + 2 * MARGIN) / CELL)) + 1
        self.distance = np.full((nx, ny), CAP, dtype=np.float32)
        reach = CAP + LINE_WIDTH                       # the cells about a segment whose distance counts
        for (ax, ay, _), (bx, by, _) in segments:
            i0, i1 = (max(0, int((min(ax, bx) - reach - self.x0) / CELL)),
                      min(nx, int((max(ax, bx) + reach - self.x0) / CELL) + 2))
            j0, j1 = (max(0, int((min(ay, by) - reach - self.y0) / CELL)),
                      min(ny, int((max(ay, by) + reach - self.y0) / CELL) + 2))
            if i0 >= i1 or j0 >= j1:
                continue
            gx, gy = np.meshgrid(self.x0 + CELL * np.arange(i0, i1), self.y0 + CELL * np.arange(j0, j1), indexing="ij")
            a, b = np.array([ax, ay]), np.array([bx, by])
            places = np.stack([gx, gy], axis=-1)
            along = np.clip((places - a) @ (b - a) / max((b - a) @ (b - a), 1e-12), 0.0, 1.0)
            away = np.linalg.norm(places - (a + along[..., None] * (b - a)), axis=-1) - LINE_WIDTH / 2
            self.distance[i0:i1, j0:j1] = np.minimum(self.distance[i0:i1, j0:j1], np.maximum(0.0, away))

    def cost(self, points: np.ndarray) -> np.ndarray:
        """Each point's distance to the nearest line, capped at :data:`CAP` (m); ``points`` of
        shape (..., 2), own frame; points off the map cost :data:`CAP`."""
        i = np.rint((points[..., 0] - self.x0) / CELL).astype(np.intp)
        j = np.rint((points[..., 1] - self.y0) / CELL).astype(np.intp)
        inside = (i >= 0) & (i < self.distance.shape[0]) & (j >= 0) & (j < self.distance.shape[1])
        found = self.distance[np.where(inside, i, 0), np.where(inside, j, 0)]
        return np.where(inside, np.minimum(found, CAP), CAP)


@cache
def _line_map(segments: bytes, length: float, width: float) -> LineMap:
    return LineMap(np.frombuffer(segments).reshape(-1, 2, 3), length, width)


def line_map(segments: np.ndarray, length: float, width: float) -> LineMap:
    """The :class:`LineMap` of these lines and field size, made once per process."""
    return _line_map(np.ascontiguousarray(segments, dtype=float).tobytes(), length, width)


def _laid(points: np.ndarray, x: float, y: float, heading: float) -> np.ndarray:
    """Robot-frame ``points`` (shape (n, 2)) in the own frame, the robot at (``x``, ``y``) facing ``heading``."""
    c, s = math.cos(heading), math.sin(heading)
    return points @ np.array([[c, s], [-s, c]]) + np.array([x, y])


def _best(field_map: LineMap, points: np.ndarray, x: float, y: float, heading: float,
          offsets: np.ndarray, turns: np.ndarray) -> tuple[float, float, float, float]:
    """Of the poses (x + dx, y + dy, heading + turn) for (dx, dy) in ``offsets`` (shape (m, 2))
    and each of ``turns``, the one whose laid ``points`` (robot frame) cost least with the
    :data:`PRIOR`: (dx, dy, turn, that mean cost)."""
    best = (0.0, 0.0, 0.0, math.inf)
    for turn in turns:
        laid = _laid(points, x, y, heading + turn)
        costs = field_map.cost(laid[None, :, :] + offsets[:, None, :]).mean(axis=1)
        costs += PRIOR * (np.hypot(offsets[:, 0], offsets[:, 1]) + abs(turn))
        k = int(np.argmin(costs))
        if costs[k] < best[3]:
            best = (float(offsets[k, 0]), float(offsets[k, 1]), float(turn), float(costs[k]))
    return best


def _grid(half: float, step: float) -> np.ndarray:
    ticks = np.arange(-half, half + step / 2, step)
    gx, gy = np.meshgrid(ticks, ticks, indexing="ij")
    return np.stack([gx.ravel(), gy.ravel()], axis=1)


COARSE_GRID = _grid(SEARCH, COARSE)
FINE_GRID = _grid(COARSE, FINE)
TURNS = np.arange(-TURN, TURN + TURN_STEP / 2, TURN_STEP)


def fix(field_map: LineMap, points: np.ndarray, x: float, y: float, heading: float) -> Fix | None:
    """The correction of the pose estimate (``x``, ``y`` m, ``heading`` rad; own frame) that
    lays line ``points`` (shape (n, 2), robot ground frame, m: :func:`simleague.vhsc.camera.find_lines`)
    best on the field's lines: a coarse search over :data:`SEARCH` m and :data:`TURN` rad, then
    a fine one about its best. None when the points are too few (:data:`LEAST_POINTS`), too few
    lie on lines after it (:data:`LEAST_ON`), or it is not :data:`BETTER` than the estimate."""
    if len(points) < LEAST_POINTS:
        return None
    if len(points) > MOST_POINTS:
        points = points[np.linspace(0, len(points) - 1, MOST_POINTS).astype(int)]
    dx, dy, turn, _ = _best(field_map, points, x, y, heading, COARSE_GRID, TURNS)
    fdx, fdy, fturn, cost = _best(field_map, points, x + dx, y + dy, heading + turn, FINE_GRID,
                                  np.array([-TURN_STEP / 2, 0.0, TURN_STEP / 2]))
    dx, dy, turn = dx + fdx, dy + fdy, turn + fturn
    on_line = float(np.mean(field_map.cost(_laid(points, x + dx, y + dy, heading + turn)) < ON_LINE))
    here = float(field_map.cost(_laid(points, x, y, heading)).mean())
    if on_line < LEAST_ON or cost > here - BETTER:
        return None
    return Fix(dx, dy, turn, on_line, len(points))
