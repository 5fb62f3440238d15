"""Team configurations and protobuf messages of the humanoid virtual soccer API (issue 6, parts 1
and 3's messages): the seeds' own examples, every rule, and the wire bytes of the field numbers."""

import copy
import json
import math
import re

import pytest
from golden import SHARED
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simleague.vhsc.config import ConfigError, load_team
from simleague.vhsc.messages import (
    WARNING_MESSAGE,
    ActuatorRequests,
    RequestError,
    SensorMeasurements,
    message_class,
    parse_requests,
    proto_source,
)

SEEDS = SHARED / "seeds"
POSE = {"translation": [-3.5, -3.06, 0.24], "rotation": [0, 0, 1, 1.57]}
PLAYER = {"proto": "robotA", "dockerTag": "robotA", "dockerCmd": "launchRobot.sh --goalkeeper",
          "halfTimeStartingPose": POSE, "reentryStartingPose": {"translation": [-3, -3.11, 0.24],
                                                                "rotation": [0.0, 0, 1, 1.57]},
          "shootoutStartingPose": {"translation": [2.6, 0, 0.24], "rotation": [0, 0, 1, 0]},
          "goalKeeperStartingPose": {"translation": [-4.47, 0, 0.24], "rotation": [0, 0, 1, 0]}}


def write(tmp_path, data, name="team.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def team(**changes):
    data = {"name": "teamA", "players": {"1": copy.deepcopy(PLAYER), "2": copy.deepcopy(PLAYER)}}
    data.update(changes)
    return data


def test_the_seeds_own_examples_are_rejected_where_their_json_breaks(tmp_path):
    text = (SEEDS / "000_9f20068b741d0508.txt").read_text()
    example = "".join(re.findall(r"```\n(.*?)```", text[text.index("## Appendix"):], re.DOTALL))
    with pytest.raises(ConfigError) as e:
        load_team(write(tmp_path, example, "v1.json"))
    assert re.fullmatch(r".*v1\.json: line 26, column 2: not valid JSON: Extra data", str(e.value))
    text = (SEEDS / "001_4042615707f92f65.txt").read_text()
    example = text[text.index("jsonの設定例") + len("jsonの設定例"):].strip()
    with pytest.raises(ConfigError, match=r"v2\.json: line 20, column 1: not valid JSON: Expecting ',' delimiter"):
        load_team(write(tmp_path, example, "v2.json"))


def test_a_valid_team_with_either_model_field(tmp_path):
    config, warnings = load_team(write(tmp_path, team()))
    assert warnings == [] and config.name == "teamA" and list(config.players) == [1, 2]
    player = config.players[1]
    assert player.model == "robotA" and player.docker_tag == "robotA" and player.docker_cmd == "launchRobot.sh --goalkeeper"
    assert player.half_time_starting_pose.translation == (-3.5, -3.06, 0.24)
    assert player.half_time_starting_pose.yaw == pytest.approx(1.57)
    data = team()
    for p in data["players"].values():
        p["robotModelName"] = p.pop("proto")
        del p["dockerTag"], p["dockerCmd"], p["goalKeeperStartingPose"]
    config, _ = load_team(write(tmp_path, data))
    assert config.players[2].model == "robotA" and config.players[2].docker_tag == "latest"
    assert config.players[2].docker_cmd is None and config.players[2].goal_keeper_starting_pose is None


def test_a_long_name_is_truncated_with_a_warning(tmp_path):
    config, warnings = load_team(write(tmp_path, team(name="TheVeryLongTeamName")))
    assert config.name == "TheVeryLongT"
    assert warnings == ['team name "TheVeryLongTeamName" is longer than 12 characters; truncated to "TheVeryLongT"']


@pytest.mark.parametrize("change, where, problem", [
    (lambda d: d["players"].pop("1"), "players", "numbered 1 in this order, not 2"),
    (lambda d: d.update(players={"2": d["players"]["2"], "1": d["players"]["1"]}), "players", "1, 2 in this order"),
    (lambda d: d["players"].update({"3": PLAYER, "4": PLAYER, "5": PLAYER}), "players", "the kid size league allows 4"),
    (lambda d: d["players"]["2"].update(robotModelName="b"), "players.2", "either proto (v1.0a) or robotModelName"),
    (lambda d: d["players"]["2"].pop("proto"), "players.2", "either proto (v1.0a) or robotModelName"),
    (lambda d: d["players"]["1"]["reentryStartingPose"].update(rotation=[0, 0, 0, 0.3]),
     "players.1.reentryStartingPose.rotation", "a rotation of 0.3 about the axis [0, 0, 0]"),
    (lambda d: d["players"]["1"]["halfTimeStartingPose"].update(translation=[1, 2]),
     "players.1.halfTimeStartingPose.translation", "[x, y, z] (3 numbers) expected"),
    (lambda d: d["players"]["1"]["halfTimeStartingPose"].update(rotation="up"),
     "players.1.halfTimeStartingPose.rotation", "[ax, ay, az, angle] (4 numbers) expected"),
    (lambda d: d["players"]["1"].pop("shootoutStartingPose"), "players.1.shootoutStartingPose", "Field required"),
    (lambda d: d["players"]["1"].update(dockerTeg="x"), "players.1.dockerTeg", "Extra inputs are not permitted"),
    (lambda d: d.update(name=""), "name", "at least 1 character"),
    (lambda d: d.pop("name"), "name", "Field required"),
])
def test_every_rule_names_the_file_the_json_path_and_the_problem(tmp_path, change, where, problem):
    data = team()
    change(data)
    with pytest.raises(ConfigError) as e:
        load_team(write(tmp_path, data))
    assert str(e.value).startswith(f"{tmp_path / 'team.json'}: {where}: "), str(e.value)
    assert problem in str(e.value)


def test_not_json_text_and_missing_files(tmp_path):
    with pytest.raises(ConfigError, match="cannot read it"):
        load_team(tmp_path / "nowhere.json")
    path = tmp_path / "binary.json"
    path.write_bytes(b"\xff\xfe{}")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_team(path)
    with pytest.raises(ConfigError, match=r"\(top\): a JSON object"):
        load_team(write(tmp_path, "[1, 2]"))
    with pytest.raises(ConfigError, match="the adult size league allows 2"):
        load_team(write(tmp_path, team(players={"1": PLAYER, "2": PLAYER, "3": PLAYER})), league="adult")
    with pytest.raises(ConfigError, match="unknown league"):
        load_team(write(tmp_path, team()), league="teen")


def test_poses_are_mirrored_for_the_team_on_the_right(tmp_path):
    config, _ = load_team(write(tmp_path, team()))
    pose = config.players[1].half_time_starting_pose
    right = pose.mirrored()
    assert right.translation == (3.5, -3.06, 0.24)
    assert right.yaw == pytest.approx(math.pi - 1.57)
    assert right.mirrored().translation == pose.translation and right.mirrored().yaw == pytest.approx(1.57)


def test_field_numbers_on_the_wire_are_the_originals():
    assert SensorMeasurements(time=1).SerializeToString() == b"\x08\x01"            # time = 1, varint
    assert SensorMeasurements(real_time=2).SerializeToString() == b"\x10\x02"       # real_time = 2
    m = SensorMeasurements()
    m.messages.add(message_type=WARNING_MESSAGE, text="x")
    assert m.SerializeToString() == b"\x1a\x05\x08\x01\x12\x01x"                    # messages = 3
    m = SensorMeasurements()
    m.position_sensors.add(name="a", value=1.0)
    assert m.SerializeToString()[:1] == bytes([(11 << 3) | 2])                      # position_sensors = 11
    camera = message_class("CameraMeasurement")(quality=-1)
    assert camera.SerializeToString() == b"\x20\x01"                                # sint32: zigzag -1
    r = ActuatorRequests()
    r.camera_exposures.add(name="c", exposure=1.0)
    r.sensor_time_steps.add(name="s", timeStep=16)
    data = r.SerializeToString()
    assert data[0] == (6 << 3) | 2 and bytes([(8 << 3) | 2]) in data              # fields 6 and 8
    assert parse_requests(data).sensor_time_steps[0].timeStep == 16
    assert "message ActuatorRequests {" in proto_source()
    assert "  repeated PositionSensorMeasurement position_sensors = 11;" in proto_source()


@given(st.binary(max_size=200))
def test_any_bytes_are_a_request_or_a_clear_error(data):
    try:
        parse_requests(data)
    except RequestError as e:
        assert str(e).startswith("not an ActuatorRequests message")


@pytest.mark.parametrize("text, expected", [
    ("[" * 100_000, "nested too deeply to read"),
    ('{"a":' * 100_000, "nested too deeply to read"),
    ('{"name": ' + "1" * 100_000 + "}", "Exceeds the limit"),
])
def test_deep_nesting_and_huge_numbers_are_one_line_errors(tmp_path, text, expected):
    path = tmp_path / "team.json"
    path.write_text(text)
    with pytest.raises(ConfigError, match=expected) as caught:
        load_team(path)
    assert "\n" not in str(caught.value) and str(path) in str(caught.value)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=400) | st.text(max_size=400).map(str.encode)
       | st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
                      lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=12), kids, max_size=4),
                      max_leaves=30).map(lambda v: json.dumps(v).encode()))
