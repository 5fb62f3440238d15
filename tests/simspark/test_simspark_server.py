"""The SimSpark server over real TCP on 127.0.0.1: the real FC Portugal agent's wire log replayed,
monitors and trainers, bad input, sync mode, and a match of sample agents in separate processes."""

import contextlib
import json
import logging
import math
import re
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

import mujoco
import numpy as np
import pytest
from threaded import in_thread

from simleague.simspark.client import AgentClient, ProtocolError, parse_perceptors
from simleague.simspark.game import Game
from simleague.simspark.match import observe
from simleague.soccer.figures import Figures
from simleague.simspark.messages import parse_agent_message, parse_trainer_message
from simleague.simspark.server import SimSparkOptions, SimSparkServer
from simleague.soccer.nao import joint_names
from simleague.wire.sexp import parse

GOLDEN = Path(__file__).resolve().parents[3] / "shared" / "golden" / "simspark"
TYPE0_JOINTS = set(joint_names(0))


@contextlib.contextmanager
def running(**options):
    """A server in a thread of its own (ports picked by the system); yields it while it runs."""
    options.setdefault("realtime", False)
    game = Game(seed=options.pop("seed", 0))
    server = SimSparkServer(game, SimSparkOptions("127.0.0.1", 0, 0, **options))
    with in_thread(server):
        yield server


def frame(text: str | bytes) -> bytes:
    payload = text.encode() if isinstance(text, str) else text
    return struct.pack(">I", len(payload)) + payload


def read_frame(sock: socket.socket) -> bytes:
    def exactly(n):
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("closed")
            data += chunk
        return data
    (n,) = struct.unpack(">I", exactly(4))
    return exactly(n)


def fcp_messages() -> list[str]:
    """What the real FC Portugal agent sent, in order (golden/simspark/fcp_agent_wire_1player.txt)."""
    out = []
    for line in (GOLDEN / "fcp_agent_wire_1player.txt").read_text().splitlines():
        m = re.match(r"C1->S #\d+ t=[\d.]+ len=(\d+): (.*)$", line)
        if m:
            assert len(m.group(2)) == int(m.group(1))
            out.append(m.group(2))
    return out


def test_the_real_teams_wire_log_replays_without_a_protocol_error(caplog):
    messages = fcp_messages()
    assert len(messages) > 15 and messages[0].startswith("(scene")
    caplog.set_level(logging.INFO, logger="simleague.simspark")
    with running(sync=True) as server, socket.create_connection(("127.0.0.1", server.agent_port)) as sock:
        sock.settimeout(10)
        received = []
        for text in messages:
            sock.sendall(frame(text))
            received.append(read_frame(sock).decode())
        for _ in range(10):                       # ten more cycles of an agent that only syncs
            sock.sendall(frame("(syn)"))
            received.append(read_frame(sock).decode())
    perceptions = [parse_perceptors(text) for text in received]      # strict: raises on any fault
    told = [p for p in perceptions if p.unum is not None]
    assert len(told) == 1 and told[0].unum == 1 and told[0].side == "left"
    # soon after init (real agents give up otherwise): within the 5-cycle grace of a new agent
    assert received.index(next(t for t in received if "(unum 1)" in t)) <= 6
    assert all(set(p.joints) == TYPE0_JOINTS for p in perceptions)
    assert all(p.play_mode == "BeforeKickOff" for p in perceptions)
    assert sum(p.seen is not None for p in perceptions) >= len(perceptions) // 3 - 1
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text


