"""The middleware as a real process, for what a real match between two teams needs (issue 34): the
RefBox's framing and world states, request ids and subscriptions, the clock and the extrapolation
horizon, possession decided at one time for both, heartbeats, timeouts and the end of the match,
tokens, TLS and separately bound ports. Every rule over real sockets on 127.0.0.1."""

import ast
import json
import socket
import ssl
import subprocess
import threading
import time

import pytest
from golden import SHARED
from msl_helpers import MiddlewareProcess, Peer, simleague, state

from simleague.msl.client import TeamClient
from simleague.msl.messages import Ball

CAPTURE = SHARED / "golden/msl/refbox2015-captures.txt"


@pytest.fixture
def run(tmp_path):
    """``run(*options)``: a middleware process with those options; its peers, stopped after the test."""
    started = []

    def make(*extra):
        m = MiddlewareProcess(tmp_path / f"mw{len(started)}.jsonl", "--hello-timeout", "2", *extra)
        m.peers = []
        m.peer = lambda *a, **k: m.peers.append(Peer(*a, **k)) or m.peers[-1]
        started.append(m)
        return m
    yield make
    for m in started:
        for p in m.peers:
            p.close()
        err = m.stop()
        assert "Traceback" not in err, err


def pausers(mw, tokens=("", "")):
    peers = {side: mw.peer(mw.pauser_port, {"type": "pauser_hello", "side": side, "backend": "test", "target": side,
                                           "token": token}) for side, token in zip(("cyan", "magenta"), tokens)}
    mw.wait_event("teams_open")
    return peers


def teams(mw, cyan_end=b"\n"):
    c = mw.peer(mw.team_port, {"type": "hello", "teamName": "Cyan FC", "side": "cyan"}, end=cyan_end)
    m = mw.peer(mw.team_port, {"type": "hello", "teamName": "Magenta FC", "side": "magenta"})
    assert c.recv()["type"] == m.recv()["type"] == "start"
    return c, m


def captured_worldstate() -> bytes:
    """The world state a team sent RefBox2015 in the capture (its own bytes, NUL included)."""
    for line in CAPTURE.read_text().splitlines():
        if line.startswith("teamL ") and " TX(" in line:
            return ast.literal_eval(line.split(") ", 1)[1])
    raise AssertionError("no world state in the capture")


def test_a_team_speaking_the_refboxs_framing_and_world_state_plays(run):
    mw = run()
    pausers(mw)
    c, m = teams(mw, cyan_end=b"\0")
    ws = json.loads(captured_worldstate().rstrip(b"\0"))
    # as the team sends it to the RefBox (no simulation time): passed on, not stored, said once
    c.send(json.dumps(ws, indent=2).encode() + b"\0")
    assert "worldstate without t" in c.recv()["message"]
    c.send(json.dumps(ws, indent=2).encode() + b"\0")
    ws["t"] = 1.0
    c.send(json.dumps(ws, indent=2).encode() + b"\0")          # pretty-printed, newlines inside, NUL at the end
    mw.handled("cyan", 1.0)
    m.send(state(1.0))
    m.send({"type": "request", "t": 0.98})                    # its ageMs (20) dates it 20 ms before t
    reply = m.recv()
    assert reply["estimate"] == "exact" and reply["robots"][0]["pose"] == [-0.5, 3.0, round(1.5708 + 3.14159265, 4)]
    c.send({"type": "request", "t": 1.0, "id": 7})
    reply = c.recv()                                           # the answer ends with NUL, as the hello did
    assert reply["type"] == "reply" and reply["id"] == 7
    assert c.nothing_for(0.3)                                  # (the second world state without t: no error again)


def test_requests_carry_ids_several_in_flight_and_errors_name_them(run):
    mw = run()
    pausers(mw)
    c, m = teams(mw)
    c.send({"type": "request", "t": 0.5, "id": 1})
    assert c.recv() == {"type": "error", "message": "cannot answer yet: no state from the magenta team yet",
                        "inReplyTo": "request", "id": 1}
    m.send(state(1.0, [(1, 1.0, 0.0, 0.0, 0)]))
    m.send(state(2.0, [(1, 3.0, 0.0, 0.0, 0)]))
    mw.handled("magenta", 2.0)
    for rid, t in ((10, 1.0), (11, 1.5), (12, 2.0)):           # three at once, no waiting in between
        c.send({"type": "request", "t": t, "id": rid})
    replies = [c.recv() for _ in range(3)]
    assert [(r["id"], r["robots"][0]["pose"][0]) for r in replies] == [(10, -1.0), (11, -2.0), (12, -3.0)]


def test_a_subscription_pushes_the_opponent_every_period_of_the_subscribers_time(run):
    mw = run()
    pausers(mw)
    c, m = teams(mw)
    m.send(state(0.0))
    m.send(state(2.0))
    mw.handled("magenta", 2.0)
    c.send({"type": "subscribe", "period": 0.1})
    for k in range(51):
        c.send(state(round(k * 0.02, 2)))
    pushed = []
    while True:
        try:
            pushed.append(c.recv(timeout=0.5))
        except socket.timeout:
            break
    assert [p["t"] for p in pushed] == [round(0.1 * k, 2) for k in range(11)]
    assert all(p["type"] == "reply" and "id" not in p for p in pushed)


