"""Webots PROTO robots imported into the soccer world (issue 29, part 2): the league's Wolfgang
(bitbots) and Chape (itandroids) from ../shared/reference/robots/webots-proto as they are: mass,
every device by its PROTO name, standing still for 10 s, a Slot plugged like its children, a client driving every motor and reading every
sensor over TCP; broken PROTOs give one line naming the file, the line and the node."""

import re
from pathlib import Path

import mujoco
import pytest
from threaded import in_thread

from simleague.soccer.humanoids import HumanoidWorld
from simleague.soccer.models import ModelError, RobotModel, find_model
from simleague.soccer.vrml import Node, ProtoError, load_robot
from simleague.soccer.webots import import_proto
from simleague.vhsc.client import RobotClient
from simleague.vhsc.robot import RobotSession
from simleague.vhsc.server import ServerOptions, VhscServer
from simleague.vhsc.setup import KID_FIELD

PROTOS = Path(__file__).resolve().parents[3] / "shared" / "reference" / "robots" / "webots-proto"
WOLFGANG = PROTOS / "bitbots" / "WolfgangRobocup"
CHAPE = PROTOS / "itandroids" / "Chape"
DEVICES = ("RotationalMotor", "PositionSensor", "Accelerometer", "Gyro", "Camera")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("webots-cache")


@pytest.fixture(scope="module")
def robots(cache):
    return {name: RobotModel.load(import_proto(folder / f"{name}.proto", cache))
            for name, folder in (("WolfgangRobocup", WOLFGANG), ("ChapeRobocup", CHAPE))}


def _device_names(text: str) -> set[str]:
    """The names of the motors, position sensors, IMUs and cameras written in a PROTO's text."""
    pattern = r"\b(" + "|".join(DEVICES) + r")\s*\{[^{}]*?\bname\s+\"([^\"]+)\""
    return {m.group(2) for m in re.finditer(pattern, text)}


def _physics_masses(node, seen=None):
    seen = set() if seen is None else seen
    if isinstance(node, list):
        return sum(_physics_masses(n, seen) for n in node)
    if not isinstance(node, Node) or id(node) in seen:
        return 0.0
    seen.add(id(node))
    own = node.number("mass", 0.0) if node.type == "Physics" else 0.0
    return own + sum(_physics_masses(v, seen) for v in node.fields.values())


def test_the_total_mass_is_the_protos(robots):
    # Wolfgang: every Physics node is used (enablePhysics TRUE), so the file's masses add up
    text = (WOLFGANG / "Wolfgang.proto").read_text()
    written = sum(float(v) for v in re.findall(r"^\s*mass\s+([-\d.e]+)", text, re.MULTILINE))
    wolfgang = robots["WolfgangRobocup"]
    for model, expected in ((wolfgang, written),
                            (robots["ChapeRobocup"], _physics_masses(load_robot(CHAPE / "ChapeRobocup.proto")[0]))):
        compiled = mujoco.MjModel.from_xml_path(str(model.path))
        assert compiled.body_subtreemass[1] == pytest.approx(expected, rel=0.01)
    assert written == pytest.approx(6.1166, abs=1e-3)


@pytest.mark.parametrize("name, text_files, extra", [
    ("WolfgangRobocup", [WOLFGANG / "Wolfgang.proto"], {"rlb", "rlf", "rrf", "rrb", "llb", "llf", "lrf", "lrb"}),
    ("ChapeRobocup", [CHAPE / "Chape.proto"], set()),
])
def test_every_device_of_the_proto_is_there_by_name(robots, name, text_files, extra):
    model = robots[name]
    written = set().union(*(_device_names(f.read_text()) for f in text_files)) | extra
    offered = {d.name for d in (*model.motors, *model.sensors)}
    assert written == offered
    assert len(model.motors) == 20
    touch = {s.name: s.kind for s in model.sensors if s.kind == "force"}
    assert set(touch) == extra                                    # the foot sensors are force sensors
    camera = next(s for s in model.sensors if s.kind == "camera")
    assert (camera.width, camera.height) == ((800, 600) if name == "WolfgangRobocup" else (640, 480))


def test_motor_parameters_and_lookup_tables_come_from_the_proto(robots):
    wolfgang = robots["WolfgangRobocup"]
    knee = wolfgang.device("RKnee")
    assert (knee.max_torque, knee.max_velocity, knee.pid) == (12.9, 3.87, (10.0, 0.0, 0.0))   # XH540-W270
    chape = robots["ChapeRobocup"]
    accelerometer = chape.device("Accelerometer")
    assert accelerometer.lookup == ((-39.24, 0.0, 0.0), (39.24, 1024.0, 0.0))
    assert float(accelerometer.reading(9.81)) == pytest.approx(512 + 128)                      # raw counts
    assert float(accelerometer.reading(100.0)) == 1024.0                                       # saturated
    sensor = wolfgang.device("RKnee_sensor")
    assert sensor.resolution == pytest.approx(0.00153398078)
    assert float(sensor.reading(0.1)) == pytest.approx(65 * 0.00153398078)


@pytest.mark.parametrize("name", ["WolfgangRobocup", "ChapeRobocup"])
def test_it_stands_for_10_s_on_its_initial_positions(robots, name):
    world = HumanoidWorld(KID_FIELD)
    rid = world.add_robot(robots[name], -2.0, 0.0, 0.0)
    start, _ = world.pose(rid)
    gyro = next(s.name for s in robots[name].sensors if s.kind == "gyro")
    spin = 0.0
    for step in range(1250):                                      # 10 s of 8 ms steps
        world.step()
        if step >= 1000:
            spin = max(spin, float(abs(world.sensor(rid, gyro)).max()))
    end, _ = world.pose(rid)
    assert world.upright(rid) > 0.99
    assert spin < 0.01                             # at rest in the last 2 s, not rocking heel to toe
    assert abs(end[2] - start[2]) < 0.02 and abs(end[0] - start[0]) < 0.05 and abs(end[1] - start[1]) < 0.05


