"""MSL end to end with real processes: the demo (middleware, two process pausers, two toy team
simulators, one slower) keeps the simulation times together; the docker backend against a real
engine; a refereed two-half match of teams in containers, watched and recorded."""

import json
import os
import socket
import subprocess
import time
import uuid
from pathlib import Path

import psutil
import pytest
from busybox import busybox_image, python_image
from msl_helpers import simleague
from system import need_program
from viewer_pages import watch_process

from simleague.msl.messages import Command, decode_pauser, encode
from simleague.msl.pauser import DockerBackend, Pauser, ProcessBackend
from simleague.msl.web import load_replay

COMPOSE = Path(__file__).resolve().parents[2] / "examples" / "msl" / "compose.yaml"

UPDATE_PERIOD = 0.02  # a toy team sends a state every 20 ms of simulation time (thesis 6.2: 50 Hz)


def test_demo_keeps_simulation_times_within_eps1_plus_one_update_period(tmp_path):
    log = tmp_path / "mw.jsonl"
    r = subprocess.run(simleague("msl", "demo", "--seconds", "8", "--slow", "0.6", "--events", str(log), "--json",
                                 "--exchange", "request"),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout)
    sync = result["sync"]
    fast, slow = sync["sides"]["cyan"], sync["sides"]["magenta"]
    # the faster simulator runs ahead, is paused and resumed by its pauser, and the pauser saw it
    assert fast["pauses"] >= 2 and fast["resumes"] >= 1 and fast["pauser_reports_failed"] == 0
    assert fast["pauser_reports_ok"] >= 3
    assert slow["pauses"] == 0
    assert sync["samples"] > 300
    assert sync["dt_max_s"] <= 0.2 + UPDATE_PERIOD + 1e-6, sync  # (float sums of 10 ms steps)
    # both simulators really advanced, the slow one was never left behind by more than that
    teams = {t["side"]: t for t in result["teams"]}
    assert teams["cyan"]["simTime"] > 2.0 and abs(teams["cyan"]["simTime"] - teams["magenta"]["simTime"]) < 0.3
    assert teams["cyan"]["latency"]["n"] > 100 and teams["cyan"]["latency"]["p50_ms"] < 20
    assert teams["cyan"]["stateErrors"] == 0
    # the log has every pause with the times that caused it
    commands = [json.loads(x) for x in log.read_text().splitlines() if '"command"' in x]
    first = commands[0]
    assert first["action"] == "pause" and first["reason"] == "e1" and first["t1"] - first["t2"] > 0.2
    # nothing of the demo is left running
    names = [" ".join(p.info["cmdline"] or []) for p in psutil.process_iter(["cmdline"])]
    assert not [n for n in names if str(log) in n]


def test_process_backend_stops_and_continues_a_process_tree():
    parent = subprocess.Popen(["sh", "-c", "sleep 60 & sleep 60; wait"])
    try:
        deadline = time.monotonic() + 5
        while len(psutil.Process(parent.pid).children()) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        backend = ProcessBackend(parent.pid)
        tree = [psutil.Process(parent.pid)] + psutil.Process(parent.pid).children(recursive=True)
        assert len(tree) == 3
        backend.pause()
        assert backend.state() == "paused" and all(p.status() == psutil.STATUS_STOPPED for p in tree)
        backend.resume()
        assert backend.state() == "running" and all(p.status() != psutil.STATUS_STOPPED for p in tree)
    finally:
        for p in psutil.Process(parent.pid).children(recursive=True):
            p.kill()
        parent.kill()
        parent.wait()


# -- docker ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def docker_client():
    # a tiny root file system: busybox as sh and sleep
    return busybox_image("simleague-test-busybox", "1", ("sh", "sleep"))


@pytest.fixture
def container(docker_client):
    c = docker_client.containers.run("simleague-test-busybox:1", ["/bin/sleep", "600"], detach=True,
                                     network_mode="none", name=f"simleague-test-{uuid.uuid4().hex[:8]}")
    try:
        yield c
    finally:
        c.remove(force=True)


