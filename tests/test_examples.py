"""Every example in examples/ runs: each world's minimal agent against our server (real processes,
real sockets on 127.0.0.1), and the sample lab, grid and parameters make a trial. The other sample
files are played elsewhere: the competition and tournament
files by tests/test_competition.py, kid.json by tests/vhsc/test_vhsc_match.py, the MSL compose file by
tests/msl/test_msl_processes.py."""

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

from msl_helpers import MiddlewareProcess, simleague

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def example(path: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(EXAMPLES / path), *args], capture_output=True, text=True,
                          timeout=timeout)


def wait_for_port(port: int, timeout: float = 60.0) -> None:
    """Return once a server listens on TCP ``port`` of 127.0.0.1 (or after ``timeout`` s: the
    example then fails with the server's error)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)


def wait_for_udp(port: int, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    """Return once a socket is bound to UDP ``port`` (Linux's /proc/net/udp; the simulator's
    registration port, which cannot be probed without registering), or ``proc`` ended, or after
    ``timeout`` s: the example then fails with the simulator's error."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        lines = Path("/proc/net/udp").read_text().splitlines()[1:]
        if any(int(line.split()[1].split(":")[1], 16) == port for line in lines):
            return
        time.sleep(0.2)


def stop(proc: subprocess.Popen) -> str:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.stderr.read() if proc.stderr and not proc.stderr.closed else ""


def test_the_ciberrato_wanderer_plays_a_trial(free_port):
    port = free_port(socket.SOCK_DGRAM)
    trial = subprocess.Popen(simleague("ciberrato", "trial", "--agents", "0", "--wait-for", "1", "--port", str(port),
                                       "--json"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_udp(port, trial)                  # the trial starts in 1 s, or 10 on a loaded machine
        done = example("ciberrato/wanderer.py", "--port", str(port))
        out, err = trial.communicate(timeout=120)
    finally:
        stop(trial)
    assert done.returncode == 0, done.stderr
    assert "Wanderer: drove" in done.stdout and int(done.stdout.split("drove ")[1].split()[0]) > 100
    result = json.loads(out)
    assert [r["name"] for r in result["robots"]] == ["Wanderer"], result


def test_the_simspark_looker_sees_the_ball(free_port):
    agent_port, monitor_port = free_port(), free_port()
    server = subprocess.Popen(simleague("simspark", "serve", "--sync", "--no-realtime", "--agent-port", str(agent_port),
                                        "--monitor-port", str(monitor_port)),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_port(agent_port)
        done = example("simspark/looker.py", "--port", str(agent_port), "--seconds", "4")
    finally:
        err = stop(server)
    assert done.returncode == 0, done.stdout + done.stderr + err
    assert "saw the ball" in done.stdout


def test_the_humanoid_head_shaker_moves_its_robots_head(free_port):
    base = free_port()
    team = str(EXAMPLES / "vhsc" / "kid.json")
    server = subprocess.Popen(simleague("vhsc", "serve", "--red", team, "--blue", team,
                                        "--red-base", str(base - 1), "--blue-base", str(base + 40),
                                        "--gc-port", str(free_port(socket.SOCK_DGRAM)),
                                        "--gc-return-port", str(free_port(socket.SOCK_DGRAM))),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_port(base)
        done = example("vhsc/head_shaker.py", "--address", f"127.0.0.1:{base}", "--seconds", "3")
    finally:
        err = stop(server)
    assert done.returncode == 0, done.stdout + done.stderr + err
    assert "the head swung up to" in done.stdout


def test_two_example_msl_teams_play_a_refereed_match(tmp_path):
    match = tmp_path / "match.toml"
    match.write_text('[referee]\nmode = "auto"\nhalf = 2.0\ndelay = 0.5\npause = 0.5\n')
    mw = MiddlewareProcess(tmp_path / "mw.jsonl", "--match", str(match))
    procs = []
    try:
        for side in ("cyan", "magenta"):
            team = subprocess.Popen([sys.executable, str(EXAMPLES / "msl" / "team.py"), "--side", side, "--port",
                                     str(mw.team_port), "--seconds", "60"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            procs.append(team)
            procs.append(subprocess.Popen(simleague("msl", "pauser", "--backend", "process", "--pid", str(team.pid),
                                                    "--side", side, "--port", str(mw.pauser_port)),
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        outs = [procs[i].communicate(timeout=90) for i in (0, 2)]
    finally:
        for p in procs:
            stop(p)
        err = mw.stop()
    assert "Traceback" not in err, err
    for (out, errs), team in zip(outs, procs[0::2]):
        assert team.returncode == 0, errs
        assert "the match ended: the auto referee ended the game" in out, out
        assert "KICKOFF" in out and "START (both)" in out and "seen: 1" in out


def test_the_sample_lab_grid_and_parameters_make_a_trial():
    folder = EXAMPLES / "ciberrato"
    done = subprocess.run(simleague("ciberrato", "trial", "--lab", str(folder / "two-rooms-lab.xml"), "--grid",
                                    str(folder / "two-rooms-grid.xml"), "--params", str(folder / "short-params.xml"),
                                    "--json"), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["lab"], result["sim_time"], len(result["robots"])) == ("Two rooms", 600, 3)
    assert any(r["state"] == "Finished" for r in result["robots"])     # the door lets the sample agents through


def test_the_league_robots_team_files_serve_their_robots(free_port):
    """examples/vhsc/wolfgang.json and chape.json with the league's PROTO robots
    (../shared/reference/robots/webots-proto): the server builds them and a controller drives one."""
    from golden import SHARED

    base = free_port()
    server = subprocess.Popen(simleague("vhsc", "serve", "--red", str(EXAMPLES / "vhsc" / "wolfgang.json"),
                                        "--blue", str(EXAMPLES / "vhsc" / "chape.json"),
                                        "--models", str(SHARED / "reference" / "robots" / "webots-proto"),
                                        "--red-base", str(base - 1), "--blue-base", str(base + 40),
                                        "--gc-port", str(free_port(socket.SOCK_DGRAM)),
                                        "--gc-return-port", str(free_port(socket.SOCK_DGRAM))),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        from simleague.vhsc.client import RobotClient

        deadline, robot = time.monotonic() + 120, None
        while robot is None and time.monotonic() < deadline and server.poll() is None:
            try:
                robot = RobotClient(f"127.0.0.1:{base}", timeout=10)
            except OSError:
                time.sleep(0.3)
        assert robot is not None, stop(server)
        with robot:
            robot.send(robot.requests(time_steps={"imu gyro": 8, "HeadPan_sensor": 8}, positions={"HeadPan": 0.3}))
            got = [robot.receive() for _ in range(30)]
        assert got[-1].time > got[0].time and any(m.gyros for m in got) and any(m.position_sensors for m in got)
    finally:
        err = stop(server)
    assert "Traceback" not in err, err
