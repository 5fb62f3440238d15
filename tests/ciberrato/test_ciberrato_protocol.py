"""The wire protocol over real loopback UDP, and parsers that only ever raise their own error."""

import asyncio
import socket
import time

from hypothesis import given, settings, strategies as st

from simleague.ciberrato import messages as M
from simleague.ciberrato.scenario import load_scenario
from simleague.ciberrato.server import Server, ServerOptions
from simleague.ciberrato.world import World


@given(st.binary(max_size=2000))
@settings(max_examples=300, deadline=None)
def test_parsers_raise_only_message_error(data):
    for parse in (M.parse_action, M.parse_request, M.parse_viewer, M.parse_measures, M.parse_reply):
        try:
            parse(data)
        except M.MessageError:
            pass


@given(st.text(max_size=300))
@settings(max_examples=200, deadline=None)
def test_text_inside_xml_raises_only_message_error(text):
    data = f'<Actions LeftMotor="{text}"><Say><![CDATA[{text}]]></Say></Actions>'.encode("utf-8", "replace")
    try:
        M.parse_action(data)
    except M.MessageError:
        pass


def test_action_round_trip_and_last_value_wins():
    a = M.parse_action(b'<Actions LeftMotor="0.1" RightMotor="-0.05" VisitingLed="On">'
                       b'<SensorRequests IRSensor0="Yes" Compass="Yes"/><Say><![CDATA[hi]]></Say></Actions>')
    assert (a.left, a.right, a.visiting_led, a.requests, a.say) == (0.1, -0.05, True, ("IRSensor0", "Compass"), "hi")
    assert M.parse_action(M.format_action(a).encode()) == a
    merged = a.merged(M.parse_action(b'<Actions LeftMotor="0.02"/>'))
    assert (merged.left, merged.right) == (0.02, -0.05)


class Harness:
    """A server in a background event loop thread on an ephemeral port, for socket tests."""

    def __init__(self, mode="realtime", params=None, autostart=0, lockstep_timeout=2.0):
        import threading
        sc = load_scenario()
        if params:
            sc = type(sc)(sc.lab, sc.grid, params)
        self.server = Server(World(sc, seed=1), ServerOptions(port=0, mode=mode, autostart=autostart,
                                                              lockstep_timeout=lockstep_timeout))
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()

        def run():
            asyncio.set_event_loop(self.loop)
            self.loop.run_until_complete(self.server.start())
            ready.set()
            self.loop.run_until_complete(self.server.run())

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        assert ready.wait(5)
        self.port = self.server.port

    def close(self):
        self.loop.call_soon_threadsafe(self.server.close)
        self.thread.join(5)
        assert not self.thread.is_alive()


def sock():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(3)
    return s


def register(s, port, text=b'<Robot Name="r" Id="1"/>'):
    s.sendto(text, ("127.0.0.1", port))
    data, addr = s.recvfrom(1024)          # the original clients' reply buffer
    return data, addr


def test_registration_without_nul_then_measures_every_cycle_while_stopped():
    h = Harness()
    try:
        s = sock()
        data, addr = register(s, h.port)    # croblink style: no NUL at the end
        assert data.startswith(b'<Reply Status="Ok">') and data.endswith(b"\0") and len(data) < 1024
        assert addr[1] != h.port            # a dedicated port for this client
        m = M.parse_measures(s.recvfrom(4096)[0])
        assert m.time == 0 and m.buttons == (False, True)
        s2 = sock()
        data, _ = register(s2, h.port)      # same position again
        assert data == M.REFUSED.encode() + b"\0"
    finally:
        h.close()


def test_viewer_lab_request_and_start():
    h = Harness()
    try:
        robot, viewer = sock(), sock()
        _, raddr = register(robot, h.port, b'<Robot Name="r" Id="2"/>\0')
        _, vaddr = register(viewer, h.port, b"<View/>\0")
        viewer.sendto(b"<LabReq/>\0", vaddr)
        deadline = time.time() + 3
        lab = None
        while time.time() < deadline and lab is None:
            data = viewer.recvfrom(65536)[0]
            if data.startswith(b"<Lab "):
                lab = data
        assert lab is not None and b'<Beacon X="25" Y="7" Height="4"/>' in lab
        viewer.sendto(b"<Start/>\0", vaddr)
        deadline = time.time() + 3
        started = False
        while time.time() < deadline and not started:
            robot.sendto(b'<Actions LeftMotor="0.1" RightMotor="0.1"/>', raddr)
            m = M.parse_measures(robot.recvfrom(4096)[0])
            started = m.time >= 2
        assert started
    finally:
        h.close()


