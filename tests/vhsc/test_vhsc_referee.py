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
from simleague.vhsc.options import GameOptions
from simleague.vhsc.referee import HumanoidReferee
from simleague.vhsc.robot import RobotSession
from simleague.vhsc.server import apply_actions, field_view
from simleague.vhsc.positions import encloses, footing
from simleague.vhsc.setup import KID_FIELD, MARKINGS
from simleague.vhsc.web import play_mode
from test_vhsc_server import KID, running

DT = 0.008
R = KID_FIELD.ball_radius


def pose(x, y, yaw=0.0):
    return {"translation": [x, y, 0.4], "rotation": [0, 0, 1, yaw]}


def teams():
    """Two teams of two starting beside the touch line at y = -3.3 in their own half, facing the
    field; the re-entry pose by the touch line at y = -3.4."""
    out = {}
    for colour in ("red", "blue"):
        players = {str(n): {"proto": "kid", "halfTimeStartingPose": pose(-1.0 * n, -3.3, math.pi / 2),
                            "reentryStartingPose": pose(-3.0, -3.4, math.pi / 2),
                            "shootoutStartingPose": pose(0, 0)} for n in (1, 2)}
        out[colour] = parse_team({"name": colour.title(), "players": players})[0]
    return out


class Table:
    """A referee with the world it decides on: what it decides is carried out at once, as the
    server does."""

    def __init__(self, ref, world, sessions):
        self.ref, self.world, self.sessions = ref, world, sessions

    def __iter__(self):
        return iter((self.ref, self.world, self.sessions))

    def view(self):
        return field_view(self.world, self.sessions)

    def do(self, actions):
        apply_actions(self.world, self.sessions, actions)

    def run(self, seconds):
        for _ in range(round(seconds / DT)):
            self.world.step()
            self.do(self.ref.step(DT, self.view()))

    def kick(self, x, y, z=R):
        """The ball put at (x, y) and the step after."""
        self.world.place_ball((x, y, z))
        self.run(DT)

    def place(self, colour, number, x, y, yaw=0.0):
        self.world.place_robot(self.sessions[(colour, number)].rid, x, y, yaw)

    def touch(self, colour, number, towards=(1.0, 0.0)):
        """The ball rolled against the robot's trunk from ``towards`` until it touches it."""
        rid = self.sessions[(colour, number)].rid
        (x, y, _), _ = self.world.pose(rid)
        self.world.place_ball((x + 0.2 * towards[0], y + 0.2 * towards[1], 0.25),
                              (-1.5 * towards[0], -1.5 * towards[1], 0.0))
        for _ in range(60):
            self.run(DT)
            if rid in self.world.ball_touchers():
                return
        raise AssertionError(f"{colour} {number} did not touch the ball")

    def start(self):
        self.do(self.ref.start(self.view()))

    def penalise(self, colour, player, **options):
        self.do(self.ref.penalise(colour, player, self.view(), **options))

    def red_card(self, colour, player):
        self.do(self.ref.red_card(colour, player, self.view()))

    def message(self, team, player, message):
        changed, text, actions = self.ref.robot_message(team, player, message, self.view())
        self.do(actions)
        return changed, text


def referee(**options):
    """Red 1, 2 on the left, blue 1, 2 mirrored on the right, as vhsc.setup places them."""
    world, configs, sessions = HumanoidWorld(KID_FIELD), teams(), {}
    for colour, team in configs.items():
        for number, player in team.players.items():
            p = player.half_time_starting_pose if colour == "red" else player.half_time_starting_pose.mirrored()
            rid = world.add_robot(KID, p.translation[0], p.translation[1], p.yaw)
            sessions[(colour, number)] = RobotSession(world, rid, KID)
    options.setdefault("ready_time", 1.0)
    options.setdefault("set_time", 1.0)
    return Table(HumanoidReferee(KID_FIELD, sessions, configs, GameOptions({"red": 7, "blue": 9}, **options)), world, sessions)


