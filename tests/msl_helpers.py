"""Helpers for MSL tests: a middleware process on 127.0.0.1 and raw line-speaking peers."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path


def simleague(*args: str) -> list[str]:
    return [sys.executable, "-m", "simleague", *args]


class Peer:
    """A raw TCP peer speaking JSON messages ended by ``end`` (newline, or NUL as the RefBox)."""

    def __init__(self, port: int, hello: dict | None = None, end: bytes = b"\n", host: str = "127.0.0.1"):
        self.sock = socket.create_connection((host, port), timeout=5)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.end = end
        if hello is not None:
            self.send(hello)

    def send(self, obj) -> None:
        self.sock.sendall(obj if isinstance(obj, bytes) else json.dumps(obj).encode() + self.end)

    def recv(self, timeout: float = 5.0, heartbeats: bool = False) -> dict:
        """The next message (heartbeats skipped unless ``heartbeats``)."""
        deadline = time.monotonic() + timeout
        while True:
            while self.end not in self.buf:
                self.sock.settimeout(max(0.001, deadline - time.monotonic()))
                data = self.sock.recv(65536)
                if not data:
                    raise ConnectionError("closed by the middleware")
                self.buf += data
            line, self.buf = self.buf.split(self.end, 1)
            message = json.loads(line)
            if heartbeats or message.get("type") != "heartbeat":
                return message

    def nothing_for(self, seconds: float) -> bool:
        """True if no message but heartbeats arrives within ``seconds``."""
        try:
            self.recv(seconds)
        except socket.timeout:
            return True
        return False

    def closed(self, timeout: float = 5.0) -> bool:
        self.sock.settimeout(timeout)
        try:
            while True:
                data = self.sock.recv(65536)
                if not data:
                    return True
        except (ConnectionResetError, BrokenPipeError):
            return True
        except socket.timeout:
            return False

    def close(self) -> None:
        self.sock.close()


class MiddlewareProcess:
    """``simleague msl middleware`` on free ports, log in ``log``; always stopped by ``stop()``."""

    def __init__(self, log: Path, *extra: str):
        self.log = log
        self.proc = subprocess.Popen(simleague("msl", "middleware", "--team-port", "0", "--pauser-port", "0",
                                               "--events", str(log), *extra),
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(self.proc.stderr.read())
        ports = json.loads(line)
        self.team_port, self.pauser_port = ports["teamPort"], ports["pauserPort"]

    def events(self, kind: str | None = None) -> list[dict]:
        """The log's events so far (a line the middleware is still writing is left for later)."""
        complete = self.log.read_text().split("\n")[:-1]
        evs = [json.loads(x) for x in complete if x]
        return [e for e in evs if kind is None or e["ev"] == kind]

    def wait_event(self, kind: str, timeout: float = 5.0, **match) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for e in self.events(kind):
                if all(e.get(k) == v for k, v in match.items()):
                    return e
            time.sleep(0.02)
        raise AssertionError(f"no {kind} event {match} in the log")

    def handled(self, side: str, t: float) -> None:
        """Wait until the middleware has handled ``side``'s message of time ``t`` (its log says so):
        two teams' sockets are read independently, so one team's message sent later may be handled first."""
        self.wait_event("in", side=side, t=t)

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        err = self.proc.stderr.read()
        self.proc.stdout.close()
        self.proc.stderr.close()
        return err


def state(t: float, robots=((1, 0.0, 0.0, 0.0, 0),), ball=(0.0, 0.0, 0.0)) -> dict:
    """A state message; robots as (id, x, y, θ, ballEngaged)."""
    return {"type": "state", "t": t,
            "robots": [{"id": i, "pose": [x, y, th], "velocity": [0, 0, 0], "ballEngaged": e}
                       for i, x, y, th, e in robots],
            "balls": [{"position": list(ball), "velocity": [0, 0, 0]}]}
