"""Self-localisation of the sample agent from its own perception: the ``See`` perceptor's corner
flags and goal posts (their places on the original's default field: 30 m x 20 m, goals 2.1 m wide
with 0.8 m posts; specs/simspark.md "See"), the head's joint angles, and the torso's gyro between
two sightings (a robot sees every third cycle).

Each sighting of two or more landmarks gives a pose by the least-squares rigid fit of their
horizontal positions as seen to where they stand (the 2-D case of K. S. Arun, T. S. Huang,
S. D. Blostein, "Least-squares fitting of two 3-D point sets", IEEE PAMI 1987); with one landmark
the heading is carried over from the gyro and only the position is fitted. Estimates are blended
into the running pose (:data:`BLEND`), so that one noisy sighting moves it a little.

Frames: the *field* frame is the original's (x towards the right team's goal, y to the left as
seen from the left team, metres, heading in radians from +x counter-clockwise); the *team* frame
turns it so that x points at the opponent's goal (the right team's frame is the field frame turned
by 180 degrees). The robot's own frame here is x forward, y left, z up. Standard library only,
as the sample agent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..angles import wrap

#: the landmarks on the original's default field (FieldLength 30, FieldWidth 20, GoalWidth 2.1,
#: GoalHeight 0.8): corner flags on the ground, the goal posts' tops
LANDMARKS = {"F1L": (-15.0, 10.0), "F2L": (-15.0, -10.0), "F1R": (15.0, 10.0), "F2R": (15.0, -10.0),
             "G1L": (-15.0, 1.05), "G2L": (-15.0, -1.05), "G1R": (15.0, 1.05), "G2R": (15.0, -1.05)}
BLEND = 0.3                   # share of a new sighting's estimate in the running pose
AFTER_BEAM = 6                # cycles after a beam whose sightings may still be from before it
MISFIT = 0.5                  # m: a fit whose landmarks lie further than this from where they stand is dropped
CYCLE = 0.02                  # s between perceptions
OTHERS_FORGOTTEN = 0.5        # s after which the robots last seen are no longer believed where they were


def in_robot_frame(pol: tuple[float, float, float], pan: float, tilt: float) -> tuple[float, float, float]:
    """Where an object seen at ``pol`` (distance m, horizontal and vertical angle degrees, as the
    ``See`` perceptor gives it) lies from the camera, in the robot's frame (m: x forward, y left,
    z up), with the head turned by ``pan`` (hj1, degrees, positive to the left) and ``tilt`` (hj2,
    degrees, positive up); the torso taken upright."""
    d, h, v = pol
    h, v, pan, tilt = (math.radians(a) for a in (h, v, pan, tilt))
    x, y, z = d * math.cos(v) * math.cos(h), d * math.cos(v) * math.sin(h), d * math.sin(v)
    x, z = x * math.cos(tilt) - z * math.sin(tilt), x * math.sin(tilt) + z * math.cos(tilt)
    return x * math.cos(pan) - y * math.sin(pan), x * math.sin(pan) + y * math.cos(pan), z


def fit_pose(pairs: list[tuple[tuple[float, float], tuple[float, float]]],
             heading: float | None = None) -> tuple[float, float, float] | None:
    """The pose (x m, y m, heading rad) that best maps each pair's seen point (robot frame, m) onto
    its known point (field frame, m), by least squares; with ``heading`` given, only the position
    is fitted. None when there are too few pairs (two without a heading, one with) or when the
    landmarks do not fit where they stand (seen further apart, or fitted further off, than
    :data:`MISFIT` plus a tenth of their distance: a misread sighting)."""
    if len(pairs) < (1 if heading is not None else 2):
        return None
    if heading is None and len(pairs) == 2:           # two landmarks: seen as far apart as they stand?
        (p, q), (r, t) = pairs
        if abs(math.dist(p, r) - math.dist(q, t)) > MISFIT + 0.1 * math.dist(q, t):
            return None
    n = len(pairs)
    sx, sy = sum(p[0] for p, _ in pairs) / n, sum(p[1] for p, _ in pairs) / n
    fx, fy = sum(q[0] for _, q in pairs) / n, sum(q[1] for _, q in pairs) / n
    if heading is None:
        dot = sum((p[0] - sx) * (q[0] - fx) + (p[1] - sy) * (q[1] - fy) for p, q in pairs)
        cross = sum((p[0] - sx) * (q[1] - fy) - (p[1] - sy) * (q[0] - fx) for p, q in pairs)
        heading = math.atan2(cross, dot)
    c, s = math.cos(heading), math.sin(heading)
    pose = fx - (c * sx - s * sy), fy - (s * sx + c * sy), heading
    if len(pairs) > 2 and max(math.dist(to_field(pose, p), q) for p, q in pairs) > MISFIT + 0.1 * max(
            math.dist(to_field(pose, p), pose[:2]) for p, _ in pairs):
        return None
    return pose


def _middle(points: list[tuple[float, float, float]]) -> tuple[float, float]:
    return sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points)


def to_field(pose: tuple[float, float, float], local: tuple[float, float]) -> tuple[float, float]:
    """A point of the robot's frame (m) in the frame ``pose`` (x, y, heading) is given in."""
    x, y, a = pose
    return x + local[0] * math.cos(a) - local[1] * math.sin(a), y + local[0] * math.sin(a) + local[1] * math.cos(a)


