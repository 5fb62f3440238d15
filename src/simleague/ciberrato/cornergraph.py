"""The return-path distance of the original simulator: a corner graph for a disc robot.

The scores of a returning robot (2008 rules 8-9, and the original's competitive scoring) need the
length of the shortest path a robot of radius 0.5 can drive from its grid position to where it is.
The original simulator (cbGraph, cbLab::reachableRobot and cbWall in ``simulator/`` of
ciberRatoTools) computes it on a graph built once per lab, and this module rebuilds that graph
step by step so that the scores agree with the recorded ones (``../shared/golden/ciberrato/traces/
scoring_*.json``):

* A wall corner is *convex* when, with the wall's corners counter-clockwise, the angle from the
  previous corner to the next one (seen from the corner, wrapped to (-pi, pi]) is negative. The
  border (0,0)-(0,H)-(W,H)-(W,0) is a wall for every distance test but, listed clockwise, has no
  convex corner. Floor lines (height 0) never block, and their corners get no nodes: the original
  gives them nodes too, which cannot shorten a path (nothing needs going round) but, on a lab of
  lines only such as rmi-2223's, makes every pair of ~200 corners a link and the graph ~10^5 nodes.
* Nodes sit on the circle of radius 0.5 around convex corners. For every ordered pair of convex
  corners, the two outer tangents (offsets of +-90 degrees from the line joining them) and, when
  the corners are more than 1 apart, the two crossing tangents (angle ``acos(0.5 / (d/2))``) are
  candidate links, kept when a robot fits along them.
* A robot fits from ``i`` to ``f`` (reachableRobot) when both points are at least 0.4995 from every
  wall and three rays hit no wall before their end: the centre line and the lines offset by 0.4995
  to either side. A ray's hit is found per wall face by the angles of its two end points seen from
  the ray's origin (cbWall::distance), as in the original.
* Nodes of the same corner are joined by the arc of radius 0.5 that does not cross the direction of
  the corner's previous corner (cbGraph::cornerPathDist).
* Each grid position, and the query point, is joined by tangents to every convex corner (angle
  ``acos(0.5 / distance)``) and, the query point only, directly to the grid position, when a robot
  fits. Dijkstra from the grid position gives the distance.

Nodes are identified by exact position, as the original's ``findNode`` does. Lengths in u_m.
"""

from __future__ import annotations

import heapq
import math

import numba
import numpy as np

from .scenario import Lab

ROBOT_RADIUS = 0.5
CLEARANCE = ROBOT_RADIUS * 0.999      # cbLab::reachableRobot's margin


@numba.njit(cache=True)
def _angle(dx, dy):
    """cbPoint::angle: the direction of (dx, dy), +-pi/2 when dx is exactly 0."""
    if dx == 0.0:
        return math.pi / 2.0 if dy > 0.0 else -math.pi / 2
    return math.atan2(dy, dx)


@numba.njit(cache=True)
def _ray_wall(px, py, theta, wx, wy, start, end):
    """cbWall::distance(p, theta): distance along the ray to the wall's nearest face, -1 if none."""
    while theta > math.pi:
        theta -= 2 * math.pi
    while theta < -math.pi:
        theta += 2 * math.pi
    ax = wx[end - 1]
    ay = wy[end - 1]
    alpha = _angle(ax - px, ay - py)
    dist_a = math.sqrt((px - ax) ** 2 + (py - ay) ** 2)
    best = -1.0
    for k in range(start, end):
        bx = wx[k]
        by = wy[k]
        beta = _angle(bx - px, by - py)
        dist_b = math.sqrt((px - bx) ** 2 + (py - by) ** 2)
        delta = beta - alpha
        skip = ((delta > math.pi and alpha < theta < beta)
                or (delta < -math.pi and beta < theta < alpha)
                or (0 < delta <= math.pi and (theta < alpha or theta > beta))
                or (-math.pi <= delta < 0 and (theta < beta or theta > alpha)))
        dist = -1.0
        if not skip:
            if alpha == beta:
                if theta == alpha:
                    dist = min(dist_a, dist_b)
                else:
                    skip = True
            else:
                if theta == math.pi / 2:
                    x = px
                    y = ((by - ay) / (bx - ax)) * (x - ax) + ay
                elif ax == bx:
                    x = ax
                    y = math.tan(theta) * (x - px) + py
                else:
                    m1 = math.tan(theta)
                    b1 = py - m1 * px
                    m2 = (by - ay) / (bx - ax)
                    b2 = ay - m2 * ax
                    x = (b1 - b2) / (m2 - m1)
                    y = (m2 * b1 - m1 * b2) / (m2 - m1)
                dist = math.sqrt((px - x) ** 2 + (py - y) ** 2)
        if not skip and (best == -1.0 or dist < best):
            best = dist
        ax = bx
        ay = by
        alpha = beta
        dist_a = dist_b
    return best


