"""The referee of MSL matches: the RefBox's commands and the game state they make, the built-in
referee, and the bridge to a RefBox, driven end to end by a scripted RefBox that replays the bytes
RefBox2015 was seen to send (golden/msl/refbox2015-captures.txt) to real team processes."""

import ast
import json
import socket
import subprocess
import threading
import time

import pytest
from golden import SHARED
from msl_helpers import MiddlewareProcess, simleague

from simleague.msl.messages import MessageSplitter
from simleague.msl.referee import AutoReferee, Call, GameState, addressed, ball_in_goal
from simleague.msl.refbox import parse_command

CAPTURE = SHARED / "golden/msl/refbox2015-captures.txt"
LEFT, RIGHT = "224.16.32.127:1", "224.16.32.127"     # the addresses the capture's RefBox gave its teams
ADDRESSES = {"cyan": LEFT, "magenta": RIGHT}


def captured_chunks() -> list[bytes]:
    """What the left team's socket received, one recv() at a time, from the first WELCOME to
    END_GAME (the RESET after it closes the connections)."""
    chunks = []
    for line in CAPTURE.read_text().splitlines():
        words = line.split(" ", 3)
        if len(words) == 4 and words[0] == "teamL" and words[2] == "RX":
            chunks.append(ast.literal_eval(words[3]))
    return [c for c in chunks if b'"RESET"' not in c]


# -- the vocabulary and the game state ---------------------------------------------------------

def test_every_captured_command_parses_and_names_its_side():
    calls = []
    for chunk in captured_chunks():
        for raw in MessageSplitter().feed(chunk):
            calls.append(parse_command(raw, ADDRESSES)[0])
    assert Call("KICKOFF", "cyan") in calls and Call("FREEKICK", "magenta") in calls
    assert Call("IS_ALIVE", "cyan", 3) in calls and Call("SUBSTITUTION", "cyan", 2) in calls
    assert [c.command for c in calls].count("START") == 6 and calls[-1] == Call("END_GAME")
    with pytest.raises(ValueError, match="unknown RefBox command 'SHOOT'"):
        parse_command(b'{"command": "SHOOT", "targetTeam": ""}', ADDRESSES)
    with pytest.raises(ValueError, match="not a RefBox command"):
        parse_command(b"K", ADDRESSES)                         # the pre-2020 letters are not spoken
    assert parse_command(b'{"command": "GOAL", "targetTeam": "10.0.0.1"}', ADDRESSES)[0].side is None


def test_game_state_follows_the_captured_match():
    game = GameState()
    for chunk in captured_chunks():
        for raw in MessageSplitter().feed(chunk):
            game.apply(parse_command(raw, ADDRESSES)[0])
            if game.last == "FIRST_HALF":
                assert game.part == "1st half" and not game.running
    assert game.score == {"cyan": 1, "magenta": 0}
    assert (game.part, game.running, game.over) == ("end of regular time", False, False)
    game.apply(Call("SUBGOAL", "cyan"))
    game.apply(Call("GAMEOVER"))
    assert game.score["cyan"] == 0 and game.over and game.label() == "game over, stopped (last: GAMEOVER)"


@pytest.mark.parametrize("call, side, ours, theirs, told", [
    (Call("KICKOFF", "cyan"), "cyan", "224.16.32.201", "224.16.32.202", ("224.16.32.201", "us")),
    (Call("KICKOFF", "cyan"), "magenta", "224.16.32.202", "224.16.32.201", ("224.16.32.201", "them")),
    (Call("CORNER", "magenta"), "cyan", "224.16.32.127", "224.16.32.127", ("224.16.32.127:1", "them")),
    (Call("START"), "cyan", "224.16.32.201", "224.16.32.202", ("", "both")),
])
def test_each_team_is_told_a_command_with_its_own_address_for_us(call, side, ours, theirs, told):
    assert addressed(call, side, ours, theirs) == told


@pytest.mark.parametrize("x, y, scorer", [(0.0, 9.2, "cyan"), (0.9, -9.2, "magenta"), (0.0, 9.05, None),
                                          (1.1, 9.5, None), (0.0, 0.0, None)])
def test_a_goal_is_the_whole_ball_over_the_line_between_the_posts(x, y, scorer):
    assert ball_in_goal(x, y) == scorer


def test_auto_referee_plays_two_halves_with_a_goal_and_restarts():
    ref = AutoReferee(half=10.0, delay=1.0, pause=3.0)
    log, t, ball = [], 0.0, (0.0, 0.0)
    while not ref.finished and t < 100:
        if 5.0 <= t < 5.05:
            ball = (0.2, -9.3)                                 # into cyan's goal: magenta scores
        for call in ref.update(t, ball):                       # the caller applies what the referee decides
            ref.game.apply(call)
            log.append((round(t, 2), call.command, call.side))
        ball = (0.0, 0.0)
        t = round(t + 0.01, 2)
    assert log == [(0.0, "KICKOFF", "cyan"), (1.0, "FIRST_HALF", None), (1.0, "START", None),
                   (5.0, "STOP", None), (5.0, "GOAL", "magenta"), (6.0, "KICKOFF", "cyan"), (7.0, "START", None),
                   (13.0, "STOP", None), (13.0, "HALF_TIME", None), (16.0, "KICKOFF", "magenta"),
                   (17.0, "SECOND_HALF", None), (17.0, "START", None),
                   (27.0, "STOP", None), (27.0, "END_GAME", None), (27.0, "GAMEOVER", None)]
    assert ref.game.score == {"cyan": 0, "magenta": 1} and ref.game.over
    with pytest.raises(ValueError, match="half > 0"):
        AutoReferee(half=0)


