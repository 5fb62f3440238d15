"""The web viewer in a real browser: Debian's chromium, headless, driven by playwright.

Each test starts the real command line (``python -m simleague.cli ...``) as a process with the
page on a free port, opens the page and checks what it drew: ``window.simleague.drawn`` holds the
lab coordinates and pixels of every robot drawn in the last frame, and the pixels themselves are
read back from a screenshot of the canvas. A screenshot of a live trial on the 2008 final lab is
kept in ``build/`` as an artifact (and shown in the README).
"""

import base64
import io
import itertools
import math
import threading
import time

import matplotlib.image
import matplotlib.path
import numpy
import pytest

from golden import LABS
from viewer_pages import BUILD, rgb
from simleague.recorder import read_log

LAB = LABS / "CiberRato2008" / "Ciber2008_FinalLab.xml"
GRID = LABS / "CiberRato2008" / "Ciber2008_FinalGrid.xml"
PALETTE = ["#d62728", "#1f77b4", "#2ca02c"]          # robots 1..3 in ciberrato.js


def drawn(pg) -> dict:
    return {int(k): v for k, v in pg.evaluate("window.simleague.drawn").items()}


def picture(pg):
    """What the canvas shows, where the robots are in it and which cycle it is, read in one go
    (the page keeps drawing in between two calls): ((H, W, 3) floats in canvas pixels, drawn
    robots with the scale in pixels per u_m, cycle)."""
    got = pg.evaluate("""(() => ({png: document.getElementById('canvas').toDataURL('image/png'),
        drawn: window.simleague.drawn, t: window.simleague.frame.t, ratio: window.devicePixelRatio,
        scale: window.simleague.toPixel(1, 0)[0] - window.simleague.toPixel(0, 0)[0]}))()""")
    assert got["ratio"] == 1
    png = base64.b64decode(got["png"].split(",", 1)[1])
    pixels = matplotlib.image.imread(io.BytesIO(png), format="png")[:, :, :3]
    robots = {int(k): {**v, "scale": got["scale"]} for k, v in got["drawn"].items()}
    return pixels, robots, got["t"]


def covered_by(other: dict, px: float, py: float) -> bool:
    """True when canvas point (px, py) may be under what the page draws for robot ``other``: its
    body (robots in contact overlap), its name (drawn over every body, centred 6 px above it; a
    generous 1.5 u_m each side) or its lamps (in a row just below it); ciberrato.js, draw()."""
    s = other["scale"]
    body = math.hypot(px - other["px"], py - other["py"]) <= 0.55 * s
    name = abs(px - other["px"]) <= 1.5 * s and abs(py - (other["py"] - 0.5 * s - 6)) <= 10
    lamps = abs(px - other["px"]) <= 0.6 * s and 0.5 * s <= py - other["py"] <= 0.5 * s + 0.4 * s + 6
    return body or name or lamps


def assert_robot_drawn(pixels, robot: dict, colour: str, others: list[dict] = ()):
    """The body of the robot has its colour: sixteen points on two rings inside it (0.2 and
    0.35 u_m out), away from the white heading line, all of its colour but one (a neighbour's
    name or lamps may cover one); points that another robot of ``others`` may cover
    (:func:`covered_by`) are not counted, at least two must be left (with five points on one
    ring, a robot standing among the others' names had only one left)."""
    a = math.radians(robot["dir"])
    got = []
    for reach in (0.2 * robot["scale"], 0.35 * robot["scale"]):
        for turn in range(75, 286, 30):
            b = a + math.radians(turn)
            px, py = robot["px"] + reach * math.cos(b), robot["py"] - reach * math.sin(b)
            if not any(covered_by(o, px, py) for o in others):
                got.append(pixels[int(round(py)), int(round(px))])
    right = [max(abs(g - w) for g, w in zip(p, rgb(colour))) < 0.08 for p in got]
    assert len(got) >= 2 and sum(right) >= len(got) - 1, (robot, got, colour)