def test_realtime_autostart_starts_when_the_robots_are_there():
    from simleague.ciberrato.scenario import Parameters
    h = Harness(mode="realtime", params=Parameters(cycle_time=20), autostart=2)
    try:
        first, second = sock(), sock()
        _, addr = register(first, h.port, b'<Robot Name="a" Id="1"/>')
        for _ in range(10):                 # one robot of two: stepping, but stopped
            m = M.parse_measures(first.recvfrom(4096)[0])
            assert m.time == 0 and m.buttons == (False, True)
        register(second, h.port, b'<Robot Name="b" Id="2"/>')
        deadline = time.time() + 3
        while m.time < 3:
            assert time.time() < deadline, "the trial never started"
            first.sendto(b'<Actions LeftMotor="0.1" RightMotor="0.1"/>', addr)
            m = M.parse_measures(first.recvfrom(4096)[0])
        assert m.buttons == (True, False)
    finally:
        h.close()


def test_flood_and_garbage_do_not_stop_the_others(caplog):
    import logging

    from simleague.ciberrato.scenario import Parameters
    caplog.set_level(logging.INFO, logger="simleague.ciberrato.server")
    h = Harness(mode="realtime", params=Parameters(cycle_time=20))
    try:
        good, bad = sock(), sock()
        _, gaddr = register(good, h.port, b'<Robot Name="good" Id="1"/>')
        _, baddr = register(bad, h.port, b'<Robot Name="bad" Id="2"/>')
        viewer = sock()
        _, vaddr = register(viewer, h.port, b"<View/>")
        viewer.sendto(b"<Start/>", vaddr)
        junk = [b"<Actions", b"\xff\xfe" * 100, b"<Actions LeftMotor='nan'/>", b"x" * 9000,
                b'<!DOCTYPE a [<!ENTITY b "cc">]><Actions>&b;</Actions>']
        sent = 0
        t_end = time.time() + 1.0
        while time.time() < t_end:
            for j in junk:
                bad.sendto(j[:9000], baddr)
                sent += 1
        # the good robot got its Measures all along and the simulation kept stepping (the
        # Measures queued on its socket since it registered, the last one some 50 cycles on)...
        good.setblocking(False)
        during = []
        while True:
            try:
                during.append(M.parse_measures(good.recvfrom(4096)[0]).time)
            except BlockingIOError:
                break
        good.settimeout(3)
        # ...and it goes on now
        times = []
        deadline = time.time() + 3
        while time.time() < deadline and len(times) < 5:
            good.sendto(b'<Actions LeftMotor="0.05" RightMotor="0.05"/>', gaddr)
            times.append(M.parse_measures(good.recvfrom(4096)[0]).time)
        assert sent > 500 and len(during) >= 10 and max(during) >= 10, during
        assert times[-1] > times[0] >= max(during)
        assert h.server.malformed > 0
        assert 2 in h.server.robots         # the flooding robot keeps its place
    finally:
        h.close()
    # about 50 flooded cycles, logged at most once a second (wire.limits.LogLimiter)
    flooded = [r for r in caplog.records if "datagrams in one cycle" in r.getMessage()]
    assert 1 <= len(flooded) <= 3, [r.getMessage() for r in flooded]


@given(st.text(min_size=1, max_size=40).filter(lambda t: "\0" not in t and t.isprintable()),
       st.integers(0, 99), st.dictionaries(st.integers(0, 3), st.floats(-180, 180, allow_nan=False), max_size=4))
@settings(max_examples=200, deadline=None)
def test_registration_round_trips_any_name(name, pos, angles):
    """What our client sends to register parses back to the same name, position and IR angles."""
    sent = M.Register(name, pos, angles)
    got = M.parse_request(M.format_register(sent).encode() + b"\0")
    assert (got.name, got.id) == (name, pos)
    assert got.ir_angles.keys() == angles.keys()
    assert all(abs(got.ir_angles[k] - v) < 1e-4 * max(1, abs(v)) for k, v in angles.items())