@numba.njit(cache=True)
def _near_wall(px, py, wx, wy, starts, box, limit):
    """True when (px, py) is nearer than ``limit`` to a face of an obstacle wall (cbWall::distance)."""
    for w in range(starts.shape[0] - 1):
        if (px < box[w, 0] - limit or px > box[w, 1] + limit
                or py < box[w, 2] - limit or py > box[w, 3] + limit):
            continue
        ax = wx[starts[w + 1] - 1]
        ay = wy[starts[w + 1] - 1]
        for k in range(starts[w], starts[w + 1]):
            bx = wx[k]
            by = wy[k]
            ab = math.sqrt((bx - ax) ** 2 + (by - ay) ** 2)
            nx = (bx - ax) / ab
            ny = (by - ay) / ab
            if nx * (px - ax) + ny * (py - ay) < 0.0:
                d = math.sqrt((px - ax) ** 2 + (py - ay) ** 2)
            elif nx * (px - bx) + ny * (py - by) > 0.0:
                d = math.sqrt((px - bx) ** 2 + (py - by) ** 2)
            else:
                d = abs(ny * (px - ax) - nx * (py - ay))
            if d < limit:
                return True
            ax = bx
            ay = by
    return False


@numba.njit(cache=True)
def _reachable(ix, iy, fx, fy, wx, wy, starts, box):
    """cbLab::reachable: no wall hit along the ray from i towards f before f."""
    theta = _angle(fx - ix, fy - iy)
    length = math.sqrt((ix - fx) ** 2 + (iy - fy) ** 2)
    lo_x, hi_x = min(ix, fx), max(ix, fx)
    lo_y, hi_y = min(iy, fy), max(iy, fy)
    for w in range(starts.shape[0] - 1):
        # a hit nearer than f lies on the segment i-f and on the wall: skip walls whose bounding box
        # misses the segment's
        if box[w, 0] > hi_x + 1e-9 or box[w, 1] < lo_x - 1e-9 or box[w, 2] > hi_y + 1e-9 or box[w, 3] < lo_y - 1e-9:
            continue
        d = _ray_wall(ix, iy, theta, wx, wy, starts[w], starts[w + 1])
        if d >= 0.0 and d < length:
            return False
    return True


@numba.njit(cache=True)
def _fits(ix, iy, fx, fy, wx, wy, starts, box, clearance):
    """cbLab::reachableRobot: a robot fits along i -> f (both ends clear of walls by ``clearance``,
    and the centre line and the lines ``clearance`` to either side hit no wall)."""
    if not (math.isfinite(ix) and math.isfinite(iy) and math.isfinite(fx) and math.isfinite(fy)):
        return False
    if _near_wall(ix, iy, wx, wy, starts, box, clearance) or _near_wall(fx, fy, wx, wy, starts, box, clearance):
        return False
    if not _reachable(ix, iy, fx, fy, wx, wy, starts, box):
        return False
    ox, oy = _offset(fx - ix, fy - iy, math.pi / 2, ROBOT_RADIUS)
    ox *= 0.999
    oy *= 0.999
    return (_reachable(ix + ox, iy + oy, fx + ox, fy + oy, wx, wy, starts, box)
            and _reachable(ix - ox, iy - oy, fx - ox, fy - oy, wx, wy, starts, box))


@numba.njit(cache=True)
def reachable_robot(ix, iy, fx, fy, wx, wy, starts, box, clearance):
    """(K,) bool: :func:`_fits` for each pair i=(ix, iy) -> f=(fx, fy) of shape (K,)."""
    out = np.zeros(ix.shape[0], dtype=np.bool_)
    for k in range(ix.shape[0]):
        out[k] = _fits(ix[k], iy[k], fx[k], fy[k], wx, wy, starts, box, clearance)
    return out


