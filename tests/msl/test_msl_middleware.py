"""The middleware as a real process on 127.0.0.1: initialisation, replies, pauses, reconnects and
bad input (thesis 5.3)."""

import json
import socket
import subprocess
import threading
import time

import pytest

from msl_helpers import MiddlewareProcess, Peer, simleague, state
from simleague.msl.client import ConnectionLost, MiddlewareError, TeamClient
from simleague.msl.messages import Ball, Robot


@pytest.fixture
def mw(tmp_path):
    m = MiddlewareProcess(tmp_path / "mw.jsonl", "--hello-timeout", "1", "--eps1", "0.2", "--eps2", "0.05")
    peers = []
    m.peer = lambda *a, **k: peers.append(Peer(*a, **k)) or peers[-1]
    yield m
    for p in peers:
        p.close()
    err = m.stop()
    assert "Traceback" not in err, err


def pausers(mw):
    peers = {side: mw.peer(mw.pauser_port, {"type": "pauser_hello", "side": side, "backend": "test",
                                           "target": side}) for side in ("cyan", "magenta")}
    mw.wait_event("teams_open")
    return peers


def teams(mw):
    c = mw.peer(mw.team_port, {"type": "hello", "teamName": "Cyan FC", "side": "cyan"})
    m = mw.peer(mw.team_port, {"type": "hello", "teamName": "Magenta FC", "side": "magenta"})
    assert c.recv() == {"type": "start", "side": "cyan", "opponent": "Magenta FC", "heartbeat": 1.0, "timeout": 5.0}
    assert m.recv() == {"type": "start", "side": "magenta", "opponent": "Cyan FC", "heartbeat": 1.0, "timeout": 5.0}
    return c, m


def test_teams_wait_for_both_pausers_then_get_a_start_signal(mw):
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", mw.team_port), timeout=2)
    p = pausers(mw)
    c = mw.peer(mw.team_port, {"type": "hello", "teamName": "Cyan FC", "side": "cyan"})
    assert c.nothing_for(0.3)  # no start before the second team
    teams_ = mw.peer(mw.team_port, {"type": "hello", "teamName": "Magenta FC", "side": "magenta"})
    assert c.recv()["type"] == teams_.recv()["type"] == "start"
    assert p["cyan"].nothing_for(0.1)
    mw.wait_event("start")


def test_request_gets_the_opponent_mirrored_and_interpolated(mw):
    pausers(mw)
    c, m = teams(mw)
    m.send(state(1.0, [(2, 1.0, 3.0, 0.0, 0)], ball=(1.5, 3.0, 0.0)))
    m.send(state(1.1, [(2, 2.0, 3.0, 0.0, 0)], ball=(2.5, 3.0, 0.0)))
    mw.handled("magenta", 1.1)
    c.send({"type": "request", "t": 1.05})
    r = c.recv()
    assert r["robots"] == [{"id": 2, "pose": [-1.5, -3.0, 3.1416], "velocity": [-0.0, -0.0, 0.0],
                            "ballEngaged": 0}]
    # cyan has sent no state: the ball comes from magenta, mirrored
    assert r["ballFrom"] == "magenta" and r["balls"][0]["position"] == [-2.0, -3.0, 0.0]
    assert r["estimate"] == "interpolated" and r["t"] == 1.05
    ev = mw.wait_event("out", side="cyan", type="reply")
    assert ev["bytes"] > 50 and ev["estimate"] == "interpolated"


