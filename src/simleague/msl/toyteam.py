"""A toy team simulator and the info exchanger that bridges it to the middleware (thesis 6.1).

:class:`ToySimulator` stands in for a team's own simulator: five robots and the team's own ball on
an MSL field (18 x 12 m, own goal at negative y), stepped on its own simulation clock. One robot
chases the ball, engages it and shoots it towards the opponent's goal, so ball possession (and
with it the middleware's ball arbitration) changes during a match.

:class:`InfoExchanger` is the part a real team writes (Tech United's reads and writes their RTDB):
every ``period`` seconds of simulation time it alternately sends the simulator's state or asks for
the opponent, as thesis 6.2 (50 Hz each, alternating every 10 ms), and hands the answer back to the
simulator, which resets its own ball to the agreed one; or, over a slow network, it subscribes to
the opponent and never waits for an answer. The simulator obeys the referee's commands when its
simulation time reaches theirs: it stops on ``STOP``, lines up with the ball on the centre spot on
``KICKOFF`` and plays on ``START``.

``run_team`` is the process behind ``simleague msl team``: the simulator advances ``dt`` of
simulation time per ``dt / speed`` of wall time; pausing the process stops its clock, and a
resumed process carries on from where it was without catching up.
"""

from __future__ import annotations

import json
import sys
import math
import signal
import time

import numpy as np

from .client import ConnectionLost, MiddlewareError, TeamClient
from .buffer import Snapshot
from .messages import Reply, Robot

FIELD_X, FIELD_Y = 6.0, 9.0  # half width and half length (m)
GOAL_X, GOAL_DEPTH = 1.0, 0.6  # half the goal mouth and the goal's depth (m)
ENGAGE = 0.3  # a robot this close to the ball (m) engages it
CATCH_SPEED = 3.0  # ... when the ball is slower than this (m/s)
#: Where the five robots stand at a kick-off (x, y in the team's frame, own half).
LINE_UP = ((0.0, -8.5), (-3.0, -4.0), (3.0, -4.0), (-1.5, -2.5), (1.5, -2.5))