@numba.njit(cache=True)
def _offset(dx, dy, angle, scale):
    """cbPoint: (dx, dy).normalize().rotate(angle) * scale (a zero vector stays zero)."""
    size = math.sqrt(dx * dx + dy * dy)
    if size != 0.0:
        dx /= size
        dy /= size
    c = math.cos(angle)
    s = math.sin(angle)
    return (dx * c - dy * s) * scale, (dx * s + dy * c) * scale


@numba.njit(cache=True)
def corner_links(cx, cy, wx, wy, starts, box, radius, clearance):
    """The links of cbGraph::buildCornerGraph between convex corners (K,) x (K,) where a robot fits.

    Returns ``posi``, ``posf`` (M, 2) and ``pair`` (M, 2) = (index of i, index of f), in the
    original's order: for each ordered pair, the +90 and -90 degree outer tangents, then (corners
    more than 2·radius apart) the two crossing tangents.
    """
    k = cx.shape[0]
    size = max(16, 4 * k)
    posi = np.empty((size, 2))
    posf = np.empty((size, 2))
    pair = np.empty((size, 2), dtype=np.int64)
    m = 0
    for i in range(k):
        for f in range(k):
            if i == f:
                continue
            dx = cx[f] - cx[i]
            dy = cy[f] - cy[i]
            half = math.sqrt(dx * dx + dy * dy) / 2
            crossing = math.acos(radius / half) if radius < half else math.nan
            for angle, far in ((math.pi / 2, 1.0), (-math.pi / 2, 1.0), (crossing, -1.0), (-crossing, -1.0)):
                if math.isnan(angle):
                    continue
                ox, oy = _offset(dx, dy, angle, radius)
                ax, ay, bx, by = cx[i] + ox, cy[i] + oy, cx[f] + far * ox, cy[f] + far * oy
                if not _fits(ax, ay, bx, by, wx, wy, starts, box, clearance):
                    continue
                if m == posi.shape[0]:      # grow: memory follows the links kept, not k²
                    posi = np.concatenate((posi, np.empty_like(posi)))
                    posf = np.concatenate((posf, np.empty_like(posf)))
                    pair = np.concatenate((pair, np.empty_like(pair)))
                posi[m, 0], posi[m, 1], posf[m, 0], posf[m, 1] = ax, ay, bx, by
                pair[m, 0], pair[m, 1] = i, f
                m += 1
    return posi[:m], posf[:m], pair[:m]


@numba.njit(cache=True)
def tangent_points(px, py, cx, cy, radius):
    """(2K, 2) points where lines from (px, py) touch the circle around each corner (K,): +angle
    then -angle, angle = acos(radius / distance) (cbGraph::addInitPoint); NaN inside a circle."""
    out = np.full((2 * cx.shape[0], 2), np.nan)
    for c in range(cx.shape[0]):
        d = math.sqrt((px - cx[c]) ** 2 + (py - cy[c]) ** 2)
        if d < radius:
            continue
        angle = math.acos(radius / d)
        for j, sign in enumerate((1.0, -1.0)):
            ox, oy = _offset(px - cx[c], py - cy[c], sign * angle, radius)
            out[2 * c + j, 0] = cx[c] + ox
            out[2 * c + j, 1] = cy[c] + oy
    return out


def _dist(p, q) -> float:
    """cbPoint::distance."""
    dx, dy = p[0] - q[0], p[1] - q[1]
    return math.sqrt(dx * dx + dy * dy)


