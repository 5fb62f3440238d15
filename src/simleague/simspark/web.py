"""The soccer game in the web viewer (top view), live from a running server or from a run log.

The page (``viewer/static/soccer.html``) gets, over its WebSocket, JSON texts of these types:

* ``scene``: ``{"type": "scene", "mode": "live"|"replay", "field": {"length", "width",
  "goal_width", "goal_depth", "penalty_length", "penalty_width", "circle"}}``, metres.
* ``frame``: ``{"type": "frame", "now": s, "t": game time s, "half", "pm": play mode name,
  "teams": [left, right], "score": [left, right], "ball": [x, y], "robots": [[side, unum, type,
  x, y, heading_deg, upright], ...]}`` with ``side`` ``"left"``/``"right"`` (null before the
  robot has a team) and ``upright`` 1 or 0 (fallen).
* ``replay``: ``{"type": "replay", "frames": [frame, ...]}``, a whole logged game at once.

A run log (``simleague simspark serve --log FILE``, :mod:`simleague.recorder`, format
``simspark``) holds the rules in its header and one frame per monitor cycle (25 Hz).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from pathlib import Path

from ..errors import ReplayError
from ..recorder import LogError, read_log
from ..soccer.rules import SoccerRules, Team
from ..viewer import fields
from ..viewer.replay import soccer_frames
from ..viewer.server import ViewerOptions, WebViewer, serve_messages
from .game import Game

LOG_FORMAT = "simspark"
FRAME_EVERY = 2                     # cycles between frames: 25 Hz, as the monitors


def scene(rules: SoccerRules, mode: str) -> dict:
    """The ``scene`` message of a field (see the module docstring)."""
    return fields.scene("SimSpark soccer", mode, fields.simspark(rules))


def frame(game: Game) -> dict:
    """The ``frame`` message of the game now."""
    world, referee = game.world, game.referee
    robots = []
    for agent in game.agents.values():
        if agent.robot is None:
            continue
        position, rotation = world.pose(agent.robot, "torso")
        heading = math.degrees(world.heading(agent.robot))
        robots.append([agent.team.value if agent.team else None, agent.unum, agent.robot_type,
                       round(float(position[0]), 3), round(float(position[1]), 3), round(heading, 1),
                       1 if rotation[2, 2] > 0.5 else 0])
    ball, _ = world.ball()
    return {"type": "frame", "now": round(world.time, 2), "t": round(referee.time, 2), "half": referee.half,
            "pm": referee.play_mode.wire, "teams": [game.team_names[Team.LEFT], game.team_names[Team.RIGHT]],
            "score": [referee.score[Team.LEFT], referee.score[Team.RIGHT]],
            "ball": [round(float(ball[0]), 3), round(float(ball[1]), 3)], "robots": robots}


def log_header(game: Game, seed: int) -> dict:
    """What a run log's header holds: the rules and the seed."""
    return {"rules": asdict(game.rules), "seed": seed}


class LiveView:
    """Publishes a running game to a :class:`~simleague.viewer.server.WebViewer`: the scene once,
    then a frame every second cycle (call :meth:`cycle` after each). Never waits for a page."""

    def __init__(self, game: Game, viewer: WebViewer):
        self.game, self.viewer = game, viewer
        viewer.publish("scene", json.dumps(scene(game.rules, "live")))

    def cycle(self) -> None:
        """After each cycle: publish a frame every second cycle (25 Hz)."""
        if self.game.world.cycle % FRAME_EVERY == 0:
            self.viewer.publish("frame", json.dumps(frame(self.game), separators=(",", ":")))


def load_replay(log: str | Path, fmt: str = LOG_FORMAT) -> tuple[dict, dict]:
    """A run log of format ``fmt`` (a SimSpark game's, or a humanoid game's:
    :mod:`simleague.vhsc.web`) -> (scene, replay) messages; the header's ``colours``, if any, go
    into the scene. Raises :class:`ReplayError`."""
    try:
        header, cycles, _ = read_log(log, fmt)
        rules = SoccerRules(**header["rules"])
    except LogError as exc:
        raise ReplayError(str(exc)) from None
    except (KeyError, TypeError, ValueError):
        raise ReplayError(f"{log}: the header has no valid rules (not a soccer run log?)") from None
    replay = soccer_frames(log, cycles, "a soccer frame")
    scene_message = scene(rules, "replay")
    if isinstance(header.get("colours"), dict):
        scene_message["colours"] = header["colours"]
    shown = header.get("scene")
    if isinstance(shown, dict) and isinstance(shown.get("field"), dict):    # a humanoid game's markings
        scene_message["title"] = str(shown.get("title", scene_message["title"]))
        scene_message["field"].update(shown["field"])
    return scene_message, replay


async def serve_replay(log: str | Path, options: ViewerOptions, ready=None, fmt: str = LOG_FORMAT) -> None:
    """Serve the page playing ``log`` (format ``fmt``) until cancelled; ``ready(viewer)`` is
    called once listening. Raises :class:`ReplayError` for a bad log, OSError when the port
    cannot be bound."""
    scene_message, replay = load_replay(log, fmt)
    await serve_messages([("scene", scene_message), ("replay", replay)], options, ready)