def line_up(t):
    """Every robot walked to a place in its own half (as in ready)."""
    for colour in ("red", "blue"):
        side = -1 if colour == t.ref.left else 1
        for n in (1, 2):
            t.place(colour, n, side * (1.0 + n), -1.0 + n, 0.0 if side < 0 else math.pi)


def playing(**times):
    table = referee(**times)
    table.run(0.1)
    table.start()
    line_up(table)
    table.run(2.0 + DT)
    assert table.ref.state == STATE_PLAYING
    return table


def test_states_kick_off_goals_halves_and_the_end_of_the_game():
    t = referee(ready_time=2.0, set_time=1.0, half_time=20.0, break_time=3.0, in_play_timeout=1.0,
                set_play_times=(0.5, 0.5, 0.5))
    ref, world, sessions = t
    t.run(1.0)
    assert ref.state == STATE_INITIAL and tuple(world.ball()[0][:2]) == (100, 100)    # the referee holds the ball
    t.start()
    line_up(t)
    t.place("blue", 1, 0.5, 0.2, math.pi)                          # a defender in the centre circle
    t.run(1.9)
    assert ref.state == STATE_READY and tuple(world.ball()[0][:2]) == (100, 100)
    t.run(0.2)
    assert ref.state == STATE_SET and tuple(world.ball()[0][:2]) == pytest.approx((0, 0), abs=0.01)
    assert ref.view.ball[:2] == pytest.approx((0, 0), abs=0.01)                      # what it saw last
    assert ref.view.poses[("red", 2)][:2] == pytest.approx((-3.0, 1.0), abs=0.05)  # where line_up put it
    assert ref.players[("blue", 1)].info.penalty == HL_PICKUP_OR_INCAPABLE          # penalised in set
    assert all(not ref.players[k].info.penalty for k in (("red", 1), ("red", 2), ("blue", 2)))
    t.run(1.0)
    assert ref.state == STATE_PLAYING and ref.in_play is None
    assert not ref.players[("blue", 1)].info.penalty              # kick-off penalties end when it is played
    t.kick(4.6, 0.3)                                # straight from the kick-off into the goal: no goal
    assert ref.score == {"red": 0, "blue": 0} and ref.secondary == STATE2_GOAL_KICK
    t.run(2.0)                                      # (the goal kick runs its course)
    t.place("red", 1, 4.0, 0.0, 0.0)
    t.run(1.5)
    t.touch("red", 1)                                # red 1 plays the ball in play...
    t.kick(4.6, 0.3)                                 # ...into the blue goal
    assert ref.score == {"red": 1, "blue": 0} and ref.state == STATE_READY and ref.kick_off == "blue"
    assert tuple(world.ball()[0][:2]) == (100, 100)
    # the game clock runs on through ready and set after a goal: the half ends 20 s after it began
    line_up(t)
    t.run(20.0 - ref.played - 0.1)
    assert ref.state == STATE_PLAYING
    t.run(0.2)
    assert ref.state == STATE_INITIAL and ref.half == 2 and ref.left == "blue" and ref.kick_off == "blue"
    (x, y, _), yaw = world.pose(sessions[("red", 1)].rid)[0], world.heading(sessions[("red", 1)].rid)
    assert (x, y, yaw) == pytest.approx((1.0, -3.3, math.pi / 2), abs=0.01)     # red now plays on the right
    assert not GameData.decode(ref.game_data(6).encode()).first_half
    t.run(3.0)                                       # the break
    assert ref.state == STATE_READY and not any(p.info.penalty for p in ref.players.values())
    line_up(t)
    t.run(3.0 + 21.0)
    assert ref.state == STATE_FINISHED and ref.game_over
    packet = GameData.decode(ref.game_data(5).encode())
    assert packet.state == STATE_FINISHED and packet.teams[0].number == 7 and packet.teams[0].score == 1


