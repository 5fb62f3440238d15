"""Compiled loops (numba) for the CiberRato world's geometry: infra-red cones, beacon sight lines,
distances to walls, robot-robot collisions, target areas and the motion of a step.

The same formulas as the numpy versions they replaced, written as loops so a ray stops costing a
numpy call per operation: a step casts 36 infra-red rays and a few beacon rays against ~200-400
wall faces. ``math.atan2`` and ``math.asin`` are the C library's, the functions the original
simulator calls (numpy's vectorised ``arctan2`` and ``arcsin`` differ from them in the last bit for
a few per cent of inputs); ``cos``, ``sin`` and ``hypot`` agree with numpy's. Lengths in u_m,
angles in radians.

``cache=True`` keeps the compiled code beside this file, so only the first run compiles (a few
seconds; :func:`warm_up` does it before a trial's first cycle).
"""

from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True)
def _first_face(ox, oy, dx, dy, ax, ay, ex, ey, best, keep):
    """Distance along one ray to the first face (with ``keep`` true) nearer than ``best``, else
    ``best``."""
    for s in range(ax.shape[0]):
        if not keep[s]:
            continue
        denom = dx * ey[s] - dy * ex[s]
        if denom == 0.0:
            continue
        rx = ax[s] - ox
        ry = ay[s] - oy
        num = rx * ey[s] - ry * ex[s]
        if (num < 0.0) != (denom < 0.0) and num != 0.0:
            continue  # behind the origin (t < 0): no division needed
        t = num / denom
        if t < 0.0 or t >= best:
            continue
        u = (rx * dy - ry * dx) / denom
        if 0.0 <= u <= 1.0:
            best = t
    return best


@numba.njit(cache=True)
def _nearest_corner(ox, oy, angle, cx, cy, half_aperture, best):
    """Distance to the nearest corner within ±half_aperture of ``angle`` nearer than ``best``."""
    for c in range(cx.shape[0]):
        rx = cx[c] - ox
        ry = cy[c] - oy
        if rx * rx + ry * ry > best * best * 1.000001:
            continue  # clearly no nearer: skip the square root and the bearing
        d = math.hypot(rx, ry)
        if d >= best:
            continue
        delta = abs(math.atan2(ry, rx) - angle)
        if delta > math.pi:
            delta = 2 * math.pi - delta
        if delta <= half_aperture:
            best = d
    return best


@numba.njit(cache=True)
def _wrap(angle):
    """One turn into [-π, π], as the original wraps headings and bearings after each update."""
    if angle > math.pi:
        angle -= 2 * math.pi
    if angle < -math.pi:
        angle += 2 * math.pi
    return angle


@numba.njit(cache=True)
def ir_distances(x, y, theta, ir_angles, present, radius, half_aperture, ax, ay, ex, ey, cx, cy, keep):
    """Distance (N, K) seen by each obstacle sensor (angles ir_angles (N, K) on the rim of radius
    ``radius``) of each present robot (x, y, theta: (N,)): the nearest of the faces along the axis
    and the two cone edges, the corners inside the cone and the other present robots' discs (see
    ``sensors.ir_distances``); inf for absent robots and where nothing is seen."""
    n, k = ir_angles.shape
    out = np.full((n, k), np.inf)
    sx = np.empty((n, k))
    sy = np.empty((n, k))
    dirs = np.empty((n, k))
    for i in range(n):
        for j in range(k):
            d = _wrap(theta[i] + ir_angles[i, j])
            dirs[i, j] = d
            sx[i, j] = x[i] + radius * math.cos(d)
            sy[i, j] = y[i] + radius * math.sin(d)
    for i in range(n):
        if not present[i]:
            continue
        for j in range(k):
            d = dirs[i, j]
            best = np.inf
            for a in (d, d + half_aperture, d - half_aperture):
                best = _first_face(sx[i, j], sy[i, j], math.cos(a), math.sin(a), ax, ay, ex, ey, best, keep)
            out[i, j] = _nearest_corner(sx[i, j], sy[i, j], d, cx, cy, half_aperture, best)
    others = robot_distances(sx, sy, dirs, x, y, present, radius, half_aperture)
    for i in range(n):
        for j in range(k):
            if others[i, j] < out[i, j]:
                out[i, j] = others[i, j]
    return out