class ToySimulator:
    """Five robots and a ball in this team's frame. ``robots`` is (5, 6) [x, y, θ, ẋ, ẏ, θ̇],
    ``ball`` is (6,) [x, y, z, ẋ, ẏ, ż]; ``t`` is the simulation time (s)."""

    def __init__(self, seed: int = 0, dt: float = 0.01):
        self.rng = np.random.default_rng(seed)
        self.dt = dt
        self.t = 0.0
        self.robots = np.zeros((5, 6))
        self.robots[:, 0] = [-4.0, -2.0, 0.0, 2.0, 4.0]
        self.robots[:, 1] = [-7.0, -4.0, -1.5, -4.0, -2.0]
        self.phase = self.rng.uniform(0, 2 * math.pi, 5)
        self.ball = np.zeros(6)
        self.engaged = -1
        self.hold = 0.0
        self.free_at = 0.0                   # no engaging the ball before this time (just shot it)
        self.contested = False               # an opponent holds the ball: ours waits its turn
        self.opponents: list[Robot] = []
        self.running = True
        self.score = 0

    def obey(self, command: str, target: str) -> None:
        """A referee command (RefBox name; ``target`` "us", "them" or "both"): STOP, HALF_TIME,
        END_GAME and GAMEOVER stop play; KICKOFF lines the robots up with the ball on the centre spot
        (robot 0 beside it when the kick-off is ours); START plays on; GOAL for us counts."""
        if command in ("STOP", "HALF_TIME", "END_GAME", "GAMEOVER", "PARK"):
            self.running = False
            self.robots[:, 3:6] = 0.0
            self.ball[3:6] = 0.0
        elif command == "KICKOFF":
            self.running = False
            self.robots[:, 0:2] = LINE_UP
            self.robots[:, 3:6] = 0.0
            self.robots[0, 0:2] = (0.0, -0.6) if target == "us" else (0.0, -2.2)
            self.ball[:] = 0.0
            self.engaged, self.hold = -1, 0.0
        elif command == "START":
            self.running = True
        elif command == "GOAL" and target == "us":
            self.score += 1

    def step(self) -> None:
        """Advance ``dt``: robots 1-4 move on ellipses, robot 0 chases, dribbles and shoots the ball
        (while play runs)."""
        dt = self.dt
        self.t = round(self.t + dt, 9)
        if not self.running:
            return
        for i in range(1, 5):
            w = 0.4 + 0.1 * i
            a = self.phase[i] + w * self.t
            vx, vy = -1.5 * w * math.sin(a), 2.0 * w * math.cos(a)
            self.robots[i, 3:6] = vx, vy, 0.5
            self.robots[i, 0] += vx * dt
            self.robots[i, 1] += vy * dt
            self.robots[i, 2] = (self.robots[i, 2] + 0.5 * dt) % (2 * math.pi)
        chaser, ball = self.robots[0], self.ball
        if self.engaged == 0:
            self.hold += dt
            if self.hold > 1.0:  # shoot towards the opponent's goal (positive y)
                self.engaged, self.hold, self.free_at = -1, 0.0, self.t + 0.5
                ball[3:5] = (-0.3 * ball[0] + self.rng.normal(0.0, 0.4), 8.0)
            else:
                ball[:2] = chaser[:2] + 0.25 * np.array([math.cos(chaser[2]), math.sin(chaser[2])])
                ball[3:5] = chaser[3:5]
        dx, dy = ball[0] - chaser[0], ball[1] - chaser[1]
        dist = math.hypot(dx, dy)
        speed = min(2.0, dist * 2.0)
        chaser[2] = math.atan2(dy, dx) % (2 * math.pi)
        chaser[3:5] = (speed * dx / dist, speed * dy / dist) if dist > 1e-9 else (0.0, 0.0)
        chaser[0:2] += chaser[3:5] * dt
        if self.engaged != 0:
            ball[0:2] += ball[3:5] * dt
            ball[3:5] *= max(0.0, 1.0 - 0.5 * dt)  # rolling friction
            in_mouth = abs(ball[0]) < GOAL_X
            for axis, half in ((0, FIELD_X), (1, FIELD_Y + GOAL_DEPTH if in_mouth else FIELD_Y)):
                if abs(ball[axis]) > half:  # stopped at the line, or by the goal's net
                    ball[axis] = math.copysign(half, ball[axis])
                    ball[axis + 3] = 0.0
            slow = math.hypot(ball[3], ball[4]) < CATCH_SPEED        # a shot passes a robot by
            if dist < ENGAGE and self.t >= self.free_at and not self.contested and slow:
                self.engaged, self.hold = 0, 0.0

    def snapshot(self) -> Snapshot:
        """The state now, as the middleware stores it (its messages round as thesis 3.1 asks)."""
        robots = tuple(tuple(row) for row in self.robots.tolist())
        return Snapshot(self.t, tuple(range(1, len(robots) + 1)), robots,
                        tuple(self.engaged == i for i in range(len(robots))), tuple(self.ball.tolist()))

    def apply(self, reply: Reply, side: str) -> None:
        """Take the opponent's robots; when the agreed ball is the opponent's, reset ours to it
        (thesis 4.1.2 assumes every team can). While an opponent holds the ball ours does not take
        it (two robots holding one ball would each dribble their own copy)."""
        self.opponents = reply.robots
        self.contested = any(r.ballEngaged for r in reply.robots)
        if reply.ballFrom != side and self.engaged != 0 and self.running:
            b = reply.balls[0]
            self.ball[:] = b.position + b.velocity