def test_team_ahead_is_paused_and_resumed_through_its_pauser(mw):
    p = pausers(mw)
    c, m = teams(mw)
    c.send(state(1.0))
    m.send(state(1.0))
    mw.handled("magenta", 1.0)
    c.send(state(1.25))  # |t1 - t2| = 0.25 > ε1: e1, pause cyan
    cmd = p["cyan"].recv()
    assert (cmd["type"], cmd["action"], cmd["reason"], cmd["t1"], cmd["t2"]) == ("command", "pause", "e1", 1.25, 1.0)
    p["cyan"].send({"type": "report", "seq": cmd["seq"], "action": "pause", "ok": True, "state": "paused", "ms": 1.5})
    m.send(state(1.1))  # still > ε2: nothing
    assert p["cyan"].nothing_for(0.2) and p["magenta"].nothing_for(0.01)
    m.send(state(1.21))  # |Δ| = 0.04 <= ε2: e3, resume cyan
    cmd = p["cyan"].recv()
    assert (cmd["action"], cmd["reason"]) == ("resume", "e3")
    mw.wait_event("pauser_report", side="cyan", state="paused")
    assert [e["event"] for e in mw.events("transition")] == ["e1", "e3"]


def test_reconnect_pauses_the_other_team_and_keeps_the_buffers(mw):
    p = pausers(mw)
    c, m = teams(mw)
    m.send(state(1.0, [(3, 1.0, 1.0, 0.0, 0)]))
    c.send(state(1.0))
    mw.handled("magenta", 1.0)
    mw.handled("cyan", 1.0)
    c.close()
    cmd = p["magenta"].recv()
    assert (cmd["action"], cmd["reason"]) == ("pause", "opponent away")
    assert m.recv() == {"type": "opponent", "present": False, "reason": "disconnected"}
    # someone else may not take the side; the same team may
    intruder = mw.peer(mw.team_port, {"type": "hello", "teamName": "Other", "side": "cyan"})
    assert "belongs to 'Cyan FC'" in intruder.recv()["message"] and intruder.closed()
    c2 = mw.peer(mw.team_port, {"type": "hello", "teamName": "Cyan FC", "side": "cyan"})
    assert c2.recv() == {"type": "start", "side": "cyan", "opponent": "Magenta FC", "heartbeat": 1.0, "timeout": 5.0}
    cmd = p["magenta"].recv()
    assert (cmd["action"], cmd["reason"]) == ("resume", "opponent back")
    assert m.recv() == {"type": "opponent", "present": True, "reason": "reconnected"}
    c2.send({"type": "request", "t": 1.0})
    assert c2.recv()["robots"][0]["pose"] == [-1.0, -1.0, 3.1416]
    c2.send(state(0.5))  # time must keep increasing across the reconnect
    assert "not after" in c2.recv()["message"]
    assert mw.wait_event("team_connected", side="cyan", reconnect=True)


def test_bad_input_gets_an_error_and_the_other_team_is_still_served(mw):
    pausers(mw)
    c, m = teams(mw)
    m.send(state(1.0, [(1, 2.0, 0.0, 0.0, 0)]))
    m.send(state(2.0, [(1, 4.0, 0.0, 0.0, 0)]))
    mw.handled("magenta", 2.0)
    bad = [
        (b"{not json\n", "not a JSON object"),
        (b'{"type": "shoot", "t": 1}\n', "Invalid value 'shoot'"),
        (b'{"type": "state", "t": 3.0}\n', "missing required field"),
        (json.dumps(state(1.5)).encode() + b"\n", ""),  # valid
        (json.dumps(state(1.2)).encode() + b"\n", "not after the last state's time 1.5"),
        (b'{"type": "hello", "teamName": "X", "side": "cyan"}\n', "hello was already received"),
    ]
    for line, words in bad:
        c.send(line)
        if words:
            err = c.recv()
            assert err["type"] == "error" and words in err["message"], err
    # a 100 MB line: dropped without being kept, the sender told, the connection kept
    chunk = b"x" * (1 << 20)
    for _ in range(100):
        c.send(chunk)
    c.send(b"\n")
    err = c.recv(timeout=30)
    assert "longer than 65536 bytes" in err["message"]
    # the other team is served meanwhile, and the buffers are intact
    m.send({"type": "request", "t": 1.5})
    r = m.recv()
    assert r["type"] == "reply" and r["estimate"] == "exact" and r["robots"][0]["pose"][0] == -0.0
    c.send({"type": "request", "t": 1.5})
    assert c.recv()["robots"][0]["pose"][0] == -3.0
    assert mw.proc.poll() is None