def test_a_monitor_gets_the_full_scene_then_updates_and_trainer_commands_work():
    with running() as server, socket.create_connection(("127.0.0.1", server.monitor_port)) as monitor, \
            AgentClient("127.0.0.1", server.agent_port) as agent:
        monitor.settimeout(10)
        agent.scene(4)
        agent.receive()
        agent.init(9, "Blue")
        first = read_frame(monitor).decode()
        assert first.startswith("((FieldLength 30)") and "(RSG 0 1)" in first
        # once the robot has its team, a full state names it as monitors look for it
        deadline = time.monotonic() + 10
        while True:
            message = read_frame(monitor).decode()
            if "(RSG 0 1)" in message and "matNum9 matLeft" in message:
                break
            assert time.monotonic() < deadline
        assert "(team_left Blue)" in message and "models/soccerball.obj" in message
        assert "models/naobody4.obj" in message
        header_end = message.index("(RSG 0 1)")
        parse(message[:header_end]) and parse(message[header_end:])    # well formed, both parts
        update = read_frame(monitor).decode()
        assert update.startswith("((time ") and "(RDS 0 1)" in update
        monitor.sendall(frame("(getAck cookie42)(playMode PlayOn)(score (left 2)(right 1))"))
        while b"(ack cookie42)" != (reply := read_frame(monitor)):
            assert reply.startswith(b"((")
        deadline = time.monotonic() + 10
        while "(play_mode 3)" not in (message := read_frame(monitor).decode()):
            assert time.monotonic() < deadline
        assert "(score_left 2)" in message and "(score_right 1)" in message
        monitor.sendall(frame("(reqfullstate)"))
        deadline = time.monotonic() + 10
        while "(RSG 0 1)" not in read_frame(monitor).decode():
            assert time.monotonic() < deadline


def test_bad_input_is_logged_and_the_others_play_on(caplog):
    caplog.set_level(logging.INFO, logger="simleague.simspark")
    with running(max_backlog=64 * 1024) as server, AgentClient("127.0.0.1", server.agent_port) as good:
        good.scene(0)
        good.receive()
        port = server.agent_port
        with socket.create_connection(("127.0.0.1", port)) as bad:
            bad.sendall(frame(b"(scene rsg/agent/nao/nao_hetero.rsg 1)"))
            read_frame(bad)
            bad.sendall(frame(b"((((garbage") + frame(b"(fly 3)(he1 x)(he1 0.5)") + frame(b"\x00\xff\x01"))
            read_frame(bad)
            bad.sendall(struct.pack(">I", 100 * 1024 * 1024) + b"(")    # a 100 MB frame announced
            bad.settimeout(10)
            with pytest.raises((ConnectionError, OSError)):
                while True:
                    read_frame(bad)
        monitor = socket.socket()                                  # never reads
        monitor.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        monitor.connect(("127.0.0.1", server.monitor_port))
        monitor.sendall(frame(b"(nonsense (x))(ball (pos a b c))(killsim)"))
        before = good.receive().time
        deadline = time.monotonic() + 60
        while "does not read" not in caplog.text:
            good.receive()
            assert time.monotonic() < deadline
        after = good.receive().time
        assert after > before
        monitor.close()
    text = caplog.text
    assert "not an S-expression message" in text
    assert "unknown effector 'fly'" in text and "he1: 'x' is not a finite number" in text
    assert "a frame of 104857600 bytes announced" in text
    assert "trainer: ['nonsense', ['x']]: unknown command" in text
    assert "killsim is off" in text
    assert "monitor" in text and "does not read" in text


def test_sync_mode_waits_for_syn_but_not_for_ever(caplog):
    caplog.set_level(logging.INFO, logger="simleague.simspark")
    with running(sync=True, sync_timeout=1.0) as server, \
            AgentClient("127.0.0.1", server.agent_port) as silent, \
            AgentClient("127.0.0.1", server.agent_port) as busy:
        silent.scene(0)
        silent.receive()                       # never sends (syn)
        busy.scene(1)
        times = []
        started = time.monotonic()
        for _ in range(20):
            times.append(busy.receive().time)
            busy.act({}, syn=True)
        elapsed = time.monotonic() - started
    assert times == sorted(times) and times[-1] - times[0] == pytest.approx(19 * 0.02)
    assert elapsed < 6                          # waited for the silent one once (1 s), then not again
    assert caplog.text.count("sent no (syn)") == 1


def test_sync_mode_without_real_time_runs_faster_than_real_time():
    with running(sync=True) as server, AgentClient("127.0.0.1", server.agent_port) as agent:
        agent.scene(0)
        first = agent.receive().time
        started = time.monotonic()
        for _ in range(100):
            agent.act({"he1": 0.1}, syn=True)
            last = agent.receive().time
        assert last - first == pytest.approx(100 * 0.02)
        assert time.monotonic() - started < 2.0        # real time would take 2 s


