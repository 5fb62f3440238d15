"""MSL middleware over a slow network (run by hand): the simulated/real time ratio of two toy teams
whose every byte to and from the middleware is delayed, by how they get the opponent.

    python benchmarks/bench_msl_latency.py [--seconds 15] [--repeat 3] [--delays 0,20,50]

A delay proxy (asyncio, in this process) sits between the teams (and their pausers) and the
middleware and holds every chunk ``delay`` ms in each direction, in order. Two toy teams at the
same speed (1.0) play for ``--seconds`` of wall time with process pausers; each reports the
simulation time it reached and the wall time it took. Exchange ``request``: the thesis' info
exchanger (6.2), which waits for each answer; ``subscribe``: the opponent pushed every 20 ms of
the team's own time, nothing waited for. Target (issue 34): at least 0.9 at 20 ms one way.
Medians over ``--repeat`` runs; the machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


def simleague(*args: str) -> list[str]:
    return [sys.executable, "-m", "simleague", "msl", *args]


class DelayProxy:
    """TCP proxy 127.0.0.1:port -> 127.0.0.1:target holding every chunk ``delay`` s each way."""

    def __init__(self, target: int, delay: float):
        self.target, self.delay = target, delay
        self.port = 0
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()
        threading.Thread(target=self._run, args=(ready,), daemon=True).start()
        ready.wait()

    def _run(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        server = self.loop.run_until_complete(asyncio.start_server(self._conn, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        ready.set()
        self.loop.run_forever()

    async def _pump(self, reader, writer) -> None:
        loop = asyncio.get_running_loop()
        while data := await reader.read(65536):
            loop.call_at(loop.time() + self.delay, writer.write, data)
        loop.call_at(loop.time() + self.delay, writer.close)

    async def _conn(self, reader, writer) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:                  # the middleware's team port is not open yet: the team retries
            writer.close()
            return
        await asyncio.gather(self._pump(reader, up_writer), self._pump(up_reader, writer), return_exceptions=True)


def one_run(seconds: float, delay_ms: float, exchange: str) -> list[float]:
    """Simulated/real time ratio of each team in one match."""
    folder = Path(tempfile.mkdtemp(prefix="simleague-msl-latency-"))
    procs = []
    try:
        mw = subprocess.Popen(simleague("middleware", "--team-port", "0", "--pauser-port", "0", "--events",
                                        str(folder / "mw.jsonl")), stdout=subprocess.PIPE, text=True)
        procs.append(mw)
        ports = json.loads(mw.stdout.readline())
        team_proxy = DelayProxy(ports["teamPort"], delay_ms / 1000.0)
        pauser_proxy = DelayProxy(ports["pauserPort"], delay_ms / 1000.0)
        teams = []
        for side in ("cyan", "magenta"):
            team = subprocess.Popen(simleague("team", "--name", side, "--side", side, "--port", str(team_proxy.port),
                                              "--seconds", str(seconds), "--exchange", exchange),
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            teams.append(team)
            procs.append(team)
            procs.append(subprocess.Popen(simleague("pauser", "--backend", "process", "--pid", str(team.pid),
                                                    "--side", side, "--port", str(pauser_proxy.port)),
                                          stderr=subprocess.DEVNULL))
        ratios = []
        for team in teams:
            out, _ = team.communicate(timeout=seconds + 60)
            stats = json.loads(out.strip().splitlines()[-1])
            ratios.append(stats["simTime"] / stats["wall"])
        return ratios
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
                p.wait(10)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--delays", default="0,20,50", help="one-way delays, ms")
    args = ap.parse_args()
    print("| one-way delay | exchange | simulated / real time (median of runs, slower team) |")
    print("|---|---|---|")
    for delay in (float(d) for d in args.delays.split(",")):
        for exchange in ("request", "subscribe"):
            runs = [min(one_run(args.seconds, delay, exchange)) for _ in range(args.repeat)]
            print(f"| {delay:g} ms | {exchange} | {statistics.median(runs):.2f} "
                  f"({', '.join(f'{r:.2f}' for r in runs)}) |", flush=True)
        time.sleep(0.5)


if __name__ == "__main__":
    main()
