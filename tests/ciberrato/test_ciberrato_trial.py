"""Whole trials: the CLI starts the server and agent processes over real UDP on 127.0.0.1."""

import json
import socket
import subprocess
import sys
import time

import pytest

from golden import LABS
from simleague.recorder import read_log

LAB = LABS / "CiberRato2008" / "Ciber2008_FinalLab.xml"
GRID = LABS / "CiberRato2008" / "Ciber2008_FinalGrid.xml"


def simleague(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "simleague.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


def test_lockstep_trial_is_repeatable_and_logged(tmp_path):
    params = tmp_path / "params.xml"
    params.write_text('<Parameters SimTime="250"/>')
    runs = []
    for k in range(2):
        log = tmp_path / f"trial{k}.jsonl"
        r = simleague("ciberrato", "trial", "--lab", LAB, "--grid", GRID, "--params", params, "--agents", 3,
                      "--mode", "lockstep", "--seed", 1, "--json", "--log", log)
        assert r.returncode == 0, r.stderr
        runs.append((r.stdout, log.read_text()))
    assert runs[0] == runs[1]
    result = json.loads(runs[0][0])
    assert result["cycles"] == 250 and len(result["robots"]) == 3
    assert [row["position"] for row in result["robots"]] == [1, 2, 3]
    header, cycles, final = read_log(tmp_path / "trial0.jsonl")
    assert header["seed"] == 1 and header["params"]["sim_time"] == 250
    assert cycles[-1]["time"] == 250 and len(cycles[-1]["robots"]) == 3
    moved = {(r["x"], r["y"]) for c in cycles for r in c["robots"] if r["id"] == 1}
    assert len(moved) > 10                     # the agents really drove
    assert final["robots"] == result["robots"]
    picture = tmp_path / "trial0.png"
    r = simleague("ciberrato", "plot", tmp_path / "trial0.jsonl", "-o", picture)
    assert r.returncode == 0, r.stderr
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_broken_lab_gives_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text('<Lab Name="x">\n  <Wall Height="2">\n    <Corner X="1" Y="oops"/>\n')
    r = simleague("ciberrato", "serve", "--lab", bad, timeout=60)
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "bad.xml" in lines[0] and "Traceback" not in r.stderr


def test_too_many_agents_for_the_grid():
    r = simleague("ciberrato", "trial", "--agents", 9, timeout=60)
    assert r.returncode == 2 and "do not fit" in r.stderr


@pytest.mark.parametrize("args, option", [
    (("ciberrato", "serve", "--port", 70000), "--port"),
    (("ciberrato", "trial", "--web", -1), "--web"),
    (("ciberrato", "agent", "--port", 65536), "--port"),
    (("msl", "middleware", "--team-port", 70000), "--team-port"),
    (("simspark", "serve", "--monitor-port", 99999), "--monitor-port"),
    (("ciberrato", "serve", "--autostart", -3), "--autostart"),
])
def test_an_option_out_of_range_is_a_usage_error_not_a_traceback(args, option):
    """A port outside 0-65535 made bind() raise OverflowError, printed as a traceback with exit 1;
    a negative --autostart was taken as none."""
    r = simleague(*args, timeout=60)
    assert r.returncode == 2, r.stderr
    assert option in r.stderr and "Traceback" not in r.stderr


def test_a_negative_wait_for_is_refused_by_name():
    r = simleague("ciberrato", "trial", "--agents", 1, "--wait-for", -2, timeout=60)
    assert r.returncode == 2 and "--wait-for must be 0 or more" in r.stderr


def _free_udp(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def test_trial_waits_for_external_agents(tmp_path):
    """``--agents 0 --wait-for 1``: the trial runs once an agent started by someone else registers."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    params = tmp_path / "params.xml"
    params.write_text('<Parameters SimTime="100"/>')
    trial = subprocess.Popen([sys.executable, "-m", "simleague.cli", "ciberrato", "trial", "--agents", "0",
                              "--wait-for", "1", "--params", str(params), "--port", str(port), "--json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    agent = None
    try:
        # the agent registers with one datagram: start it once the trial listens (a fresh install
        # compiles the world's kernels first, which took more than the second this test waited)
        deadline = time.monotonic() + 120
        while _free_udp(port):
            assert trial.poll() is None, trial.stderr.read()
            assert time.monotonic() < deadline, "the trial never bound its port"
            time.sleep(0.1)
        time.sleep(1.0)
        assert trial.poll() is None                # still waiting, not failed
        agent = subprocess.Popen([sys.executable, "-m", "simleague.ciberrato.agent", "--port", str(port),
                                  "--name", "outsider"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = trial.communicate(timeout=120)
        assert trial.returncode == 0, err
        (robot,) = json.loads(out)["robots"]
        assert robot["name"] == "outsider" and json.loads(out)["cycles"] == 100
        assert agent.wait(timeout=30) == 0
    finally:
        for p in (trial, agent):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
