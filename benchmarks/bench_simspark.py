"""Throughput of the SimSpark server (issue 5, part 7): cycles per second in sync mode with real
time off, for 1, 11 and 22 agents that send every joint effector each cycle; the server's memory;
the time for all agents to join.

Run by hand: ``python benchmarks/bench_simspark.py [--agents 1 11 22] [--cycles 1000] [--repeat 3]
[--original PREFIX]``. The server is ``simleague simspark serve --sync --no-realtime`` in a process
of its own (with ``--original``, rcssserver3d 0.7.3 from that install prefix too, in sync mode
without real time, measured in the same run: see ``bench_fcp.py``); the agents
are one asyncio client in this process (the issue allows it for 22), each answering its perceptors
at once with all 22 joint velocities and ``(syn)``. Prints the median of ``--repeat`` runs.

Reference figures measured on this machine kind (issue 5): rcssserver3d 0.7.3 1,635 cycles/s at 1
agent, 161 at 11, 73 at 22; rcsssmj 0.2.1 635 at 1, 29 at 22, 4.95 GB, 30 s to join.
"""

import argparse
import asyncio
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
from bench_fcp import start_original

JOINTS = ["he1", "he2"] + [f"{s}ae{i}" for s in "lr" for i in range(1, 5)] + \
         [f"{s}le{i}" for s in "lr" for i in range(1, 7)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def agent(port: int, unum: int, team: str, joined: asyncio.Event, counts: list, stop: asyncio.Event):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)

    def send(text: str):
        data = text.encode()
        writer.write(struct.pack(">I", len(data)) + data)

    async def receive() -> bytes:
        (n,) = struct.unpack(">I", await reader.readexactly(4))
        return await reader.readexactly(n)

    send(f"(scene rsg/agent/nao/nao_hetero.rsg {[0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4][unum - 1]})")
    await receive()
    send(f"(init (unum {unum})(teamname {team}))")
    k = 0
    while not stop.is_set():
        message = await receive()
        if b"(unum " in message:
            joined.set()
        velocities = "".join(f"({j} {0.3 if (k // 50) % 2 else -0.3})" for j in JOINTS)
        send(velocities + "(syn)")
        counts[0] += 1
        k += 1
    writer.close()


async def measure(n: int, cycles: int, original: Path | None = None, workdir: Path | None = None) -> dict:
    agent_port, monitor_port = free_port(), free_port()
    if original is not None:
        server = start_original(original, agent_port, monitor_port, workdir)
    else:
        server = subprocess.Popen([sys.executable, "-m", "simleague", "simspark", "serve", "--sync", "--no-realtime",
                                   "--agent-port", str(agent_port), "--monitor-port", str(monitor_port)],
                                  stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", agent_port)).close()
                break
            except OSError:
                await asyncio.sleep(0.05)
        stop = asyncio.Event()
        joined = [asyncio.Event() for _ in range(n)]
        counts = [0]
        started = time.monotonic()
        tasks = []
        for i in range(n):                          # one after the other: the original in sync mode
            tasks.append(asyncio.create_task(agent(agent_port, i // 2 + 1, "AB"[i % 2], joined[i], counts, stop)))
            await asyncio.wait_for(joined[i].wait(), 60)    # stalls when agents connect all at once
        join_time = time.monotonic() - started
        await asyncio.sleep(0.5)
        first, t0 = counts[0], time.monotonic()
        while counts[0] - first < cycles * n:
            await asyncio.sleep(0.05)
        elapsed = time.monotonic() - t0
        rate = (counts[0] - first) / n / elapsed
        memory = psutil.Process(server.pid).memory_info().rss
        stop.set()
        for t in tasks:
            t.cancel()
        return {"agents": n, "cycles_per_s": rate, "join_s": join_time, "rss_mb": memory / 2**20}
    finally:
        server.kill()
        server.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--agents", type=int, nargs="+", default=[1, 11, 22])
    parser.add_argument("--cycles", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--original", type=Path, help="install prefix of rcssserver3d 0.7.3, measured alongside")
    args = parser.parse_args()
    servers = [("simleague", None)] + ([("rcssserver3d", args.original)] if args.original else [])
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.agents:
            medians = {}
            for name, prefix in servers:
                runs = []
                for k in range(args.repeat):        # the servers take turns, so both see the same machine
                    workdir = Path(tmp) / f"{name}-{n}-{k}"
                    workdir.mkdir()
                    runs.append(asyncio.run(measure(n, args.cycles, prefix, workdir)))
                med = {key: statistics.median(r[key] for r in runs) for key in ("cycles_per_s", "join_s", "rss_mb")}
                medians[name] = med["cycles_per_s"]
                print(f"{name:12s} {n:2d} agents: {med['cycles_per_s']:7.0f} cycles/s "
                      f"({med['cycles_per_s'] * 0.02:.1f}x real time), server {med['rss_mb']:.0f} MB, "
                      f"joined in {med['join_s']:.2f} s   (runs: "
                      + ", ".join(f"{r['cycles_per_s']:.0f}" for r in runs) + ")", flush=True)
            if len(medians) == 2:
                print(f"{n:2d} agents: simleague / rcssserver3d = {medians['simleague'] / medians['rcssserver3d']:.2f}")


if __name__ == "__main__":
    main()