def apart(robots, gap: float = 2.5) -> bool:
    """True when every two of ``robots`` (dicts with x, y in u_m) are ``gap`` u_m apart or more: then
    no robot's name or lamps (:func:`covered_by`) lie over another's body, and every point of
    :func:`assert_robot_drawn` is checked. Closer, a neighbour's name may cover a whole body (seen in
    CI: robots 1.2 u_m apart, one just below the other's name, no point left to check)."""
    return all(math.dist((a["x"], a["y"]), (b["x"], b["y"])) >= gap
               for a, b in itertools.combinations(robots, 2))


def last_record_per_cycle(cycles: list[dict]) -> dict[int, dict[int, dict]]:
    """cycle -> robot id -> the log's record of that robot at the end of that cycle."""
    return {c["time"]: {r["id"]: r for r in c["robots"]} for c in cycles}


def seek(pg, cycle: int):
    pg.evaluate("c => { const s = document.getElementById('seek'); s.value = c; "
                "s.dispatchEvent(new Event('input')); }", cycle)
    pg.wait_for_function(f"window.simleague.frame.t === {cycle}")


def assert_replay_shows(pg, at: dict, cycle: int):
    """The page shows, and has drawn, every robot where the log has it at ``cycle``."""
    pg.wait_for_function(f"window.simleague.frame.t === {cycle}")
    pixels, shown, t = picture(pg)
    assert t == cycle and sorted(shown) == sorted(at[cycle])
    for rid, r in at[cycle].items():
        assert shown[rid]["x"] == pytest.approx(r["x"], abs=1e-3)
        assert shown[rid]["y"] == pytest.approx(r["y"], abs=1e-3)
        assert_robot_drawn(pixels, shown[rid], PALETTE[rid - 1], [o for k, o in shown.items() if k != rid])


