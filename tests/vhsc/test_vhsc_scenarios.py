"""Referee test scenarios in the league's format, run by ``simleague vhsc referee-test`` (issue 31):
our own scenario files in tests/scenarios (kick-off positions and the kick-off goal rule, goals,
throw-in retake and abort with warnings and cards, corner kick and opponents' distance, dropped
ball, forceful contact, ball holding and penalty kick, leaving the turf, a penalised robot coming
back and the inactive goalkeeper, a knockout game's overtime and penalty shoot-out), a failing test reported
with what was expected and what came, an event that never becomes active reported as such; the
robots a scenario names found in the league repository's protos folder above it."""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

from simleague.vhsc.scenario import run_scenario

SCENARIOS = Path(__file__).parent / "scenarios"
CHAPE = Path(__file__).resolve().parents[3] / "shared" / "reference" / "robots" / "webots-proto" / "itandroids" / "Chape"


def referee_test(*paths):
    return subprocess.run([sys.executable, "-m", "simleague", "vhsc", "referee-test", *map(str, paths)],
                          capture_output=True, text=True, timeout=300)


def test_our_scenarios_pass_with_a_line_per_test_and_scenario():
    done = referee_test(SCENARIOS)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[-2:] == ["scenarios: 10 of 10 passed", "65 passed, 0 failed"]
    assert "  passed: a throw-in for blue" in lines and f"scenario {SCENARIOS / 'goal'}: passed" in lines


def test_a_failing_test_says_what_was_expected_and_what_came(tmp_path, monkeypatch):
    folder = tmp_path / "wrong"
    shutil.copytree(SCENARIOS / "goal", folder)
    events = json.loads((folder / "test_scenario.json").read_text())
    events[-1]["tests"][0]["score"] = 2                                   # red scored once, not twice
    (folder / "test_scenario.json").write_text(json.dumps(events))
    done = referee_test(folder)
    assert done.returncode == 1 and "FAILED: red scored (score of RED: expected 2, got 1" in done.stdout
    assert done.stdout.splitlines()[-2:] == ["scenarios: 0 of 1 passed", "5 passed, 1 failed"]
    (folder / "test_scenario.json").write_text(json.dumps(
        [{"timing": {"time": 1.0, "secondary_state": "PENALTYKICK"}, "tests": [{"name": "never", "state": "PLAYING"}]}]))
    monkeypatch.setattr("simleague.vhsc.scenario.MAX_SIMULATED", 10.0)   # the run stops there
    assert run_scenario(folder).tests == [("never", False, "never checked: PENALTYKICK not reached")]


def test_a_folder_without_scenarios_is_a_one_line_error(tmp_path):
    done = referee_test(tmp_path)
    assert done.returncode == 2 and "no test_scenario.json" in done.stderr and "Traceback" not in done.stderr


def test_a_game_controller_option_without_seconds_is_a_one_line_error(tmp_path):
    folder = tmp_path / "broken"
    shutil.copytree(SCENARIOS / "goal", folder)
    game = json.loads((folder / "game.json").read_text())
    game["game_controller_extra_args"] = ["--halftimeduration", "ten"]
    (folder / "game.json").write_text(json.dumps(game))
    done = referee_test(folder)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"{folder / 'game.json'}: game_controller_extra_args: --halftimeduration needs seconds (1-3600), " \
        "not 'ten'" in done.stderr
    game["game_controller_extra_args"] = ["--overtimeduration", "-5"]
    (folder / "game.json").write_text(json.dumps(game))
    assert "--overtimeduration needs seconds (1-3600), not '-5'" in referee_test(folder).stderr


def test_robots_are_found_in_the_league_repositorys_protos_folder(tmp_path):
    """As in the league's repository: scenarios under controllers/referee/tests, robots under protos."""
    repo = tmp_path / "hlvs_webots"
    folder = repo / "controllers" / "referee" / "tests" / "short"
    shutil.copytree(SCENARIOS / "goal", folder)
    (folder / "test_scenario.json").write_text(json.dumps(
        [{"timing": {"time": 1.0}, "tests": [{"name": "initial", "state": "INITIAL"}]}]))
    team = json.loads((folder / "team_blue.json").read_text())
    for player in team["players"].values():
        player["proto"] = "ChapeRobocup"
    (folder / "team_blue.json").write_text(json.dumps(team))
    result = run_scenario(folder)
    assert result.passed and result.notes == ["ChapeRobocup replaced by our kid robot (not found)"]
    shutil.copytree(CHAPE, repo / "protos" / "robots" / "Chape")
    result = run_scenario(folder)
    assert result.passed and result.notes == []


def test_scenarios_run_side_by_side_report_in_the_order_of_their_folders(tmp_path):
    """Two jobs: a broken scenario reported as not run, in its place, the others still run."""
    for name in ("a", "b", "c"):
        shutil.copytree(SCENARIOS / "goal", tmp_path / name)
        (tmp_path / name / "test_scenario.json").write_text(json.dumps(
            [{"timing": {"time": 1.0}, "tests": [{"name": f"{name}: initial", "state": "INITIAL"}]}]))
    (tmp_path / "b" / "test_scenario.json").write_text("[{")
    done = subprocess.run([sys.executable, "-m", "simleague", "vhsc", "referee-test", "--jobs", "2", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"{tmp_path / 'b' / 'test_scenario.json'}: cannot read it" in done.stderr
    assert done.stdout.splitlines() == [
        "  passed: a: initial", f"scenario {tmp_path / 'a'}: passed", f"scenario {tmp_path / 'b'}: not run",
        "  passed: c: initial", f"scenario {tmp_path / 'c'}: passed", "scenarios: 2 of 3 passed", "2 passed, 1 failed"]


def test_ctrl_c_stops_the_scenarios_side_by_side_and_their_workers():
    done = subprocess.Popen([sys.executable, "-m", "simleague", "vhsc", "referee-test", "--jobs", "2", str(SCENARIOS)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        runner = psutil.Process(done.pid)
        deadline = time.monotonic() + 60
        while len(workers := runner.children()) < 2:      # the pool starting (resource tracker, workers)
            assert time.monotonic() < deadline, "no workers"
            time.sleep(0.1)
        os.killpg(done.pid, signal.SIGINT)                             # Ctrl-C reaches the whole group
        _, err = done.communicate(timeout=60)
    finally:
        if done.poll() is None:
            os.killpg(done.pid, signal.SIGKILL)
            done.wait()
    assert done.returncode == 130 and "interrupted" in err and "Traceback" not in err, err

    def left():
        alive = []
        for worker in workers:
            with contextlib.suppress(psutil.NoSuchProcess):
                if worker.is_running() and worker.status() != psutil.STATUS_ZOMBIE:
                    alive.append(worker)
        return alive
    deadline = time.monotonic() + 10                     # the resource tracker ends once it sees the runner gone
    while left() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left()
