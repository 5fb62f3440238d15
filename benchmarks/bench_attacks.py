"""What hostile clients cost the well-behaved ones (issue 30): each server runs as its own process
(``simleague ... serve``), a well-behaved client measures its own rate for a few seconds, then
again while one kind of attack runs from this process, and the server's memory is read before the
attack and once the attack is over (psutil). Printed per server and attack: the good client's
rate before and during (same run), their ratio, and the server's memory before and after.

Run by hand: ``python benchmarks/bench_attacks.py [--seconds 4] [--only ciberrato simspark vhsc msl]``.
Target (issue 30): every ratio at least 0.5, memory back within 10 %.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from simleague.simspark.client import AgentClient  # noqa: E402
from simleague.vhsc.client import RobotClient  # noqa: E402
from simleague.wire.framing import encode  # noqa: E402


def free_port(kind=socket.SOCK_STREAM) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def process(*args: str, wait_port: int | None = None, udp: bool = False):
    """A simleague command as a process of its own; yields its psutil handle; always stopped."""
    p = subprocess.Popen([sys.executable, "-m", "simleague", *args], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while wait_port and not udp and time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", wait_port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        time.sleep(1.0 if udp else 0.3)
        yield psutil.Process(p.pid)
    finally:
        p.terminate()
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()


def rss_mb(proc: psutil.Process) -> float:
    return proc.memory_info().rss / 1e6


class Rate:
    """Counts what a well-behaved client gets, in a thread of its own."""

    def __init__(self, step):
        self.step, self.count, self.stop = step, 0, threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop.is_set():
            try:
                self.step()
                self.count += 1
            except OSError:
                time.sleep(0.01)

    def measure(self, seconds: float) -> float:
        start, began = self.count, time.monotonic()
        time.sleep(seconds)
        return (self.count - start) / (time.monotonic() - began)


def run_attack(name: str, proc: psutil.Process, rate: Rate, attack, seconds: float) -> dict:
    """The good client's rate before and during ``attack(stop_event)`` (run in threads)."""
    before, memory = rate.measure(seconds), rss_mb(proc)
    stop = threading.Event()
    threads = [threading.Thread(target=attack, args=(stop,), daemon=True) for _ in range(1)]
    for t in threads:
        t.start()
    time.sleep(0.5)
    during = rate.measure(seconds)
    stop.set()
    for t in threads:
        t.join(30)
    time.sleep(2.0)
    after = rss_mb(proc)
    row = {"attack": name, "before": before, "during": during, "ratio": during / before if before else 0.0,
           "rss_before": memory, "rss_after": after}
    print(f"  {name:<44} {before:8.1f}/s -> {during:8.1f}/s  ratio {row['ratio']:.2f}   "
          f"memory {memory:.0f} -> {after:.0f} MB", flush=True)
    return row


# ------------------------------------------------------------------------------------ CiberRato
def ciberrato(seconds: float) -> list[dict]:
    port = free_port(socket.SOCK_DGRAM)
    rows = []
    with process("ciberrato", "serve", "--port", str(port), "--mode", "lockstep", "--autostart", "1",
                 wait_port=port, udp=True) as proc:
        good = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        good.settimeout(5)
        good.sendto(b'<Robot Name="good" Id="1"/>\0', ("127.0.0.1", port))
        _, sim = good.recvfrom(1024)

        def step():
            good.recvfrom(65536)
            good.sendto(b'<Actions LeftMotor="0.0" RightMotor="0.0"/>\0', sim)
        rate = Rate(step)

        def registrations(stop):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            while not stop.is_set():
                for _ in range(100):
                    s.sendto(b'<Robot Id="2" Removed="Yes"/>', ("127.0.0.1", port))
                time.sleep(0.001)

        def dead_viewers(stop):
            while not stop.is_set():
                v = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                v.sendto(b"<View/>\0", ("127.0.0.1", port))
                v.close()
                time.sleep(0.005)

        def garbage(stop):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            while not stop.is_set():
                s.sendto(b"<" * 4000, ("127.0.0.1", port))

        rows.append(run_attack("registration flood (no Name)", proc, rate, registrations, seconds))
        rows.append(run_attack("viewers that close at once, 200 a second", proc, rate, dead_viewers, seconds))
        rows.append(run_attack("garbage datagrams on the registration port", proc, rate, garbage, seconds))
        rate.stop.set()
    return rows