def test_same_seed_and_messages_give_the_same_game():
    def play():
        game = Game(seed=5)
        agents = [game.connect() for _ in range(3)]
        texts = []
        script = [[b"(scene rsg/agent/nao/nao_hetero.rsg 0)", b"(scene rsg/agent/nao/nao_hetero.rsg 2)",
                   b"(scene rsg/agent/nao/nao_hetero.rsg 4)"],
                  [b"(init (unum 0)(teamname A))", b"(init (unum 0)(teamname B))", b"(init (unum 3)(teamname A))"],
                  [b"(beam -5 1 30)", b"(beam -3 -2 0)", b"(beam -1 0 90)(say hello)"]]
        for step in range(40):
            messages = script[step] if step < len(script) else [
                f"(he1 {0.3 * (i + 1)})(rle3 -0.2)(lle7 0.5)(syn)".encode() for i in range(3)]
            for agent, message in zip(agents, messages):
                game.apply(agent, parse_agent_message(message).effectors)
            game.step()
            texts += [game.perceptors(a) for a in agents]
            texts.append(game.monitor_message()[0])
        return texts
    first, second = play(), play()
    assert first == second
    assert any("(hear A 0.00 self hello)" in t for t in first if t)
    assert any("(hear A 0.00 " in t and "self" not in t for t in first if t)


def test_team_rules_of_init():
    game = Game()
    def join(robot_type, unum, team):
        agent = game.connect()
        game.apply(agent, parse_agent_message(f"(scene rsg/agent/nao/nao_hetero.rsg {robot_type})".encode()).effectors)
        problems = game.apply(agent, parse_agent_message(f"(init (unum {unum})(teamname {team}))".encode()).effectors)
        return agent, problems
    a, problems = join(0, 0, "Alpha")
    assert not problems and a.team.value == "left" and a.unum == 1
    b, problems = join(0, 0, "Beta")
    assert not problems and b.team.value == "right"
    _, problems = join(0, 0, "Gamma")
    assert "two teams play already" in problems[0]
    _, problems = join(1, 1, "Alpha")
    assert "number 1 of Alpha is taken" in problems[0]
    for unum in range(2, 8):                       # seven of type 0 in all
        _, problems = join(0, unum, "Alpha")
        assert not problems
    _, problems = join(0, 8, "Alpha")
    assert "more than 7 robots of type 0" in problems[0]
    for unum in (8, 9):
        assert not join(1, unum, "Alpha")[1]
    _, problems = join(1, 10, "Alpha")             # 7 + 3 of two types
    assert "more than 9 robots of two types" in problems[0]
    _, problems = join(2, 10, "Alpha")             # 10 robots of 3 types: fine
    assert not problems
    problems = game.apply(a, parse_agent_message(b"(init (unum 5)(teamname Alpha))").effectors)
    assert "already number 1 of Alpha" in problems[0]


def test_the_strict_parser_reads_every_captured_message_of_the_original():
    texts = [line for line in (GOLDEN / "agent_sample.txt").read_text().splitlines() if line.startswith("(time")]
    texts += [line for line in (GOLDEN / "agent_sample_hear.txt").read_text().splitlines() if line.startswith("(time")]
    assert len(texts) > 150
    for text in texts:
        parse_perceptors(text)
    with pytest.raises(ProtocolError, match="unknown joint"):
        parse_perceptors("(HJ (n xyz) (ax 0.00))")
    with pytest.raises(ProtocolError, match="two decimals"):
        parse_perceptors("(time (now 1e-05))")
    with pytest.raises(ProtocolError, match="unknown play mode"):
        parse_perceptors("(GS (sl 0) (sr 0) (t 0.00) (pm Halftime))")