def test_silent_client_and_wrong_hellos_are_refused(mw):
    pausers(mw)
    silent = mw.peer(mw.team_port)
    assert "no hello within 1 s" in silent.recv(timeout=5)["message"] and silent.closed()
    for hello, words in [({"type": "request", "t": 1}, "first message of a team must be a hello"),
                         ({"type": "hello", "teamName": "", "side": "cyan"}, "`$.teamName`"),
                         ({"type": "hello", "teamName": "A", "side": "green"}, "`$.side`")]:
        p = mw.peer(mw.team_port, hello)
        assert words in p.recv()["message"] and p.closed()
    extra = mw.peer(mw.pauser_port, {"type": "pauser_hello", "side": "cyan", "backend": "x", "target": "y"})
    assert "connected already" in extra.recv()["message"]
    c, m = teams(mw)  # the middleware still works
    assert mw.events("team_refused")


def test_team_client_library_round_trip_and_reconnect(mw):
    pausers(mw)
    m = mw.peer(mw.team_port, {"type": "hello", "teamName": "Magenta FC", "side": "magenta"})
    client = TeamClient("Cyan FC", "cyan", port=mw.team_port, reconnect=5)
    start = client.connect()
    assert start.opponent == "Magenta FC" and m.recv()["type"] == "start"
    with pytest.raises(MiddlewareError, match="no state from the magenta team"):
        client.request(0.5)
    m.send(state(1.0, [(7, 1.0, 2.0, 0.0, 1)], ball=(1.2, 2.0, 0.0)))
    mw.handled("magenta", 1.0)
    client.send_state(1.0, [Robot(1, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), 0)], Ball((0.0, 0.0, 0.0), (0.0, 0.0, 0.0)))
    reply = client.request(1.0)
    assert [r.id for r in reply.robots] == [7] and reply.ballFrom == "magenta"
    assert reply.balls[0].position == (-1.2, -2.0, 0.0)
    client.sock.shutdown(socket.SHUT_RDWR)  # the connection breaks under the client
    reply = client.request(1.0)  # reconnects, waits for start, asks again
    assert client.reconnects == 1 and reply.robots[0].pose == (-1.0, -2.0, 3.1416)
    client.send_state(0.5, [], Ball((0.0, 0.0, 0.0), (0.0, 0.0, 0.0)))  # goes back in time
    client.request(1.0)
    assert "not after" in client.errors[-1]
    client.close()


def test_client_gives_up_when_nobody_listens():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ConnectionLost, match="no middleware"):
        TeamClient("A", "cyan", port=port, reconnect=0.3).connect()


