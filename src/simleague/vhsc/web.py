"""Humanoid virtual soccer games in the web viewer: the same top view as SimSpark games
(``viewer/static/soccer.html``, messages as in :mod:`simleague.simspark.web`), with the red team
on the left drawn red and the blue team drawn blue, the referee's game state as the play mode and
the model's name as the robot type.
"""

from __future__ import annotations

import json
import math

from ..simspark.web import scene
from ..viewer.server import WebViewer
from .gamecontroller import STATES
from .referee import HumanoidReferee
from .setup import Match

FRAME_EVERY = 5                       # basic steps between frames: 25 per second
COLOURS = {"left": "#d62728", "right": "#1f5fd1"}


def frame(match: Match, referee: HumanoidReferee, steps: int) -> dict:
    """The ``frame`` message of the game now (robots: side, number, model, x, y, heading in
    degrees, upright)."""
    world, robots = match.world, []
    for (colour, number), session in match.sessions.items():
        (x, y, _), heading = world.pose(session.rid)
        robots.append(["left" if colour == "red" else "right", number, session.model.name, round(float(x), 3),
                       round(float(y), 3), round(math.degrees(heading), 1), 1 if world.upright(session.rid) > 0.5 else 0])
    ball, _ = world.ball()
    return {"type": "frame", "now": round(steps * 0.008, 3), "t": round(referee.played, 2), "half": 1,
            "pm": STATES[referee.state], "teams": [match.teams["red"].name, match.teams["blue"].name],
            "score": [referee.score["red"], referee.score["blue"]],
            "ball": [round(float(ball[0]), 3), round(float(ball[1]), 3)], "robots": robots}


class LiveView:
    """Publishes a running humanoid game: the scene once, then a frame every fifth basic step
    (call :meth:`step` after each). Never waits for a page."""

    def __init__(self, match: Match, referee: HumanoidReferee, viewer: WebViewer):
        self.match, self.referee, self.viewer = match, referee, viewer
        viewer.publish("scene", json.dumps({**scene(match.world.rules, "live"), "colours": COLOURS}))

    def step(self, steps: int) -> None:
        """After basic step ``steps``: publish a frame every fifth step (25 Hz)."""
        if steps % FRAME_EVERY == 0:
            self.viewer.publish("frame", json.dumps(frame(self.match, self.referee, steps), separators=(",", ":")))
