"""The humanoid games' referee and GameController traffic (issue 6, part 4): game states, goals,
penalties (motors stop) and red cards (sensors stop), RGme on UDP and RGrt back."""

import socket
import time
from pathlib import Path

import pytest

from simleague.soccer.humanoids import HumanoidWorld
from simleague.soccer.models import RobotModel
from simleague.vhsc.client import RobotClient
from simleague.vhsc.gamecontroller import (
    STATE_FINISHED,
    STATE_INITIAL,
    STATE_PLAYING,
    STATE_READY,
    STATE_SET,
    GameData,
    ReturnData,
)
from simleague.vhsc.referee import HumanoidReferee
from simleague.vhsc.robot import RobotSession
from simleague.vhsc.setup import KID_FIELD
from test_vhsc_server import KID, running

DT = 0.008


def referee(**times):
    world = HumanoidWorld(KID_FIELD)
    sessions = {(c, 1): RobotSession(world, world.add_robot(KID, x, 0.0, 0.0), KID) for c, x in (("red", -1), ("blue", 1))}
    return HumanoidReferee(KID_FIELD, sessions, {"red": 7, "blue": 9}, **times), sessions


def run(ref, seconds, ball=(0.0, 0.0, 0.07)):
    for _ in range(round(seconds / DT)):
        ref.step(DT, ball)


def test_states_goals_and_the_end_of_the_half():
    ref, _ = referee(ready_time=2.0, set_time=1.0, half_time=10.0)
    run(ref, 1.0)
    assert ref.state == STATE_INITIAL
    ref.start()
    run(ref, 1.9)
    assert ref.state == STATE_READY
    run(ref, 0.2)
    assert ref.state == STATE_SET
    run(ref, 1.0)
    assert ref.state == STATE_PLAYING
    run(ref, 0.016, ball=(4.6, 0.3, 0.07))                         # over the blue goal line, in the goal
    assert ref.score == {"red": 1, "blue": 0} and ref.state == STATE_READY and ref.kick_off == "blue"
    run(ref, 3.0)
    run(ref, 0.016, ball=(4.0, 2.0, 0.07))                         # near the goal, not in
    assert ref.score["red"] == 1
    run(ref, 9.9)                                                  # 10 s of play in all
    assert ref.state == STATE_FINISHED
    packet = GameData.decode(ref.game_data(5).encode())
    assert packet.state == STATE_FINISHED and packet.teams[0].number == 7 and packet.teams[0].score == 1
    assert packet.kick_off_team == 9 and packet.teams[1].players[0].goalkeeper


def test_a_penalised_robot_stops_and_a_red_card_silences_its_sensors():
    ref, sessions = referee()
    ref.start()
    red = sessions[("red", 1)]
    red.world.set_velocity(red.rid, "head_yaw", 1.0)
    red.world.set_position(red.rid, "head_yaw", 1.5)               # turning its head when penalised
    for _ in range(20):
        red.world.step()
    ref.penalise("red", 1, seconds=2)
    assert not red.motors_on
    held = red.world.position(red.rid, "head_yaw")
    red.apply(RobotClient.requests(positions={"head_yaw": -1.0}), step=0)      # ignored
    for _ in range(50):
        red.world.step()
    assert red.world.position(red.rid, "head_yaw") == pytest.approx(held, abs=0.02)
    packet = ref.game_data(0)
    assert packet.teams[0].players[0].penalty and packet.teams[0].players[0].secs_till_unpenalised == 2
    run(ref, 1.1)
    assert ref.game_data(1).teams[0].players[0].secs_till_unpenalised == 1
    run(ref, 1.0)
    assert sessions[("red", 1)].motors_on and ref.game_data(2).teams[0].players[0].penalty == 0
    blue = sessions[("blue", 1)]
    blue.apply(RobotClient.requests(time_steps={"gyro": 8}), step=10)
    assert [s.name for s in blue.due(11)] == ["gyro"]
    ref.red_card("blue", 1)
    assert not blue.sensors_on and not blue.motors_on and blue.due(11) == []
    assert ref.game_data(3).teams[1].players[0].red_cards == 1
    with pytest.raises(KeyError):
        ref.penalise("red", 5)


def test_rgme_packets_on_udp_and_rgrt_packets_back():
    listen = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listen.bind(("127.0.0.1", 0))
    listen.settimeout(10)
    back = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    back.bind(("127.0.0.1", 0))
    return_port = back.getsockname()[1]
    back.close()

    def make_referee(sessions):
        ref = HumanoidReferee(KID_FIELD, sessions, ready_time=0.5, set_time=0.5)
        ref.start()
        return ref

    with running(referee=make_referee, game_controller=("127.0.0.1", listen.getsockname()[1], return_port),
                 realtime=True) as server:
        states = []
        deadline = time.monotonic() + 10
        while STATE_PLAYING not in states and time.monotonic() < deadline:
            packet = GameData.decode(listen.recv(1024))
            states.append(packet.state)
        assert states[0] == STATE_READY and STATE_SET in states and STATE_PLAYING in states
        sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sender.sendto(ReturnData(1, 2, 2).encode(), ("127.0.0.1", return_port))
        sender.sendto(b"RGrt garbage", ("127.0.0.1", return_port))
        deadline = time.monotonic() + 5
        while not server.returns and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.returns == [ReturnData(1, 2, 2)]
        with RobotClient(f"127.0.0.1:{server.ports[('red', 1)]}") as robot:
            assert robot.receive().time > 0
