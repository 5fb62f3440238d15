"""Side by side with the original CiberRato tools: does the original's logplayer replay our XML
trial logs, and do we read the original simulator's logs? Run by hand (needs a build of
iris-ua/ciberRatoTools and xvfb-run); never in CI.

    python benchmarks/compare_logplayer.py --tools PATH/ciberRatoTools [--agents 3 --seed 1]

1. Runs a trial here with ``--log-format xml``, plays the log in the original ``logplayer`` (under
   Xvfb), registers as a viewer, sends Start and compares every robot state the logplayer sends
   (cycle, id, position, score, state) with the log as we read it.
2. Runs the original ``simulator`` with ``--log`` and our sample agents for 300 cycles, then reads
   its log with ours (``read_trial_log``) and draws it (``ciberrato plot``).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from simleague.ciberrato.logs import read_trial_log

ROBOT = re.compile(rb'<Robot Name="[^"]*" Id="(\d+)" Time="(\d+)".*?Score="(\d+)".*?State="(\w+)">\s*'
                   rb'<Position X="([^"]+)" Y="([^"]+)"', re.S)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(argv, cwd=None, log=None) -> subprocess.Popen:
    return subprocess.Popen(["xvfb-run", "-a", *map(str, argv)], cwd=cwd, start_new_session=True,
                            stdout=open(log, "w") if log else subprocess.DEVNULL, stderr=subprocess.STDOUT)


def stop(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(5)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(proc.pid, signal.SIGKILL)


def viewer(port: int) -> tuple[socket.socket, tuple]:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(5)
    for _ in range(20):                       # the GUI takes a few seconds to listen
        s.sendto(b"<View/>\x00", ("127.0.0.1", port))
        try:
            return s, s.recvfrom(65536)[1]
        except socket.timeout:
            continue
    raise SystemExit(f"no answer from the original on port {port}")


def logplayer_plays_ours(tools: Path, folder: Path, agents: int, seed: int) -> None:
    log = folder / "ours.xml"
    subprocess.run([sys.executable, "-m", "simleague", "ciberrato", "trial", "--agents", str(agents), "--seed",
                    str(seed), "--log", str(log), "--log-format", "xml", "--json"], check=True,
                   stdout=subprocess.DEVNULL)
    port = free_port()
    player = start([tools / "logplayer" / "logplayer", "-log", log, "-port", port], log=folder / "logplayer.out")
    try:
        s, addr = viewer(port)
        s.sendto(b"<Start/>\x00", addr)
        sent = {}
        while True:
            try:
                data = s.recvfrom(65536)[0]
            except socket.timeout:
                break
            for rid, t, score, state, x, y in ROBOT.findall(data):
                sent[int(t), int(rid)] = (float(x), float(y), int(score), state.decode())
    finally:
        stop(player)
    _, cycles = read_trial_log(log)
    ours = {(c["time"], r["id"]): (r["x"], r["y"], r["score"], r["state"]) for c in cycles for r in c["robots"]}
    differ = [k for k in ours if k not in sent or abs(sent[k][0] - ours[k][0]) > 1e-3
              or abs(sent[k][1] - ours[k][1]) > 1e-3 or sent[k][2:] != ours[k][2:]]
    print(f"logplayer: {len(sent)} robot states sent for {len(ours)} in our XML log "
          f"({len(cycles)} cycles, {agents} robots); {len(differ)} missing or different")


def we_read_the_originals(tools: Path, folder: Path) -> None:
    log, params = folder / "original.log", folder / "params.xml"
    params.write_text('<Parameters SimTime="300" CycleTime="20"/>')
    port = free_port()
    sim = start([tools / "simulator" / "simulator", "--log", log, "--param", params, "--port", port],
                cwd=tools / "simulator", log=folder / "simulator.out")
    robot = None
    try:
        s, addr = viewer(port)
        robot = subprocess.Popen([sys.executable, "-m", "simleague", "ciberrato", "agent", "--port", str(port),
                                  "--pos", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 start_new_session=True)
        time.sleep(2)
        s.sendto(b"<Start/>\x00", addr)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not log.read_bytes().rstrip().endswith(b"</Log>"):
            time.sleep(0.5)
    finally:
        if robot:
            stop(robot)
        stop(sim)
    header, cycles = read_trial_log(log)
    picture = folder / "original.png"
    subprocess.run([sys.executable, "-m", "simleague", "ciberrato", "plot", str(log), "-o", str(picture)], check=True)
    print(f"original simulator's log: {len(cycles)} cycles read (SimTime {header['params']['sim_time']}), "
          f"drawn in {picture}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tools", type=Path, required=True, help="a build of iris-ua/ciberRatoTools (its source folder)")
    ap.add_argument("--agents", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="logplayer-"))
    logplayer_plays_ours(args.tools, folder, args.agents, args.seed)
    we_read_the_originals(args.tools, folder)


if __name__ == "__main__":
    main()