def to_robot(pose: tuple[float, float, float], point: tuple[float, float]) -> tuple[float, float]:
    """A point (m) of the frame ``pose`` is given in, in the robot's frame (x forward, y left)."""
    x, y, a = pose
    dx, dy = point[0] - x, point[1] - y
    return dx * math.cos(a) + dy * math.sin(a), -dx * math.sin(a) + dy * math.cos(a)


@dataclass
class Estimate:
    """What a robot believes, in its team's frame: its ``pose`` (x m, y m, heading rad; None until
    it has seen two landmarks), the ``ball`` (x, y m; None until seen) and the time ``ball_seen``
    (s, server time), and the ball as last seen from the robot (``ball_near``: x forward, y left, m; kept apart from the pose,
    whose errors it does not share); the other robots as last seen from the robot (``others``:
    team name, x forward, y left, m, each the mean of the body parts seen; empty once
    :data:`OTHERS_FORGOTTEN` s have passed since the last sighting)."""

    pose: tuple[float, float, float] | None = None
    ball: tuple[float, float] | None = None
    ball_seen: float = -math.inf
    ball_near: tuple[float, float] | None = None    # the ball where last seen, robot frame (m)
    others: tuple[tuple[str, float, float], ...] = ()
    others_seen: float = -math.inf


class Localiser:
    """The running estimate of one robot: ``Localiser(side, me)`` (``"left"``/``"right"``, the
    team's side; ``me``: the robot's own team name and number, whose body parts ``See`` reports
    as any robot's when they are in view, its arms below a lowered head, and which are left out
    of :attr:`Estimate.others`); :meth:`update` with each perception; :attr:`estimate` in the
    team's frame."""

    def __init__(self, side: str, me: tuple[str, int] | None = None):
        self.flip = side == "right"
        self.me = me
        self.estimate = Estimate()
        self._blind = 0                # cycles whose sightings are not used (after a beam)

    def _team(self, x: float, y: float) -> tuple[float, float]:
        return (-x, -y) if self.flip else (x, y)

    def moved(self, beam: tuple[float, float, float]) -> None:
        """The robot was beamed to ``beam`` (x, y m, heading degrees, team frame)."""
        self.estimate.pose = (beam[0], beam[1], math.radians(beam[2]))
        self._blind = AFTER_BEAM

    def update(self, time: float, gyro_z: float, seen, pan: float, tilt: float) -> None:
        """One perception: ``time`` (s), the torso's turn rate ``gyro_z`` (deg/s), the ``See``
        perceptor (a :class:`~simleague.simspark.client.Seen`, None between sightings) and the
        head's angles (degrees). Give no ``seen`` while the robot is not upright: the camera's
        tilt is then unknown here."""
        e = self.estimate
        if e.pose is not None:
            e.pose = (e.pose[0], e.pose[1], wrap(e.pose[2] + math.radians(gyro_z) * CYCLE))
        if time - e.others_seen > OTHERS_FORGOTTEN:
            e.others = ()
        if self._blind > 0:
            self._blind -= 1
            return
        if seen is None:
            return
        pairs = []
        for name, pol in seen.landmarks.items():
            if name in LANDMARKS:
                x, y, _ = in_robot_frame(pol, pan, tilt)
                pairs.append(((x, y), self._team(*LANDMARKS[name])))
        fitted = fit_pose(pairs) or fit_pose(pairs, e.pose[2] if e.pose is not None else None)
        if fitted is not None:
            if e.pose is None:
                e.pose = fitted
            else:
                turn = wrap(fitted[2] - e.pose[2])
                e.pose = (e.pose[0] + BLEND * (fitted[0] - e.pose[0]), e.pose[1] + BLEND * (fitted[1] - e.pose[1]),
                          wrap(e.pose[2] + BLEND * turn))
        e.others, e.others_seen = tuple((team, *_middle([in_robot_frame(pol, pan, tilt) for pol in parts.values()]))
                                        for team, unum, parts in seen.players
                                        if parts and (team, unum) != self.me), time
        if seen.ball is not None:
            x, y, _ = in_robot_frame(seen.ball, pan, tilt)
            e.ball_near = (x, y)
            if e.pose is not None:
                e.ball, e.ball_seen = to_field(e.pose, (x, y)), time
        if e.pose is None:
            return