@numba.njit(cache=True)
def beacon_values_deg(x, y, theta, bx, by, bh, noise, aperture, ax, ay, ex, ey, face_h):
    """Beacon sensor readings (N, B) in integer degrees, NaN when not visible, for beacons at
    (bx, by) of height bh (B,) with noise (N, B) (see ``sensors.beacon_values_deg``); a face hides
    a beacon when its wall (face_h) is at least as high."""
    n, nb = x.shape[0], bx.shape[0]
    out = np.full((n, nb), np.nan)
    keep = np.empty(ax.shape[0], dtype=np.bool_)
    for b in range(nb):
        for s in range(ax.shape[0]):
            keep[s] = face_h[s] >= bh[b]
        for i in range(n):
            dx = bx[b] - x[i]
            dy = by[b] - y[i]
            if dx == 0:
                direction = math.pi / 2 if dy > 0 else -math.pi / 2
            else:
                direction = math.atan2(dy, dx)
            delta = _wrap(direction - theta[i])
            dist = math.hypot(dx, dy)
            value = _wrap(delta + noise[i, b])
            if abs(value) > aperture:
                continue
            shadow = _first_face(x[i], y[i], math.cos(direction), math.sin(direction), ax, ay, ex, ey,
                                 np.inf, keep)
            if shadow >= dist:
                out[i, b] = math.floor(value * (180.0 / math.pi) + 0.5)
    return out


@numba.njit(cache=True)
def target_areas(x, y, tx, ty, limit):
    """(first, last) (N,) indices of the target areas (centres tx, ty; ``limit`` = radius minus the
    robot's radius, (T,)) that hold each robot entirely, -1 if none."""
    n = x.shape[0]
    first = np.full(n, -1)
    last = np.full(n, -1)
    for i in range(n):
        for t in range(tx.shape[0]):
            if math.hypot(x[i] - tx[t], y[i] - ty[t]) <= limit[t]:
                if first[i] < 0:
                    first[i] = t
                last[i] = t
    return first, last


@numba.njit(cache=True)
def robot_collisions(nx, ny, x, y, theta, vel, active, radius):
    """Robots (N,) whose next centres (nx, ny) are closer than two radii to another active robot's
    and that move towards its current centre (original ``isMovingTowards``; see
    ``World._robot_collisions``)."""
    n = x.shape[0]
    hit = np.zeros(n, dtype=np.bool_)
    for a in range(n):
        if not active[a] or vel[a] == 0:
            continue
        for b in range(n):
            if b == a or not active[b]:
                continue
            if not math.hypot(nx[a] - nx[b], ny[a] - ny[b]) < 2 * radius:
                continue
            if x[a] == x[b] and y[a] == y[b]:
                continue
            alpha = abs(math.atan2(y[b] - y[a], x[b] - x[a]) - theta[a])
            if vel[a] > 0:
                towards = alpha < math.pi / 2 or alpha > 3 * math.pi / 2
            else:
                towards = math.pi / 2 < alpha < 3 * math.pi / 2
            if towards:
                hit[a] = True
                break
    return hit


@numba.njit(cache=True)
def ir_readings(distance, noise, ir_max):
    """(N, 4) obstacle readings: ``floor(10·(1/d + noise) + 0.5) / 10``, ``ir_max`` for 1/d when
    d <= 0.01 (so 0 + noise when nothing is seen, d = inf)."""
    out = np.empty(distance.shape)
    for i in range(distance.shape[0]):
        for s in range(distance.shape[1]):
            d = distance[i, s]
            ideal = 1.0 / d if d > 0.01 else ir_max
            out[i, s] = math.floor(10.0 * (ideal + noise[i, s]) + 0.5) / 10.0
    return out


@numba.njit(cache=True)
def compass_readings(theta, noise):
    """(N,) compass readings in integer degrees: heading + noise wrapped by one turn to [-pi, pi],
    then ``floor(degrees + 0.5)`` (degrees as numpy's: times 180/pi)."""
    out = np.empty(theta.shape[0])
    for i in range(theta.shape[0]):
        out[i] = math.floor(_wrap(theta[i] + noise[i]) * (180.0 / math.pi) + 0.5)
    return out


