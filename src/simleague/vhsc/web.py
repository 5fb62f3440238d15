"""Humanoid virtual soccer games in the web viewer and in run logs: the soccer viewer's top view and
messages (``viewer/static/soccer.html``; the league's field from :mod:`simleague.viewer.fields`), with the team
on the left first, each team drawn in its own colour (red and blue; the teams change ends at half
time, so every frame says which colour is on which side), the referee's game state (and set play)
as the play mode and the model's name as the robot type.

A run log (``simleague vhsc match --log FILE`` or ``serve --log FILE``, :mod:`simleague.recorder`,
format ``vhsc``) holds the field's rules, the seed and the colours in its header and one frame
every fifth basic step (25 Hz); ``simleague vhsc replay FILE --web PORT`` plays it.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict

from ..recorder import Recorder
from ..viewer import fields
from ..viewer.server import WebViewer
from .gamecontroller import (
    STATE2_CORNER_KICK,
    STATE2_DIRECT_FREEKICK,
    STATE2_GOAL_KICK,
    STATE2_PENALTY_KICK,
    STATE2_THROW_IN,
    STATES,
)
from .referee import HumanoidReferee
from .setup import MARKINGS, Match

LOG_FORMAT = "vhsc"
FRAME_EVERY = 5                       # basic steps between frames: 25 per second
COLOURS = {"red": "#d62728", "blue": "#1f5fd1"}
SET_PLAYS = {STATE2_THROW_IN: "throw-in", STATE2_CORNER_KICK: "corner kick", STATE2_GOAL_KICK: "goal kick",
             STATE2_DIRECT_FREEKICK: "free kick", STATE2_PENALTY_KICK: "penalty kick"}


def play_mode(referee: HumanoidReferee) -> str:
    """``playing``, ``playing: throw-in red`` during a set play, ``set: penalty shoot-out`` in a
    shoot-out."""
    mode = STATES[referee.state]
    if referee.shootout:
        mode += ": penalty shoot-out"
    elif referee.secondary in SET_PLAYS:
        mode += f": {SET_PLAYS[referee.secondary]} {referee.set_play_team}"
    return mode


def frame(match: Match, referee: HumanoidReferee, steps: int) -> dict:
    """The ``frame`` message of the game now (robots: side, number, model, x, y, heading in
    degrees, upright; ``colours``: the colour of each side)."""
    world, robots = match.world, []
    left, right = referee.left, "blue" if referee.left == "red" else "red"
    for (colour, number), session in match.sessions.items():
        (x, y, _), heading = world.pose(session.rid)[0], world.heading(session.rid)
        robots.append(["left" if colour == left else "right", number, session.model.name, round(float(x), 3),
                       round(float(y), 3), round(math.degrees(heading), 1),
                       1 if world.upright(session.rid) > 0.5 else 0])
    ball, _ = world.ball()
    return {"type": "frame", "now": round(steps * 0.008, 3), "t": round(referee.played, 2), "half": referee.half,
            "pm": play_mode(referee), "teams": [match.teams[left].name, match.teams[right].name],
            "score": [referee.score[left], referee.score[right]],
            "colours": {"left": COLOURS[left], "right": COLOURS[right]},
            "ball": [round(float(ball[0]), 3), round(float(ball[1]), 3)], "robots": robots}


def humanoid_scene(match: Match, mode: str) -> dict:
    """The ``scene`` message of a humanoid game: the title and the league's field and markings
    (:func:`simleague.viewer.fields.humanoid`), the colours at kick-off."""
    drawing = fields.humanoid(match.world.rules, MARKINGS[match.league])
    return fields.scene(f"Humanoid virtual soccer ({match.league} size)", mode, drawing,
                        {"left": COLOURS["red"], "right": COLOURS["blue"]})


def log_header(match: Match, seed: int) -> dict:
    """What a run log's header holds: the field's rules, the seed, the teams' colours at kick-off
    and the viewer's scene (title, markings)."""
    shown = humanoid_scene(match, "replay")
    return {"rules": asdict(match.world.rules), "seed": seed, "teams": {c: t.name for c, t in match.teams.items()},
            "colours": shown["colours"], "scene": {"title": shown["title"], "field": shown["field"]}}


class GameView:
    """Publishes a running humanoid game to a web viewer and/or writes it to a run log: the
    scene once, then a frame every fifth basic step (call :meth:`step` after each; it never waits
    for a page). ``GameView(match, referee, viewer=None, log=None, seed=0)``; raises OSError
    when the log cannot be written."""

    def __init__(self, match: Match, referee: HumanoidReferee, viewer: WebViewer | None = None,
                 log=None, seed: int = 0):
        self.match, self.referee, self.viewer = match, referee, viewer
        self.recorder = Recorder(log, LOG_FORMAT, log_header(match, seed)) if log is not None else None
        if viewer is not None:
            viewer.publish("scene", json.dumps(humanoid_scene(match, "live")))

    def step(self, report) -> None:
        """After a basic step (a :class:`~simleague.vhsc.server.CycleReport`): a frame every fifth
        step (25 Hz)."""
        if report.cycle % FRAME_EVERY:
            return
        record = frame(self.match, self.referee, report.cycle)
        if self.viewer is not None:
            self.viewer.publish("frame", json.dumps(record, separators=(",", ":")))
        if self.recorder is not None:
            del record["type"]
            self.recorder.cycle(record)

    def close(self) -> None:
        """Finish the run log."""
        if self.recorder is not None:
            self.recorder.close()
