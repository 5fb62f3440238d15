"""The humanoid games' referee and GameController traffic (issue 6, part 4): game states, the two
halves (ends changed, half-time poses), goals, the ball leaving the field (throw-in, corner kick,
goal kick), removal penalties with the re-entry poses, fallen robots, red cards, RGme on UDP and
RGrt back (acted on when it comes from the team's address)."""

import logging
import math
import socket
import time

import pytest

from simleague.soccer.humanoids import HumanoidWorld
from simleague.vhsc.client import RobotClient
from simleague.vhsc.config import parse_team
from simleague.vhsc.gamecontroller import (
    HL_PICKUP_OR_INCAPABLE,
    HL_SERVICE,
    RETURN_ALIVE,
    RETURN_MAN_PENALISE,
    RETURN_MAN_UNPENALISE,
    STATE2_CORNER_KICK,
    STATE2_GOAL_KICK,
    STATE2_NORMAL,
    STATE2_THROW_IN,
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
R = KID_FIELD.ball_radius


def pose(x, y, yaw=0.0):
    return {"translation": [x, y, 0.4], "rotation": [0, 0, 1, yaw]}


def teams():
    """Two teams of two; the re-entry pose by the touch line at y = -3.4 facing the field."""
    out = {}
    for colour in ("red", "blue"):
        players = {str(n): {"proto": "kid", "halfTimeStartingPose": pose(-1.0 * n, 0.5 * n),
                            "reentryStartingPose": pose(-3.0, -3.4, math.pi / 2),
                            "shootoutStartingPose": pose(0, 0)} for n in (1, 2)}
        out[colour] = parse_team({"name": colour.title(), "players": players})[0]
    return out


def referee(**times):
    """Red 1, 2 on the left, blue 1, 2 mirrored on the right, as vhsc.setup places them."""
    world, configs, sessions = HumanoidWorld(KID_FIELD), teams(), {}
    for colour, team in configs.items():
        for number, player in team.players.items():
            p = player.half_time_starting_pose if colour == "red" else player.half_time_starting_pose.mirrored()
            rid = world.add_robot(KID, p.translation[0], p.translation[1], p.yaw)
            sessions[(colour, number)] = RobotSession(world, rid, KID)
    times.setdefault("ready_time", 1.0)
    times.setdefault("set_time", 1.0)
    return HumanoidReferee(world, sessions, configs, {"red": 7, "blue": 9}, **times), world, sessions


def run(ref, world, seconds):
    for _ in range(round(seconds / DT)):
        world.step()
        ref.step(DT)


def kick_ball(ref, world, x, y, z=R):
    """The ball put at (x, y) and the step after."""
    world.place_ball((x, y, z))
    run(ref, world, DT)


def playing(**times):
    ref, world, sessions = referee(**times)
    ref.start()
    run(ref, world, 2.0 + DT)
    assert ref.state == STATE_PLAYING
    return ref, world, sessions


def test_states_goals_halves_and_the_end_of_the_game():
    ref, world, sessions = referee(ready_time=2.0, set_time=1.0, half_time=10.0, break_time=3.0)
    run(ref, world, 1.0)
    assert ref.state == STATE_INITIAL
    ref.start()
    world.place_ball((1.0, 1.0, R))                                # the ball waits on the centre spot
    run(ref, world, 1.9)
    assert ref.state == STATE_READY and tuple(world.ball()[0][:2]) == pytest.approx((0, 0), abs=0.01)
    run(ref, world, 0.2)
    assert ref.state == STATE_SET
    run(ref, world, 1.0)
    assert ref.state == STATE_PLAYING
    kick_ball(ref, world, 4.6, 0.3)                                # over the blue goal line, in the goal
    assert ref.score == {"red": 1, "blue": 0} and ref.state == STATE_READY and ref.kick_off == "blue"
    assert tuple(world.ball()[0][:2]) == pytest.approx((0, 0), abs=0.01)
    run(ref, world, 3.0)
    assert ref.state == STATE_PLAYING
    run(ref, world, 9.9)                                           # 10 s of play in all
    assert ref.state == STATE_FINISHED and not ref.game_over
    packet = GameData.decode(ref.game_data(5).encode())
    assert packet.state == STATE_FINISHED and packet.first_half and packet.teams[0].number == 7
    assert packet.teams[0].score == 1 and packet.kick_off_team == 9 and packet.teams[1].players[0].goalkeeper
    # the break, then the second half: ends changed, every robot at its half-time pose, blue kicks off
    world.place_robot(sessions[("red", 1)].rid, 0.3, 2.0, 1.0)
    run(ref, world, 3.0)
    assert ref.state == STATE_READY and ref.half == 2 and ref.left == "blue" and ref.kick_off == "blue"
    (x, y, _), yaw = world.pose(sessions[("red", 1)].rid)
    assert (x, y, yaw) == pytest.approx((1.0, 0.5, math.pi), abs=0.01)        # red now plays on the right
    (x, y, _), yaw = world.pose(sessions[("blue", 2)].rid)
    assert (x, y, yaw) == pytest.approx((-2.0, 1.0, 0.0), abs=0.01)
    assert not GameData.decode(ref.game_data(6).encode()).first_half
    run(ref, world, 3.0 + 0.5)
    kick_ball(ref, world, 4.6, 0.0)                                # the goal at +x is red's now
    assert ref.score == {"red": 1, "blue": 1} and ref.kick_off == "red"
    run(ref, world, 3.0 + 10.0)
    assert ref.state == STATE_FINISHED and ref.game_over


def test_throw_in_corner_kick_and_goal_kick_after_the_last_touch():
    ref, world, _ = playing(set_play_times=(1.0, 1.0), in_play_timeout=2.0)
    ref.last_touch = "red"
    kick_ball(ref, world, 2.0, 3.2)                                # over the touch line at +y
    assert ref.secondary == STATE2_THROW_IN and ref.set_play_team == "blue" and ref.phase == 0
    assert tuple(world.ball()[0][:2]) == pytest.approx((2.0, 3.0), abs=1e-6)
    packet = GameData.decode(ref.game_data(0).encode())
    assert packet.secondary_state == STATE2_THROW_IN and packet.secondary_state_info == bytes([9, 0, 0, 0])
    assert packet.secondary_time == 1
    world.place_ball((1.0, 1.0, R))                                # the ball is held on its spot...
    run(ref, world, 1.0)
    assert ref.phase == 1 and tuple(world.ball()[0][:2]) == pytest.approx((2.0, 3.0), abs=1e-6)
    run(ref, world, 1.0)
    assert ref.phase == 2                                          # ...until the set play is executed
    run(ref, world, 2.0)
    assert ref.secondary == STATE2_NORMAL                          # not touched: in play after the timeout

    ref.last_touch = "blue"                                        # the defenders put it over their line
    kick_ball(ref, world, 4.7, -2.0)
    assert ref.secondary == STATE2_CORNER_KICK and ref.set_play_team == "red"
    assert tuple(world.ball()[0][:2]) == pytest.approx((4.5, -3.0), abs=1e-6)
    run(ref, world, 2.5)
    ref.last_touch = "red"                                         # the attackers put it over the line
    kick_ball(ref, world, 4.7, 2.0)
    assert ref.secondary == STATE2_GOAL_KICK and ref.set_play_team == "blue"
    assert tuple(world.ball()[0][:2]) == pytest.approx((3.5, 1.5), abs=1e-6)   # the goal area's corner
    assert ref.score == {"red": 0, "blue": 0}


def test_a_set_play_ends_when_the_awarded_team_touches_the_ball():
    ref, world, sessions = playing(set_play_times=(0.1, 0.1), in_play_timeout=100.0)
    ref.last_touch = "blue"
    kick_ball(ref, world, -1.0, -3.3)                              # throw-in for red near red 1
    run(ref, world, 0.3)
    assert ref.phase == 2
    (x, y, _), _ = world.pose(sessions[("red", 1)].rid)
    world.place_ball((x, y + 0.25, 0.25), (0.0, -2.0, 0.0))        # thrown at red 1's trunk
    for _ in range(100):
        run(ref, world, DT)
        if ref.secondary == STATE2_NORMAL:
            break
    assert ref.secondary == STATE2_NORMAL and ref.last_touch == "red"


def test_opponents_are_kept_the_free_kick_distance_from_the_ball():
    ref, world, sessions = referee()
    ref.start()
    blue = sessions[("blue", 1)].rid
    run(ref, world, 1.0 + DT)                                      # set: red kicks off
    world.place_robot(blue, 0.2, 0.1, 2.0)                         # blue walks into the centre circle
    run(ref, world, DT)
    (x, y, _), yaw = world.pose(blue)
    assert math.hypot(x, y) == pytest.approx(0.8, abs=0.01) and y / x == pytest.approx(0.5, abs=0.01)
    assert yaw == pytest.approx(2.0, abs=0.01)
    red = sessions[("red", 2)].rid
    world.place_robot(red, -0.2, -0.1, 0.0)                        # red may stand there
    run(ref, world, DT)
    assert tuple(world.pose(red)[0][:2]) == pytest.approx((-0.2, -0.1), abs=0.01)
    run(ref, world, 1.0)
    assert ref.state == STATE_PLAYING
    ref.last_touch = "blue"
    kick_ball(ref, world, 2.0, 3.2)                                # throw-in for red at (2, 3)
    world.place_robot(blue, 2.3, 2.7, 0.0)                         # blue stands next to the spot
    run(ref, world, DT)
    (x, y, _), _ = world.pose(blue)
    assert math.hypot(x - 2.0, y - 3.0) == pytest.approx(0.8, abs=0.01)
    assert x - 2.0 == pytest.approx(3.0 - y, abs=0.01)             # straight away from the ball


def test_a_removal_penalty_takes_the_robot_off_and_brings_it_back():
    ref, world, sessions = playing()
    red = sessions[("red", 1)]
    world.set_position(red.rid, "head_yaw", 1.5)                   # turning its head when penalised
    world.place_ball((0.5, -2.0, R))                               # the ball on the re-entry side
    run(ref, world, DT)
    ref.penalise("red", 1, seconds=2)
    assert not red.motors_on
    (x, y, _), yaw = world.pose(red.rid)
    assert (x, y, yaw) == pytest.approx((-3.0, 3.4, -math.pi / 2), abs=0.01)    # mirrored: away from the ball
    red.apply(RobotClient.requests(positions={"head_yaw": -1.0}), step=0)      # ignored
    run(ref, world, 0.5)
    assert world.position(red.rid, "head_yaw") == pytest.approx(0.0, abs=0.02)  # joints back at rest
    assert world.upright(red.rid) > 0.9
    packet = ref.game_data(0)
    assert packet.teams[0].players[0].penalty == HL_PICKUP_OR_INCAPABLE
    assert packet.teams[0].players[0].secs_till_unpenalised == 2
    run(ref, world, 1.0)
    assert ref.game_data(1).teams[0].players[0].secs_till_unpenalised == 1
    ref.penalise("red", 2, seconds=30)                             # the spot is taken: moved along x
    (x2, y2, _), _ = world.pose(sessions[("red", 2)].rid)
    assert y2 == pytest.approx(3.4, abs=0.01) and abs(x2 - (-3.0)) >= 0.4
    run(ref, world, 0.6)
    assert red.motors_on and ref.game_data(2).teams[0].players[0].penalty == 0
    (x, y, _), _ = world.pose(red.rid)
    assert y == pytest.approx(3.4, abs=0.05) and world.upright(red.rid) > 0.9
    with pytest.raises(KeyError):
        ref.penalise("red", 5)


def test_a_robot_lying_down_too_long_is_removed_as_incapable():
    ref, world, sessions = playing(fallen_timeout=3.0)
    blue = sessions[("blue", 2)]
    for motor in KID.motors:                                      # limp: it falls
        world.set_torque(blue.rid, motor.name, 0.0)
    run(ref, world, 2.5)
    assert world.upright(blue.rid) < 0.5 and not ref.players[("blue", 2)].info.penalty
    run(ref, world, 3.0)
    assert ref.players[("blue", 2)].info.penalty == HL_PICKUP_OR_INCAPABLE and not blue.motors_on
    (x, y, _), _ = world.pose(blue.rid)
    assert abs(y) == pytest.approx(3.4, abs=0.01) and x > 0        # blue's re-entry, mirrored to the right
    assert world.upright(blue.rid) > 0.9


def test_a_red_card_sends_the_robot_off_and_silences_its_sensors():
    ref, world, sessions = playing()
    blue = sessions[("blue", 1)]
    blue.apply(RobotClient.requests(time_steps={"gyro": 8}), step=10)
    assert [s.name for s in blue.due(11)] == ["gyro"]
    ref.red_card("blue", 1)
    assert not blue.sensors_on and not blue.motors_on and blue.due(11) == []
    (_, y, _), _ = world.pose(blue.rid)
    assert abs(y) > 5.0
    ref.penalise("blue", 1)                                        # a red card outlasts any penalty
    run(ref, world, 40.0)
    assert not blue.motors_on and ref.game_data(3).teams[1].players[0].red_cards == 1


def test_robot_messages_alive_and_a_request_to_be_taken_out():
    ref, world, sessions = playing()
    assert ref.robot_message(7, 1, RETURN_ALIVE) == (False, "red 1 alive") and ref.alive("red") == 1
    run(ref, world, 6.0)
    assert ref.alive("red") == 0                                   # not heard from for 6 s
    assert ref.robot_message(9, 2, RETURN_MAN_PENALISE) == (True, "blue 2 asked to be taken out: removed for service")
    assert ref.players[("blue", 2)].info.penalty == HL_SERVICE and not sessions[("blue", 2)].motors_on
    assert ref.robot_message(9, 2, RETURN_MAN_PENALISE)[0] is False
    changed, text = ref.robot_message(9, 2, RETURN_MAN_UNPENALISE)
    assert not changed and "ignored" in text and ref.players[("blue", 2)].info.penalty == HL_SERVICE
    assert "no such robot" in ref.robot_message(3, 1, RETURN_ALIVE)[1]


def test_rgme_packets_on_udp_and_rgrt_packets_back(caplog):
    caplog.set_level(logging.INFO, logger="simleague.vhsc")
    listen = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listen.bind(("127.0.0.1", 0))
    listen.settimeout(10)
    back = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    back.bind(("127.0.0.1", 0))
    return_port = back.getsockname()[1]
    back.close()

    def make_referee(world, sessions):
        ref = HumanoidReferee(world, sessions, ready_time=0.5, set_time=0.5)
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
        stranger = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        stranger.bind(("127.0.0.2", 0))                          # not an address of the red team
        stranger.sendto(ReturnData(1, 1, RETURN_MAN_PENALISE).encode(), ("127.0.0.1", return_port))
        sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for _ in range(2000):                                    # a flood of garbage
            sender.sendto(b"RGrt garbage", ("127.0.0.1", return_port))
        time.sleep(0.5)                                          # (what the kernel kept is read by now)
        sender.sendto(ReturnData(1, 2, RETURN_ALIVE).encode(), ("127.0.0.1", return_port))
        sender.sendto(ReturnData(1, 2, RETURN_MAN_PENALISE).encode(), ("127.0.0.1", return_port))
        deadline = time.monotonic() + 5
        while len(server.returns) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert list(server.returns) == [ReturnData(1, 2, RETURN_ALIVE), ReturnData(1, 2, RETURN_MAN_PENALISE)]
        players = server.referee.players
        assert players[("red", 2)].info.penalty == HL_SERVICE and not players[("red", 1)].info.penalty
        assert server.referee.alive("red") == 1
        with RobotClient(f"127.0.0.1:{server.ports[('red', 1)]}") as robot:
            assert robot.receive().time > 0
    assert "for red 1 from 127.0.0.2, not an address of that team: ignored" in caplog.text
    assert "red 2 asked to be taken out: removed for service" in caplog.text
    assert 1 <= caplog.text.count("ignored: an RGrt packet has 8 bytes, not 12") <= 20     # 10 a second