def test_live_trial_on_the_final_lab(cli, page, tmp_path):
    """The issue's own command (with a free port): lab and robots drawn, moving; a screenshot."""
    log = tmp_path / "final.jsonl"
    trial = cli("ciberrato", "trial", "--lab", LAB, "--grid", GRID, "--agents", 3, "--mode", "realtime",
                "--web", 0, "--log", log)
    page.goto(trial.url())
    page.wait_for_function("window.simleague.frame && window.simleague.frame.state === 'Running' "
                           "&& window.simleague.frame.t > 20", timeout=60_000)
    assert page.locator("#lab-name").inner_text() == "lab de teste"
    first = drawn(page)
    t_first = page.evaluate("window.simleague.frame.t")
    page.wait_for_function(f"window.simleague.frame.t > {t_first + 10}", timeout=10_000)
    second = drawn(page)
    assert sorted(first) == sorted(second) == [1, 2, 3]
    moved = [k for k in first if (first[k]["x"], first[k]["y"]) != (second[k]["x"], second[k]["y"])]
    assert moved, "no robot moved between two frames"
    assert all((first[k]["px"], first[k]["py"]) != (second[k]["px"], second[k]["py"]) for k in moved)

    page.check("#show-cones")
    page.wait_for_function("window.simleague.frame.t > 120", timeout=30_000)   # some trail to show
    BUILD.mkdir(exist_ok=True)
    page.screenshot(path=str(BUILD / "ciberrato-web-final.png"))

    deadline = time.monotonic() + 30                # the robots leave the grid (1.4 u_m apart) by ~cycle 100
    pixels, robots, _ = picture(page)
    while not apart(robots.values()):
        assert time.monotonic() < deadline, f"the robots stayed within 2.5 u_m of each other: {robots}"
        time.sleep(0.1)
        pixels, robots, _ = picture(page)
    # each wall is drawn in its shade (ciberrato.js wallShade: grey 175 - 120 min(1, height / 4),
    # a little bluer; higher walls darker), the floor between them light. A robot's sensor cones
    # (up to 2.5 u_m from its centre) and its name may lie over a wall (seen in CI), so only the
    # part of each wall farther than CLEAR u_m from every robot is looked at, and its median colour.
    CLEAR = 2.75
    walls = page.evaluate("""window.simleague.scene.lab.walls.filter(([h]) => h > 0).map(
        ([h, c]) => [h, c.map(([x, y]) => window.simleague.toPixel(x, y))])""")
    ys, xs = numpy.mgrid[0:pixels.shape[0], 0:pixels.shape[1]]
    centres = numpy.column_stack([xs.ravel() + 0.5, ys.ravel() + 0.5])
    reach = CLEAR * next(iter(robots.values()))["scale"]
    clear = numpy.all([numpy.hypot(*(centres - (r["px"], r["py"])).T) > reach for r in robots.values()], axis=0)
    looked_at = 0
    for height, corners in walls:
        inside = matplotlib.path.Path(corners).contains_points(centres) & clear
        if inside.sum() < 20:
            continue
        looked_at += 1
        grey = round(175 - 120 * min(1, height / 4)) / 255
        assert numpy.median(pixels.reshape(-1, 3)[inside], axis=0) == pytest.approx(
            [grey, grey, grey + 8 / 255], abs=0.01), f"the wall of height {height} at {corners}"
    assert looked_at >= 8, f"only {looked_at} of {len(walls)} walls clear of the robots: {robots}"
    # the floor, 0.3 u_m in from the border (no trail comes so near: a robot's centre keeps 0.5 u_m
    # off), where no robot's cones or name can be
    floor = [f for f in ((27.7, 0.3), (0.3, 0.3), (27.7, 13.7), (14.0, 0.3), (12.0, 13.7))
             if all(math.dist(f, (r["x"], r["y"])) > CLEAR for r in robots.values())]
    assert len(floor) >= 2
    for x, y in floor:
        px, py = page.evaluate(f"window.simleague.toPixel({x}, {y})")
        assert pixels[int(py), int(px)].min() > 0.9, f"the floor at ({x}, {y})"
    for rid, colour in zip((1, 2, 3), PALETTE):
        assert_robot_drawn(pixels, robots[rid], colour, [r for k, r in robots.items() if k != rid])
    rows = page.locator("#scoreboard tbody tr").all_inner_texts()
    assert len(rows) == 3 and all("Running" in r for r in rows), rows

    trial.stop()                                   # Ctrl-C: the log so far is kept, readable
    assert trial.proc.returncode == 130
    assert any("interrupted; the log so far is in" in line for line in trial.seen + list(trial.lines.queue))
    header, cycles, _ = read_log(log)
    assert len(cycles) > 120 and {r["id"] for r in cycles[-1]["robots"]} == {1, 2, 3}

    # the replay of that log shows the same trajectories
    replay = cli("ciberrato", "replay", log, "--web", 0)
    page.goto(replay.url())
    page.wait_for_function("window.simleague.mode === 'replay' && window.simleague.frame")
    at = last_record_per_cycle(cycles)
    spread = [c for c in sorted(at) if apart(at[c].values())]      # the live picture above had one
    for cycle in (1, spread[0], spread[-1]):        # the grid, and two moments with the robots apart
        seek(page, cycle)
        assert_replay_shows(page, at, cycle)