def test_a_match_of_sample_agents_in_separate_processes_prints_the_score_line_and_figures():
    result = subprocess.run([sys.executable, "-m", "simleague", "simspark", "match", "--agents", "2",
                             "--half-time", "4"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    line, left, right, ball = result.stdout.strip().splitlines()[-4:]
    assert re.match(r"SampleLeft \d+ : \d+ SampleRight   \(4 agents, first half: 200 cycles in [\d.]+ s, \d+ cycles/s\)",
                    line), line
    assert re.match(r"  SampleLeft: \d+ falls, [\d.]+ m walked, \d+ ball contacts", left), left
    assert re.match(r"  SampleRight: \d+ falls, [\d.]+ m walked, \d+ ball contacts", right), right
    assert re.match(r"  the ball travelled [\d.]+ m", ball), ball
    result = subprocess.run([sys.executable, "-m", "simleague", "simspark", "match", "--agents", "1",
                             "--half-time", "2", "--json"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert [t["name"] for t in figures["teams"]] == ["SampleLeft", "SampleRight"]
    assert all(t["falls"] == 0 for t in figures["teams"])            # the sample agents stand
    assert figures["cycles"] == 100 and figures["ball_travel_m"] >= 0


def test_match_figures_count_falls_walking_ball_contacts_and_ball_travel():
    game = Game(seed=3)
    agent = game.connect()
    game.apply(agent, parse_agent_message(b"(scene rsg/agent/nao/nao_hetero.rsg 0)(init (unum 1)(teamname A))").effectors)
    world, figures = game.world, Figures()
    world.place_robot(agent.robot, 0.0, 0.0, 0.0)
    world.place_ball((5.0, 5.0, 0.042))
    for _ in range(3):
        world.step()
        observe(figures, game)
    world.place_ball((5.5, 5.0, 0.042))                                 # rolled half a metre
    observe(figures, game)
    world.place_ball((-5.0, -5.0, 0.042))                               # put there: not travel
    observe(figures, game)
    assert figures.ball_travel == pytest.approx(0.5, abs=0.01)
    foot = world.pose(agent.robot, "rfoot")[0]                          # the robot faces +x
    world.place_ball((foot[0] + 0.1, foot[1], 0.042))                    # against its toe
    for _ in range(2):
        world.step()
        observe(figures, game)
    assert figures.contacts == {0: 1, 1: 0}                                  # one touch, counted once
    world.place_ball((-5.0, -5.0, 0.042))
    observe(figures, game)
    adr = world._roots[agent.robot][0]
    for lying, expected in ((True, 1), (False, 1), (True, 2)):          # a fall counts once per fall
        world.data.qpos[adr + 3:adr + 7] = (0.7071, 0.7071, 0, 0) if lying else (1, 0, 0, 0)
        mujoco.mj_kinematics(world.model, world.data)
        observe(figures, game)
        assert figures.falls == {0: expected, 1: 0}
    while world.cycle % 50:                                             # distance walked: sampled each second
        world.step()
    observe(figures, game)
    before = world.pose(agent.robot, "torso")[0]
    world.translate_robot(agent.robot, before[0] + 0.3, before[1], before[2])
    for _ in range(50):
        world.step()
    observe(figures, game)
    assert figures.walked[0] == pytest.approx(0.3, abs=0.05) and figures.walked[1] == 0



def trainer(game: Game, data: bytes, **options) -> tuple[list[str], list[str], bool]:
    """A trainer message as the server takes it: parsed at the edge, then given to the game; the
    problems of both."""
    message = parse_trainer_message(data)
    replies, problems, stop = game.trainer(message.commands, **options)
    return replies, message.problems + problems, stop


def test_trainer_commands_move_robots_and_ball_and_set_the_game():
    game = Game(seed=2)
    agent = game.connect()
    game.apply(agent, parse_agent_message(b"(scene rsg/agent/nao/nao_hetero.rsg 0)(init (unum 4)(teamname T))").effectors)
    def command(text, **kw):
        replies, problems, stop = trainer(game, text.encode(), **kw)
        assert not problems, problems
        return replies, stop
    # move: the torso turned by the angle about z, so the robot (its torso's +y) faces angle + 90
    command("(agent (unum 4) (team Left) (move 2 3 0.4 90))")
    position, rotation = game.world.pose(agent.robot, "torso")
    assert position == pytest.approx((2, 3, 0.4)) and rotation[:, 1] == pytest.approx((-1, 0, 0), abs=1e-6)
    # pos: the torso there as it is, turned as before
    command("(agent (unum 4) (team Left) (pos -1 -2 0.5) (battery 100) (temperature 30))")
    moved, turned = game.world.pose(agent.robot, "torso")
    assert moved == pytest.approx((-1, -2, 0.5)) and turned == pytest.approx(rotation)
    command("(select (unum 4) (team Left))(repos)")
    assert game.world.pose(agent.robot, "torso")[0][0] == pytest.approx(-14)
    command("(ball (pos 3 4 0.042) (vel 1 0 0))")
    position, velocity = game.world.ball()
    assert position == pytest.approx((3, 4, 0.042)) and velocity == pytest.approx((1, 0, 0))
    command("(kickOff Left)")
    assert game.referee.play_mode.wire == "KickOff_Left" and game.world.ball()[0][:2] == pytest.approx((0, 0))
    command("(ball (pos 20 1 0.042))(dropBall)")
    assert game.referee.play_mode.wire == "PlayOn" and game.world.ball()[0][0] == pytest.approx(15)
    command("(time 100)(score (left 3) (right 4))")
    assert game.referee.time == 100
    assert list(game.referee.score.values()) == [3, 4]
    assert command("(getAck xyz)") == (["(ack xyz)"], False)
    assert trainer(game, b"(init)") == ([], [], False)              # rcssmonitor3d's hello: no problem
    assert command("(killsim)", allow_kill_sim=True) == ([], True)
    command("(kill (unum 4) (team Left))")
    assert agent.aid not in game.agents and game.world.robots == ()
    for bad, why in (("(agent (unum 9) (team Left) (pos 0 0 0))", "no robot number 9"),
                     ("(playMode Halftime)", "Halftime"), ("(kickOff Middle)", "Middle"),
                     ("(ball (vel 1 2))", "3 numbers expected"), ("(score (left -1))", "not below 0"),
                     ("(repos)", "no robot selected")):
        _, problems, _ = trainer(game, bad.encode())
        assert problems and why in problems[0], (bad, problems)


def test_serve_accepts_22_sample_agents_and_a_monitor():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        agent_port = probe.getsockname()[1]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        monitor_port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "simleague", "simspark", "serve", "--sync", "--no-realtime",
                               "--agent-port", str(agent_port), "--monitor-port", str(monitor_port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    agents = []
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                monitor = socket.create_connection(("127.0.0.1", monitor_port))
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, server.stderr.read()
                time.sleep(0.1)
        with monitor:
            monitor.settimeout(30)
            for unum in range(1, 12):
                for team in ("Reds", "Blues"):
                    agents.append(subprocess.Popen(
                        [sys.executable, "-m", "simleague.simspark.agent", "--port", str(agent_port),
                         "--team", team, "--unum", str(unum)], stderr=subprocess.DEVNULL))
            deadline = time.monotonic() + 120
            while True:
                message = read_frame(monitor).decode()
                if "(RSG 0 1)" in message and all(
                        f"matNum{n} {side}" in message for n in range(1, 12) for side in ("matLeft", "matRight")):
                    break
                assert time.monotonic() < deadline, "not every agent joined"
            assert "(team_left Reds)" in message or "(team_left Blues)" in message
            assert message.count("models/naobody") == 22
            assert "(RDS 0 1)" in read_frame(monitor).decode()      # updates follow
            assert all(a.poll() is None for a in agents)      # everyone still plays
            assert server.poll() is None
    finally:
        for process in agents + [server]:
            process.kill()
        for process in agents + [server]:
            process.wait()


def _loads(node, out):
    """The meshes, shapes and materials of a scene subtree, in order."""
    if isinstance(node, list):
        if node and node[0] in ("load", "resetMaterials", "sMat"):
            out.append(" ".join(node))
        for child in node:
            _loads(child, out)
    return out


def test_a_robot_in_the_monitor_scene_is_built_as_the_original_builds_it():
    lines = (GOLDEN / "monitor_sample.txt").read_text().splitlines()
    original = next(line for line in reversed(lines) if "matNum7" in line and "(RSG 0 1)" in line)
    robot = next(n for n in parse(original[original.index("(RSG 0 1)"):])[1] if "naobody" in str(n))
    game = Game()
    agent = game.connect()
    game.apply(agent, parse_agent_message(b"(scene rsg/agent/nao/nao_hetero.rsg 0)(init (unum 7)(teamname Probe))").effectors)
    ours = game.monitor_message()[0]
    assert ours.startswith(original[:original.index("(time ")])          # the same rules header
    mine = next(n for n in parse(ours[ours.index("(RSG 0 1)"):])[1] if "naobody" in str(n))
    assert _loads(mine, []) == _loads(robot, [])
    # every update repeats the shape of the full tree: as many nodes, nested alike
    game.world.set_joint_velocity(agent.robot, "he1", 2.0)
    for _ in range(10):
        game.step()
    update = game.monitor_message()[0]
    full_scene = parse(ours[ours.index("(RSG 0 1)"):])[1]
    update_scene = parse(update[update.index("(RDS 0 1)"):])[1]
    assert [_shape(n) for n in update_scene] == [_shape(n) for n in full_scene]
    assert "SLT" in str(update_scene)                                # the head turned


def test_the_static_monitor_scene_is_the_originals_node_for_node():
    """Field, lines, flags, walls and the goals with their post, bar and net nodes: the nodes that
    are neither a robot nor the ball, as the original's first full state has them."""
    lines = (GOLDEN / "monitor_sample.txt").read_text().splitlines()
    original = next(line for line in lines if "(RSG 0 1)" in line)
    ours = Game().monitor_message()[0]

    def static(message: str) -> list:
        nodes = parse(message[message.index("(RSG 0 1)"):])[1]
        return [n for n in nodes if "naobody" not in str(n) and "soccerball" not in str(n)]

    assert len(static(original)) == 35
    assert static(ours) == static(original)


def _shape(node) -> str:
    """A scene node's tree of ``nd`` nodes, without what they hold."""
    return "(nd" + "".join(_shape(c) for c in node if isinstance(c, list) and c and c[0] == "nd") + ")"


def test_opponents_keep_the_free_kick_distance_at_a_set_piece():
    game = Game()
    left, right = game.connect(), game.connect()
    game.apply(left, parse_agent_message(b"(scene rsg/agent/nao/nao_hetero.rsg 0)(init (unum 1)(teamname L))").effectors)
    game.apply(right, parse_agent_message(b"(scene rsg/agent/nao/nao_hetero.rsg 0)(init (unum 1)(teamname R))").effectors)
    game.world.place_robot(left.robot, 0.6, 0.3, 0.0)            # the kicker's mate may stand close
    game.world.place_robot(right.robot, 0.8, -0.5, math.pi)
    trainer(game, b"(kickOff Left)")
    game.step()
    ball = game.world.ball()[0][:2]
    near = np.hypot(*(game.world.pose(right.robot, "torso")[0][:2] - ball))
    assert near == pytest.approx(2.0, abs=0.02)                  # put back on the circle
    assert np.hypot(*(game.world.pose(left.robot, "torso")[0][:2] - ball)) < 1.0
    trainer(game, b"(playMode PlayOn)")
    game.world.place_robot(right.robot, 0.5, 0.0, math.pi)
    game.step()
    assert np.hypot(*(game.world.pose(right.robot, "torso")[0][:2] - ball)) < 1.0   # play on: free


def test_robots_that_join_together_never_overlap():
    game = Game()
    agents = [game.connect() for _ in range(44)]
    for agent in agents:
        game.apply(agent, parse_agent_message(b"(scene rsg/agent/nao/nao_hetero.rsg 1)").effectors)
    game.disconnect(agents[3].aid)                       # a place comes free and is taken again
    late = game.connect()
    game.apply(late, parse_agent_message(b"(scene rsg/agent/nao/nao_hetero.rsg 2)").effectors)
    where = np.array([game.world.pose(a.robot, "torso")[0][:2] for a in game.agents.values()])
    gaps = np.hypot(*(where[:, None, :] - where[None, :, :]).transpose(2, 0, 1))
    assert gaps[~np.eye(len(where), dtype=bool)].min() > 0.7
    assert (where[:, 1] < -game.rules.field_width / 2).all()          # beside the field


def test_an_agent_flooding_the_server_with_messages_does_not_slow_the_others(caplog):
    caplog.set_level(logging.INFO, logger="simleague.simspark")
    with running() as server, AgentClient("127.0.0.1", server.agent_port) as good, \
            socket.create_connection(("127.0.0.1", server.agent_port)) as flood:
        good.scene(0)
        good.receive()
        flood.sendall(frame("(scene rsg/agent/nao/nao_hetero.rsg 0)"))
        junk = frame("(he1 0.1)(fly)") * 2000                 # 2000 messages, one bad effector each
        first = good.receive().time
        started = time.monotonic()
        for _ in range(5):
            flood.sendall(junk)
        for _ in range(50):
            last = good.receive().time
        assert last - first == pytest.approx(50 * 0.02)
        assert time.monotonic() - started < 10
        deadline = time.monotonic() + 10
        while "not logged" not in caplog.text:                # the count of what was left out
            good.receive()
            assert time.monotonic() < deadline
    lines = [r for r in caplog.records if "agent 2" in r.getMessage()]
    assert len(lines) < 200                                   # not one line per bad message
    assert sum("unknown effector 'fly'" in r.getMessage() for r in lines) >= 10


def test_an_agent_asks_for_the_pass_mode():
    game = Game()
    mine, theirs = game.connect(), game.connect()
    game.apply(mine, parse_agent_message(b"(scene rsg/agent/nao/nao_hetero.rsg 0)(init (unum 1)(teamname L))").effectors)
    game.apply(theirs, parse_agent_message(b"(scene rsg/agent/nao/nao_hetero.rsg 0)(init (unum 1)(teamname R))").effectors)
    trainer(game, b"(playMode PlayOn)(ball (pos 3 3 0.042))")
    game.world.place_robot(mine.robot, 3.3, 3.0, math.pi)
    game.world.place_robot(theirs.robot, 2.0, 3.0, 0.0)
    assert game.apply(mine, parse_agent_message(b"(pass)").effectors) == []
    assert game.referee.play_mode.wire == "pass_left"
    game.step()
    assert "(pm pass_left)" in game.perceptors(mine)
    gap = np.hypot(*(game.world.pose(theirs.robot, "torso")[0][:2] - game.world.ball()[0][:2]))
    assert gap == pytest.approx(1.0, abs=0.02)                 # kept PassModeMinOppBallDist away
    problems = game.apply(theirs, parse_agent_message(b"(pass)").effectors)
    assert problems == ["pass: refused, only in PlayOn, not pass_left"]


def test_monitor_connections_are_capped_and_a_trainer_flood_does_not_stop_the_cycles(caplog):
    caplog.set_level(logging.INFO, logger="simleague.simspark")
    from simleague.simspark.server import MAX_MONITORS
    with running() as server, AgentClient("127.0.0.1", server.agent_port) as good:
        good.scene(0)
        good.receive()
        silent = []
        for _ in range(MAX_MONITORS + 20):                       # monitors that never read
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.connect(("127.0.0.1", server.monitor_port))
            silent.append(s)
        time.sleep(0.5)
        assert len(server.monitors) <= MAX_MONITORS
        for s in silent:
            s.close()
        flood = socket.create_connection(("127.0.0.1", server.monitor_port))
        burst = frame(b"(playMode BeforeKickOff)") * 2000
        began = good.receive().time
        t0 = time.monotonic()
        for _ in range(20):                                      # 40,000 trainer messages
            flood.sendall(burst)
        times = [good.receive().time for _ in range(50)]
        assert times[-1] - began >= 0.9                         # 50 cycles passed for the good agent
        assert time.monotonic() - t0 < 30
        flood.close()
    assert f"{MAX_MONITORS} monitors connected already" in caplog.text


def test_a_burst_of_robots_joining_is_spread_over_seconds():
    from simleague.simspark.server import MAX_SCENE_CHANGES
    with running(realtime=True) as server:
        clients = [socket.create_connection(("127.0.0.1", server.agent_port)) for _ in range(20)]
        for c in clients:
            c.sendall(frame(b"(scene rsg/agent/nao/nao_hetero.rsg 0)"))
        deadline = time.monotonic() + 0.5
        counts = []
        while time.monotonic() < deadline:
            counts.append(len(server.game.world.robots))
            time.sleep(0.02)
        assert 0 < max(counts) <= MAX_SCENE_CHANGES                    # the first second's share
        deadline = time.monotonic() + 10
        while len(server.game.world.robots) < 20 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(server.game.world.robots) == 20                     # everyone joined in the end
        for c in clients:
            c.close()
        deadline = time.monotonic() + 10
        while server.game.world.robots and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not server.game.world.robots                            # and left


def test_a_match_shows_in_the_web_viewer_while_it_is_played(tmp_path, free_port):
    from viewer_pages import watch_process

    port = free_port()
    seen, match = watch_process([sys.executable, "-m", "simleague", "simspark", "match", "--agents", "2",
                                 "--half-time", "30", "--web", str(port), "--json"], port, 60, timeout=120,
                                until=lambda got: got[-1].get("type") == "frame" and got[-1]["t"] > 0)
    assert match.returncode == 0, match.stderr
    assert seen[0]["type"] == "scene" and seen[0]["field"]["length"] == 30.0
    frames = [m for m in seen if m["type"] == "frame"]
    assert frames and len(frames[-1]["robots"]) == 4 and frames[-1]["t"] > 0
    assert json.loads(match.stdout)["teams"][0]["name"]