# ------------------------------------------------------------------------------------ SimSpark
def simspark(seconds: float) -> list[dict]:
    agent_port, monitor_port = free_port(), free_port()
    rows = []
    with process("simspark", "serve", "--agent-port", str(agent_port), "--monitor-port", str(monitor_port),
                 "--no-realtime", wait_port=agent_port) as proc:
        good = AgentClient("127.0.0.1", agent_port)
        good.scene(0)
        rate = Rate(good.receive_text)

        def silent_monitors(stop):
            held = []
            while not stop.is_set() and len(held) < 200:
                try:
                    s = socket.socket()
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                    s.connect(("127.0.0.1", monitor_port))
                    held.append(s)
                except OSError:
                    time.sleep(0.01)
            stop.wait()
            for s in held:
                s.close()

        def trainer_flood(stop):
            s = socket.create_connection(("127.0.0.1", monitor_port))
            burst = encode(b"(playMode BeforeKickOff)") * 500
            s.settimeout(0.5)
            while not stop.is_set():
                try:
                    s.sendall(burst)
                except OSError:
                    time.sleep(0.01)
            s.close()

        def join_leave(stop):
            while not stop.is_set():
                s = socket.create_connection(("127.0.0.1", agent_port))
                s.sendall(encode(b"(scene rsg/agent/nao/nao_hetero.rsg 0)"))
                time.sleep(0.05)
                s.close()

        rows.append(run_attack("200 monitors that never read", proc, rate, silent_monitors, seconds))
        rows.append(run_attack("trainer command flood", proc, rate, trainer_flood, seconds))
        rows.append(run_attack("robots joining and leaving, 20 a second", proc, rate, join_leave, seconds))
        rate.stop.set()
        good.close()
    return rows


# ------------------------------------------------------------------------------------ humanoid API
def vhsc(seconds: float, tmp: Path) -> list[dict]:
    pose = {"translation": [-1.0, 0.0, 0.4], "rotation": [0, 0, 1, 0]}
    for name in ("Reds", "Blues"):
        (tmp / f"{name}.json").write_text(json.dumps({"name": name, "players": {str(n): {
            "proto": "kid", "halfTimeStartingPose": {"translation": [-1.0 * n, 0.0, 0.4], "rotation": [0, 0, 1, 0]},
            "reentryStartingPose": pose, "shootoutStartingPose": pose} for n in (1, 2)}}))
    red_base, blue_base = free_port() - 1, free_port() - 1
    rows = []
    with process("vhsc", "serve", "--red", str(tmp / "Reds.json"), "--blue", str(tmp / "Blues.json"),
                 "--red-base", str(red_base), "--blue-base", str(blue_base), "--gc-port", str(free_port()),
                 "--gc-return-port", str(free_port(socket.SOCK_DGRAM)), wait_port=red_base + 1) as proc:
        good = RobotClient(f"127.0.0.1:{red_base + 1}")
        good.send(good.requests(time_steps={"gyro": 8}))
        rate = Rate(good.receive)
        target = ("127.0.0.1", blue_base + 1)

        def reconnects(stop):
            while not stop.is_set():
                try:
                    socket.create_connection(target, timeout=1).close()
                except OSError:
                    time.sleep(0.01)

        def request_flood(stop):
            client = RobotClient(f"127.0.0.1:{blue_base + 1}")
            data = client.requests(positions={"head_yaw": 0.1}).SerializeToString()
            burst = encode(data) * 200
            client.sock.settimeout(0.5)
            while not stop.is_set():
                try:
                    client.sock.sendall(burst)
                except OSError:
                    time.sleep(0.01)
            client.close()

        def never_reads(stop):
            s = socket.create_connection(("127.0.0.1", blue_base + 2))
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            data = RobotClient.requests(time_steps={"gyro": 8, "accelerometer": 8}).SerializeToString()
            s.recv(8)                                            # Welcome
            s.sendall(encode(data))
            stop.wait()
            s.close()

        rows.append(run_attack("reconnecting as fast as it can", proc, rate, reconnects, seconds))
        rows.append(run_attack("flooding actuator requests", proc, rate, request_flood, seconds))
        rows.append(run_attack("a client that never reads", proc, rate, never_reads, seconds))
        rate.stop.set()
        good.close()
    return rows


