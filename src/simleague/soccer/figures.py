"""What each team did in a soccer match, gathered step by step from the world's state (issue 32,
part 4): per team its ``falls`` (the torso's up axis dropping below 0.5 of vertical, counted again
only after it stood above 0.8), ``walked`` (m: the torsos' paths over the ground, sampled once a
second, moves by hand left out), ``contacts`` (times one of its robots started touching the ball);
and ``ball_travel`` (m: the ball's path over the ground, the referee's placements left out).
World-agnostic: each gateway's match hands over what its world shows (SimSpark's
:mod:`simleague.simspark.match`, the humanoid API's :mod:`simleague.vhsc.match`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass

FALLEN, RISEN = 0.5, 0.8            # the torso's up axis' height (z component) of a fall and a recovery
MOVED_BY_HAND = 1.5                 # m: a robot moved further in a second was put there, not walking
BALL_PLACED = 1.0                   # m: a ball moved further in a step was put there by the referee


@dataclass(frozen=True)
class RobotState:
    """One robot as the figures see it: its ``team`` (any key: 0/1, "red"/"blue"), torso position
    ``x``, ``y`` (m) and ``upright`` (the z component of the torso's up axis: 1 upright)."""

    team: Hashable
    x: float
    y: float
    upright: float


class Figures:
    """The figures of a match (module docstring) for ``teams`` (their keys), gathered by
    :meth:`observe` after each step."""

    def __init__(self, teams=(0, 1)):
        self.falls = dict.fromkeys(teams, 0)
        self.walked = dict.fromkeys(teams, 0.0)
        self.contacts = dict.fromkeys(teams, 0)
        self.ball_travel = 0.0
        self._fallen: set = set()
        self._sampled: dict = {}
        self._touching: set = set()
        self._ball: tuple[float, float] | None = None

    def observe(self, robots: dict, touching: set, ball: tuple[float, float], sample: bool) -> None:
        """Take the world as it is after a step: ``robots`` maps each robot's key to its
        :class:`RobotState`, ``touching`` the keys of the robots touching the ball, ``ball`` its
        (x, y) m; ``sample`` once a second (distance walked)."""
        for key, robot in robots.items():
            if robot.upright < FALLEN and key not in self._fallen:
                self._fallen.add(key)
                self.falls[robot.team] += 1
            elif robot.upright > RISEN:
                self._fallen.discard(key)
            if sample:
                here = (robot.x, robot.y)
                step = math.dist(here, self._sampled.get(key, here))
                if step < MOVED_BY_HAND:
                    self.walked[robot.team] += step
                self._sampled[key] = here
        touching = set(touching) & robots.keys()
        for key in touching - self._touching:
            self.contacts[robots[key].team] += 1
        self._touching = touching
        rolled = math.dist(ball, self._ball or ball)
        if rolled < BALL_PLACED:
            self.ball_travel += rolled
        self._ball = ball