def test_throw_in_corner_kick_and_goal_kick_after_the_last_touch():
    t = playing(set_play_times=(1.0, 1.0, 0.5), in_play_timeout=2.0)
    ref, world, sessions = t
    t.touch("red", 1)
    t.kick(2.0, 3.2)                                # over the touch line at +y
    assert ref.secondary == STATE2_THROW_IN and ref.set_play_team == "blue" and ref.phase == 0
    packet = GameData.decode(ref.game_data(0).encode())
    assert packet.secondary_state == STATE2_THROW_IN and packet.secondary_state_info == bytes([9, 0, 0, 0])
    assert packet.secondary_time == 1
    t.run(1.0)                                      # phase 0 over: the ball on the line where it left
    assert ref.phase == 1 and tuple(world.ball()[0][:2]) == pytest.approx((2.0, 2.975), abs=1e-6)
    t.run(1.0)
    assert ref.phase == 2
    t.run(0.5 + DT)
    assert ref.secondary == STATE2_NORMAL and ref.in_play is None        # executed
    t.run(2.0)
    assert ref.in_play is not None                                       # not touched: in play after the timeout

    t.touch("blue", 1, towards=(-1.0, 0.0))         # the defenders put it over their goal line
    t.kick(4.7, -2.0)
    assert ref.secondary == STATE2_CORNER_KICK and ref.set_play_team == "red"
    t.run(1.0)
    assert tuple(world.ball()[0][:2]) == pytest.approx((4.475, -2.975), abs=1e-6)
    t.run(4.0)
    t.touch("red", 2)                               # the attackers put it over the line
    t.kick(4.7, 2.0)
    assert ref.secondary == STATE2_GOAL_KICK and ref.set_play_team == "blue"
    t.run(1.0)                                      # on the half-way line by the touch line (league's rule)
    assert tuple(world.ball()[0][:2]) == pytest.approx((0.0, 2.975), abs=1e-6)
    assert ref.score == {"red": 0, "blue": 0}


def test_touching_a_set_play_ball_early_gives_a_warning_and_a_retake_or_the_ball_in_play():
    t = playing(set_play_times=(0.5, 3.0, 1.0))
    ref, world, sessions = t
    t.touch("red", 1)
    t.kick(-1.0, -3.3)                               # throw-in for blue at (-1, -2.975)
    t.run(0.6)
    assert ref.phase == 1
    t.place("red", 2, -1.0, -2.6, -math.pi / 2)      # red walks to the ball and touches it: retake
    t.touch("red", 2, towards=(0.0, -1.0))
    assert ref.secondary == STATE2_THROW_IN and ref.phase == 0 and ref.players[("red", 2)].info.warnings == 1
    t.place("red", 2, -2.0, 0.0, 0.0)
    t.run(0.6)
    t.place("blue", 1, -1.0, -2.6, -math.pi / 2)     # the awarded team touches it before execute: in play
    t.touch("blue", 1, towards=(0.0, -1.0))
    assert ref.secondary == STATE2_NORMAL and ref.in_play is not None
    assert ref.players[("blue", 1)].info.warnings == 1 and not ref.players[("blue", 1)].info.penalty