@numba.njit(cache=True)
def wall_distance(px, py, ax, ay, ex, ey):
    """Distance (P,) from each point (P,) to the nearest face (S,)."""
    out = np.empty(px.shape[0])
    for p in range(px.shape[0]):
        best = np.inf
        for s in range(ax.shape[0]):
            rx = px[p] - ax[s]
            ry = py[p] - ay[s]
            t = (rx * ex[s] + ry * ey[s]) / (ex[s] * ex[s] + ey[s] * ey[s])
            t = min(max(t, 0.0), 1.0)
            nx = rx - t * ex[s]
            ny = ry - t * ey[s]
            d2 = nx * nx + ny * ny
            if d2 < best:
                best = d2
        out[p] = math.sqrt(best)
    return out


@numba.njit(cache=True)
def robot_distances(sx, sy, sensor_dir, x, y, present, radius, half_aperture):
    """(N, K) distance from each sensor (N, K) to the nearest other present robot's disc (M,)
    within its cone, inf if none: the distance to the disc when its centre is inside the cone, else
    to where the cone's edge meets it, if it does (the original's formula)."""
    n, k = sx.shape
    out = np.full((n, k), np.inf)
    for i in range(n):
        for j in range(k):
            best = np.inf
            for m in range(x.shape[0]):
                if m == i or not present[m]:
                    continue
                dx = x[m] - sx[i, j]
                dy = y[m] - sy[i, j]
                big_d = math.hypot(dx, dy)
                delta = abs(sensor_dir[i, j] - math.atan2(dy, dx))
                if delta > math.pi:
                    delta = 2 * math.pi - delta
                if delta <= half_aperture:
                    dist = big_d - radius
                else:
                    margin = math.asin(min(radius / big_d, 1.0)) if big_d > 0 else math.pi / 2
                    if delta > half_aperture + margin:
                        continue
                    psi = delta - half_aperture
                    l2 = big_d * math.sin(psi)
                    dist = big_d * math.cos(psi) - math.sqrt(max(radius * radius - l2 * l2, 0.0))
                if dist < best:
                    best = dist
            out[i, j] = best
    return out


@numba.njit(cache=True)
def motion(applied, x, y, theta, diameter):
    """Next poses of a differential drive (rules section 7): applied (N, 2) left/right powers,
    poses (N,) -> (vel, nx, ny, ntheta) (N,); the heading wrapped by one turn into [-π, π]."""
    n = x.shape[0]
    vel = np.empty(n)
    nx = np.empty(n)
    ny = np.empty(n)
    nt = np.empty(n)
    for i in range(n):
        vel[i] = (applied[i, 0] + applied[i, 1]) / 2.0
        rot = (applied[i, 1] - applied[i, 0]) / diameter
        nx[i] = x[i] + vel[i] * math.cos(theta[i])
        ny[i] = y[i] + vel[i] * math.sin(theta[i])
        nt[i] = _wrap(theta[i] + rot)
    return vel, nx, ny, nt


_warm = False


def warm_up() -> None:
    """Compile (or load from the cache) every kernel now, on a one-wall lab and two robots, so that
    the first cycles of a trial do not stall for the compilation (seconds without a cache)."""
    global _warm
    if _warm:
        return
    f = np.array([0.0, 1.0])
    faces = (np.array([0.0]), np.array([0.0]), np.array([1.0]), np.array([0.0]))
    flags = np.ones(2, dtype=np.bool_)
    two_d = np.zeros((2, 4))
    ir_distances(f, f, f, two_d, flags, 0.5, 0.5, *faces, f, f, flags[:1].copy())
    robot_distances(two_d, two_d, two_d, f, f, flags, 0.5, 0.5)
    wall_distance(f, f, *faces)
    ir_readings(two_d, two_d, 100.0)
    compass_readings(f, f)
    beacon_values_deg(f, f, f, f, f, f, np.zeros((2, 2)), 1.0, *faces, np.array([1.0]))
    target_areas(f, f, f, f, f)
    robot_collisions(f, f, f, f, f, f, flags, 0.5)
    motion(np.zeros((2, 2)), f, f, f, 1.0)
    _warm = True
