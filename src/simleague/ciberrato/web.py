"""CiberRato in the web viewer: the scene, compact per-cycle frames, the control panel, replays.

The 2008 rules (section 7, "Visualiser") give the viewer two jobs: show the arena, the robots,
their states and scores; and offer a control panel to start and stop the competition. The page
(``viewer/static/ciberrato.html``) gets, over its WebSocket, JSON texts of these types:

* ``scene``: ``{"type": "scene", "mode": "live"|"replay", "lab": {"name", "width", "height",
  "walls": [[height, [[x, y], ...]], ...], "beacons": [[x, y, height], ...], "targets": [[x, y,
  radius], ...]}, "grid": [[x, y, dir_deg], ...], "sim_time": cycles, "cycle_time": ms}``; lengths
  in u_m.
* ``roster``: ``{"type": "roster", "robots": [[id, name, [ir angle deg, ...]], ...]}``, sent again
  whenever robots join, leave or the simulation is reset.
* ``frame``: one cycle, ``{"type": "frame", "t": cycle, "state": "Running"|"Stopped"|"Finished",
  "r": [ROBOT, ...]}`` with ``ROBOT = [id, x, y, dir_deg, leds, state, score, collisions,
  collision, visiting_time, returning_time, rank, ir]`` (``leds`` bits: 1 visiting, 2 returning,
  4 end; ``collision`` 0/1; ``visiting_time`` null until every target was visited; ``ir`` the
  obstacle sensors' values, 1/distance, or [] in replays).
* ``replay``: ``{"type": "replay", "frames": [frame, ...]}``, a whole logged trial at once; the
  page plays, pauses, seeks and steps in it by itself.

A page sends ``{"cmd": "start"|"stop"|"reset"|"remove", "robot": id}``; the live view hands it to
the server as the same :class:`~simleague.ciberrato.messages.ViewerCommand` a UDP viewer's
``<Start/>``, ``<Stop/>``, ``<Reset/>`` or ``<Robot Id=".." Removed="Yes"/>`` gives.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Literal

import msgspec

from ..errors import ReplayError
from ..recorder import LogError
from .logs import read_trial_log
from ..viewer.server import CommandError, ViewerOptions, WebViewer, serve_messages
from . import messages as M
from .scenario import Grid, Lab, ScenarioError, load_grid, load_lab
from .server import CycleReport, Server

MAX_FRAME_RATE = 60.0        # frames per second published at most (fast mode shows the newest)
IDLE_PERIOD = 0.25           # s between frames while the simulation is not stepping


def _num(v: float) -> float:
    return round(float(v), 3)


def scene(lab: Lab, grid: Grid, sim_time: int, cycle_time: int, mode: str) -> dict:
    """The ``scene`` message for a lab and grid (see the module docstring)."""
    return {
        "type": "scene", "mode": mode, "sim_time": sim_time, "cycle_time": cycle_time,
        "lab": {"name": lab.name, "width": lab.width, "height": lab.height,
                "walls": [[w.height, [[_num(x), _num(y)] for x, y in w.corners]] for w in lab.walls],
                "beacons": [[b.x, b.y, b.height] for b in lab.beacons],
                "targets": [[t.x, t.y, t.radius] for t in lab.targets]},
        "grid": [[p.x, p.y, p.dir] for p in grid.positions],
    }


def frame(snapshot: dict, ir: dict[int, list[float]] | None = None) -> dict:
    """A ``frame`` message from a :meth:`World.snapshot` (live, or a log's cycle record).

    ``ir`` maps robot id -> obstacle sensor values. Missing scoreboard fields (logs written
    before they were recorded) become null.
    """
    robots = []
    for r in snapshot.get("robots", []):
        leds = r.get("leds") or [False, False, False]       # end, returning, visiting
        bits = (1 if leds[2] else 0) | (2 if leds[1] else 0) | (4 if leds[0] else 0)
        robots.append([r["id"], _num(r["x"]), _num(r["y"]), round(float(r["dir"]), 1), bits, r.get("state"),
                       r.get("score"), r.get("collisions"), 1 if r.get("collision") else 0,
                       r.get("visiting_time"), r.get("returning_time"), r.get("rank"),
                       [round(v, 2) for v in (ir or {}).get(r["id"], [])]])
    return {"type": "frame", "t": snapshot.get("time", 0), "state": snapshot.get("state"), "r": robots}


class _Command(msgspec.Struct, forbid_unknown_fields=True):
    cmd: Literal["start", "stop", "reset", "remove"]
    robot: int = 0


_KINDS = {"start": "Start", "stop": "Stop", "reset": "Reset", "remove": "Remove"}


class LiveView:
    """The web viewer of a running :class:`~simleague.ciberrato.server.Server`.

    ``LiveView(server, viewer)`` chains itself into ``server.on_cycle``; ``await run()`` publishes
    the scene, the roster and at most ``MAX_FRAME_RATE`` frames per second (every cycle at the
    original's 50 ms cycle; the newest one in ``fast`` mode) until cancelled. Publishing never
    waits for a page (:class:`~simleague.viewer.server.WebViewer`).
    """

    def __init__(self, server: Server, viewer: WebViewer):
        self.server, self.viewer = server, viewer
        self._stepped = asyncio.Event()
        previous = server.on_cycle

        def on_cycle(report: CycleReport) -> None:
            if previous:
                previous(report)
            self._stepped.set()

        server.on_cycle = on_cycle
        viewer.on_command = self.command
        self._roster = None

    def command(self, obj: object) -> None:
        """A page's command -> the server's viewer command. Raises :class:`CommandError`."""
        try:
            cmd = msgspec.convert(obj, _Command)
        except msgspec.ValidationError as exc:
            raise CommandError(f"not a command ({exc}); send {{\"cmd\": \"start\"|\"stop\"|\"reset\"|"
                               f"\"remove\", \"robot\": id}}") from None
        if cmd.cmd == "remove" and cmd.robot not in self.server.world.robots:
            raise CommandError(f"there is no robot {cmd.robot} to remove")
        self.server.submit(M.ViewerCommand(_KINDS[cmd.cmd], cmd.robot))

    def publish(self) -> None:
        """Publish the current state (and the roster when it changed)."""
        world = self.server.world
        views = {rid: world.obstacle_view(rid) for rid in world.robots}
        roster = [[rid, r.name, [round(a, 1) for a in views[rid][0]]] for rid, r in sorted(world.robots.items())]
        if roster != self._roster:
            self._roster = roster
            self.viewer.publish("roster", json.dumps({"type": "roster", "robots": roster}))
        ir = {rid: values for rid, (_, values) in views.items()}
        self.viewer.publish("frame", json.dumps(frame(world.snapshot(), ir), separators=(",", ":")))

    async def run(self) -> None:
        """Publish the scene, then frames as the server steps (and every ``IDLE_PERIOD`` s while it
        does not), until cancelled."""
        world = self.server.world
        self.viewer.publish("scene", json.dumps(scene(world.lab, world.scenario.grid, world.params.sim_time,
                                                      world.params.cycle_time, "live")))
        while True:
            try:
                await asyncio.wait_for(self._stepped.wait(), IDLE_PERIOD)
            except (asyncio.TimeoutError, TimeoutError):
                pass
            self._stepped.clear()
            began = time.monotonic()
            self.publish()
            await asyncio.sleep(max(0.0, 1.0 / MAX_FRAME_RATE - (time.monotonic() - began)))


def load_replay(log: str | Path) -> tuple[dict, dict, dict]:
    """A trial log -> (scene, roster, replay) messages. Raises :class:`ReplayError`."""
    try:
        header, cycles = read_trial_log(log)
        lab = load_lab(header["lab_xml"].encode())
        grid = load_grid(header["grid_xml"].encode())
        params = header.get("params") or {}
        sim_time, cycle_time = int(params.get("sim_time", 1800)), int(params.get("cycle_time", 50))
    except LogError as exc:
        raise ReplayError(str(exc)) from None
    except (KeyError, AttributeError, TypeError, ValueError):
        raise ReplayError(f"{log}: the header has no lab and grid (not a trial log?)") from None
    except ScenarioError as exc:
        raise ReplayError(f"{log}: the lab or grid in the header is broken: {exc}") from None
    if not cycles:
        raise ReplayError(f"{log}: no cycles recorded")
    names: dict[int, str] = {}
    frames = []
    try:
        for c in cycles:
            for r in c.get("robots", []):
                names.setdefault(r["id"], r["name"])
            frames.append(frame(c))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ReplayError(f"{log}: cycle {len(frames) + 1} is not a CiberRato snapshot ({exc!r})") from None
    roster = {"type": "roster", "robots": [[rid, name, []] for rid, name in sorted(names.items())]}
    return (scene(lab, grid, sim_time, cycle_time, "replay"), roster, {"type": "replay", "frames": frames})


async def serve_replay(log: str | Path, options: ViewerOptions, ready=None) -> None:
    """Serve the page playing ``log`` until cancelled; ``ready(viewer)`` is called once listening.

    Raises :class:`ReplayError` for a bad log, OSError when the port cannot be bound.
    """
    scene_msg, roster, replay = load_replay(log)
    await serve_messages([("scene", scene_msg), ("roster", roster), ("replay", replay)], options, ready)
