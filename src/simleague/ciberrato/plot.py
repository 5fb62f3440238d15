"""A picture of a whole trial from its log, for reports: ``simleague ciberrato plot LOG -o trial.png``.

Draws the lab to scale (walls shaded by height, floor lines of height 0 as lines, beacons with
their height, target areas, grid positions) and every robot's true path in its own colour, with
a cross where a collision began, a circle where a target area was first visited, and a square
where the robot ended, labelled with its final state and score. Reads the log written by
``simleague ciberrato trial --log`` (:mod:`simleague.recorder`); lengths in u_m.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only: no display needed

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Circle, Polygon  # noqa: E402

from .. import errors
from ..recorder import LogError  # noqa: E402
from .scenario import ScenarioError, load_grid, load_lab  # noqa: E402
from .logs import read_trial_log  # noqa: E402


class PlotError(errors.Error):
    """The log cannot be drawn; the text names the file and the problem."""


def robot_tracks(cycles: list[dict]) -> dict[int, dict]:
    """Per robot id: ``name``, ``x``/``y`` lists (u_m, one per cycle), ``collisions`` (points where
    a collision began), ``visits`` (point and target index where a target was first visited),
    ``state`` and ``score`` at the end."""
    tracks: dict[int, dict] = {}
    for cycle in cycles:
        for r in cycle.get("robots", []):
            t = tracks.setdefault(r["id"], {"name": r["name"], "x": [], "y": [], "collisions": [],
                                            "visits": [], "was_colliding": False, "visited": ""})
            t["x"].append(r["x"])
            t["y"].append(r["y"])
            if r.get("collision") and not t["was_colliding"]:
                t["collisions"].append((r["x"], r["y"]))
            t["was_colliding"] = bool(r.get("collision"))
            mask = r.get("visited", "")
            for k, (before, now) in enumerate(zip(t["visited"].ljust(len(mask), "0"), mask)):
                if now == "1" and before != "1":
                    t["visits"].append((r["x"], r["y"], k))
            t["visited"] = mask
            t["state"], t["score"] = r.get("state", ""), r.get("score", 0)
    for t in tracks.values():
        del t["was_colliding"], t["visited"]
    return tracks


def plot_log(log: str | Path):
    """The figure of the trial logged in ``log``. Raises :class:`PlotError`."""
    try:
        header, cycles = read_trial_log(log)
        lab = load_lab(header["lab_xml"].encode())
        grid = load_grid(header["grid_xml"].encode())
    except LogError as exc:
        raise PlotError(str(exc)) from None
    except (KeyError, AttributeError):
        raise PlotError(f"{log}: the header has no lab and grid (not a trial log?)") from None
    except ScenarioError as exc:
        raise PlotError(f"{log}: the lab or grid in the header is broken: {exc}") from None
    if not cycles:
        raise PlotError(f"{log}: no cycles recorded")

    fig, ax = plt.subplots(figsize=(max(6.0, lab.width / 2.2), max(4.0, lab.height / 2.2) + 0.8))
    for wall in lab.walls:
        if wall.height <= 0:
            xs = [c[0] for c in wall.corners] + [wall.corners[0][0]]
            ys = [c[1] for c in wall.corners] + [wall.corners[0][1]]
            ax.plot(xs, ys, color="black", lw=1.5)
        else:
            shade = 0.75 - 0.55 * min(1.0, wall.height / 4.0)   # higher walls darker
            ax.add_patch(Polygon(wall.corners, closed=True, color=str(shade), zorder=1))
    for target in lab.targets:
        ax.add_patch(Circle((target.x, target.y), target.radius, fill=False, color="tab:green", lw=1.2))
    for i, beacon in enumerate(lab.beacons):
        ax.plot(beacon.x, beacon.y, marker="*", color="tab:red", ms=12, zorder=4)
        ax.annotate(f"B{i} h{beacon.height:g}", (beacon.x, beacon.y), xytext=(4, 4),
                    textcoords="offset points", fontsize=7, color="tab:red")
    for i, pos in enumerate(grid.positions, 1):
        ax.plot(pos.x, pos.y, marker="o", mfc="none", mec="0.3", ms=9, zorder=2)
        ax.annotate(str(i), (pos.x, pos.y), ha="center", va="center", fontsize=6, color="0.3")
    colours = plt.get_cmap("tab10")
    for k, (rid, t) in enumerate(sorted(robot_tracks(cycles).items())):
        colour = colours(k % 10)
        ax.plot(t["x"], t["y"], color=colour, lw=1.0, zorder=3,
                label=f"{rid} {t['name']}: {t['state']}, score {t['score']}")
        if t["collisions"]:
            cx, cy = zip(*t["collisions"])
            ax.plot(cx, cy, "x", color=colour, ms=5, zorder=5)
        for x, y, target in t["visits"]:
            ax.plot(x, y, "o", color=colour, ms=7, zorder=5)
            ax.annotate(f"T{target}", (x, y), xytext=(4, -8), textcoords="offset points", fontsize=7, color=colour)
        ax.plot(t["x"][-1], t["y"][-1], "s", color=colour, ms=6, zorder=5)
    ax.set_xlim(0, lab.width)
    ax.set_ylim(0, lab.height)
    ax.set_aspect("equal")
    known = [f"seed {header['seed']}" if "seed" in header else "",       # the original's XML logs say neither
             f"{header['scoring']} scoring" if "scoring" in header else ""]
    ax.set_title(", ".join([f"{lab.name}: {len(cycles)} cycles", *filter(None, known)])
                 + "  (x collision, o target visited, square end)", fontsize=8)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.04), ncol=2, fontsize=7, frameon=False)
    fig.tight_layout()
    return fig


def save_plot(log: str | Path, out: str | Path) -> None:
    """Draw ``log`` into ``out`` (PNG, SVG or PDF by its suffix). Raises :class:`PlotError`."""
    fig = plot_log(log)
    try:
        fig.savefig(out, dpi=110)
    except (OSError, ValueError) as exc:
        raise PlotError(f"cannot write {out}: {exc}") from None
    finally:
        plt.close(fig)
