"""Helpers for the humanoid API's tests: free port ranges for robots, small team files."""

import json
import socket


def free_base() -> int:
    """A base port whose next four ports are free."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1] - 1
        if base + 5 < 65535 and all(_free(base + n) for n in range(1, 5)):
            return base
    raise RuntimeError("no free ports")


def _free(port: int) -> bool:
    """Whether TCP ``port`` on 127.0.0.1 can be bound now."""
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def team(tmp_path, name, players, **extra):
    pose = {"translation": [-1.0, 0.0, 0.4], "rotation": [0, 0, 1, 0]}
    data = {"name": name, "players": {str(n): {"proto": "kid", "halfTimeStartingPose": {
        "translation": [-1.0 * n, 1.0 - n, 0.4], "rotation": [0, 0, 1, 0]}, "reentryStartingPose": pose,
        "shootoutStartingPose": pose, **extra} for n in range(1, players + 1)}}
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data))
    return path


def free_udp() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
