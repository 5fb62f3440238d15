"""The web viewer's server over real loopback sockets: what pages receive, slow pages dropped,
commands from the control panel reaching the simulation (seen by an agent over UDP), limits."""

import asyncio
import json
import socket
import time

import aiohttp

from simleague.ciberrato import messages as M
from simleague.ciberrato.scenario import Parameters, load_scenario
from simleague.ciberrato.server import Server, ServerOptions
from simleague.ciberrato.web import LiveView, load_replay
from simleague.ciberrato.world import World
from simleague.viewer.server import ViewerOptions, WebViewer


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 60))


def test_a_page_gets_the_scene_first_then_only_the_newest_frame():
    async def main():
        viewer = WebViewer(ViewerOptions(port=0))
        await viewer.start()
        try:
            viewer.publish("scene", '{"type": "scene"}')
            for i in range(500):
                viewer.publish("frame", json.dumps({"type": "frame", "i": i}))
            async with aiohttp.ClientSession() as http:
                async with http.ws_connect(viewer.url + "ws") as ws:
                    assert json.loads(await ws.receive_str()) == {"type": "scene"}
                    assert json.loads(await ws.receive_str()) == {"type": "frame", "i": 499}
                    viewer.publish("frame", json.dumps({"type": "frame", "i": 500}))
                    assert json.loads(await ws.receive_str()) == {"type": "frame", "i": 500}
                async with http.get(viewer.url) as page:
                    assert page.status == 200 and "<canvas" in await page.text()
                async with http.get(viewer.url + "static/ciberrato.js") as script:
                    assert script.status == 200 and "WebSocket" in await script.text()
                for bad in ("static/..%2Fserver.py", "static/nothing.js", "static/server.py"):
                    async with http.get(viewer.url + bad) as missing:
                        assert missing.status == 404, bad
        finally:
            await viewer.close()
    run(main())


