"""Trials per minute of a whole CiberRato competition (issue 33): N trials of three sample agents
(lockstep), run with one worker, with a local pool of two, and as tasks on a local Ray head with two
CPUs (started and stopped here); the ratio of the pool to one at a time and Ray's overhead per trial
against the pool. Each run starts afresh (--restart), from the command line as an organiser would.

Run by hand: ``python benchmarks/bench_competition.py [--trials 120] [--no-ray]``.
"""

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

AGENT = "python -m simleague.ciberrato.agent --host {host} --port {port} --pos {pos} --name {name}"


def competition_file(folder: Path, trials: int) -> Path:
    text = '[competition]\nname = "bench"\nseed = 1\n'
    for name in ("Ants", "Bees", "Crickets"):
        text += f'[[team]]\nname = "{name}"\ncommand = "{AGENT}"\n'
    path = folder / "bench.toml"
    path.write_text(text + f'[[leg]]\nname = "L"\ntrials = {trials}\nrobots_per_trial = 3\n')
    return path


def run(path: Path, out: Path, *options: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "simleague", "ciberrato", "competition", str(path), "--out", str(out),
                    "--restart", *options], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def ray_head():
    ray = Path(sys.executable).parent / "ray"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    folder = tempfile.mkdtemp(prefix="ray", dir="/tmp")
    head = subprocess.Popen([str(ray), "start", "--head", "--block", "--num-cpus", "2", "--port", str(port),
                             "--include-dashboard=false", "--disable-usage-stats", "--temp-dir", folder],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    while True:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return head, folder, f"127.0.0.1:{port}"
        time.sleep(0.2)


def stop(head, folder):
    os.killpg(head.pid, signal.SIGTERM)
    head.wait()
    for p in psutil.process_iter(["cmdline"]):
        if any(folder in w for w in p.info["cmdline"] or ()):
            p.kill()
    shutil.rmtree(folder, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=120)
    parser.add_argument("--no-ray", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = competition_file(folder, args.trials)
        one = run(path, folder / "one", "--workers", "1")
        pool = run(path, folder / "pool", "--workers", "2")
        print(f"{args.trials} trials of 3 sample agents (lockstep) on {os.cpu_count()} cores")
        print(f"  one at a time:      {one:7.1f} s  {60 * args.trials / one:6.1f} trials/min")
        print(f"  local pool of 2:    {pool:7.1f} s  {60 * args.trials / pool:6.1f} trials/min  "
              f"(x{one / pool:.2f} of one at a time)")
        if not args.no_ray:
            head, ray_folder, address = ray_head()
            try:
                ray = run(path, folder / "ray", "--ray", address)
            finally:
                stop(head, ray_folder)
            print(f"  Ray head, 2 CPUs:   {ray:7.1f} s  {60 * args.trials / ray:6.1f} trials/min  "
                  f"(overhead {(ray - pool) / args.trials:+.2f} s a trial against the pool)")


if __name__ == "__main__":
    main()