class _Walls:
    """The original's wall list: the border first (clockwise), then the lab's walls in file order.

    ``corners[w]`` (n, 2) per wall; ``convex`` the (wall, corner) pairs with a convex corner;
    ``wx, wy, starts, box`` the obstacle walls (height > 0, border included) flattened for the
    compiled tests.
    """

    def __init__(self, lab: Lab):
        w, h = lab.width, lab.height
        border = ((0.0, 0.0), (0.0, h), (w, h), (w, 0.0))
        walls = [(4.0, border)] + [(wall.height, wall.corners) for wall in lab.walls]
        self.corners = [np.asarray(c, dtype=float) for _, c in walls]
        self.convex = [(i, c) for i, pts in enumerate(self.corners) for c in range(len(pts))
                       if walls[i][0] > 0.0 and len(pts) > 2 and self._corner_angle(pts, c) < 0.0]
        self.cx = np.array([self.corners[w][c][0] for w, c in self.convex], dtype=float)
        self.cy = np.array([self.corners[w][c][1] for w, c in self.convex], dtype=float)
        self.tangent_keys = [key for key in self.convex for _ in range(2)]
        obstacles = [self.corners[i] for i, (height, _) in enumerate(walls) if height > 0.0]
        flat = np.concatenate(obstacles)
        self.wx, self.wy = np.ascontiguousarray(flat[:, 0]), np.ascontiguousarray(flat[:, 1])
        self.starts = np.cumsum([0] + [len(p) for p in obstacles]).astype(np.int64)
        self.box = np.array([[p[:, 0].min(), p[:, 0].max(), p[:, 1].min(), p[:, 1].max()] for p in obstacles])

    @staticmethod
    def _corner_angle(pts: np.ndarray, c: int) -> float:
        """cbWall::cornerAngle: angle(next - corner) - angle(previous - corner), in (-pi, pi]."""
        before, after = pts[c - 1] - pts[c], pts[(c + 1) % len(pts)] - pts[c]
        angle = _angle(after[0], after[1]) - _angle(before[0], before[1])
        if angle > math.pi:
            angle -= 2 * math.pi
        if angle < -math.pi:
            angle += 2 * math.pi
        return angle

    def fits(self, i: np.ndarray, f: np.ndarray) -> np.ndarray:
        """(K,) bool: a robot fits from each i (K, 2) to the f (K, 2) beside it (reachableRobot)."""
        i, f = np.asarray(i, dtype=float).reshape(-1, 2), np.asarray(f, dtype=float).reshape(-1, 2)
        return reachable_robot(np.ascontiguousarray(i[:, 0]), np.ascontiguousarray(i[:, 1]),
                               np.ascontiguousarray(f[:, 0]), np.ascontiguousarray(f[:, 1]),
                               self.wx, self.wy, self.starts, self.box, CLEARANCE)

    def arc(self, wall: int, corner: int, p: tuple[float, float], q: tuple[float, float]) -> float:
        """cbGraph::cornerPathDist: the arc of radius 0.5 around the corner from p to q that does
        not cross the direction of the previous corner."""
        pts = self.corners[wall]
        cx, cy = pts[corner]
        alpha = _angle(p[0] - cx, p[1] - cy)
        beta = _angle(q[0] - cx, q[1] - cy)
        prev = pts[corner - 1]
        gama = _angle(prev[0] - cx, prev[1] - cy)
        if alpha > beta:
            dist = ((2 * math.pi - alpha + beta) if beta < gama < alpha else (alpha - beta)) * ROBOT_RADIUS
        else:
            dist = ((2 * math.pi - beta + alpha) if alpha < gama < beta else (beta - alpha)) * ROBOT_RADIUS
        return max(dist, 0.0)

    def tangents(self, p: tuple[float, float]) -> tuple[np.ndarray, list[tuple[int, int]]]:
        """Tangent points (2K, 2) from p to the circle around each convex corner (two per corner,
        NaN where p is inside the circle) and their (wall, corner) pairs."""
        points = tangent_points(float(p[0]), float(p[1]), self.cx, self.cy, ROBOT_RADIUS)
        return points, self.tangent_keys


