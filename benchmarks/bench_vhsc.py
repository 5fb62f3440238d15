"""Speed of the humanoid virtual soccer API server (issue 6): basic steps (8 ms) per second in fast
mode with a full kid-size game (4 robots a side, simleague's kid model), every client enabling
all its sensors at 8 ms and sending motor positions every step, without and with cameras.

Run by hand: ``python benchmarks/bench_vhsc.py [--steps 1000] [--repeat 3] [--camera-ms 32]``.
The server runs in this process, the clients are asyncio connections over 127.0.0.1 in the same
process. Prints medians and the real-time factor (1.0 = 125 steps per second).
"""

import argparse
import asyncio
import statistics
import struct
import time
from pathlib import Path

from simleague.soccer.humanoids import HumanoidWorld
from simleague.soccer.models import RobotModel
from simleague.vhsc import messages as M
from simleague.vhsc.robot import RobotSession
from simleague.vhsc.server import VhscServer
from simleague.vhsc.setup import KID_FIELD

KID = RobotModel.load(Path(__file__).resolve().parents[1] / "src" / "simleague" / "soccer" / "robots" / "kid.xml")


async def client(port: int, camera_ms: int, stop: asyncio.Event, counts: list):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    assert await reader.readexactly(8) == b"Welcome\0"
    steps = {s.name: 8 for s in KID.sensors if s.kind != "camera"}
    if camera_ms:
        steps["camera"] = camera_ms
    r = M.ActuatorRequests()
    for name, ms in steps.items():
        r.sensor_time_steps.add(name=name, timeStep=ms)
    data = r.SerializeToString()
    writer.write(struct.pack(">I", len(data)) + data)
    move = M.ActuatorRequests()
    for motor in KID.motors:
        move.motor_positions.add(name=motor.name, position=0.0)
    move_data = move.SerializeToString()
    while not stop.is_set():
        (n,) = struct.unpack(">I", await reader.readexactly(4))
        await reader.readexactly(n)
        writer.write(struct.pack(">I", len(move_data)) + move_data)
        counts[0] += 1
    writer.close()


async def measure(steps: int, camera_ms: int) -> float:
    world = HumanoidWorld(KID_FIELD)
    keys = [(c, n) for c in ("red", "blue") for n in range(1, 5)]
    rids = world.add_robots([(KID, (-1 if c == "red" else 1) * (0.5 + n), n - 2.5, 0.0) for c, n in keys])
    sessions = {k: RobotSession(world, rid, KID) for k, rid in zip(keys, rids)}
    server = VhscServer(world, sessions, {"red": {"127.0.0.1"}, "blue": {"127.0.0.1"}}, "127.0.0.1", 0, 0,
                        realtime=False)
    await server.start()
    stop, counts = asyncio.Event(), [0]
    tasks = [asyncio.create_task(client(port, camera_ms, stop, counts)) for port in server.ports.values()]
    run = asyncio.create_task(server.run())
    while counts[0] < 8 * 50:                              # every client connected and running
        await asyncio.sleep(0.01)
    first, began = server.step, time.monotonic()
    while server.step - first < steps:
        await asyncio.sleep(0.01)
    rate = (server.step - first) / (time.monotonic() - began)
    stop.set()
    server.stop()
    await run
    for t in tasks:
        t.cancel()
    await server.close()
    return rate


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--camera-ms", type=int, default=32)
    args = parser.parse_args()
    for camera in (0, args.camera_ms):
        runs = [asyncio.run(measure(args.steps if not camera else args.steps // 5, camera)) for _ in range(args.repeat)]
        median = statistics.median(runs)
        what = f"cameras every {camera} ms" if camera else "no cameras"
        print(f"8 kid robots, all sensors at 8 ms, {what}: {median:6.0f} steps/s "
              f"({median * 0.008:.2f}x real time)   (runs: {', '.join(f'{r:.0f}' for r in runs)})")


if __name__ == "__main__":
    main()