# ------------------------------------------------------------------------------------ MSL
def msl(seconds: float, tmp: Path) -> list[dict]:
    team_port, pauser_port = free_port(), free_port()
    rows = []
    with process("msl", "middleware", "--team-port", str(team_port), "--pauser-port", str(pauser_port),
                 "--events", str(tmp / "mw.jsonl"), wait_port=pauser_port) as proc:
        pausers = []
        for side in ("cyan", "magenta"):
            p = socket.create_connection(("127.0.0.1", pauser_port))
            p.sendall(json.dumps({"type": "pauser_hello", "side": side, "backend": "test", "target": side}).encode()
                      + b"\n")
            pausers.append(p)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:                  # the team port opens once both pausers are there
            try:
                socket.create_connection(("127.0.0.1", team_port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        peers = {}
        for side, name in (("cyan", "C"), ("magenta", "M")):
            s = socket.create_connection(("127.0.0.1", team_port))
            s.sendall(json.dumps({"type": "hello", "teamName": name, "side": side}).encode() + b"\n")
            peers[side] = s
        time.sleep(1.0)
        state = {"type": "state", "t": 1.0, "robots": [{"id": 1, "x": 0.0, "y": 0.0, "theta": 0.0, "status": 0}],
                 "ball": {"x": 0.0, "y": 0.0, "z": 0.0, "engaged": 0}}
        for s in peers.values():
            s.recv(65536)
            s.sendall(json.dumps(state).encode() + b"\n")
        good = peers["magenta"]
        good.settimeout(5)
        request = json.dumps({"type": "request", "t": 1.0}).encode() + b"\n"

        def step():
            good.sendall(request)
            good.recv(65536)
        rate = Rate(step)
        flooder = peers["cyan"]

        def request_flood(stop):
            flooder.settimeout(0.5)
            burst = request * 200
            while not stop.is_set():
                try:
                    flooder.sendall(burst)
                    flooder.recv(1 << 20)
                except OSError:
                    pass

        rows.append(run_attack("the other team flooding requests", proc, rate, request_flood, seconds))
        rate.stop.set()
        size = (tmp / "mw.jsonl").stat().st_size / 1e6
        print(f"  event log after the run: {size:.1f} MB")
    return rows


def main() -> None:
    import tempfile

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=4.0, help="seconds of each measurement")
    ap.add_argument("--only", nargs="*", default=["ciberrato", "simspark", "vhsc", "msl"])
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-attacks-"))
    rows = []
    for server in args.only:
        print(server, flush=True)
        if server == "ciberrato":
            rows += ciberrato(args.seconds)
        elif server == "simspark":
            rows += simspark(args.seconds)
        elif server == "vhsc":
            rows += vhsc(args.seconds, tmp)
        elif server == "msl":
            rows += msl(args.seconds, tmp)
    worst = min(r["ratio"] for r in rows)
    grown = max((r["rss_after"] - r["rss_before"]) / r["rss_before"] for r in rows)
    print(f"lowest ratio {worst:.2f} (target 0.5); largest memory growth {grown * 100:.0f} % (target 10 %)")


if __name__ == "__main__":
    main()
