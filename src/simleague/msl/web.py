"""The merged world of an MSL match, for the web viewer and the run log.

The middleware knows both teams' robots and the arbitrated ball; :class:`MatchView` turns them,
at the common simulation time (the newest both teams have reached), into ``frame`` messages of the
soccer viewer (``viewer/static/soccer.html``, messages as in :mod:`simleague.simspark.web`) in
*field coordinates*: origin at the centre spot, x along the field towards magenta's goal (cyan's y),
y across (cyan's -x), headings in degrees; cyan plays on the left, as the RefBox's team A.
A frame goes out every :data:`FRAME_PERIOD` s of simulation time, to the page and to the run log
(:mod:`simleague.recorder`, format ``msl``); ``simleague msl replay LOG --web PORT`` plays a log.

The field and its markings are the MSL rules' (:data:`simleague.viewer.fields.MSL`); colours are
the RefBox's for the left and right teams.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from ..errors import ReplayError
from ..recorder import LogError, Recorder, read_log
from ..viewer import fields
from ..viewer.replay import soccer_frames
from ..viewer.server import ViewerOptions, WebViewer, serve_messages
from .buffer import Snapshot, mirror
from .messages import SIDES
from .referee import GameState

LOG_FORMAT = "msl"
FRAME_PERIOD = 0.04                 # s of simulation time between frames: 25 Hz, as the other worlds
COLOURS = {"left": "#007BA7", "right": "#C240BC"}      # RefBox2015 appearance.default{Left,Right}TeamColor


def scene(mode: str) -> dict:
    """The ``scene`` message of the MSL field (``mode`` "live" or "replay")."""
    return fields.scene("MSL simulated match", mode, fields.MSL, COLOURS)


def to_field(x: float, y: float, heading: float | None = None) -> tuple:
    """A position (and heading, rad) in cyan's frame -> field coordinates (and degrees)."""
    if heading is None:
        return round(y, 3), round(-x, 3)
    return round(y, 3), round(-x, 3), round(math.degrees(heading - math.pi / 2), 1)


def frame(t: float, states: dict[str, Snapshot], ball_side: str, names: dict[str, str], game: GameState,
          half: int) -> dict:
    """The ``frame`` message at simulation time ``t`` (s) from both teams' states at ``t`` (each
    in its own frame; magenta's is mirrored into cyan's), the side whose ball counts, the team
    names and the referee's game state."""
    robots = []
    for side, view in zip(SIDES, ("left", "right")):
        snap = states[side] if side == SIDES[0] else mirror(states[side])
        for rid, row in zip(snap.ids, snap.robots):
            robots.append([view, rid, "", *to_field(row[0], row[1], row[2]), 1])
    ball = states[ball_side] if ball_side == SIDES[0] else mirror(states[ball_side])
    return {"type": "frame", "now": round(t, 3), "t": round(t, 2), "half": half, "pm": game.label(),
            "teams": [names.get(SIDES[0], ""), names.get(SIDES[1], "")],
            "score": [game.score[SIDES[0]], game.score[SIDES[1]]],
            "ball": list(to_field(ball.ball[0], ball.ball[1])), "ballFrom": ball_side, "robots": robots}


class MatchView:
    """Frames of the merged world to a :class:`~simleague.viewer.server.WebViewer` and/or a run
    log. ``update(t, states, ball_side, names, game)`` after the common time moved; it emits at
    most one frame per :data:`FRAME_PERIOD` of simulation time and never waits for a page.
    Raises OSError when the log cannot be written."""

    def __init__(self, viewer: WebViewer | None = None, log: Path | None = None, header: dict | None = None):
        self.viewer = viewer
        self.recorder = Recorder(log, LOG_FORMAT, {"field": fields.MSL.message(), **(header or {})}) if log else None
        self.next = 0.0
        self.frames = 0
        if viewer is not None:
            viewer.publish("scene", json.dumps(scene("live")))

    def update(self, t: float, states: dict[str, Snapshot], ball_side: str, names: dict[str, str],
               game: GameState, force: bool = False) -> None:
        """Emit a frame at ``t`` if one is due (or ``force``: the last one, at the end)."""
        if t + 1e-9 < self.next and not force:
            return
        self.next = (math.floor(t / FRAME_PERIOD + 1e-6) + 1) * FRAME_PERIOD
        half = 2 if "2nd" in game.part or game.part in ("end of regular time", "game over") else 1
        record = frame(t, states, ball_side, names, game, half)
        self.frames += 1
        if self.viewer is not None:
            self.viewer.publish("frame", json.dumps(record, separators=(",", ":")))
        if self.recorder is not None:
            del record["type"]
            self.recorder.cycle(record)

    def close(self, result: dict | None = None) -> None:
        """Finish the run log (with ``result``, e.g. the score, when given)."""
        if self.recorder is not None:
            if result is not None:
                self.recorder.result(result)
            self.recorder.close()
            self.recorder = None


def load_replay(log: str | Path) -> tuple[dict, dict]:
    """A run log of an MSL match -> (scene, replay) messages. Raises :class:`ReplayError`."""
    try:
        header, cycles, _ = read_log(log, LOG_FORMAT)
    except LogError as exc:
        raise ReplayError(str(exc)) from None
    return scene("replay"), soccer_frames(log, cycles, "an MSL frame")


async def serve_replay(log: str | Path, options: ViewerOptions, ready=None) -> None:
    """Serve the page playing ``log`` until cancelled; ``ready(viewer)`` is called once listening.
    Raises :class:`ReplayError` for a bad log, OSError when the port cannot be bound."""
    scene_message, replay = load_replay(log)
    await serve_messages([("scene", scene_message), ("replay", replay)], options, ready)