class InfoExchanger:
    """Bridge a simulator to the middleware. ``mode`` "request": every ``period`` seconds of
    simulation time send the state or request the opponent, alternately, waiting for the answer
    (thesis 6.2: 10 ms, i.e. 50 Hz each); "subscribe": send the state every ``period`` and have
    the opponent pushed every second period, never waiting. Referee commands are obeyed when the
    simulation reaches their time; ``applied`` lists (seq, command, target, targetTeam, t, the simulation
    time it was carried out at)."""

    def __init__(self, simulator: ToySimulator, client: TeamClient, side: str, period: float = 0.01,
                 mode: str = "subscribe"):
        if mode not in ("request", "subscribe"):
            raise ValueError(f"mode must be request or subscribe, not {mode!r}")
        self.sim, self.client, self.side, self.period, self.mode = simulator, client, side, period, mode
        self.next = 0.0
        self.send_next = True
        self.unanswered = 0
        self.applied: list[tuple] = []
        self.last_exchange = time.monotonic()
        if mode == "subscribe":
            client.subscribe(2 * period)

    def tick(self) -> None:
        if self.mode == "subscribe" or self.sim.t + 1e-9 >= self.next:
            self.client.poll()
        for command in self.client.due(self.sim.t):
            self.sim.obey(command.command, command.target)
            self.applied.append((command.seq, command.command, command.target, command.targetTeam, command.t,
                                 self.sim.t))
        if self.sim.t + 1e-9 < self.next:
            return
        self.next = self.sim.t + self.period
        if self.mode == "subscribe":
            snap = self.sim.snapshot()
            self.client.send_state(snap.t, snap.robot_messages(), snap.ball_message())
            if self.client.latest is not None:
                self.sim.apply(self.client.latest, self.side)
        elif self.send_next:
            snap = self.sim.snapshot()
            self.client.send_state(snap.t, snap.robot_messages(), snap.ball_message())
        else:
            try:
                self.sim.apply(self.client.request(self.sim.t), self.side)
            except MiddlewareError:
                self.unanswered += 1  # no opponent state yet: keep playing without it
        self.send_next = not self.send_next
        self.last_exchange = time.monotonic()

    @property
    def settled(self) -> bool:
        """The match is over and every command received has been carried out."""
        return self.client.ended is not None and not self.client.commands


def _percentiles(values) -> dict:
    if not len(values):
        return {"n": 0}
    a = np.asarray(values) * 1000.0
    return {"n": int(a.size), "p50_ms": round(float(np.percentile(a, 50)), 3),
            "p99_ms": round(float(np.percentile(a, 99)), 3), "max_ms": round(float(a.max()), 3)}


def run_team(name: str, side: str, host: str, port: int, speed: float, seconds: float, seed: int,
             dt: float = 0.01, mode: str = "subscribe", token: str = "", tls=None) -> int:
    """The ``simleague msl team`` process: play until ``seconds`` of wall time, the end of the
    match or SIGTERM, then print one JSON line of statistics (simulation time reached, request round
    trips, the referee commands carried out and when, the end of the match)."""
    def stop(*_):
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    sim = ToySimulator(seed, dt)
    client = TeamClient(name, side, host, port, reconnect=30.0, token=token, tls=tls)
    began = time.monotonic()
    exchanger = None
    try:
        client.connect(lambda what: print(f"team {name}: waiting for {what}", file=sys.stderr))
        exchanger = InfoExchanger(sim, client, side, period=dt, mode=mode)
        began = due = time.monotonic()
        while due - began < seconds and not exchanger.settled:
            sim.step()
            try:
                exchanger.tick()
            except ConnectionLost:
                if client.ended is None:
                    raise
                break                                    # the match is over and the middleware gone
            due += dt / speed
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            elif delay < -0.05:  # we were paused (or starved): carry on from now, do not catch up
                due = time.monotonic()
    finally:
        stats = {"team": name, "side": side, "mode": mode, "simTime": round(sim.t, 3),
                 "wall": round((exchanger.last_exchange if exchanger else time.monotonic()) - began, 3),
                 "speed": speed, "reconnects": client.reconnects,
                 "unanswered": exchanger.unanswered if exchanger else 0,
                 "stateErrors": len(client.errors), "latency": _percentiles(client.latencies),
                 "applied": exchanger.applied if exchanger else [], "score": sim.score,
                 "end": client.ended.reason if client.ended else None}
        print(json.dumps(stats), flush=True)
        client.close()
    return 0