def test_a_client_drives_every_motor_and_reads_every_sensor(robots):
    world = HumanoidWorld(KID_FIELD)
    sessions = {}
    for key, name, x in ((("red", 1), "WolfgangRobocup", -2.0), (("blue", 1), "ChapeRobocup", 2.0)):
        sessions[key] = RobotSession(world, world.add_robot(robots[name], x, 0.0, 0.0), robots[name])
    server = VhscServer(world, sessions, {"red": {"127.0.0.1"}, "blue": {"127.0.0.1"}},
                        ServerOptions(red_base=0, blue_base=0, max_real_time_factor=0.0))
    with in_thread(server):
        for key, session in sessions.items():
            model = session.model
            sensors = {s.name: 8 for s in model.sensors if s.kind != "camera"}
            targets = {m.name: min(max(0.2, m.low), m.high) for m in model.motors}
            with RobotClient(f"127.0.0.1:{server.ports[key]}") as robot:
                robot.send(RobotClient.requests(time_steps=sensors, positions=targets))
                for _ in range(200):
                    m = robot.receive()
                assert not m.messages, [x.text for x in m.messages]
                read = {e.name for group in (m.position_sensors, m.accelerometers, m.gyros, m.forces, m.bumpers)
                        for e in group}
                assert read == set(sensors)
                angles = {p.name: p.value for p in m.position_sensors}
                for motor in model.motors:
                    sensor = next(s for s in model.sensors if s.kind == "position" and s.source == motor.name)
                    assert angles[sensor.name] == pytest.approx(targets[motor.name], abs=0.05), motor.name


def test_the_import_is_cached(cache, tmp_path):
    first = import_proto(CHAPE / "ChapeRobocup.proto", tmp_path)
    made = first.stat().st_mtime_ns
    again = import_proto(CHAPE / "ChapeRobocup.proto", tmp_path)
    assert again == first and again.stat().st_mtime_ns == made
    assert find_model("ChapeRobocup", [PROTOS]).name == "ChapeRobocup"


HEADER = "#VRML_SIM R2022b utf8\n"


@pytest.mark.parametrize("body, expected", [
    ("Robot { children [ Slider { } ] }", r"Bad\.proto:5: Slider: not a node this importer knows"),
    ("Robot { children [ SliderJoint { } ] }", r"Bad\.proto:5: SliderJoint: not supported"),
    ("Robot { boundingObject Plane { } }", r"Bad\.proto:5: Plane: this geometry is not supported"),
    ("%{ local x = nil + 1 }%\nRobot { }", r"Bad\.proto:5: template: .*arithmetic"),
    ("%{ while true do end }%\nRobot { }", r"Bad\.proto:5: template: .*too long"),
    ("%{ os.execute('true') }%\nRobot { }", r"Bad\.proto:5: template: .*nil"),
    ("Robot { children [ USE NOTHING ] }", r"Bad\.proto:5: USE NOTHING: no DEF"),
    ("Robot { children [ Missing { } ] }", r"Bad\.proto:5: Missing: EXTERNPROTO Missing\.proto: no such file"),
    ("Robot { translation IS nowhere }", r"Bad\.proto:5: IS nowhere: no such field"),
    ("Robot { children [ Solid { ", r"Bad\.proto:\d+: the file ends inside a node"),
    ("Robot { physics Physics { mass 1 } }", r"Bad\.proto:5: Physics: a mass without an inertiaMatrix needs"),
])
def test_a_broken_proto_gives_one_line_with_file_line_and_node(tmp_path, body, expected):
    text = HEADER + 'EXTERNPROTO "Missing.proto"\nPROTO Bad [ field SFFloat size 1 ]\n{\n' + body + "\n}\n"
    (tmp_path / "Bad.proto").write_text(text)
    with pytest.raises(ProtoError, match=expected) as caught:
        import_proto(tmp_path / "Bad.proto", tmp_path / "cache")
    assert "\n" not in str(caught.value)
    with pytest.raises(ModelError, match=expected):
        find_model("Bad", [tmp_path])


def test_a_slot_plugs_its_end_point_in_and_a_robot_may_have_an_empty_name(tmp_path):
    """The league's RobocupRobot (Darwin-OP) puts its jersey in a ``Slot`` and names itself ""."""
    box = "boundingObject Box { size 0.1 0.1 0.1 } physics Physics { density -1 mass 0.5 }"
    text = (HEADER + "PROTO Slotted [ field SFString name \"\" field SFNode jersey Solid { name \"jersey\" "
            + box + " } ]\n{\nRobot { name IS name " + box
            + " children [ Transform { translation 0 0 0.2 children [ Slot { type \"shirt\" endPoint IS jersey } ] }"
            + " Slot { } ] }\n}\n")
    (tmp_path / "Slotted.proto").write_text(text)
    model = mujoco.MjModel.from_xml_path(str(import_proto(tmp_path / "Slotted.proto", tmp_path / "cache")))
    jersey = model.body("jersey")
    assert model.body_subtreemass[1] == pytest.approx(1.0)
    assert model.body(1).name == "solid" and jersey.parentid[0] == 1
    assert model.body_pos[jersey.id] == pytest.approx([0.0, 0.0, 0.2])
