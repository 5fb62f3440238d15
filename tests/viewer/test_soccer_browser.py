"""The soccer world in the web viewer, in a real browser (Debian's chromium, headless): a match's
run log replayed, and a live server with sample agents. ``window.simleague.drawn`` holds the field
and canvas coordinates of every robot drawn in the last frame; the pixels are read back from the
canvas."""

import base64
import json
import io
import math
import socket
import subprocess
import sys
import time

import matplotlib.image
import pytest
from viewer_pages import BUILD, rgb

from simleague.recorder import read_log

COLOURS = {"left": "#1f5fd1", "right": "#d62728"}          # soccer.js


def canvas_pixels(pg):
    png = pg.evaluate("document.getElementById('canvas').toDataURL('image/png')")
    return matplotlib.image.imread(io.BytesIO(base64.b64decode(png.split(",", 1)[1])), format="png")[:, :, :3]


def assert_team_colours(pg):
    """Every robot drawn is a disc of its team's colour (sampled beside its number)."""
    robots = pg.evaluate("window.simleague.drawn")
    pixels = canvas_pixels(pg)
    for robot in robots:
        good = 0
        for turn in (100, 160, 200, 260):
            a = math.radians(turn)
            x = robot["px"] + 0.75 * robot["radius"] * math.cos(a)
            y = robot["py"] - 0.75 * robot["radius"] * math.sin(a)
            p = pixels[int(round(y)), int(round(x))]
            good += max(abs(c - w) for c, w in zip(p, rgb(COLOURS[robot["side"]]))) < 0.08
        assert good >= 3, robot
    return robots


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_match_log_replays_in_the_viewer(cli, page, tmp_path):
    log = tmp_path / "match.jsonl.gz"
    done = subprocess.run([sys.executable, "-m", "simleague", "simspark", "match", "--agents", "2",
                           "--half-time", "2", "--log", str(log)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    _, frames, _ = read_log(log, "simspark")
    full = max(i for i, f in enumerate(frames) if len(f["robots"]) == 4 and f["pm"] == "KickOff_Left")
    replay = cli("simspark", "replay", log, "--web", 0)
    page.goto(replay.url())
    page.wait_for_function("window.simleague.frame !== undefined")
    assert page.locator("#player").is_visible()
    page.evaluate("i => { const s = document.getElementById('seek'); s.value = i; "
                  "s.dispatchEvent(new Event('input')); }", full)
    page.wait_for_function("window.simleague.drawn.length === 4")
    robots = assert_team_colours(page)
    expected = sorted((r[0], r[1], r[3], r[4]) for r in frames[full]["robots"])
    assert sorted((r["side"], r["unum"], r["x"], r["y"]) for r in robots) == expected
    assert all((r["x"] < 0) == (r["side"] == "left") for r in robots)      # each team in its half
    assert page.locator("#score").inner_text() == "SampleLeft 0 : 0 SampleRight"
    assert page.locator("#play-mode").inner_text() == "KickOff_Left"


def test_a_live_server_with_sample_agents_shows_in_the_viewer(cli, page):
    agent_port = free_port()
    server = cli("simspark", "serve", "--sync", "--no-realtime", "--agent-port", agent_port,
                 "--monitor-port", free_port(), "--web", 0)
    url = server.url()
    agents = [subprocess.Popen([sys.executable, "-m", "simleague.simspark.agent", "--port", str(agent_port),
                                "--team", team, "--unum", "0"], stderr=subprocess.DEVNULL)
              for team in ("Home", "Away")]
    try:
        page.goto(url)
        page.wait_for_function("window.simleague.drawn.length === 2 && "
                               "window.simleague.drawn.every(r => r.unum !== null && r.x > -15 && r.x < 15)",
                               timeout=60_000)
        time.sleep(0.5)
        robots = assert_team_colours(page)
        assert sorted(r["side"] for r in robots) == ["left", "right"]
        assert page.locator("#play-mode").inner_text() == "BeforeKickOff"
        BUILD.mkdir(exist_ok=True)
        page.screenshot(path=str(BUILD / "soccer-web-live.png"))
    finally:
        for a in agents:
            a.kill()
            a.wait()


def test_a_humanoid_game_shows_in_the_viewer_with_red_and_blue_teams(cli, page, tmp_path):
    pose = {"translation": [-1.0, 0.0, 0.4], "rotation": [0, 0, 1, 0]}
    files = []
    for name, x in (("Reds", -1.5), ("Blues", -2.0)):
        player = {"proto": "kid", "halfTimeStartingPose": {"translation": [x, 1.0, 0.4], "rotation": [0, 0, 1, 0]},
                  "reentryStartingPose": pose, "shootoutStartingPose": pose}
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({"name": name, "players": {"1": player}}))
        files.append(path)
    server = cli("vhsc", "serve", "--red", files[0], "--blue", files[1], "--red-base", free_port() - 1,
                 "--blue-base", free_port() - 1, "--gc-port", free_port(), "--gc-return-port", free_port(), "--web", 0)
    page.goto(server.url())
    page.wait_for_function("window.simleague.drawn.length === 2", timeout=60_000)
    robots = {r["side"]: r for r in page.evaluate("window.simleague.drawn")}
    assert robots["left"]["x"] == pytest.approx(-1.5, abs=0.05)          # red as configured
    assert robots["right"]["x"] == pytest.approx(2.0, abs=0.05)          # blue mirrored
    pixels = canvas_pixels(page)
    for side, colour in (("left", "#d62728"), ("right", "#1f5fd1")):
        r = robots[side]
        p = pixels[int(round(r["py"] - 0.75 * r["radius"])), int(round(r["px"]))]
        assert max(abs(c - w) for c, w in zip(p, rgb(colour))) < 0.08, (side, p)
    assert page.locator("#score").inner_text() == "Reds 0 : 0 Blues"
    assert page.locator("#play-mode").inner_text() in ("ready", "set", "playing")


def test_a_humanoid_match_log_replays_with_the_ends_changed_at_half_time(cli, page, tmp_path):
    pose = {"translation": [-3.0, -3.4, 0.4], "rotation": [0, 0, 1, 1.57]}
    files = []
    for name in ("Reds", "Blues"):
        player = {"proto": "kid", "halfTimeStartingPose": {"translation": [-1.5, 1.0, 0.4], "rotation": [0, 0, 1, 0]},
                  "reentryStartingPose": pose, "shootoutStartingPose": pose}
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({"name": name, "players": {"1": player}}))
        files.append(path)
    log = tmp_path / "game.jsonl.gz"
    done = subprocess.run([sys.executable, "-m", "simleague", "vhsc", "match", "--red", str(files[0]), "--blue",
                           str(files[1]), "--fast", "--ready-time", "1", "--half-time", "1", "--log", str(log),
                           "--red-base", str(free_port() - 1), "--blue-base", str(free_port() - 1),
                           "--gc-port", str(free_port()), "--gc-return-port", str(free_port())],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    _, frames, _ = read_log(log, "vhsc")
    second = next(i for i, f in enumerate(frames) if f["half"] == 2)
    assert frames[0]["teams"] == ["Reds", "Blues"] and frames[second]["teams"] == ["Blues", "Reds"]
    replay = cli("vhsc", "replay", log, "--web", 0)
    page.goto(replay.url())
    page.wait_for_function("window.simleague.frame !== undefined")
    page.evaluate("i => { const s = document.getElementById('seek'); s.value = i; "
                  "s.dispatchEvent(new Event('input')); }", second)
    page.wait_for_function("window.simleague.frame.half === 2")
    robots = {r["side"]: r for r in page.evaluate("window.simleague.drawn")}
    assert robots["left"]["x"] == pytest.approx(-1.5, abs=0.05)             # blue now on the left
    assert robots["right"]["x"] == pytest.approx(1.5, abs=0.05)             # red, mirrored, on the right
    pixels = canvas_pixels(page)
    for side, colour in (("left", "#1f5fd1"), ("right", "#d62728")):      # blue left, red right
        r = robots[side]
        p = pixels[int(round(r["py"] - 0.75 * r["radius"])), int(round(r["px"]))]
        assert max(abs(c - w) for c, w in zip(p, rgb(colour))) < 0.08, (side, p)
    assert page.locator("#score").inner_text() == "Blues 0 : 0 Reds"
    assert page.locator("#title").inner_text() == "Humanoid virtual soccer (kid size)"
    scale = (robots["right"]["px"] - robots["left"]["px"]) / (robots["right"]["x"] - robots["left"]["x"])
    cx = robots["left"]["px"] - robots["left"]["x"] * scale
    cy = robots["left"]["py"] + robots["left"]["y"] * scale
    for mark in (-3.0, 3.0):                                   # the penalty marks, 1.5 m from the goal lines
        p = pixels[int(round(cy)), int(round(cx + mark * scale))]
        assert min(p[:3]) > 0.9, (mark, p)
    grass = pixels[int(round(cy)), int(round(cx + 2.0 * scale))]
    assert min(grass[:3]) < 0.9                                # and not everywhere