def _silent_page(port: int) -> socket.socket:
    """A page that opens the WebSocket and then never reads a byte."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    return s


def test_a_page_that_stops_reading_is_dropped_and_never_slows_the_publisher():
    async def main():
        viewer = WebViewer(ViewerOptions(port=0, max_backlog=256 * 1024, send_timeout=1.0))
        await viewer.start()
        silent = _silent_page(viewer.port)
        try:
            async with aiohttp.ClientSession() as http:
                async with http.ws_connect(viewer.url + "ws", max_msg_size=0) as ws:
                    while len(viewer.pages) < 2:
                        await asyncio.sleep(0.01)
                    big = "x" * 60_000
                    longest, published, received = 0.0, 0, None
                    deadline = time.monotonic() + 20
                    while viewer.dropped == 0 and time.monotonic() < deadline:
                        began = time.monotonic()
                        viewer.publish("frame", json.dumps({"n": published, "pad": big}))
                        longest = max(longest, time.monotonic() - began)
                        published += 1
                        try:
                            received = json.loads(await ws.receive_str(timeout=0.005))
                        except asyncio.TimeoutError:
                            pass
                    assert viewer.dropped == 1, "the silent page was never dropped"
                    assert len(viewer.pages) == 1
                    assert longest < 0.05                 # publishing never waits for a page
                    viewer.publish("frame", json.dumps({"n": "last"}))
                    while received is None or received.get("n") != "last":
                        received = json.loads(await ws.receive_str(timeout=5))
        finally:
            silent.close()
            await viewer.close()
    run(main())


def test_too_many_pages_are_refused_with_a_reason():
    async def main():
        viewer = WebViewer(ViewerOptions(port=0, max_pages=1))
        await viewer.start()
        try:
            async with aiohttp.ClientSession() as http:
                async with http.ws_connect(viewer.url + "ws"):
                    while not viewer.pages:
                        await asyncio.sleep(0.01)
                    async with http.get(viewer.url + "ws") as second:
                        assert second.status == 503 and "already 1 pages" in await second.text()
        finally:
            await viewer.close()
    run(main())


def test_static_files_are_served_and_any_other_name_is_not_found(caplog):
    async def main():
        viewer = WebViewer(ViewerOptions(port=0))
        await viewer.start()
        try:
            async with aiohttp.ClientSession() as http:
                async with http.get(viewer.url + "static/viewer.css") as good:
                    assert good.status == 200 and good.content_type == "text/css"
                for name in ("A" * 8000 + ".js", "..%2Fserver.py", "missing.js", "viewer.css%00.js"):
                    async with http.get(viewer.url + "static/" + name) as bad:
                        assert bad.status == 404, name
        finally:
            await viewer.close()
    run(main())
    assert "Traceback" not in caplog.text and "Error handling request" not in caplog.text


class _Agent:
    """A robot over real UDP, driven from the test's event loop: registers, answers every
    Measures with the given motor powers, remembers the buttons it saw last."""

    def __init__(self, port: int):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setblocking(False)
        self.sock.sendto(b'<Robot Name="agent" Id="1"/>', ("127.0.0.1", port))
        self.peer, self.buttons, self.measures = None, None, 0

    async def serve(self):
        loop = asyncio.get_running_loop()
        while True:
            data, addr = await loop.sock_recvfrom(self.sock, 4096)
            if self.peer is None:
                self.peer = addr                    # the reply comes from the robot's own port
                continue
            obs = M.parse_measures(data)
            self.buttons, self.measures = obs.buttons, self.measures + 1
            self.sock.sendto(b'<Actions LeftMotor="0.1" RightMotor="0.1"/>', self.peer)


async def _until(predicate, timeout=5.0, what="condition"):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


async def _error(ws) -> str:
    while True:
        msg = json.loads(await ws.receive_str(timeout=5))
        if msg["type"] == "error":
            return msg["text"]


def test_control_panel_commands_reach_the_simulation_as_an_agent_sees_it():
    async def main():
        sc = load_scenario()
        sc = type(sc)(sc.lab, sc.grid, Parameters(cycle_time=20))
        server = Server(World(sc, seed=1), ServerOptions(port=0, mode="realtime"))
        await server.start()
        viewer = WebViewer(ViewerOptions(port=0, command_rate=10))
        live = LiveView(server, viewer)
        await viewer.start()
        tasks = [asyncio.create_task(server.run()), asyncio.create_task(live.run())]
        agent = _Agent(server.port)
        tasks.append(asyncio.create_task(agent.serve()))
        try:
            await _until(lambda: agent.buttons == (False, True), what="a stopped Measures")
            async with aiohttp.ClientSession() as http:
                async with http.ws_connect(viewer.url + "ws") as ws:
                    kinds = []
                    while "frame" not in kinds:
                        kinds.append(json.loads(await ws.receive_str(timeout=5))["type"])
                    assert kinds[:2] == ["scene", "roster"]
                    await ws.send_str('{"cmd": "start"}')
                    await _until(lambda: agent.buttons == (True, False), what="Start seen by the agent")
                    await _until(lambda: server.world.cycle > 5, what="time running")
                    await ws.send_str('{"cmd": "stop"}')
                    await _until(lambda: agent.buttons == (False, True), what="Stop seen by the agent")
                    stopped_at = server.world.cycle
                    await asyncio.sleep(0.2)
                    assert server.world.cycle == stopped_at

                    # bad commands: an error on this page only, and the simulation goes on
                    await ws.send_str("start")
                    assert "must be JSON" in await _error(ws)
                    await ws.send_str('{"cmd": "jump"}')
                    assert "not a command" in await _error(ws)
                    await ws.send_str('{"cmd": "remove", "robot": 7}')
                    assert "no robot 7" in await _error(ws)
                    await ws.send_str(json.dumps({"cmd": "stop", "pad": "x" * 5000}))
                    assert "at most 1024 bytes" in await _error(ws)
                    await ws.send_bytes(b"\x00\x01")
                    assert "binary" in await _error(ws)
                    for _ in range(30):
                        await ws.send_str('{"cmd": "stop"}')
                    assert "too many commands" in await _error(ws)
                    await asyncio.sleep(1.0)               # the bucket refills

                    await ws.send_str('{"cmd": "remove", "robot": 1}')
                    await _until(lambda: server.world.records[1].state == "Removed", what="removal")
                    await ws.send_str('{"cmd": "reset"}')
                    await _until(lambda: not server.world.robots, what="a reset world")
                    roster = None
                    while roster != []:
                        msg = json.loads(await ws.receive_str(timeout=5))
                        roster = msg["robots"] if msg["type"] == "roster" else roster
        finally:
            for t in tasks:
                t.cancel()
            server.close()
            await viewer.close()
            agent.sock.close()
    run(main())


def test_a_broken_log_gives_a_clear_error(tmp_path):
    from simleague.ciberrato.web import ReplayError

    cases = {"empty.jsonl": "", "garbage.jsonl": "not json\n",
             "other.jsonl": '{"kind": "header", "format": "something-else"}\n',
             "nolab.jsonl": '{"kind": "header", "format": "simleague-ciberrato", "version": 1}\n'}
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        try:
            load_replay(tmp_path / name)
        except ReplayError as exc:
            assert name in str(exc)
        else:
            raise AssertionError(f"{name} was accepted")


def test_frames_carry_the_scoreboard_and_leds_in_the_documented_layout():
    from simleague.ciberrato.web import frame
    from simleague.ciberrato.world import Action

    world = World(load_scenario(), seed=3)
    world.add_robot("a", 1)
    world.add_robot("b", 2)
    world.start()
    world.step({1: Action(0.1, 0.1, end_led=True), 2: Action(0.1, 0.1, visiting_led=True, returning_led=True)})
    world.step({})
    f = frame(world.snapshot(), {1: [0.5, 1.0, 2.0, 4.0]})
    assert f["type"] == "frame" and f["t"] == world.cycle and f["state"] == "Running"
    a, b = f["r"]
    assert a[0] == 1 and a[4] == 4 and b[4] == 1 | 2          # bits: 1 visiting, 2 returning, 4 end
    assert a[5] == world.records[1].state and a[6] == world.records[1].score
    assert a[9] is None and a[10] == 0                         # visiting_time not yet, returning_time
    assert sorted([a[11], b[11]]) == [1, 2]                    # ranks
    assert a[12] == [0.5, 1.0, 2.0, 4.0] and b[12] == []
    assert (a[1], a[2]) == (round(float(world.x[0]), 3), round(float(world.y[0]), 3))


def test_replay_and_web_errors_are_one_line_and_exit_2(tmp_path):
    import subprocess
    import sys

    def simleague(*args):
        return subprocess.run([sys.executable, "-m", "simleague.cli", *map(str, args)],
                              capture_output=True, text=True, timeout=60)

    r = simleague("ciberrato", "replay", tmp_path / "missing.jsonl", "--web", 0)
    assert r.returncode == 2 and "missing.jsonl" in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = simleague("ciberrato", "trial", "--agents", 1, "--web", port)
        assert r.returncode == 2 and f"cannot serve the web viewer on 127.0.0.1:{port}" in r.stderr
        assert "Traceback" not in r.stderr