@pytest.mark.parametrize("args, words", [
    (["middleware", "--eps1", "0.05", "--eps2", "0.2"], "--eps1 > --eps2"),
    (["middleware", "--buffer", "1"], "--buffer"),
    (["pauser", "--backend", "process", "--pid", "999999999", "--side", "cyan"], "no process with pid 999999999"),
    (["pauser", "--backend", "process", "--side", "cyan"], "needs --pid"),
    (["pauser", "--backend", "vm", "--side", "cyan"], "--backend 'vm'"),
    (["team", "--side", "blue"], "--side 'blue'"),
    (["report", "/nonexistent/log.jsonl"], "cannot read /nonexistent/log.jsonl"),
])
def test_command_line_errors_are_one_line_and_exit_2(args, words, tmp_path):
    r = subprocess.run(simleague("msl", *args), capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert words in " ".join(r.stderr.split()) and "Traceback" not in r.stderr


def test_a_flooding_team_does_not_starve_the_other(mw):
    """Cyan floods states (500 a send, up to 200,000) from a thread until magenta has its reply:
    were magenta's request kept waiting for cyan's queue, the flood (blocked by full socket
    buffers) and the wait would never end. The reply is logged before the last of the flood
    comes in, and none of the flood is lost. (A flood sent in one go before the request was
    racy: on a busy machine the middleware could take all of it before the request arrived.)
    Magenta sends heartbeats meanwhile, as a live team does: reading what the flood left in the
    socket buffers takes seconds (at most MAX_TEAM_MESSAGES a second), and a team silent for the
    timeout (5 s) is dropped."""
    pausers(mw)
    c, m = teams(mw)
    m.send(state(1.0))
    started, stop, flooded, sent = threading.Event(), threading.Event(), threading.Event(), []
    sending = threading.Lock()  # magenta's messages from two threads, each whole

    def flood():
        for k in range(0, 200_000, 500):
            c.send(b"".join(json.dumps(state(2.0 + (k + j) * 0.001)).encode() + b"\n" for j in range(500)))
            sent.append(k + 499)
            started.set()
            if stop.is_set():
                return

    def heartbeats():
        while not flooded.wait(0.5):
            with sending:
                m.send({"type": "heartbeat"})

    flooding, beating = threading.Thread(target=flood), threading.Thread(target=heartbeats, daemon=True)
    flooding.start()
    beating.start()
    try:
        try:
            assert started.wait(30)
            with sending:
                m.send({"type": "request", "t": 2.0})
            assert m.recv(timeout=30)["type"] == "reply"
        finally:
            stop.set()
            flooding.join(60)
        assert sent[-1] < 199_999, "magenta was answered only once the whole flood was sent"
        last = 2.0 + sent[-1] * 0.001
        mw.wait_event("in", timeout=60, side="cyan", t=last)
    finally:
        flooded.set()
        beating.join(10)
    events = mw.events()
    answered = next(i for i, e in enumerate(events) if e["ev"] == "out" and e["side"] == "magenta")
    finished = next(i for i, e in enumerate(events) if e["ev"] == "in" and e.get("t") == last)
    assert answered < finished, "magenta waited for the whole flood"
    m.send({"type": "request", "t": last})
    assert m.recv()["estimate"] == "exact"  # nothing of the flood was lost


def test_a_team_flooding_requests_while_reading_replies_leaves_the_other_its_share(mw):
    """Cyan sends requests as fast as it can and reads the replies; magenta's requests are still
    answered (each team is read at most MAX_TEAM_MESSAGES a second: the flooder's socket waits,
    nothing is lost)."""
    from simleague.msl.middleware import MAX_TEAM_MESSAGES
    pausers(mw)
    c, m = teams(mw)
    c.send(state(1.0))
    m.send(state(1.0))
    mw.handled("cyan", 1.0)
    stop = threading.Event()
    burst = (json.dumps({"type": "request", "t": 1.0}) + "\n").encode() * 200

    def flood():
        c.sock.settimeout(1.0)
        while not stop.is_set():
            try:
                c.sock.sendall(burst)
                c.sock.recv(1 << 20)
            except OSError:
                pass

    flooding = threading.Thread(target=flood)
    flooding.start()
    try:
        began, answered = time.monotonic(), 0
        while time.monotonic() - began < 2.0:
            m.send({"type": "request", "t": 1.0})
            assert m.recv(timeout=5)["type"] == "reply"
            answered += 1
    finally:
        stop.set()
        flooding.join(30)
    assert answered >= 0.5 * 2.0 * MAX_TEAM_MESSAGES * 0.5          # half of magenta's own allowance at least


def test_the_event_log_stops_per_message_events_at_its_bound(tmp_path):
    from simleague.msl.middleware import EventLog
    log = EventLog(tmp_path / "ev.jsonl", max_bytes=2000)
    for k in range(1000):
        log("in", side="cyan", type="state", bytes=40, t=k)
    log("ball", side="cyan", t=1.0, by="cyan")                      # rare events still come
    log.close()
    lines = [json.loads(x) for x in (tmp_path / "ev.jsonl").read_text().splitlines()]
    assert sum(len(json.dumps(x)) for x in lines) < 2000 + 1000                 # one line over, two notes
    kinds = [x["ev"] for x in lines]
    assert kinds.count("log_full") == 2 and kinds[-2:] == ["ball", "log_full"] and lines[-1]["left_out"] > 900
