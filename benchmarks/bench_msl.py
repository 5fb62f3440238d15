"""MSL middleware benchmark (run by hand): request -> reply round trip on loopback with both teams
at 50 Hz, the machine's floor for the same traffic, and the demo's synchronisation figures.

    python benchmarks/bench_msl.py [--seconds 20] [--repeat 3]

1. floor: an asyncio echo server in its own process answering one client that sends a 30-byte
   line every 20 ms (what a request costs on this machine with nothing else done);
2. middleware: ``simleague msl demo`` with two toy teams at the same speed (each sends a state and
   a request every 20 ms of simulation time, alternating every 10 ms: thesis 6.2), round trips as
   measured by the teams' client library;
3. sync: the demo as documented (second team at 0.7x): |t1 - t2| and the pauses.
Medians over ``--repeat`` runs are printed; the machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import subprocess
import sys
import time

import numpy as np

from simleague.msl.demo import run_demo


async def _echo_server() -> None:
    async def handle(reader, writer):
        writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        while data := await reader.readline():
            writer.write(data)

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()


def floor(seconds: float) -> dict:
    proc = subprocess.Popen([sys.executable, __file__, "--echo-server"], stdout=subprocess.PIPE, text=True)
    try:
        port = int(proc.stdout.readline())
        sock = socket.create_connection(("127.0.0.1", port))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        lat = []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            t = time.perf_counter()
            sock.sendall(b'{"type":"request","t":12.34}\n')
            sock.recv(100)
            lat.append(time.perf_counter() - t)
            time.sleep(0.02)
        sock.close()
    finally:
        proc.kill()
        proc.wait()
    a = np.array(lat) * 1000
    return {"p50_ms": float(np.percentile(a, 50)), "p99_ms": float(np.percentile(a, 99))}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--echo-server", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.echo_server:
        asyncio.run(_echo_server())
        return
    floors, p50s, p99s, syncs = [], [], [], []
    for k in range(args.repeat):
        floors.append(floor(args.seconds / 2))
        same = run_demo(seconds=args.seconds, slow=1.0, exchange="request")
        for team in same["teams"]:
            p50s.append(team["latency"]["p50_ms"])
            p99s.append(team["latency"]["p99_ms"])
        syncs.append(run_demo(seconds=args.seconds, slow=0.7, exchange="request")["sync"])
        print(f"run {k + 1}: floor p50 {floors[-1]['p50_ms']:.3f} p99 {floors[-1]['p99_ms']:.3f} ms; "
              f"middleware p50 {p50s[-2]:.3f}/{p50s[-1]:.3f} p99 {p99s[-2]:.3f}/{p99s[-1]:.3f} ms; "
              f"sync max {syncs[-1]['dt_max_s']} s, over eps1 {syncs[-1]['samples_over_eps1']}, "
              f"pauses {syncs[-1]['sides']['cyan']['pauses']}", flush=True)
    med = statistics.median
    print(f"median floor (echo, 50 Hz): p50 {med(f['p50_ms'] for f in floors):.3f} ms, "
          f"p99 {med(f['p99_ms'] for f in floors):.3f} ms")
    print(f"median middleware request->reply (2 teams, 50 Hz): p50 {med(p50s):.3f} ms, p99 {med(p99s):.3f} ms")
    print(f"median demo (0.7x): |t1-t2| p50 {med(s['dt_p50_s'] for s in syncs)} s, "
          f"p99 {med(s['dt_p99_s'] for s in syncs)} s, max {med(s['dt_max_s'] for s in syncs)} s, "
          f"samples over eps1 {med(s['samples_over_eps1'] for s in syncs)}")


if __name__ == "__main__":
    main()