def test_any_bytes_as_a_team_or_game_file_give_a_config_error(tmp_path, data):
    from simleague.vhsc.game import load_game
    path = tmp_path / "any.json"
    path.write_bytes(data)
    for load in (load_team, load_game):
        try:
            load(path)
        except ConfigError as e:
            assert "\n" not in str(e)


def test_tilted_poses_give_their_heading_and_a_team_may_have_no_players(tmp_path):
    from simleague.vhsc.config import Pose
    assert Pose(translation=(0, 0, 0), rotation=(0, 0, 1, 1.57)).yaw == pytest.approx(1.57)
    assert Pose(translation=(0, 0, 0), rotation=(0, 0, -1, 1.57)).yaw == pytest.approx(-1.57)
    lying = Pose(translation=(0, 0, 0), rotation=(-0.57735, -0.57735, -0.57735, 2.0944))    # x -> z: no heading
    assert lying.yaw == pytest.approx(0.0, abs=1e-3)
    assert Pose(translation=(0, 0, 0), rotation=(0, 1, 0, 0.5)).yaw == pytest.approx(0.0, abs=1e-9)
    path = tmp_path / "empty.json"
    path.write_text(json.dumps({"name": "Nobody", "players": {}}))
    team, _ = load_team(path)
    assert team.players == {}
