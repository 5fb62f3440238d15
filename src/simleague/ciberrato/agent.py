"""The sample CiberRato agent: visits every target, signals the return, drives home, ends.

It uses only what a competition robot has (2008 rules: no GPS): obstacle sensors, beacon
sensors, compass, ground sensor and bumper, with their noise and latency.

How it works (all in its own frame: the start pose is (0, 0, 0)):

* **Dead reckoning** with the motor model of the rules (section 7: ``out = (in + out_prev)/2``),
  undoing the translation of a cycle whose bumper was on (the robot did not move), and pulling the
  heading towards the compass reading of ``CompassLatency`` cycles ago.
* **Map**: an occupancy grid (0.25 u_m cells) of the points the IR sensors (1/value) and the
  bumper touched, inflated by the robot radius for planning.
* **Beacons**: bearings taken from different poses are intersected (least squares) to place each
  beacon; until then the robot heads along the last bearing; with no bearing at all it explores
  the nearest places it has not been to.
* **Paths**: shortest paths on the grid (scipy's csgraph Dijkstra), followed with a look-ahead
  point; replanned every few cycles and whenever the map changes in front of the robot.

The decision logic is :class:`Brain` (pure: Observation in, Action out); :func:`main` connects it
to a simulator with :class:`~simleague.ciberrato.client.Client`.
"""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np
from scipy import ndimage
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from .world import Action, Observation

RES = 0.25                  # grid cell, u_m
HALF = 30.0                 # the map covers [-HALF, HALF]^2 around the start
N = int(2 * HALF / RES)
MAX_POWER = 0.15
IR_ANGLES = (0.0, math.radians(60), math.radians(-60), math.pi)


def _wrap(a: float) -> float:
    return (a + math.pi) % (2 * math.pi) - math.pi


def _build_grid_graph():
    """Edge lists (u, v, length) of the 8-connected N x N grid, built once."""
    idx = np.arange(N * N).reshape(N, N)
    us, vs, ls = [], [], []
    for dy, dx in ((0, 1), (1, 0), (1, 1), (1, -1)):
        a = idx[0:N - dy, max(0, -dx):N - max(0, dx)]
        b = idx[dy:N, max(0, dx):N - max(0, -dx)]
        us.append(a.ravel()); vs.append(b.ravel()); ls.append(np.full(a.size, math.hypot(dx, dy) * RES))
    return np.concatenate(us), np.concatenate(vs), np.concatenate(ls)


_EDGES = None