def test_start_stop_reset_from_the_page_reach_the_agent(cli, page):
    import socket

    server = cli("ciberrato", "serve", "--port", 0, "--web", 0, "--mode", "realtime")
    udp_port = int(server.wait_for(r"udp://127\.0\.0\.1:(\d+)").group(1))
    url = server.url()
    robot = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    robot.settimeout(3)
    robot.sendto(b'<Robot Name="tester" Id="1"/>', ("127.0.0.1", udp_port))
    _, peer = robot.recvfrom(1024)
    seen = {"buttons": None, "time": 0}
    running = threading.Event()
    running.set()

    def drive():
        from simleague.ciberrato import messages as M
        while running.is_set():
            try:
                m = M.parse_measures(robot.recvfrom(4096)[0])
            except (socket.timeout, OSError):
                continue
            seen["buttons"], seen["time"] = m.buttons, m.time
            robot.sendto(b'<Actions LeftMotor="0.08" RightMotor="0.1"/>', peer)

    driver = threading.Thread(target=drive, daemon=True)
    driver.start()
    try:
        page.goto(url)
        page.wait_for_function("window.simleague.frame && window.simleague.frame.r.length === 1")
        assert seen["buttons"] == (False, True)
        before = drawn(page)[1]
        page.click("#start")
        page.wait_for_function("window.simleague.frame.state === 'Running' && window.simleague.frame.t > 10")
        assert seen["buttons"] == (True, False)          # the agent saw Start
        after = drawn(page)[1]
        assert (after["px"], after["py"]) != (before["px"], before["py"])

        page.click("#stop")
        page.wait_for_function("window.simleague.frame.state === 'Stopped'")
        time.sleep(0.3)
        assert seen["buttons"] == (False, True)          # ... and Stop
        stopped = drawn(page)[1]
        time.sleep(0.3)
        assert drawn(page)[1] == stopped                 # nothing moves while stopped

        page.select_option("#remove-robot", "1")
        page.click("#remove")
        page.wait_for_function("document.querySelector('#scoreboard tbody').innerText.includes('Removed')")
        page.click("#reset")
        page.wait_for_function("window.simleague.frame.r.length === 0")
    finally:
        running.clear()
        driver.join(5)
        robot.close()


def test_replay_seeks_steps_and_plays_the_logged_trajectories(cli, page, tmp_path):
    log = tmp_path / "trial.jsonl"
    params = tmp_path / "params.xml"
    params.write_text('<Parameters SimTime="400"/>')
    trial = cli("ciberrato", "trial", "--agents", 3, "--mode", "lockstep", "--params", params, "--log", log,
                "--json")
    trial.proc.wait(timeout=120)
    assert trial.proc.returncode == 0
    _, cycles, _ = read_log(log)
    at = last_record_per_cycle(cycles)

    replay = cli("ciberrato", "replay", log, "--web", 0)
    page.goto(replay.url())
    page.wait_for_function("window.simleague.mode === 'replay' && window.simleague.frame")
    assert page.is_visible("#player") and not page.is_visible("#panel")

    # cycles with the robots apart, so that every robot's body can be checked (apart())
    middle = next(c for c in range(250, 390) if all(apart(at[k].values()) for k in (c - 1, c, c + 1)))
    early = next(c for c in range(100, 240) if apart(at[c].values()))
    seek(page, middle)
    assert_replay_shows(page, at, middle)
    assert f"cycle {middle} / 400" in page.locator("#clock").inner_text()
    page.click("#step-forward")
    assert_replay_shows(page, at, middle + 1)
    page.click("#step-back")
    page.click("#step-back")
    assert_replay_shows(page, at, middle - 1)
    seek(page, early)
    assert_replay_shows(page, at, early)

    page.select_option("#speed", "16")
    page.click("#play")
    page.wait_for_function("window.simleague.frame.t >= 200", timeout=10_000)
    page.click("#play")                                  # pause
    paused = page.evaluate("window.simleague.frame.t")
    time.sleep(0.3)
    assert page.evaluate("window.simleague.frame.t") == paused
    while not apart(at[paused].values()) and paused < 400:
        page.click("#step-forward")
        paused += 1
    assert_replay_shows(page, at, paused)


def test_fast_mode_page_shows_the_latest_cycle(cli, page, tmp_path):
    """In fast mode the simulation runs far ahead of any page; the page shows the newest state
    (frames are skipped, not queued) and has the final cycle as soon as the trial ends."""
    params = tmp_path / "params.xml"
    params.write_text('<Parameters SimTime="1500"/>')
    trial = cli("ciberrato", "trial", "--agents", 2, "--mode", "fast", "--params", params, "--web", 0,
                "--linger", 20, "--json")
    page.goto(trial.url())
    page.wait_for_function("window.simleague.frame && window.simleague.frame.t === 1500", timeout=60_000)
    received = page.evaluate("window.simleague.messages")
    assert received < 1500                               # it skipped frames rather than queueing them
    rows = page.locator("#scoreboard tbody tr").all_inner_texts()
    assert len(rows) == 2