def test_a_removal_penalty_takes_the_robot_off_at_the_penalty_mark():
    t = playing()
    ref, world, sessions = t
    red = sessions[("red", 1)]
    world.set_position(red.rid, "head_yaw", 1.5)                   # turning its head when penalised
    world.place_ball((0.5, -2.0, R))                               # the ball on the re-entry side
    t.run(DT)
    t.penalise("red", 1, seconds=2)
    assert not red.motors_on
    (x, y, _), yaw = world.pose(red.rid)[0], world.heading(red.rid)
    assert (x, y, yaw) == pytest.approx((-3.0, 3.4, -math.pi / 2), abs=0.01)    # mirrored: away from the ball
    red.apply(RobotClient.requests(positions={"head_yaw": -1.0}), step=0)      # ignored
    t.run(0.5)
    assert world.position(red.rid, "head_yaw") == pytest.approx(0.0, abs=0.02)  # joints back at rest
    packet = ref.game_data(0)
    assert packet.teams[0].players[0].penalty == HL_PICKUP_OR_INCAPABLE
    assert packet.teams[0].players[0].secs_till_unpenalised == 2
    t.run(1.0)
    assert ref.game_data(1).teams[0].players[0].secs_till_unpenalised == 1
    t.penalise("red", 2, seconds=30)                             # the spot is taken: moved along x
    (x2, y2, _), _ = world.pose(sessions[("red", 2)].rid)
    assert y2 == pytest.approx(3.4, abs=0.01) and abs(x2 - (-3.0)) == pytest.approx(0.6, abs=0.01)
    t.run(0.6)
    assert red.motors_on and ref.game_data(2).teams[0].players[0].penalty == 0      # plays on from there
    with pytest.raises(KeyError):
        t.penalise("red", 5)


def test_a_penalised_robot_entering_the_field_gets_a_yellow_card_and_the_second_a_red_card():
    t = playing()
    ref, world, sessions = t
    t.penalise("blue", 2)
    t.run(0.5)
    t.place("blue", 2, 2.0, 1.0, math.pi)
    t.run(0.1)
    info = ref.players[("blue", 2)].info
    assert info.yellow_cards == 1 and info.penalty == HL_PICKUP_OR_INCAPABLE and not info.red_cards
    assert abs(world.pose(sessions[("blue", 2)].rid)[0][1]) > 3.0          # taken off again
    t.place("blue", 2, 2.0, 1.0, math.pi)
    t.run(0.1)
    assert info.red_cards == 1 and not sessions[("blue", 2)].sensors_on


def test_a_robot_lying_down_too_long_is_removed_as_incapable():
    t = playing(fallen_timeout=3.0)
    ref, world, sessions = t
    blue = sessions[("blue", 2)]
    for motor in KID.motors:                                      # limp: it falls
        world.set_torque(blue.rid, motor.name, 0.0)
    world.push_robot(blue.rid, (0.3, 0.0, 0.0))
    t.run(2.5)
    assert world.upright(blue.rid) < 0.5 and not ref.players[("blue", 2)].info.penalty
    t.run(3.0)
    assert ref.players[("blue", 2)].info.penalty == HL_PICKUP_OR_INCAPABLE and not blue.motors_on
    (x, y, _), _ = world.pose(blue.rid)
    assert abs(y) == pytest.approx(3.4, abs=0.01) and x == pytest.approx(3.0, abs=0.01)   # blue's side: mirrored
    assert world.upright(blue.rid) > 0.9


def test_a_red_card_sends_the_robot_off_and_silences_its_sensors():
    t = playing()
    ref, world, sessions = t
    blue = sessions[("blue", 1)]
    blue.apply(RobotClient.requests(time_steps={"gyro": 8}), step=10)
    assert [s.name for s in blue.due(11)] == ["gyro"]
    t.red_card("blue", 1)
    assert not blue.sensors_on and not blue.motors_on and blue.due(11) == []
    (_, y, _), _ = world.pose(blue.rid)
    assert abs(y) > 5.0
    t.penalise("blue", 1)                                        # a red card outlasts any penalty
    t.run(40.0)
    assert not blue.motors_on and ref.game_data(3).teams[1].players[0].red_cards == 1


