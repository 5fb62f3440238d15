"""`simleague ciberrato plot`: the picture of a trial from its log."""

import subprocess
import sys

from simleague.ciberrato import messages as M
from simleague.ciberrato.plot import plot_log, robot_tracks, save_plot
from simleague.ciberrato.scenario import load_grid, load_lab
from simleague.ciberrato.logs import LOG_FORMAT
from simleague.recorder import Recorder


def robot(rid, x, y, collision=False, visited="0", state="Running", score=0):
    return {"id": rid, "name": f"r{rid}", "x": x, "y": y, "dir": 0.0, "collision": collision,
            "visited": visited, "state": state, "score": score, "collisions": 0, "leds": [False] * 3}


def write_log(path):
    lab, grid = load_lab(), load_grid()
    with Recorder(path, LOG_FORMAT, {"seed": 7, "scoring": "2008", "lab_xml": M.format_lab(lab),
                                     "grid_xml": M.format_grid(grid)}) as rec:
        for t in range(6):
            rec.cycle({"time": t, "state": "Running", "robots": [
                robot(1, 9.0 + 0.1 * t, 3.0, collision=t in (2, 3, 5), visited="1" if t >= 4 else "0",
                      state="Returning" if t >= 4 else "Running", score=10 * t),
                robot(2, 6.0, 3.0 + 0.1 * t)]})


def test_tracks_mark_collision_starts_and_first_visits(tmp_path):
    write_log(tmp_path / "t.jsonl")
    from simleague.recorder import read_log
    _, cycles, _ = read_log(tmp_path / "t.jsonl")
    tracks = robot_tracks(cycles)
    assert tracks[1]["collisions"] == [(9.2, 3.0), (9.5, 3.0)]      # t=2 (and 3: same collision), t=5
    assert tracks[1]["visits"] == [(9.4, 3.0, 0)]
    assert (tracks[1]["state"], tracks[1]["score"]) == ("Returning", 50)
    assert tracks[2]["collisions"] == [] and tracks[2]["y"][-1] == 3.5


def test_figure_draws_the_lab_and_every_path(tmp_path):
    write_log(tmp_path / "t.jsonl")
    fig = plot_log(tmp_path / "t.jsonl")
    ax = fig.axes[0]
    paths = [line for line in ax.lines if line.get_label().startswith(("1 ", "2 "))]
    assert [p.get_label() for p in paths] == ["1 r1: Returning, score 50", "2 r2: Running, score 0"]
    assert list(paths[0].get_xdata()) == [9.0, 9.1, 9.2, 9.3, 9.4, 9.5]
    assert ax.get_xlim() == (0, 28) and ax.get_ylim() == (0, 14)
    assert len(ax.patches) >= len(load_lab().walls)             # walls and target areas drawn
    assert "T0" in [t.get_text() for t in ax.texts]
    out = tmp_path / "t.png"
    save_plot(tmp_path / "t.jsonl", out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_file_that_is_no_trial_log_gives_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "header", "format": "simleague-msl"}\n')
    r = subprocess.run([sys.executable, "-m", "simleague", "ciberrato", "plot", str(bad), "-o",
                        str(tmp_path / "x.png")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "not a simleague-ciberrato log header" in " ".join(r.stderr.split())
    assert "Traceback" not in r.stderr and not (tmp_path / "x.png").exists()
