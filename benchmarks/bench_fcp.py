"""FC Portugal's team (m-abr/FCPCodebase, unmodified) playing on our SimSpark server and on the
original rcssserver3d 0.7.3, side by side (issue 28, part 3). Run by hand:

    python benchmarks/bench_fcp.py --fcp PATH/FCPCodebase --fcp-python PATH/venv/bin/python \\
        [--original PATH/prefix] [--players 3] [--minutes 2] [--repeat 1] [--json out.json]

``--fcp``: a checkout of FCPCodebase whose C++ modules its Python (``--fcp-python``: 3.11 with
``numpy<2``, pybind11, psutil) has built (run its ``Run_Player.py`` once). ``--original``: the
install prefix of rcssserver3d 0.7.3 built from source (bin/rcssserver3d, lib/simspark,
lib/rcssserver3d, share/); left out, only our server runs. Neither is part of simleague.

Each run starts a server in sync mode without real time, a monitor (this script, on the monitor
port), and the two teams, each in one process of its own (FCP's ``batch_create``, as its
``Run_Full_Team.py``; the original deadlocks with one process per player); when every robot has
its team and the robots have stood 3 s, the monitor kicks off (``(kickOff Left)``) and records
``--minutes`` of game time. Figures per run, from the monitor's full states (asked for after every
message, so both servers are read alike):

- ``lying``: the fraction of robot-samples whose torso is tilted more than 60 degrees;
- ``falls_per_robot_minute``: changes from upright (tilt below 30 degrees) to lying;
- ``speed_to_ball``: the median speed (m/s) at which each team's player nearest the ball closes
  on it while it walks to it (upright, more than 1 m away, closing at more than 0.1 m/s);
- ``ball_travel``: the ball's path length (m, sampled every 0.2 s of game time);
- ``play_modes``: the play modes seen after the kick-off; ``goals``: the score.

Prints a table with each server's median over ``--repeat`` runs and the ratio ours / original.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

PLAY_MODES = ("BeforeKickOff KickOff_Left KickOff_Right PlayOn KickIn_Left KickIn_Right corner_kick_left "
              "corner_kick_right goal_kick_left goal_kick_right offside_left offside_right GameOver "
              "Goal_Left Goal_Right free_kick_left free_kick_right direct_free_kick_left "
              "direct_free_kick_right pass_left pass_right").split()
TEAMS = ("FCPortugal", "FCPortugal2")
# one FCP process per team: its own launcher API, as its Run_Full_Team.py does (monitor off, no drawing)
TEAM_LAUNCHER = """
import os
from scripts.commons.Script import Script
script = Script()
a = script.args
from agent.Agent import Agent
n = int(os.environ["BENCH_PLAYERS"])
script.batch_create(Agent, ((a.i, a.p, None, u, a.t, False, False) for u in range(1, n + 1)))
while True:
    script.batch_execute_agent()
    script.batch_receive()
