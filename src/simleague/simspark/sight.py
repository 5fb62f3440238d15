"""The ``See`` perceptor of SimSpark agents: what each robot's camera sees this cycle, as text
(specs/simspark.md "See"; the geometry and noise are :mod:`simleague.soccer.vision`'s).

A robot sees every third cycle from its first (naoneckhead.rsg ``setInterval 3``): the goal posts'
tops and corner flags, the ball, the robots that belong to a team, by body part (head, lower arms,
feet; its own head never, being at the camera), and the field lines. The original orders the
objects by where they lie in its memory; here flags come first, then the ball, the players and
the lines. Numbers have two decimals.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..soccer import vision
from ..soccer.world import SoccerWorld
from . import perceptors as P

SEE_EVERY = 3                         # cycles between See perceptors (naoneckhead.rsg setInterval)


@dataclass(frozen=True)
class Viewer:
    """A robot that sees this cycle: who to answer (``key``), its world robot number, its
    camera's calibration error (m, shape (3,)) and its noise stream."""

    key: int
    robot: int
    calibration: np.ndarray
    rng: np.random.Generator


@dataclass(frozen=True)
class Player:
    """A robot others see as a player: its world robot number, team name and number."""

    robot: int
    team: str
    unum: int


class Sight:
    """The landmarks of a field and the noise of the cameras; :meth:`see` gives the ``See`` text
    of several robots at once. ``landmarks``: (name, (x, y, z) m) pairs; ``lines`` shape (n, 2, 3)."""

    def __init__(self, landmarks: list[tuple[str, tuple[float, float, float]]], lines: np.ndarray,
                 noise: vision.VisionNoise):
        self.names = [name for name, _ in landmarks]
        self.points = np.array([p for _, p in landmarks], dtype=float)
        self.lines = lines
        self.noise = noise

    def see(self, world: SoccerWorld, viewers: list[Viewer], players: list[Player]) -> dict[int, str]:
        """The ``See`` text of each viewer (by key), computed for all of them together."""
        if not viewers:
            return {}
        heads = [world.pose(v.robot, "head") for v in viewers]
        eyes, rotations = np.array([h[0] for h in heads]), np.array([h[1] for h in heads])
        errors = np.array([v.calibration for v in viewers])
        labels: list = [*self.names, "B"]
        points = [self.points, world.ball()[0][None, :]]
        for player in players:
            positions, _ = world.poses(player.robot)
            parts = [(p.seen, i) for i, p in enumerate(world.parts(player.robot)) if p.seen]
            labels += [(player, name) for name, _ in parts]
            points.append(positions[[i for _, i in parts]])
        pols, visible = vision.see_points(np.vstack(points), eyes, rotations, errors)
        segments = vision.see_lines(self.lines, eyes, rotations, errors)
        return {viewer.key: self._text(viewer, [label for label, m in zip(labels, mask) if m], pol[mask], ends)
                for viewer, pol, mask, ends in zip(viewers, pols, visible, segments)}

    def _text(self, viewer: Viewer, seen: list, pol: np.ndarray, ends: np.ndarray) -> str:
        """One viewer's ``See``: the labels it sees with their polar coordinates (k, 3) and the
        ends of the segments it sees (j, 2, 3), noise added."""
        noisy = self.noise.apply(np.vstack([pol, ends.reshape(-1, 3)]), viewer.rng)
        pol, ends = noisy[:len(pol)], noisy[len(pol):]
        items, bodies = [], {}
        for label, value in zip(seen, pol):
            if isinstance(label, str):
                items.append(f"({label} {P.pol(value)})")
            else:
                bodies.setdefault(label[0], []).append(f"({label[1]} {P.pol(value)})")
        for player, body in bodies.items():
            items.append(f"(P (team {player.team}) (id {player.unum}) {' '.join(body)})")
        for start, end in zip(ends[0::2], ends[1::2]):
            items.append(f"(L {P.pol(start)} {P.pol(end)})")
        return "(See " + " ".join(items) + ")"