class PathDistance:
    """Shortest path length (u_m) for a robot of radius 0.5 from a point to a grid position.

    ``PathDistance(lab, starts)`` builds the original's corner graph (see the module docstring)
    with every grid position in ``starts`` ((x, y) pairs, in grid order) joined to it, and runs
    Dijkstra once from each. ``distance(k, x, y)`` is then the path length from ``starts[k]`` to
    (x, y): ``inf`` when no robot fits anywhere along a path (the original's score then ignores it).
    Building takes 5-50 ms for the labs in ``../shared/labs/ciberrato`` (after the compiled
    helpers are loaded), a query ~0.1 ms.
    """

    def __init__(self, lab: Lab, starts: list[tuple[float, float]]):
        self.walls = _Walls(lab)
        self.pos: list[tuple[float, float]] = []
        self.key: list[tuple[int, int] | None] = []
        self.index: dict[tuple[float, float], int] = {}
        self.links: list[dict[int, float]] = []
        self.by_corner: dict[tuple[int, int], list[int]] = {}   # (wall, corner) -> its nodes, in order
        self._corner_links()
        for nodes in self.by_corner.values():       # arcs between the nodes of each corner
            for k, n1 in enumerate(nodes):
                for n2 in nodes[k + 1:]:
                    d = self.walls.arc(*self.key[n1], self.pos[n1], self.pos[n2])
                    self._link(n1, n2, d)
                    self._link(n2, n1, d)
        self.starts = [(float(x), float(y)) for x, y in starts]
        self.inits = [self._add_init(p) for p in self.starts]
        self.from_start = [self._dijkstra(n) for n in self.inits]

    def _node(self, p: tuple[float, float], key: tuple[int, int] | None, *, new: bool = False) -> int:
        """The node at exactly p (cbGraph::findNode), added with ``key`` if there is none (or always,
        with ``new``, as addInitNode does)."""
        p = (float(p[0]), float(p[1]))
        if not new and p in self.index:
            return self.index[p]
        n = len(self.pos)
        self.pos.append(p)
        self.key.append(key)
        self.links.append({})
        self.index.setdefault(p, n)
        if key is not None:
            self.by_corner.setdefault(key, []).append(n)
        return n

    def _link(self, a: int, b: int, d: float) -> None:
        if d < self.links[a].get(b, math.inf):
            self.links[a][b] = d

    def _corner_links(self) -> None:
        """cbGraph::buildCornerGraph: tangent links between every ordered pair of convex corners."""
        convex = self.walls.convex
        if not convex:
            return
        w = self.walls
        posi, posf, pair = corner_links(w.cx, w.cy, w.wx, w.wy, w.starts, w.box, ROBOT_RADIUS, CLEARANCE)
        for n in range(len(posi)):
            a = self._node(tuple(posi[n]), convex[pair[n, 0]])
            b = self._node(tuple(posf[n]), convex[pair[n, 1]])
            self._link(a, b, _dist(posi[n], posf[n]))

    def _corner_arcs(self, here: tuple[float, float], key: tuple[int, int]) -> list[tuple[int, float]]:
        """cbGraph::linkToCornerNodes: (node, arc length to ``here``) for each node of corner
        ``key`` (wall, corner) that is not at ``here``."""
        return [(n, self.walls.arc(*key, self.pos[n], here)) for n in self.by_corner.get(key, ()) if self.pos[n] != here]

    def _add_init(self, p: tuple[float, float]) -> int:
        """cbGraph::addInitPoint: a new node at p with links to tangent nodes where a robot fits."""
        init = self._node(p, None, new=True)
        points, keys = self.walls.tangents(p)
        ok = self.walls.fits(np.repeat(np.array([p]), len(points), axis=0), points)
        for n in np.flatnonzero(ok):
            node = self._node(tuple(points[n]), keys[n])
            self._link(init, node, _dist(p, points[n]))
            for other, d in self._corner_arcs(self.pos[node], keys[n]):
                self._link(other, node, d)
                self._link(node, other, d)
        return init

    def _dijkstra(self, source: int) -> list[float]:
        dist = [math.inf] * len(self.pos)
        dist[source] = 0.0
        heap = [(0.0, source)]
        while heap:
            d, u = heapq.heappop(heap)
            if d > dist[u]:
                continue
            for v, w in self.links[u].items():
                nd = d + w
                if nd < dist[v]:
                    dist[v] = nd
                    heapq.heappush(heap, (nd, v))
        return dist

    def distance(self, start_index: int, x: float, y: float) -> float:
        """Path length (u_m) from grid position ``start_index`` to (x, y); ``inf`` if none fits.

        cbGraph::addFinalPoint then dist: tangent nodes from (x, y) to every convex corner join the
        graph by arcs around their corner; the grid position may also link straight to (x, y).
        Raises IndexError for a start index outside the grid.
        """
        p = (float(x), float(y))
        init = self.inits[start_index]
        reach = self.from_start[start_index]
        best = math.inf
        start = self.starts[start_index]
        if self.walls.fits(np.array([start]), np.array([p]))[0]:
            best = _dist(start, p)
        points, keys = self.walls.tangents(p)
        ok = self.walls.fits(points, np.repeat(np.array([p]), len(points), axis=0))
        for n in np.flatnonzero(ok):
            q = (float(points[n][0]), float(points[n][1]))
            existing = self.index.get(q)
            via = reach[existing] if existing is not None and existing != init else math.inf
            for other, arc in self._corner_arcs(q, keys[n]):
                via = min(via, reach[other] + arc)
            best = min(best, via + _dist(p, q))
        return best

    __call__ = distance