def test_a_request_does_not_move_the_clock_and_extrapolation_stops_at_the_horizon(run):
    mw = run("--eps1", "0.2", "--eps2", "0.05")
    p = pausers(mw)
    c, m = teams(mw)
    m.send(state(0.1, ball=(0.1, 0.0, 0.0)))
    m.send(state(0.2, ball=(0.2, 0.0, 0.0)))                   # the magenta ball rolls at 1 m/s
    mw.handled("magenta", 0.2)
    c.send(state(0.2))
    c.send({"type": "request", "t": 100.0, "id": 1})
    reply = c.recv()
    assert reply["estimate"] == "horizon" and reply["ballFrom"] == "cyan"
    m.send({"type": "request", "t": 100.0, "id": 2})
    reply = m.recv()
    assert reply["estimate"] == "horizon"
    assert p["cyan"].nothing_for(0.4) and p["magenta"].nothing_for(0.1)   # nobody paused by a request's time
    c.send(state(0.8))                                         # a state does move the clock: cyan is ahead
    assert p["cyan"].recv()["action"] == "pause"
    m.send({"type": "request", "t": 5.0, "id": 3})
    assert m.recv()["robots"][0]["pose"][:2] == [-0.0, -0.0]   # cyan's robot holds still: no drift


def test_possession_changes_at_one_simulation_time_for_both_teams(run):
    mw = run()
    pausers(mw)
    c, m = teams(mw)
    c.send(state(0.5, ball=(1.0, 1.0, 0.0)))
    m.send(state(0.5, ball=(-1.0, -1.0, 0.0)))
    m.send(state(1.0, [(1, 0.0, 0.0, 0.0, 1)], ball=(0.1, 0.0, 0.0)))   # magenta engages, ahead of cyan
    mw.handled("magenta", 1.0)
    c.send({"type": "request", "t": 1.0, "id": 1})
    assert c.recv()["ballFrom"] == "cyan"                      # cyan has not reached 1.0: not decided yet
    c.send(state(1.0, ball=(1.0, 1.0, 0.0)))
    mw.handled("cyan", 1.0)
    for peer in (c, m):
        peer.send({"type": "request", "t": 1.0, "id": 2})
        assert peer.recv()["ballFrom"] == "magenta"
        peer.send({"type": "request", "t": 0.5, "id": 3})
        assert peer.recv()["ballFrom"] == "cyan"               # the decision in force at 0.5 stands


def test_a_silent_team_is_dropped_and_its_opponent_told_and_resumed(run):
    mw = run("--timeout", "1", "--away", "30")
    p = pausers(mw)
    c, m = teams(mw)
    m.send(state(0.1))
    c.send(state(1.0))                                         # cyan runs ahead and is paused ...
    assert p["cyan"].recv()["action"] == "pause"
    heartbeat = m.recv(timeout=2, heartbeats=True)             # ... magenta hears the heartbeat, then hangs
    assert heartbeat == {"type": "heartbeat"}
    assert c.recv(timeout=5) == {"type": "opponent", "present": False, "reason": "sent nothing for 1 s"}
    assert m.closed()
    command = p["cyan"].recv()
    assert (command["action"], command["reason"]) == ("resume", "opponent gone")
    assert mw.wait_event("team_timeout", side="magenta")


def test_an_away_team_is_waited_for_at_most_away_seconds(run):
    mw = run("--away", "1")
    p = pausers(mw)
    c, m = teams(mw)
    c.close()
    assert p["magenta"].recv()["reason"] == "opponent away"
    began = time.monotonic()
    command = p["magenta"].recv(timeout=5)
    assert (command["action"], command["reason"]) == ("resume", "opponent gone")
    assert 0.8 < time.monotonic() - began < 2.0


def test_the_auto_referee_ends_the_match_and_both_are_told_and_resumed(run, tmp_path):
    match = tmp_path / "match.toml"
    match.write_text('[referee]\nmode = "auto"\nhalf = 1.0\ndelay = 0.2\npause = 0.3\n')
    mw = run("--match", str(match))
    p = pausers(mw)
    c, m = teams(mw)
    got = {"cyan": [], "magenta": []}
    ends = {}
    t = 0.0
    while len(ends) < 2 and t < 10:
        t = round(t + 0.02, 2)
        for side, peer, lead in (("cyan", c, 0.3), ("magenta", m, 0.0)):   # cyan runs ahead: paused
            if side not in ends:
                peer.send(state(round(t + lead, 2)))
        for side, peer in (("cyan", c), ("magenta", m)):
            while side not in ends:
                try:
                    message = peer.recv(timeout=0.002)
                except socket.timeout:
                    break
                if message["type"] == "referee":
                    got[side].append((message["seq"], message["t"], message["command"], message["target"]))
                elif message["type"] == "end":
                    ends[side] = message
    commands = [g[2] for g in got["cyan"]]
    assert commands == ["KICKOFF", "FIRST_HALF", "START", "STOP", "HALF_TIME", "KICKOFF", "SECOND_HALF", "START",
                        "STOP", "END_GAME", "GAMEOVER"]
    assert [g[:3] for g in got["cyan"]] == [g[:3] for g in got["magenta"]]
    assert [g[3] for g in got["cyan"]][:1] == ["us"] and [g[3] for g in got["magenta"]][:1] == ["them"]
    assert ends["cyan"] == {"type": "end", "reason": "the auto referee ended the game", "score": [0, 0]}
    command = p["cyan"].recv()
    while command["reason"] != "match over":
        command = p["cyan"].recv()
    assert command["action"] == "resume"                       # the paused team is resumed at the end
    assert mw.proc.wait(10) == 0                               # the middleware leaves by itself