def test_robot_messages_alive_and_a_request_to_be_taken_out():
    t = playing()
    ref, world, sessions = t
    assert t.message(7, 1, RETURN_ALIVE) == (False, "red 1 alive") and ref.alive("red") == 1
    t.run(6.0)
    assert ref.alive("red") == 0                                   # not heard from for 6 s
    assert t.message(9, 2, RETURN_MAN_PENALISE) == (True, "blue 2 asked to be taken out: removed for service")
    assert ref.players[("blue", 2)].info.penalty == HL_SERVICE and not sessions[("blue", 2)].motors_on
    assert t.message(9, 2, RETURN_MAN_PENALISE)[0] is False
    changed, text = t.message(9, 2, RETURN_MAN_UNPENALISE)
    assert not changed and "ignored" in text and ref.players[("blue", 2)].info.penalty == HL_SERVICE
    assert "no such robot" in t.message(3, 1, RETURN_ALIVE)[1]


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
        ref = HumanoidReferee(KID_FIELD, sessions, options=GameOptions(ready_time=0.5, set_time=0.5))     # (lines of a kid field)
        for (colour, n), session in sessions.items():                 # beside the field when it starts...
            world.place_robot(session.rid, (-1 if colour == "red" else 1) * (0.5 + n), -3.4, math.pi / 2)
        world.step()
        apply_actions(world, sessions, ref.start(field_view(world, sessions)))
        for (colour, n), session in sessions.items():                 # ...then in their halves
            world.place_robot(session.rid, (-1 if colour == "red" else 1) * (0.5 + n), 0.0, 0.0)
        return ref

    with running(referee=make_referee, game_controller=("127.0.0.1", listen.getsockname()[1]),
                 return_port=return_port, max_real_time_factor=1.0) as server:
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


def test_where_a_robot_stands_from_its_ground_contacts():
    marks = MARKINGS["kid"]
    left = -1                                                        # its own half at x < 0
    inside = footing([(-2.0, 1.0), (-2.1, 1.1)], left, KID_FIELD, marks)
    assert inside.inside_field and not inside.outside_field and inside.inside_own_side and inside.outside_circle
    assert not footing([(-0.05, 1.0), (0.05, 1.0)], left, KID_FIELD, marks).inside_own_side   # across the line
    on_line = footing([(-2.0, 2.98), (-2.0, 3.05)], left, KID_FIELD, marks)
    assert on_line.on_outer_line and not on_line.inside_field and not on_line.outside_field
    beside = footing([(-2.0, 3.05), (-2.0, 3.2)], left, KID_FIELD, marks)
    assert beside.outside_field and not beside.outside_turf
    assert footing([(-2.0, 4.1)], left, KID_FIELD, marks).outside_turf
    keeper = footing([(-4.2, 0.1), (-4.3, -0.1)], left, KID_FIELD, marks)
    assert not keeper.outside_goal_area and not keeper.outside_penalty_area
    assert not footing([(0.5, 0.5)], left, KID_FIELD, marks).outside_circle


def test_whether_hands_and_feet_enclose_the_ball():
    square = [(-0.1, -0.1), (0.1, -0.1), (0.1, 0.1), (-0.1, 0.1)]
    assert encloses(square, (0.0, 0.0), 0.02)
    assert encloses(square, (0.11, 0.0), 0.02)                     # outside, an edge within the radius
    assert not encloses(square, (0.2, 0.0), 0.02)
    assert not encloses([(1.0, 0.18), (1.0, 0.42), (1.0, 0.3)], (1.0, 0.0), 0.02)   # one robot's points on a line
    sliver = [(1.0 + 1e-9, 0.18), (1.0 - 1e-9, 0.42), (1.0, 0.35), (1.0, 0.25)]
    assert not encloses(sliver, (1.0, 0.0), 0.02)                 # nearly on a line: still far from the ball
    assert not encloses(square[:2], (0.0, 0.0), 1.0)


def test_the_viewer_names_set_plays_and_the_shootout():
    t = playing(set_play_times=(0.5, 0.5, 0.5))
    assert play_mode(t.ref) == "playing"
    t.touch("red", 1)
    t.kick(2.0, 3.2)
    assert play_mode(t.ref) == "playing: throw-in blue"
    shootout = HumanoidReferee(KID_FIELD, [("red", 1), ("blue", 1)], options=GameOptions(shootout=True))
    assert play_mode(shootout) == "initial: penalty shoot-out"