class Brain:
    """Decides one :class:`Action` per Measures. ``Brain(n_beacons, compass_latency=4, beacon_latency=4)``."""

    def __init__(self, n_beacons: int, compass_latency: int = 4, beacon_latency: int = 4,
                 requestable: bool = True, max_requests: int = 4):
        global _EDGES
        if _EDGES is None:
            _EDGES = _build_grid_graph()
        self.n_beacons = n_beacons
        self.compass_latency, self.beacon_latency = compass_latency, beacon_latency
        self.requestable, self.max_requests = requestable, max_requests
        self.x = self.y = self.th = 0.0
        self.out = [0.0, 0.0]
        self.history: list[tuple[float, float, float]] = []
        self.occupied = np.zeros((N, N), dtype=bool)
        self.visited_cells = np.zeros((N // 4, N // 4), dtype=bool)
        self.rays: list[list[tuple[float, float, float]]] = [[] for _ in range(n_beacons)]
        self.bearing: list[tuple[float, float, float] | None] = [None] * n_beacons
        self.visited = [False] * n_beacons
        self.phase = "visit"
        self.led_pulse = 0
        self.path: list[tuple[float, float]] = []
        self.replan_in = 0
        self.time = 0
        self.stuck = 0
        self.backing = 0
        self.ended = False

    # -- estimation ---------------------------------------------------------------------------

    def _cell(self, x: float, y: float) -> tuple[int, int]:
        return (min(N - 1, max(0, int((y + HALF) / RES))), min(N - 1, max(0, int((x + HALF) / RES))))

    def _mark(self, x: float, y: float) -> None:
        r, c = self._cell(x, y)
        if not self.occupied[r, c]:
            self.occupied[r, c] = True

    def _predict(self, cmd: tuple[float, float]) -> None:
        self.out = [(cmd[0] + self.out[0]) / 2, (cmd[1] + self.out[1]) / 2]
        lin = (self.out[0] + self.out[1]) / 2
        self.last_move = (lin * math.cos(self.th), lin * math.sin(self.th))
        self.x += self.last_move[0]
        self.y += self.last_move[1]
        self.th = _wrap(self.th + (self.out[1] - self.out[0]))

    def _correct(self, obs: Observation) -> None:
        if obs.collision and self.history:
            self.x -= self.last_move[0]
            self.y -= self.last_move[1]
            self._mark(self.x + 0.6 * math.cos(self.th) * np.sign(sum(self.out) or 1),
                       self.y + 0.6 * math.sin(self.th) * np.sign(sum(self.out) or 1))
        if obs.compass is not None and len(self.history) > self.compass_latency:
            _, _, th_then = self.history[-1 - self.compass_latency]
            error = _wrap(math.radians(obs.compass) - th_then)
            if abs(error) < math.radians(20):
                self.th = _wrap(self.th + 0.2 * error)
        for sid, value in obs.ir.items():
            if value >= 0.9:
                a = self.th + IR_ANGLES[sid]
                d = 0.5 + 1.0 / value
                self._mark(self.x + d * math.cos(a), self.y + d * math.sin(a))
        for b, value in obs.beacons.items():
            if value is not None and b < self.n_beacons and len(self.history) > self.beacon_latency:
                px, py, pth = self.history[-1 - self.beacon_latency]
                ray = (px, py, pth + math.radians(value))
                self.bearing[b] = ray
                rays = self.rays[b]
                if not rays or math.hypot(px - rays[-1][0], py - rays[-1][1]) > 0.5:
                    rays.append(ray)
                    del rays[:-40]
        r, c = self._cell(self.x, self.y)
        self.visited_cells[max(0, r // 4 - 1):r // 4 + 2, max(0, c // 4 - 1):c // 4 + 2] = True

    def beacon_estimate(self, b: int) -> tuple[float, float] | None:
        """Least-squares intersection of the bearings to beacon ``b``, or None if ill-conditioned."""
        rays = self.rays[b]
        if len(rays) < 3:
            return None
        a = np.zeros((2, 2))
        rhs = np.zeros(2)
        for x, y, t in rays:
            d = np.array([math.cos(t), math.sin(t)])
            m = np.eye(2) - np.outer(d, d)
            a += m
            rhs += m @ np.array([x, y])
        if np.linalg.cond(a) > 50:
            return None
        est = np.linalg.solve(a, rhs)
        return float(est[0]), float(est[1])

    # -- planning -----------------------------------------------------------------------------

    def _plan(self, goal: tuple[float, float] | None) -> None:
        """Shortest path from the robot to ``goal`` (or to the nearest unexplored place)."""
        square = np.ones((3, 3), dtype=bool)
        blocked = ndimage.binary_dilation(self.occupied, square, iterations=2)   # robot radius + margin
        near = ndimage.binary_dilation(self.occupied, square, iterations=3)
        r0, c0 = self._cell(self.x, self.y)
        blocked[max(0, r0 - 1):r0 + 2, max(0, c0 - 1):c0 + 2] = False   # never wall the robot in
        cost = np.where(blocked, 1e4, np.where(near, 3.0, 1.0)).ravel()
        u, v, length = _EDGES
        w = length * (cost[u] + cost[v]) / 2
        graph = csr_matrix((w, (u, v)), shape=(N * N, N * N))
        start = np.ravel_multi_index(self._cell(self.x, self.y), (N, N))
        dist, pred = dijkstra(graph, directed=False, indices=start, return_predecessors=True, limit=400.0)
        if goal is not None:
            target = np.ravel_multi_index(self._cell(*goal), (N, N))
        else:
            coarse = np.repeat(np.repeat(~self.visited_cells, 4, axis=0), 4, axis=1).ravel()
            candidates = np.where(coarse & (cost < 1e4) & (dist < 1e4), dist, np.inf)
            target = int(np.argmin(candidates))
            if not np.isfinite(candidates[target]):
                self.visited_cells[:] = False
                return
        path = []
        node = target
        while node != start and node >= 0 and len(path) < 4 * N:
            r, c = divmod(int(node), N)
            path.append(((c + 0.5) * RES - HALF, (r + 0.5) * RES - HALF))
            node = pred[node]
        path.reverse()
        self.path = path

    def _goal(self) -> tuple[float, float] | None:
        if self.phase == "home":
            return (0.0, 0.0)
        for b in range(self.n_beacons):
            if self.visited[b]:
                continue
            est = self.beacon_estimate(b)
            if est is not None:
                return est
            if self.bearing[b] is not None:
                x, y, t = self.bearing[b]
                return (x + 4 * math.cos(t), y + 4 * math.sin(t))
        return None

    def _steer(self, obs: Observation) -> tuple[float, float]:
        while len(self.path) > 1 and math.hypot(self.path[0][0] - self.x, self.path[0][1] - self.y) < 0.6:
            self.path.pop(0)
        if not self.path:
            return 0.0, 0.0
        tx, ty = self.path[min(2, len(self.path) - 1)]
        err = _wrap(math.atan2(ty - self.y, tx - self.x) - self.th)
        front = obs.ir.get(0, 0.0)
        speed = MAX_POWER * max(0.0, math.cos(err)) ** 4
        if front > 3.0:
            speed = 0.0
        turn = max(-0.12, min(0.12, 0.3 * err))
        return speed - turn / 2, speed + turn / 2

    # -- the cycle ----------------------------------------------------------------------------

    def _requests(self) -> tuple[str, ...]:
        if not self.requestable:
            return ()
        target = next((b for b in range(self.n_beacons) if not self.visited[b]), 0)
        if self.time % 2 == 0:
            wanted = ("IRSensor0", "Compass", "IRSensor1", "IRSensor2")
        else:
            wanted = ("IRSensor0", "Ground", f"Beacon{target}", "Compass")
        return wanted[: self.max_requests]

    def decide(self, obs: Observation) -> Action:
        """The orders for the next cycle, given this cycle's Measures."""
        self.time = obs.time
        start_pressed = obs.buttons[0]
        if not start_pressed or self.ended:
            return Action(0.0, 0.0, requests=self._requests())
        self._correct(obs)
        action = Action(requests=self._requests())
        if obs.ground is not None and 0 <= obs.ground < self.n_beacons and self.phase == "visit":
            g = obs.ground
            if not self.visited[g]:
                self.visited[g] = True
                self.led_pulse = 2
                self.path, self.replan_in = [], 0
            if all(self.visited) and self.led_pulse == 0:
                self.phase = "home"
                action.returning_led = True
                self.path, self.replan_in = [], 0
        if self.led_pulse:
            action.visiting_led = self.led_pulse == 2
            self.led_pulse -= 1
            left = right = 0.0
        elif self.phase == "home" and math.hypot(self.x, self.y) < 0.2:
            left = right = 0.0
            action.end_led = True
            self.ended = True
        else:
            self.stuck = self.stuck + 1 if obs.collision else max(0, self.stuck - 1)
            if self.stuck >= 3 and self.backing == 0:
                self.backing, self.stuck = 8, 0
                self.path, self.replan_in = [], 0
            if self.backing:
                self.backing -= 1
                left, right = (-0.08, -0.03) if self.backing > 3 else (-0.05, 0.05)
            else:
                self.replan_in -= 1
                if self.replan_in <= 0 or not self.path:
                    self._plan(self._goal())
                    self.replan_in = 12
                left, right = self._steer(obs)
        action.left, action.right = left, right
        self.history.append((self.x, self.y, self.th))
        self._predict((left, right))
        return action


def main(argv: list[str] | None = None) -> int:
    """``python -m simleague.ciberrato.agent [--host H] [--port P] [--pos N] [--name NAME]``."""
    from .client import Client, ClientError

    ap = argparse.ArgumentParser(description="simleague's sample CiberRato agent")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=6000)
    ap.add_argument("--pos", type=int, default=0, help="grid position (0: first free)")
    ap.add_argument("--name", default="simleague")
    args = ap.parse_args(argv)
    try:
        with Client(args.name, args.pos, args.host, args.port, timeout=30.0) as robot:
            p = robot.params
            on = lambda key, default: p.get(key, default) == "On"  # noqa: E731
            brain = Brain(int(p.get("NBeacons", 1)), int(p.get("CompassLatency", 4)), int(p.get("BeaconLatency", 4)),
                          requestable=on("ObstacleRequestable", "On"), max_requests=int(p.get("NRequestsPerCycle", 4)))
            while True:
                obs = robot.read()
                robot.send(brain.decide(obs))
                if brain.ended or (not obs.buttons[0] and not obs.buttons[1] and obs.time > 0):
                    return 0
    except ClientError as exc:
        print(f"agent {args.name}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