def test_docker_backend_pauses_and_unpauses_a_real_container(container):
    backend = DockerBackend(container.name)
    assert backend.state() == "running"
    backend.pause()
    assert backend.state() == "paused"
    container.reload()
    assert container.status == "paused"
    backend.resume()
    assert backend.state() == "running"


def test_docker_pauser_keeps_the_min_gap_and_reports_to_the_middleware(container):
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        proc = subprocess.Popen(simleague("msl", "pauser", "--backend", "docker", "--container", container.name,
                                          "--side", "magenta", "--port", str(port), "--min-gap", "0.25"),
                                stderr=subprocess.PIPE, text=True)
        try:
            server.settimeout(30)
            conn, _ = server.accept()
            conn.settimeout(30)
            f = conn.makefile("rb")
            hello = decode_pauser(f.readline())
            assert (hello.side, hello.backend, hello.target) == ("magenta", "docker", container.name)
            conn.sendall(encode(Command(1, "pause", "e2", 1.0, 1.3)))
            conn.sendall(encode(Command(2, "resume", "e4", 1.3, 1.33)))  # at once: the gap must hold
            paused, resumed = decode_pauser(f.readline()), decode_pauser(f.readline())
            assert (paused.seq, paused.ok, paused.state) == (1, True, "paused")
            assert (resumed.seq, resumed.ok, resumed.state) == (2, True, "running")
            assert resumed.ms >= 200  # waited out the rest of the 0.25 s gap
            container.reload()
            assert container.status == "running"
            # the middleware goes away while the container is paused: the pauser unpauses it
            conn.sendall(encode(Command(3, "pause", "e2", 2.0, 2.3)))
            assert decode_pauser(f.readline()).state == "paused"
            f.close()
            conn.close()
            deadline = time.monotonic() + 10
            while container.status != "running" and time.monotonic() < deadline:
                time.sleep(0.05)
                container.reload()
            assert container.status == "running"
        finally:
            proc.terminate()
            proc.wait(10)
            proc.stderr.close()


def test_docker_backend_names_a_missing_container(docker_client):
    from simleague.msl.pauser import BackendError

    with pytest.raises(BackendError, match="no docker container named 'simleague-no-such'"):
        DockerBackend("simleague-no-such")


def test_pauser_reports_a_failing_backend_instead_of_dying():
    class Broken:
        name, target = "process", "1"

        def pause(self):
            raise PermissionError("not allowed")

        def state(self):
            return "running"

    report = Pauser(Broken(), "cyan").carry_out(Command(5, "pause", "e1"))
    assert (report.seq, report.ok, report.state) == (5, False, "running")
    assert "PermissionError: not allowed" in report.detail


