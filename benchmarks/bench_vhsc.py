"""Speed of the humanoid virtual soccer API server (issue 6, part 8).

1. Real-time factor with 4 and 8 kid-size robots (simleague's kid model), every client enabling
   all its sensors at 8 ms and sending all its motor positions every step, without cameras and
   with every robot's 320x240 camera at 16 ms: basic steps (8 ms) per second in fast mode, the
   server and its clients in this process (asyncio connections over 127.0.0.1).
2. Latency from a request to the first measurement that can reflect it (the one of the step
   after the request arrived): 8 robots without cameras, real-time pacing (as in a match) and
   fast mode.
3. Whole matches: ``simleague vhsc match --fast`` with 4 sample players a side as separate
   processes (``--match``), the real-time factor it reports.

Run by hand: ``python benchmarks/bench_vhsc.py [--steps 1000] [--repeat 3] [--match]``. Prints
medians (1.0x real time = 125 steps per second).
"""

import argparse
import asyncio
import json
import re
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from simleague.soccer.humanoids import HumanoidWorld
from simleague.soccer.models import RobotModel
from simleague.vhsc import messages as M
from simleague.vhsc.robot import RobotSession
from simleague.vhsc.server import ServerOptions, VhscServer
from simleague.vhsc.setup import KID_FIELD

KID = RobotModel.load(Path(__file__).resolve().parents[1] / "src" / "simleague" / "soccer" / "robots" / "kid.xml")


def frame(message) -> bytes:
    data = message.SerializeToString()
    return struct.pack(">I", len(data)) + data


async def client(port: int, camera_ms: int, stop: asyncio.Event, counts: list, latencies: list | None):
    """A robot's software: enable every sensor, then answer each measurement with all motor
    positions; with ``latencies``, time each request until the measurement of the next step."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    assert await reader.readexactly(8) == b"Welcome\0"
    enable = M.ActuatorRequests()
    for sensor in KID.sensors:
        if sensor.kind != "camera":
            enable.sensor_time_steps.add(name=sensor.name, timeStep=8)
        elif camera_ms:
            enable.sensor_time_steps.add(name=sensor.name, timeStep=camera_ms)
    writer.write(frame(enable))
    move = M.ActuatorRequests()
    for motor in KID.motors:
        move.motor_positions.add(name=motor.name, position=0.0)
    move_data = frame(move)
    sent_at, sent_after = None, None
    while not stop.is_set():
        (n,) = struct.unpack(">I", await reader.readexactly(4))
        data = await reader.readexactly(n)
        if latencies is not None:
            measured = M.SensorMeasurements.FromString(data).time       # ms
            if sent_at is not None and measured > sent_after:
                latencies.append(time.perf_counter() - sent_at)
                sent_at = None
            if sent_at is None:
                sent_at, sent_after = time.perf_counter(), measured
        writer.write(move_data)
        counts[0] += 1
    writer.close()


async def measure(robots: int, steps: int, camera_ms: int = 0, realtime: bool = False,
                  latencies: list | None = None) -> float:
    """Steps per second of a game with ``robots`` kid robots (half red, half blue)."""
    world = HumanoidWorld(KID_FIELD)
    keys = [(c, n) for c in ("red", "blue") for n in range(1, robots // 2 + 1)]
    rids = world.add_robots([(KID, (-1 if c == "red" else 1) * (0.5 + n), n - 2.5, 0.0) for c, n in keys])
    sessions = {k: RobotSession(world, rid, KID) for k, rid in zip(keys, rids)}
    server = VhscServer(world, sessions, {"red": {"127.0.0.1"}, "blue": {"127.0.0.1"}},
                        ServerOptions(red_base=0, blue_base=0, max_real_time_factor=1.0 if realtime else 0.0))
    await server.start()
    stop, counts = asyncio.Event(), [0]
    tasks = [asyncio.create_task(client(port, camera_ms, stop, counts, latencies))
             for port in server.ports.values()]
    run = asyncio.create_task(server.run())
    while counts[0] < robots * 20:                          # every client connected and running
        await asyncio.sleep(0.01)
    if latencies is not None:
        latencies.clear()
    first, began = server.cycle, time.monotonic()
    while server.cycle - first < steps:
        await asyncio.sleep(0.01)
    rate = (server.cycle - first) / (time.monotonic() - began)
    stop.set()
    server.stop()
    await run
    for t in tasks:
        t.cancel()
    await server.close()
    return rate


def whole_match(seconds: float) -> float:
    """The real-time factor ``simleague vhsc match --fast`` reports for 4 sample players a side."""
    pose = {"translation": [-3.0, -3.4, 0.4], "rotation": [0, 0, 1, 1.57]}
    with tempfile.TemporaryDirectory() as folder:
        files = []
        for name in ("Reds", "Blues"):
            players = {str(n): {"proto": "kid", "halfTimeStartingPose": {"translation": [-0.8 * n, 1.0, 0.4],
                                                                         "rotation": [0, 0, 1, 0]},
                                "reentryStartingPose": pose, "shootoutStartingPose": pose} for n in range(1, 5)}
            path = Path(folder) / f"{name}.json"
            path.write_text(json.dumps({"name": name, "players": players}))
            files.append(str(path))
        done = subprocess.run([sys.executable, "-m", "simleague", "vhsc", "match", "--red", files[0], "--blue",
                               files[1], "--fast", "--seconds", str(seconds), "--ready-time", "5"],
                              capture_output=True, text=True, timeout=1200)
    found = re.search(r"real-time factor ([\d.]+)", done.stdout)
    if done.returncode or not found:
        raise SystemExit(f"the match failed: {done.stdout}{done.stderr}")
    return float(found.group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=1000, help="steps measured without cameras (with: a fifth)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--camera-ms", type=int, default=16)
    parser.add_argument("--match", action="store_true", help="also whole matches with player processes")
    parser.add_argument("--match-seconds", type=float, default=30.0)
    args = parser.parse_args()
    for robots in (4, 8):
        for camera in (0, args.camera_ms):
            steps = args.steps if not camera else max(50, args.steps // 5)
            runs = [asyncio.run(measure(robots, steps, camera)) for _ in range(args.repeat)]
            median = statistics.median(runs)
            what = f"a 320x240 camera each at {camera} ms" if camera else "no cameras"
            print(f"{robots} kid robots, all sensors at 8 ms, {what}: {median:6.1f} steps/s "
                  f"({median * 0.008:.2f}x real time)   (runs: {', '.join(f'{r:.0f}' for r in runs)})")
    for realtime in (True, False):
        latencies: list = []
        for _ in range(args.repeat):
            asyncio.run(measure(8, args.steps // 2, realtime=realtime, latencies=latencies))
        latencies.sort()
        print(f"request -> next measurement, 8 robots, {'real time' if realtime else 'fast'}: median "
              f"{statistics.median(latencies) * 1000:.2f} ms, 95th percentile "
              f"{latencies[int(len(latencies) * 0.95)] * 1000:.2f} ms ({len(latencies)} requests)")
    if args.match:
        runs = [whole_match(args.match_seconds) for _ in range(args.repeat)]
        print(f"vhsc match --fast, 4 sample players a side in their own processes: "
              f"{statistics.median(runs):.2f}x real time (runs: {', '.join(f'{r:.2f}' for r in runs)})")


if __name__ == "__main__":
    main()
