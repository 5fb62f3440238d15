"""``simleague msl demo``: a whole simulated match on one machine, as separate processes, and the
figures that tell how well it kept time (thesis 6.3).

The demo starts the middleware, two toy team simulators (:mod:`.toyteam`, one of them ``slow``
times the speed of the other) and two pausers, lets them play for ``seconds`` or, with a referee,
until the referee ends the match, stops everything and reads the middleware's log: the
distribution of |t1 - t2| over the samples (one per message received, thesis Fig. 8), the pauses
and resumes per side and how long each lasted (wall time from the middleware's command to the next
one), what the pausers reported, and the request round trips measured by the teams.

The teams run as processes paused by the process backend, or, with ``docker`` (an image that has
simleague, e.g. ``examples/msl/Dockerfile``), as containers paused by the docker backend, as the
thesis runs them (5.2); ``docker_args`` are extra ``docker run`` words (volumes, say).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from .. import errors
from .messages import SIDES
from .pauser import BackendError, ProcessBackend


class DemoError(errors.Error, RuntimeError):
    """A process of the demo did not start or ended early; the text says which and why."""


def _cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "simleague", "msl", *args]


def summarise(log_path: Path, eps1: float | None = None) -> dict:
    """Figures from a middleware log (JSON lines): |t1 - t2| p50/p99/max (s) over the samples after
    the start, how many samples exceeded ε1, pauses and resumes per side with their wall durations
    (s), and the pausers' reports: how long a pause and a resume took (ms) and how long the
    simulator stayed frozen between a pause and the resume after it (ms; the pauser keeps at least
    its ``min_gap``, thesis 6.2's 250 ms). ``eps1`` defaults to the one the log was written with.
    Raises ValueError naming the line for a line that is not JSON."""
    diffs, commands, reports = [], [], []
    started = False
    with open(log_path, "rb") as f:
        for number, line in enumerate(f, 1):
            try:
                ev = json.loads(line)
            except ValueError:
                raise ValueError(f"{log_path}:{number}: not a JSON line") from None
            kind = ev.get("ev")
            if kind == "listening" and eps1 is None:
                eps1 = ev.get("eps1")
            elif kind == "start":
                started = True
            elif kind == "in" and started and ev.get("t") is not None and ev.get("tOther") is not None:
                diffs.append(abs(ev["t"] - ev["tOther"]))
            elif kind == "command":
                commands.append(ev)
            elif kind == "pauser_report":
                reports.append(ev)
    d = np.asarray(diffs)
    sides = {}
    for side in SIDES:
        mine = [c for c in commands if c["side"] == side]
        durations, paused_at = [], None
        for c in mine:
            if c["action"] == "pause":
                paused_at = c["wall"]
            elif paused_at is not None:
                durations.append(c["wall"] - paused_at)
                paused_at = None
        done = [r for r in reports if r["side"] == side]
        frozen, since = [], None           # wall time from a pause carried out to the resume carried out
        for r in done:
            if r["action"] == "pause" and r["ok"]:
                since = r["wall"]
            elif r["action"] == "resume" and since is not None:
                frozen.append((r["wall"] - since) * 1000.0)
                since = None

        def median(values):
            return round(float(np.median(values)), 3) if len(values) else None

        sides[side] = {
            "pauses": sum(c["action"] == "pause" for c in mine),
            "resumes": sum(c["action"] == "resume" for c in mine),
            "paused_s_median": round(float(np.median(durations)), 3) if durations else None,
            "paused_s_total": round(float(np.sum(durations)), 3),
            "pauser_reports_ok": sum(bool(r["ok"]) for r in done),
            "pauser_reports_failed": sum(not r["ok"] for r in done),
            "pauser_ms_median": median([r["ms"] for r in done]),
            "pause_ms_median": median([r["ms"] for r in done if r["action"] == "pause"]),
            "resume_ms_median": median([r["ms"] for r in done if r["action"] == "resume"]),
            "frozen_ms_median": median(frozen),
            "frozen_ms_min": round(min(frozen), 3) if frozen else None,
        }
    eps1 = 0.2 if eps1 is None else eps1
    return {
        "samples": int(d.size),
        "dt_p50_s": round(float(np.percentile(d, 50)), 4) if d.size else None,
        "dt_p99_s": round(float(np.percentile(d, 99)), 4) if d.size else None,
        "dt_max_s": round(float(d.max()), 4) if d.size else None,
        "eps1": eps1,
        "samples_over_eps1": int((d > eps1).sum()),
        "sides": sides,
    }


def _stop(proc: subprocess.Popen, timeout: float = 5.0) -> None:
    """Resume (it may be paused), terminate, and kill if it does not end in ``timeout``."""
    if proc.poll() is not None:
        return
    try:
        ProcessBackend(proc.pid).resume()
    except BackendError:
        pass  # it has just ended
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _docker_stop(name: str) -> None:
    """Unpause and remove container ``name`` if it is still there."""
    for args in (["unpause", name], ["rm", "-f", name]):
        subprocess.run(["docker", *args], capture_output=True, timeout=60)


def run_demo(seconds: float = 30.0, slow: float = 0.7, eps1: float = 0.2, eps2: float = 0.05,
             buffer: int = 25, min_gap: float = 0.25, log: Path | None = None, seed: int = 0,
             referee: str = "none", half: float = 60.0, record: Path | None = None, web: int | None = None,
             exchange: str = "subscribe", docker: str | None = None, docker_args: tuple[str, ...] = ()) -> dict:
    """Play a demo match; ``log`` is the middleware's event log, ``record`` the run log of the
    match. Returns ``{"sync": summarise(...), "teams": [team stats], "log": event log path,
    "ended": whether the referee ended it}``. Every process and container it started is gone when it
    returns or raises :class:`DemoError`."""
    if log is None:
        log = Path(tempfile.mkdtemp(prefix="simleague-msl-")) / "middleware.jsonl"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    procs: list[subprocess.Popen] = []
    containers: list[str] = []
    tag = f"simleague-msl-{os.getpid()}-{int(time.time() * 1000) % 100000}"

    def spawn(name: str, args: list[str]) -> subprocess.Popen:
        with open(log.parent / f"{name}.err", "w") as err:  # a file: a full pipe would block the child
            p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=err, text=True, env=env)
        p.name = name
        procs.append(p)
        return p

    def errors(p: subprocess.Popen) -> str:
        return (log.parent / f"{p.name}.err").read_text()[-2000:].strip()

    try:
        extra = ["--referee", referee, "--half", str(half)]
        extra += ["--log", str(record)] if record is not None else []
        extra += ["--web", str(web)] if web is not None else []
        mw = spawn("middleware", _cmd("middleware", "--team-port", "0", "--pauser-port", "0", "--buffer", str(buffer),
                                      "--eps1", str(eps1), "--eps2", str(eps2), "--seed", str(seed), "--events", str(log),
                                      *extra))
        ports_line = mw.stdout.readline()
        if not ports_line:
            raise DemoError(f"the middleware did not start: {errors(mw)}")
        ports = json.loads(ports_line)
        teams = []
        for k, (side, speed) in enumerate(zip(SIDES, (1.0, slow))):
            args = ["team", "--name", f"Toy {side}", "--side", side, "--port", str(ports["teamPort"]),
                    "--speed", str(speed), "--seed", str(seed + k), "--seconds", "1e9", "--exchange", exchange]
            if docker:
                name = f"{tag}-{side}"
                containers.append(name)
                teams.append(spawn(f"team-{side}", ["docker", "run", "--rm", "--init", "--network", "host", "--name",
                                                    name, *docker_args, docker, "simleague", "msl", *args]))
            else:
                teams.append(spawn(f"team-{side}", _cmd(*args)))
        for side, team in zip(SIDES, teams):
            target = ["--backend", "docker", "--container", f"{tag}-{side}"] if docker else \
                     ["--backend", "process", "--pid", str(team.pid)]
            if docker:
                _wait_for_container(f"{tag}-{side}", team, errors)
            spawn(f"pauser-{side}", _cmd("pauser", *target, "--side", side, "--port", str(ports["pauserPort"]),
                                         "--min-gap", str(min_gap)))
        deadline = time.monotonic() + seconds
        ended = False
        while time.monotonic() < deadline:
            if mw.poll() is not None:
                ended = mw.returncode == 0 and referee != "none"
                if not ended:
                    raise DemoError(f"the middleware ended early (exit {mw.returncode}): {errors(mw)}")
                break
            for p in procs:                          # at the end of a match teams and pausers leave (exit 0)
                if p is not mw and p.poll() is not None and p.returncode != 0:
                    raise DemoError(f"the {p.name} process ended early (exit {p.returncode}): {errors(p)}")
            time.sleep(0.1)
        _stop(mw)  # resumes both simulators through the pausers, then closes the log
        stats = []
        for team in teams:
            try:
                team.wait(15)                        # after the end of the match a team leaves by itself
            except subprocess.TimeoutExpired:
                if docker:
                    _docker_stop(f"{tag}-{team.name.split('-')[-1]}")
                _stop(team)
            out = team.stdout.read().strip().splitlines()
            if not out:
                raise DemoError(f"the {team.name} process printed no statistics: {errors(team)}")
            stats.append(json.loads(out[-1]))
    finally:
        for p in procs:
            _stop(p)
            p.stdout.close()
        for name in containers:
            _docker_stop(name)
    return {"sync": summarise(log, eps1), "teams": stats, "log": str(log), "ended": ended}


def _wait_for_container(name: str, proc: subprocess.Popen, errors, timeout: float = 60.0) -> None:
    """Wait until ``docker run`` has created container ``name`` (its pauser needs it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise DemoError(f"the {proc.name} container did not start (exit {proc.returncode}): {errors(proc)}")
        state = subprocess.run(["docker", "inspect", "-f", "{{.State.Status}}", name], capture_output=True, text=True)
        if state.returncode == 0 and state.stdout.strip() == "running":
            return
        time.sleep(0.1)
    raise DemoError(f"container {name} was not running after {timeout:g} s: {shlex.join(proc.args)}")