def _read_until(s, predicate, seconds=3.0):
    """Datagrams from ``s`` until ``predicate(data)`` holds; returns that datagram."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            data = s.recvfrom(65536)[0]
        except socket.timeout:
            break
        if predicate(data):
            return data
    raise AssertionError("the awaited datagram did not come")


def _drain(s, seconds=0.1):
    """Read and forget what arrives on ``s`` for ``seconds`` (what was queued before, first)."""
    deadline = time.time() + seconds
    s.settimeout(0.02)
    try:
        while time.time() < deadline:
            try:
                s.recvfrom(65536)
            except socket.timeout:
                pass
    finally:
        s.settimeout(3)


def _status(data):
    from lxml import etree
    root = etree.fromstring(data.rstrip(b"\0"))
    pos = root.find("Position")
    return {**dict(root.attrib), "X": float(pos.get("X")), "Y": float(pos.get("Y"))}


def test_viewer_protocol_grid_status_stop_remove_reset():
    """What the original Qt viewer and log player send and expect (spec "Viewers")."""
    from simleague.ciberrato.scenario import Parameters
    h = Harness(mode="realtime", params=Parameters(cycle_time=20))
    try:
        r1, r2, viewer = sock(), sock(), sock()
        _, a1 = register(r1, h.port, b'<Robot Name="one" Id="1"/>\0')
        _, a2 = register(r2, h.port, b'<Robot Name="two" Id="2"/>\0')
        _, va = register(viewer, h.port, b"<View/>\0")
        viewer.sendto(b"<GridReq/>\0", va)
        grid = _read_until(viewer, lambda d: d.startswith(b"<Grid"))
        assert grid.count(b"<Position ") == 3 and b'X="9" Y="3"' in grid and b'X="3" Y="7"' in grid
        # per cycle, one <Robot> with a <Position> for each robot, at its grid position before the start
        st = _status(_read_until(viewer, lambda d: d.startswith(b'<Robot Name="two"')))
        assert (st["Id"], st["Time"], st["X"], st["Y"], st["Collision"]) == ("2", "0", 3.0, 7.0, "False")
        assert set(st) >= {"Score", "ArrivalTime", "ReturningTime", "Collisions", "VisitedMask", "State"}
        viewer.sendto(b"<Start/>\0", va)
        st = _status(_read_until(viewer, lambda d: d.startswith(b"<Robot") and _status(d)["Time"] == "5"))
        assert st["State"] == "Running"
        viewer.sendto(b"<Stop/>\0", va)
        time.sleep(0.2)
        _drain(viewer)
        frozen = {_status(_read_until(viewer, lambda d: d.startswith(b"<Robot")))["Time"] for _ in range(10)}
        assert len(frozen) == 1                 # stopped: time no longer advances
        viewer.sendto(b'<Robot Id="2" Removed="Yes"/>\0', va)
        st = _status(_read_until(viewer, lambda d: d.startswith(b'<Robot Name="two"')
                                 and _status(d)["State"] == "Removed"))
        assert st["Id"] == "2"
        _drain(r2)                             # its endpoint is closed: no more Measures for it
        r2.settimeout(0.3)
        try:
            r2.recvfrom(4096)
            raise AssertionError("a removed robot still gets Measures")
        except socket.timeout:
            pass
        _drain(r1)
        assert M.parse_measures(r1.recvfrom(4096)[0]).time >= 5   # the other robot still gets its Measures
        viewer.sendto(b"<Reset/>\0", va)
        time.sleep(0.2)
        again = sock()                          # after a reset the grid is free again, "one"'s place too
        data, _ = register(again, h.port, b'<Robot Name="new" Id="1"/>\0')
        assert data.startswith(b'<Reply Status="Ok">')
        st = _status(_read_until(viewer, lambda d: d.startswith(b'<Robot Name="new"')))
        assert (st["Time"], st["X"], st["Y"]) == ("0", 9.0, 3.0)
        viewer.sendto(b"<Restart/>\0", va)     # the log player's name for the same
        time.sleep(0.2)
        data, _ = register(sock(), h.port, b'<Robot Name="newer" Id="1"/>\0')
        assert data.startswith(b'<Reply Status="Ok">')
    finally:
        h.close()


def test_the_original_c_and_java_client_libraries_byte_for_byte():
    """Datagrams exactly as RobSock/croblink (C++: NUL-terminated, newline before the NUL,
    multi-line SensorRequests) and ciberIF (Java: no NUL, Id before Name, Java's double
    formatting such as 1.0E-4) send them; both read replies and Measures minus their last byte."""
    from simleague.ciberrato.scenario import Parameters
    h = Harness(mode="realtime", params=Parameters(cycle_time=20))
    try:
        c, java, viewer = sock(), sock(), sock()
        reply, ca = register(c, h.port, b'<Robot Name="cclient" Id="1"></Robot>\0')
        assert reply.startswith(b'<Reply Status="Ok">') and reply.endswith(b"\0")
        init = (b'<Robot Id="2" Name="jclient" >  <IRSensor Id="0" Angle="0.0" />   <IRSensor Id="1" Angle="45.0" /> '
                b'  <IRSensor Id="2" Angle="-45.0" />   <IRSensor Id="3" Angle="180.0" /> </Robot>')
        reply, ja = register(java, h.port, init)
        assert reply.startswith(b'<Reply Status="Ok">') and reply.endswith(b"\0")
        _, va = register(viewer, h.port, b"<View/>")
        viewer.sendto(b"<Start/>", va)
        deadline = time.time() + 5
        heard, visiting, c_moved, j_turned = [], False, False, False
        while time.time() < deadline and not (heard and visiting and c_moved and j_turned):
            mc = M.parse_measures(c.recvfrom(4096)[0])
            mj = M.parse_measures(java.recvfrom(4096)[0])
            if not mc.buttons[0]:
                continue
            c.sendto(b'<Actions>\n\t<SensorRequests IRSensor0="Yes" Compass="Yes" />\n</Actions>\0', ca)
            c.sendto(b'<Actions LeftMotor="0.1" RightMotor="0.1"/>\n\0', ca)
            c.sendto(b'<Actions><Say><![CDATA[hello java]]></Say></Actions>\n\0', ca)
            java.sendto(b'<Actions LeftMotor="1.0E-4" RightMotor="0.15"/>', ja)
            if mc.time > 10:
                java.sendto(b'<Actions LeftMotor="0" RightMotor="0" VisitingLed="On"/>', ja)
            heard += [text for sender, text in mj.messages if sender == 1]
            visiting = visiting or mj.leds[2]
            st = h.server.world.status(1), h.server.world.status(2)
            c_moved = c_moved or st[0].x > 9.5
            j_turned = j_turned or abs(st[1].dir_deg) > 20
        assert heard and heard[0] == "hello java"
        assert visiting and c_moved and j_turned
        assert h.server.malformed == 0
        # the Java client's sensors sit where it asked (45 degrees instead of 60)
        assert list(h.server.world.obstacle_view(2)[0]) == [0.0, 45.0, -45.0, 180.0]
        c.sendto(b'<Actions LeftMotor="0.0" RightMotor="0.0" EndLed="On"/>\n\0', ca)
        st = _read_until(viewer, lambda d: d.startswith(b'<Robot Name="cclient"') and _status(d)["State"] == "Finished")
        assert st is not None
    finally:
        h.close()


def test_viewers_that_went_away_free_their_places():
    h = Harness()
    try:
        robot = sock()
        register(robot, h.port, b'<Robot Name="r" Id="1"/>')    # so that statuses go to the viewers
        for _ in range(32):                                     # 32 viewers that close their sockets
            v = sock()
            register(v, h.port, b"<View/>\0")
            v.close()
        time.sleep(0.5)                                         # statuses go out, ICMP says the ports are closed
        assert len(h.server.viewers) == 0
        late = sock()
        data, _ = register(late, h.port, b"<View/>\0")
        assert data.startswith(b'<Reply Status="Ok">')
    finally:
        h.close()


def test_a_full_house_of_silent_viewers_makes_room_for_a_new_one():
    h = Harness()
    try:
        kept = []
        for _ in range(32):                                     # alive, but never say anything
            v = sock()
            register(v, h.port, b"<View/>\0")
            kept.append(v)
        late = sock()
        data, _ = register(late, h.port, b"<View/>\0")
        assert data.startswith(b'<Reply Status="Ok">') and len(h.server.viewers) == 32
    finally:
        h.close()


def test_registrations_without_a_name_or_id_are_refused_and_a_flood_is_logged_in_bounds(caplog):
    import logging
    caplog.set_level(logging.INFO, logger="simleague.ciberrato.server")
    h = Harness()
    try:
        s = sock()
        for text in (b'<Robot Id="2" Removed="Yes"/>', b'<Robot Name="r"/>', b'<Robot Name="" Id="1"/>'):
            assert register(s, h.port, text)[0] == M.REFUSED.encode() + b"\0"
        began = time.monotonic()
        flood = sock()
        for _ in range(5000):
            flood.sendto(b"<Robot/>", ("127.0.0.1", h.port))
        time.sleep(1.5)
        elapsed = time.monotonic() - began
        assert not h.server.robots
    finally:
        h.close()
    refusals = [r for r in caplog.records if "refused" in r.getMessage()]
    assert len(refusals) <= 10 * (elapsed + 2)
    assert any("not logged" in r.getMessage() for r in caplog.records)


def test_a_robot_that_stops_answering_in_lockstep_is_no_longer_waited_for():
    h = Harness(mode="lockstep", autostart=2, lockstep_timeout=0.3)
    try:
        good, silent = sock(), sock()
        _, gaddr = register(good, h.port, b'<Robot Name="good" Id="1"/>')
        register(silent, h.port, b'<Robot Name="silent" Id="2"/>')
        for _ in range(3):                                      # both answer the waiting keep-alives
            good.sendto(b"<Actions/>", gaddr)
        began, times = time.monotonic(), []
        while time.monotonic() - began < 30 and (not times or times[-1] < 60):
            m = M.parse_measures(good.recvfrom(4096)[0])
            times.append(m.time)
            good.sendto(b'<Actions LeftMotor="0.1" RightMotor="0.1"/>', gaddr)
        assert times[-1] >= 60                                  # 10 cycles of 0.3 s, then at the good one's pace
        assert time.monotonic() - began < 0.3 * 10 + 5
        assert h.server.robots[2].missed >= 10
    finally:
        h.close()