def test_tokens_keep_strangers_out_of_both_ports(run):
    mw = run("--token-cyan", "c-secret", "--token-magenta", "m-secret")
    stranger = mw.peer(mw.pauser_port, {"type": "pauser_hello", "side": "cyan", "backend": "x", "target": "y"})
    assert "wrong or missing token for the cyan side" in stranger.recv()["message"] and stranger.closed()
    pausers(mw, tokens=("c-secret", "m-secret"))
    wrong = mw.peer(mw.team_port, {"type": "hello", "teamName": "Cyan FC", "side": "cyan", "token": "guess"})
    assert "wrong or missing token" in wrong.recv()["message"] and wrong.closed()
    c = mw.peer(mw.team_port, {"type": "hello", "teamName": "Cyan FC", "side": "cyan", "token": "c-secret"})
    m = mw.peer(mw.team_port, {"type": "hello", "teamName": "M", "side": "magenta", "token": "m-secret"})
    assert c.recv()["type"] == m.recv()["type"] == "start"
    assert mw.wait_event("team_refused")["message"] == "wrong or missing token for the cyan side"


def test_tls_on_both_ports(run, tmp_path):
    trustme = pytest.importorskip("trustme", reason="pip install -e '.[test]'")
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1")
    cert.private_key_and_cert_chain_pem.write_to_path(str(tmp_path / "server.pem"))
    ca.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    mw = run("--tls-cert", str(tmp_path / "server.pem"), "--tls-key", str(tmp_path / "server.pem"))
    context = ssl.create_default_context(cafile=str(tmp_path / "ca.pem"))
    socks = []
    for side in ("cyan", "magenta"):
        s = context.wrap_socket(socket.create_connection(("127.0.0.1", mw.pauser_port)), server_hostname="127.0.0.1")
        s.sendall(json.dumps({"type": "pauser_hello", "side": side, "backend": "t", "target": side}).encode() + b"\n")
        socks.append(s)
    mw.wait_event("teams_open")
    plain = socket.create_connection(("127.0.0.1", mw.team_port))
    plain.sendall(b'{"type": "hello", "teamName": "A", "side": "cyan"}\n')
    plain.settimeout(5)
    assert plain.recv(100) == b""                              # no TLS: closed, nothing said in clear
    plain.close()
    clients = [TeamClient(f"T{side}", side, port=mw.team_port, tls=context, reconnect=5) for side in ("cyan", "magenta")]
    starts = {}
    threads = [threading.Thread(target=lambda cl=cl: starts.update({cl.hello.side: cl.connect()})) for cl in clients]
    for th in threads:
        th.start()
    for th in threads:
        th.join(10)
    assert starts["cyan"].opponent == "Tmagenta" and starts["magenta"].opponent == "Tcyan"
    clients[1].send_state(1.0, [], Ball((1, 2, 0), (0, 0, 0)))
    assert clients[0].request(1.0).balls[0].position == (-1.0, -2.0, 0.0)
    for cl in clients:
        cl.close()
    for s in socks:
        s.close()


def test_team_and_pauser_ports_bind_to_their_own_addresses(run):
    mw = run("--team-host", "127.0.0.1", "--pauser-host", "127.0.0.2")
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", mw.pauser_port), timeout=2)
    s = socket.create_connection(("127.0.0.2", mw.pauser_port), timeout=2)
    s.close()
    assert mw.wait_event("listening")["pauserHost"] == "127.0.0.2"


def test_match_file_and_command_line_errors_are_one_line(tmp_path):
    bad = tmp_path / "bad.toml"
    for text, words in [('[cyan]\ntokn = "x"\n', "cyan.tokn: Extra inputs are not permitted"),
                        ('[referee]\nmode = "judge"\n', "referee.mode"),
                        ('[referee]\nrefbox = "nohost"\n', "referee.refbox"),
                        ("[cyan\n", "not TOML")]:
        bad.write_text(text)
        r = subprocess.run(simleague("msl", "middleware", "--match", str(bad), "--events", str(tmp_path / "l")),
                           capture_output=True, text=True, timeout=30)
        assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr, r.stderr
    r = subprocess.run(simleague("msl", "middleware", "--tls-cert", str(bad), "--events", str(tmp_path / "l")),
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "needs both --tls-cert and --tls-key" in r.stderr