def test_a_refereed_match_of_teams_in_containers_with_docker_pausers_watched_and_recorded(tmp_path, free_port):
    client, image, mounts = python_image("simleague-test-python", "1")
    port, record, log = free_port(), tmp_path / "match.jsonl.gz", tmp_path / "mw.jsonl"
    seen, demo = watch_process(simleague("msl", "demo", "--referee", "auto", "--half", "2", "--seconds", "120",
                                         "--slow", "0.7", "--docker", image, *[f"--docker-arg={m}" for m in mounts],
                                         "--log", str(record), "--web", str(port), "--events", str(log), "--json"),
                               port, 25, timeout=180)
    assert demo.returncode == 0, demo.stderr
    result = json.loads(demo.stdout)
    assert result["ended"]
    # the page saw the MSL field and the match running
    assert seen[0]["type"] == "scene" and seen[0]["title"] == "MSL simulated match"
    assert seen[0]["field"]["length"] == 18.0 and seen[0]["field"]["penalty_width"] == 6.5
    parts = {f["pm"].split(",")[0] for f in seen if f["type"] == "frame"}
    assert "1st half" in parts, parts
    # both teams carried out every command at the same simulation time, and were told the end
    cyan, magenta = ({t["side"]: t for t in result["teams"]}[s] for s in ("cyan", "magenta"))
    assert [c[1] for c in cyan["applied"]] == ["KICKOFF", "FIRST_HALF", "START"] + \
        [c[1] for c in cyan["applied"]][3:] and cyan["applied"][-1][1] == "GAMEOVER"
    assert [(c[0], c[1], c[4], c[5]) for c in cyan["applied"]] == [(c[0], c[1], c[4], c[5]) for c in magenta["applied"]]
    assert "HALF_TIME" in [c[1] for c in cyan["applied"]]
    assert cyan["end"] == magenta["end"] == "the auto referee ended the game"
    # the docker pausers paused the faster team and kept the thesis' 250 ms between pause and resume
    fast = result["sync"]["sides"]["cyan"]
    assert fast["pauses"] >= 1 and fast["pauser_reports_failed"] == 0
    assert fast["frozen_ms_min"] >= 240, fast
    # the recorded merged world replays: both halves, both teams' five robots, the score
    scene, replay = load_replay(record)
    frames = replay["frames"]
    assert {f["half"] for f in frames} == {1, 2} and all(len(f["robots"]) == 10 for f in frames)
    assert frames[-1]["pm"].startswith("game over")
    assert not client.containers.list(all=True, filters={"ancestor": image})


def test_the_example_compose_file_plays_a_match_with_docker_pausers(tmp_path, free_port):
    compose = need_program("docker-compose", "apt-get install docker-compose")
    client, image, mounts = python_image("simleague-test-python", "1")
    volumes = [mounts[i + 1] for i in range(0, len(mounts), 2)]
    override = {"services": {name: {"volumes": volumes} for name in
                             ("middleware", "team-cyan", "team-magenta", "pauser-cyan", "pauser-magenta")}}
    (tmp_path / "override.json").write_text(json.dumps(override))
    (tmp_path / "out").mkdir()
    project = f"simleague-test-{uuid.uuid4().hex[:8]}"
    env = dict(os.environ, MSL_IMAGE=image, MSL_MATCH=project, MSL_HALF="2", MSL_WEB_PORT=str(free_port()),
               MSL_OUT=str(tmp_path / "out"))
    words = [compose, "-p", project, "-f", str(COMPOSE), "-f", str(tmp_path / "override.json")]
    try:
        up = subprocess.run([*words, "up", "--no-build"], env=env, capture_output=True, text=True, timeout=240)
        assert up.returncode == 0, up.stdout[-3000:] + up.stderr[-3000:]
        containers = client.containers.list(all=True, filters={"label": f"com.docker.compose.project={project}"})
        codes = {c.labels["com.docker.compose.service"]: c.attrs["State"]["ExitCode"] for c in containers}
    finally:
        subprocess.run([*words, "down", "-v"], env=env, capture_output=True, timeout=120)
    # every service ran to its end by itself: the referee ended the match, the teams and pausers left
    assert codes == {s: 0 for s in ("middleware", "team-cyan", "team-magenta", "pauser-cyan", "pauser-magenta")}
    assert not client.containers.list(all=True, filters={"label": f"com.docker.compose.project={project}"})
    log = [json.loads(x) for x in (tmp_path / "out" / "middleware.jsonl").read_text().splitlines()]
    kinds = [e["ev"] for e in log]
    assert "end" in kinds and kinds.count("pauser_connected") == 2
    assert [e["command"] for e in log if e["ev"] == "referee"][-1] == "GAMEOVER"
    assert any(e["ev"] == "pauser_report" and e["action"] == "pause" and e["ok"] for e in log)
    scene, replay = load_replay(tmp_path / "out" / "match.jsonl.gz")
    assert {f["half"] for f in replay["frames"]} == {1, 2}