# -- the bridge, end to end ------------------------------------------------------------------------

class ScriptedRefbox:
    """A RefBox on 127.0.0.1 that knows a side by the /24 its peer connects from (127.0.1.* left,
    127.0.2.* right, anything else refused as RefBox2015 does), broadcasts ``chunks`` to both
    sockets when :meth:`play` is called, and keeps the world states each side sent."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.sockets: dict[str, socket.socket] = {}
        self.states: dict[str, list[tuple[float, dict]]] = {"left": [], "right": []}
        self.refused: list[str] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while len(self.sockets) < 2:
            try:
                conn, (ip, _) = self.server.accept()
            except OSError:
                return
            side = {"127.0.1": "left", "127.0.2": "right"}.get(ip.rsplit(".", 1)[0])
            if side is None or side in self.sockets:
                self.refused.append(ip)
                conn.close()
                continue
            self.sockets[side] = conn
            threading.Thread(target=self._read, args=(side, conn), daemon=True).start()

    def _read(self, side, conn):
        splitter = MessageSplitter()
        while True:
            try:
                data = conn.recv(65536)
            except OSError:
                return
            if not data:
                return
            for raw in splitter.feed(data):
                self.states[side].append((time.monotonic(), json.loads(raw)))

    def play(self, chunks: list[bytes], gap: float) -> None:
        for chunk in chunks:
            for conn in self.sockets.values():
                conn.sendall(chunk)
            time.sleep(gap)

    def close(self):
        self.server.close()
        for conn in self.sockets.values():
            conn.close()


def test_refbox_commands_reach_both_teams_at_the_same_simulation_time(tmp_path):
    refbox = ScriptedRefbox()
    match = tmp_path / "match.toml"
    match.write_text(f'[cyan]\naddress = "{LEFT}"\n[magenta]\naddress = "{RIGHT}"\n'
                     f'[referee]\nmode = "refbox"\nrefbox = "127.0.0.1:{refbox.port}"\n')
    mw = MiddlewareProcess(tmp_path / "mw.jsonl", "--match", str(match))
    procs = []
    try:
        for k, (side, speed) in enumerate((("cyan", 1.0), ("magenta", 0.8))):
            team = subprocess.Popen(simleague("msl", "team", "--name", f"Toy {side}", "--side", side, "--port",
                                              str(mw.team_port), "--speed", str(speed), "--seconds", "120",
                                              "--seed", str(k)), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True)
            procs.append(team)
            procs.append(subprocess.Popen(simleague("msl", "pauser", "--backend", "process", "--pid", str(team.pid),
                                                    "--side", side, "--port", str(mw.pauser_port)),
                                          stderr=subprocess.DEVNULL))
        mw.wait_event("start", timeout=30)
        mw.wait_event("refbox_connected", side="cyan", timeout=10)
        mw.wait_event("refbox_connected", side="magenta", timeout=10)
        time.sleep(0.5)                                        # world states reach the RefBox meanwhile
        garbage = [b"K\x00", b'{"command": "SHOOT", "targetTeam": ""}\x00']   # old letters, an unknown command
        chunks = garbage + captured_chunks() + [b'{\n  "command": "GAMEOVER",\n  "targetTeam": ""\n}\x00']
        refbox.play(chunks, gap=0.2)
        mw.wait_event("end", timeout=30)
        problems = [e["message"] for e in mw.events("refbox_error")]
        outs = [procs[i].communicate(timeout=30) for i in (0, 2)]
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
                p.wait(10)
        err = mw.stop()
        refbox.close()
    assert "Traceback" not in err, err
    assert not refbox.refused
    stats = {}
    for out, errs in outs:
        assert out.strip(), errs
        s = json.loads(out.strip().splitlines()[-1])
        stats[s["side"]] = s
    cyan, magenta = stats["cyan"]["applied"], stats["magenta"]["applied"]
    sent = sum(chunk.count(b"\0") for chunk in chunks) - len(garbage)
    assert len(cyan) == len(magenta) == sent                # every command, none lost
    assert any("not a RefBox command" in p for p in problems) and any("'SHOOT'" in p for p in problems)
    for c, m in zip(cyan, magenta):
        seq, command, target, address, t, applied = c
        assert (m[0], m[1], m[4]) == (seq, command, t)          # the same command, stamped with one time ...
        assert m[5] == applied and t <= applied < t + 0.0101    # ... carried out at the same simulation step
        mirrored = {"us": "them", "them": "us", "both": "both"}[target]
        assert m[2] == mirrored, (c, m)
    by_command = {c[1]: (c, m) for c, m in zip(cyan, magenta)}
    kickoff_c, kickoff_m = by_command["KICKOFF"]                # the capture's last kick-off is the right team's
    assert (kickoff_c[2], kickoff_c[3], kickoff_m[2], kickoff_m[3]) == ("them", RIGHT, "us", RIGHT)
    alive = [c for c in cyan if c[1] == "IS_ALIVE"]
    assert alive and alive[0][2:4] == ["us", LEFT]
    assert stats["cyan"]["score"] == 1 and stats["cyan"]["end"] == stats["magenta"]["end"] == "the RefBox ended the game"
    # each team's world state reached the RefBox over that team's own connection, at about 10 Hz
    for side, team in (("left", "Toy cyan"), ("right", "Toy magenta")):
        got = refbox.states[side]
        assert {s["teamName"] for _, s in got} == {team}
        assert all(s["type"] == "worldstate" and len(s["robots"]) == 5 and s["balls"] for _, s in got)
        span = got[-1][0] - got[0][0]
        assert len(got) >= 8 * span, (len(got), span)