"""
TORSO = re.compile(r"\(nd TRF \(SLT ([^)]*)\)\(nd TRF \(SLT [^)]*\)\(nd StaticMesh \(setVisible 1\) "
                   r"\(load models/naobody\d\.obj\) \(sSc [^)]*\)\(resetMaterials matNum(\d*) (matLeft|matRight|matTeam)")
BALL = re.compile(r"\(nd TRF \(SLT ([^)]*)\)\(nd StaticMesh \(setVisible 1\) \(load models/soccerball\.obj\)")
TIME, MODE = re.compile(r"\(time ([-\d.e+]+)\)"), re.compile(r"\(play_mode (\d+)\)")
SCORE = re.compile(r"\(score_(left|right) (\d+)\)")


class JoinError(RuntimeError):
    """A team did not join in time (in sync mode, the original waits for the (syn) of a player
    whose team process is still connecting its next player: a deadlock)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Monitor(threading.Thread):
    """Reads the monitor port; after every message asks for a full state; keeps (game time, play
    mode, score, ball position, {(side, unum): 4x4 torso transform}) samples once the game runs."""

    def __init__(self, port: int):
        super().__init__(daemon=True)
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.samples: list[tuple] = []
        self.mode, self.time, self.score = 0, 0.0, [0, 0]
        self.robots: dict = {}
        self.closed = False

    def send(self, text: str) -> None:
        data = text.encode()
        self.sock.sendall(struct.pack(">I", len(data)) + data)

    def _exactly(self, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("closed")
            data += chunk
        return data

    def run(self) -> None:
        try:
            self.send("(reqfullstate)")
            while not self.closed:
                (n,) = struct.unpack(">I", self._exactly(4))
                text = self._exactly(n).decode(errors="replace")
                self._read(text)
                self.send("(reqfullstate)")
        except (OSError, ConnectionError):
            self.closed = True

    def _read(self, text: str) -> None:
        m = TIME.search(text)
        if m:
            self.time = float(m.group(1))
        m = MODE.search(text)
        if m:
            self.mode = int(m.group(1))
        for side, goals in SCORE.findall(text):
            self.score[side == "right"] = int(goals)
        if not text.startswith("((FieldLength") and "(RSG" not in text:
            return                                    # an update: robots only in full states
        robots = {}
        for slt, unum, team in TORSO.findall(text):
            if team != "matTeam" and unum:
                robots[(team, int(unum))] = np.array([float(v) for v in slt.split()]).reshape(4, 4).T
        self.robots = robots
        ball = BALL.search(text)
        if ball is not None and self.mode != 0:
            self.samples.append((self.time, PLAY_MODES[self.mode], tuple(self.score),
                                 np.array([float(v) for v in ball.group(1).split()])[12:15], robots))


def start_original(prefix: Path, agent_port: int, monitor_port: int, workdir: Path) -> subprocess.Popen:
    """rcssserver3d in sync mode without real time, from a private HOME and working folder."""
    home = workdir / "home"
    (home / ".simspark").mkdir(parents=True, exist_ok=True)
    spark = (prefix / "share/simspark/spark.rb").read_text()
    for key, value in (("agentSyncMode", "true"), ("threadedAgentControl", "false"),
                       ("serverMultiThreadedMode", "false"), ("agentPort", str(agent_port)),
                       ("serverPort", str(monitor_port))):
        spark = re.sub(rf"^\${key} = .*$", f"${key} = {value}", spark, flags=re.M)
    (home / ".simspark" / "spark.rb").write_text(spark)
    rcss = (prefix / "share/rcssserver3d/rcssserver3d.rb").read_text()
    (workdir / "rcssserver3d.rb").write_text(re.sub(r"^\$enableRealTimeMode = .*$", "$enableRealTimeMode = false",
                                                    rcss, flags=re.M))
    env = dict(os.environ, HOME=str(home),
               LD_LIBRARY_PATH=f"{prefix}/lib/simspark:{prefix}/lib/rcssserver3d")
    return subprocess.Popen([str(prefix / "bin/rcssserver3d")], cwd=workdir, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def start_ours(agent_port: int, monitor_port: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "simleague", "simspark", "serve", "--sync", "--no-realtime",
                             "--agent-port", str(agent_port), "--monitor-port", str(monitor_port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def wait_for_port(port: int, process: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("the server stopped while starting")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"no server on port {port} after {timeout:.0f} s")


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def run_match(server: str, args, workdir: Path) -> dict:
    agent_port, monitor_port = free_port(), free_port()
    process = (start_original(args.original, agent_port, monitor_port, workdir) if server == "original"
               else start_ours(agent_port, monitor_port))
    teams: list[subprocess.Popen] = []
    try:
        wait_for_port(monitor_port, process)
        monitor = Monitor(monitor_port)
        monitor.start()
        env = dict(os.environ, BENCH_PLAYERS=str(args.players))
        for team in TEAMS:
            teams.append(subprocess.Popen([str(args.fcp_python), "-c", TEAM_LAUNCHER, "-i", "127.0.0.1",
                                           "-p", str(agent_port), "-t", team, "-D", "0"],
                                          cwd=args.fcp, env=env, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL, start_new_session=True))
            deadline = time.monotonic() + 120
            side = "matLeft" if team == TEAMS[0] else "matRight"
            while sum(k[0] == side for k in monitor.robots) < args.players:
                if time.monotonic() > deadline or monitor.closed:
                    raise JoinError(f"{team} did not join ({len(monitor.robots)} robots seen)")
                time.sleep(0.2)
        time.sleep(3.0)                                   # let them beam and stand
        monitor.send("(kickOff Left)")
        wall = time.monotonic()
        deadline = wall + args.timeout
        while monitor.time < 60 * args.minutes:
            if time.monotonic() > deadline or monitor.closed or process.poll() is not None:
                raise RuntimeError(f"the game reached only {monitor.time:.1f} s")
            time.sleep(0.5)
        wall = time.monotonic() - wall
        monitor.closed = True
        samples = [s for s in monitor.samples if s[0] <= 60 * args.minutes]
    finally:
        for p in teams:
            stop(p)
        stop(process)
    figures = figures_of(samples, args.players)
    figures["wall_s"] = round(wall, 1)
    return figures


def figures_of(samples: list[tuple], players: int) -> dict:
    """The issue's figures from monitor samples (module docstring)."""
    lying = upright = falls = 0
    state: dict = {}
    speeds = []
    previous = None
    ball_path, last_ball_t, last_ball = 0.0, None, None
    modes: list[str] = []
    for t, mode, _, ball, robots in samples:
        if mode not in modes:
            modes.append(mode)
        for key, transform in robots.items():
            tilt = math.degrees(math.acos(max(-1.0, min(1.0, transform[2, 2]))))
            if tilt > 60:
                lying += 1
                if state.get(key) == "up":
                    falls += 1
                state[key] = "down"
            else:
                upright += 1
                if tilt < 30:
                    state[key] = "up"
        if last_ball_t is None or t - last_ball_t >= 0.2:
            if last_ball is not None:
                ball_path += float(np.linalg.norm(ball[:2] - last_ball[:2]))
            last_ball_t, last_ball = t, ball
        if previous is not None and t - previous[0] >= 0.2:
            for side in ("matLeft", "matRight"):
                mine = {k: v for k, v in robots.items() if k[0] == side and k in previous[2]}
                if not mine:
                    continue
                key = min(mine, key=lambda k: np.linalg.norm(mine[k][:2, 3] - ball[:2]))
                now, before = mine[key], previous[2][key]
                d_now = np.linalg.norm(now[:2, 3] - ball[:2])
                d_before = np.linalg.norm(before[:2, 3] - previous[1][:2])
                closing = (d_before - d_now) / (t - previous[0])
                if d_now > 1.0 and now[2, 2] > math.cos(math.radians(30)) and closing > 0.1:
                    speeds.append(closing)
            previous = (t, ball, robots)
        elif previous is None:
            previous = (t, ball, robots)
    robot_samples = max(lying + upright, 1)
    minutes = (samples[-1][0] - samples[0][0]) / 60 if len(samples) > 1 else 0.0
    return {"lying": round(lying / robot_samples, 3),
            "falls_per_robot_minute": round(falls / (2 * players * minutes), 3) if minutes else None,
            "speed_to_ball": round(statistics.median(speeds), 3) if speeds else None,
            "ball_travel": round(ball_path, 2), "play_modes": modes,
            "goals": list(samples[-1][2]) if samples else [0, 0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fcp", type=Path, required=True, help="FCPCodebase checkout (C++ modules built)")
    parser.add_argument("--fcp-python", type=Path, required=True, help="the Python that runs FCP")
    parser.add_argument("--original", type=Path, help="install prefix of rcssserver3d 0.7.3")
    parser.add_argument("--players", type=int, default=3, help="players a side (1-11)")
    parser.add_argument("--minutes", type=float, default=2.0, help="minutes of game time after the kick-off")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=3600.0, help="wall seconds a run may take")
    parser.add_argument("--json", type=Path, help="write every run's figures here")
    args = parser.parse_args()
    # a SIGTERM ends the benchmark as Ctrl-C does, so every server and team it started is stopped
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    servers = ["ours"] + (["original"] if args.original else [])
    runs: dict[str, list[dict]] = {s: [] for s in servers}
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.repeat):
            for server in servers:
                for attempt in range(3):                  # the original may deadlock while a team joins
                    workdir = Path(tmp) / f"{server}{k}-{attempt}"
                    workdir.mkdir()
                    try:
                        figures = run_match(server, args, workdir)
                        break
                    except JoinError as e:
                        print(f"{server}: {e}; starting again", file=sys.stderr, flush=True)
                else:
                    raise SystemExit(f"{server}: the teams did not join in three attempts")
                runs[server].append(figures)
                print(server, json.dumps(figures), flush=True)
                shutil.rmtree(workdir, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(runs, indent=1))
    keys = ("lying", "falls_per_robot_minute", "speed_to_ball", "ball_travel")
    print(f"\n{args.players} v {args.players}, {args.minutes:g} min after kick-off, median of {args.repeat}")
    for key in keys:
        row = {s: statistics.median([r[key] for r in runs[s] if r[key] is not None] or [float("nan")]) for s in servers}
        ratio = f"  ratio {row['ours'] / row['original']:.2f}" if "original" in row and row["original"] else ""
        print(f"  {key:<24}" + "".join(f"{s} {row[s]:<8}" for s in servers) + ratio)
    for s in servers:
        print(f"  play modes ({s}): {', '.join(sorted({m for r in runs[s] for m in r['play_modes']}))}")


if __name__ == "__main__":
    main()
