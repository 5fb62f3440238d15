"""SIGTERM handled as Ctrl-C by every command (exit 130, run logs closed and valid), and a run log
whose writer was killed outright read up to where it stops (issue 30, finding 10)."""

import signal
import subprocess
import sys
import time

from simleague.recorder import read_log
from vhsc_helpers import free_base, free_udp, team


def _serve(tmp_path, log):
    red, blue = team(tmp_path, "Reds", 1), team(tmp_path, "Blues", 1)
    return subprocess.Popen([sys.executable, "-m", "simleague", "vhsc", "serve", "--red", str(red), "--blue", str(blue),
                             "--red-base", str(free_base()), "--blue-base", str(free_base()), "--gc-port",
                             str(free_udp()), "--gc-return-port", str(free_udp()), "--log", str(log)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for_records(log, process, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if log.exists() and log.stat().st_size > 100:
            return
        assert process.poll() is None, process.communicate()[1]
        time.sleep(0.2)
    raise AssertionError("the log did not grow")


def _serve_then(tmp_path, seconds: float, how: signal.Signals):
    """A humanoid server writing a run log, sent ``how`` after ``seconds`` of logging; (its exit
    code, what it said, the log read back, the reader's notes)."""
    log = tmp_path / "game.jsonl.gz"
    server = _serve(tmp_path, log)
    try:
        _wait_for_records(log, server)
        time.sleep(seconds)
        server.send_signal(how)
        _, errors = server.communicate(timeout=60)
    finally:
        server.kill()
    notes = []
    return server.returncode, errors, read_log(log, "vhsc", notes), notes


def test_sigterm_stops_a_server_like_ctrl_c_with_its_log_complete(tmp_path):
    code, errors, (header, cycles, _), notes = _serve_then(tmp_path, 1.0, signal.SIGTERM)
    assert code == 130 and "interrupted" in errors and "Traceback" not in errors
    assert cycles and notes == []                               # a complete gzip stream


def test_a_log_whose_writer_was_killed_is_read_up_to_where_it_stops(tmp_path):
    _, _, (header, cycles, _), notes = _serve_then(tmp_path, 2.0, signal.SIGKILL)    # nothing is closed
    assert len(cycles) >= 25 and len(notes) == 1 and "stops early" in notes[0]


def test_sigterm_interrupts_a_ciberrato_trial_which_says_what_it_kept(tmp_path):
    log = tmp_path / "trial.jsonl.gz"
    trial = subprocess.Popen([sys.executable, "-m", "simleague", "ciberrato", "trial", "--mode", "realtime",
                              "--log", str(log)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for_records(log, trial)
        trial.send_signal(signal.SIGTERM)
        _, errors = trial.communicate(timeout=60)
    finally:
        trial.kill()
    assert trial.returncode == 130 and f"the log so far is in {log}" in errors
    header, cycles, _ = read_log(log, None, notes := [])
    assert cycles and not notes


def test_clients_say_what_they_wait_for_and_give_up_after_their_timeout():
    import socket

    from simleague.ciberrato.client import Client, ClientError
    from simleague.msl.client import ConnectionLost, TeamClient

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as silent:          # a port that never answers
        silent.bind(("127.0.0.1", 0))
        said = []
        robot = Client("r", 1, "127.0.0.1", silent.getsockname()[1], timeout=2.5)
        began = time.monotonic()
        try:
            robot.register(said.append)
        except ClientError as exc:
            message = str(exc)
        finally:
            robot.close()
    assert 2.4 < time.monotonic() - began < 10 and said and message.endswith("in 2.5 s")
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    team = TeamClient("T", "cyan", "127.0.0.1", port, reconnect=0.5)
    told = []
    try:
        team.connect(told.append)
    except ConnectionLost as exc:
        lost = str(exc)
    assert told == [f"the middleware at 127.0.0.1:{port} (gives up after 0.5 s)"] and "in 0.5 s" in lost
