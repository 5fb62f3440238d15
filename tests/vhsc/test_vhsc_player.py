"""The humanoid API's sample player (issue 32): the ball in its camera's images, its attitude from
the gyro, the GameController's state, its team's messages, and in the world: it walks the ball
towards the opponents' goal. In process, the world stepped directly (the player's answer acting
three steps after what it read)."""

import itertools
import math
import socket
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from gl import need_a_gl_platform

from simleague.soccer.humanoids import HumanoidWorld
from simleague.soccer.models import find_model
from simleague.vhsc import camera, kid
from simleague.vhsc import gamecontroller as gc
from simleague.vhsc.player import (APPROACH, BALL_FORGET, BEHIND, CAREFUL, CREEP, EARLY_NEAR, GIVE_WAY, HALF_LENGTH, HALF_WIDTH,
                                   HEARD_FOR, KEEP_AWAY, KICK_HELD, KICK_OFF_TAKER, KICK_WINDOW, LIE_NEAR, LIE_STILL,
                                   LOOK_PERIOD, LOOK_ROUND, LOOK_SWEEP,
                                   MAX_DATAGRAMS, PLACED_LOOK, SEEN_FOR,
                                   SIDE_CHECK, STAGE, STEP_BACK, TURN_ROUND, Attitude, Game, GameListener, Player, Sensed, TeamChannel)
from simleague.vhsc.setup import BUILT_IN_MODELS, FIELDS, MARKINGS

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_kid import get_up, kick  # noqa: E402

KID = find_model("kid", [BUILT_IN_MODELS])


def world_with(robot=(0.0, 0.0, 0.0), ball=(100.0, 100.0)):
    world = HumanoidWorld(FIELDS["kid"], painted=MARKINGS["kid"].lines(FIELDS["kid"]))     # as a match paints it
    rid = world.add_robot(KID, *robot)
    world.place_ball((*ball, FIELDS["kid"].ball_radius))
    return world, rid


def sensed(world, rid, now, image=None) -> Sensed:
    angles = {m.name: world.position(rid, m.name) for m in KID.motors}
    return Sensed(now, angles, tuple(world.sensor(rid, "gyro")), tuple(world.sensor(rid, "accelerometer")), image)


@pytest.fixture
def cameras():
    need_a_gl_platform()
    from simleague.soccer.cameras import Cameras
    made = []
    yield lambda world: made.append(Cameras(world)) or made[-1]
    for c in made:
        c.close()


def look(world, rid, render, pitch: float, yaw: float):
    """Robot ``rid`` standing in the crouch turns its head to ``pitch``, ``yaw`` (rad): its camera
    image then, and the camera's pose (:func:`simleague.vhsc.camera.camera_pose`)."""
    for joint, angle in (kid.stand(kid.walk()) | {"head_pitch": pitch, "head_yaw": yaw}).items():
        world.set_position(rid, joint, angle)
    for _ in range(100):
        world.step()
    tilt = camera.tilt(world.sensor(rid, "accelerometer"))
    pose = camera.camera_pose(kid.TORSO_HEIGHT, *tilt, world.position(rid, "head_yaw"), world.position(rid, "head_pitch"))
    return render.image(rid, "camera", camera.WIDTH, camera.HEIGHT), pose


def test_the_ball_is_found_in_camera_images_where_it_lies_and_lines_are_not_taken_for_it(cameras):
    world, rid = world_with(robot=(-1.5, 0.4, 0.3))
    stand = kid.stand(kid.walk())
    render = cameras(world)
    for joint, angle in stand.items():                                   # bend into the crouch first
        world.set_position(rid, joint, angle)
    for _ in range(200):
        world.step()
    # ahead, to a side, near, on the centre line and circle (lines are white too), far
    for ball, pitch, yaw in (((-0.6, 0.5), 0.6, 0.0), ((-0.9, 0.1), 0.8, -0.6), ((0.0, 0.0), 0.3, -0.2),
                             ((0.0, 0.75), 0.3, 0.3), ((1.0, 1.3), 0.1, 0.0)):
        world.place_ball((*ball, 0.07))
        image, pose = look(world, rid, render, pitch, yaw)
        (x, y, _), heading = world.pose(rid)[0], world.heading(rid)
        seen = camera.find_ball(image, *pose)
        dx, dy = ball[0] - x, ball[1] - y
        truth = (math.cos(heading) * dx + math.sin(heading) * dy, -math.sin(heading) * dx + math.cos(heading) * dy)
        assert seen is not None, ball
        assert math.dist((seen.x, seen.y), truth) < 0.06 + 0.04 * math.hypot(*truth), (ball, seen, truth)
    world.place_ball((100.0, 100.0, 0.07))                               # only lines, goals and a robot in view
    world.step()
    assert camera.find_ball(render.image(rid, "camera", camera.WIDTH, camera.HEIGHT), *pose) is None
    with pytest.raises(ValueError, match="320 x 240 pixels has 230400 bytes, not 3"):
        camera.find_ball(b"abc", *pose)


def test_robots_standing_near_are_found_in_camera_images_and_lines_and_far_things_are_not(cameras):
    world, rid = world_with(robot=(-1.5, 0.4, 0.0))
    others = {world.add_robot(KID, -0.95, 0.5, 3.0): (0.55, 0.1), world.add_robot(KID, -0.55, -0.1, 1.0): (0.95, -0.5)}
    world.add_robot(KID, 1.5, 0.4, 0.0)                                   # 3 m away: beyond OBSTACLE_RANGE
    stand = kid.stand(kid.walk())
    for robot in (rid, *others):
        for joint, angle in stand.items():
            world.set_position(robot, joint, angle)
    for _ in range(200):
        world.step()
    render = cameras(world)
    image, pose = look(world, rid, render, 0.5, 0.0)
    seen = camera.find_obstacles(image, *pose)
    for where in others.values():             # each robot's feet, 0.1 m before its centre at most
        nearest = min(math.dist(point, where) for point in seen)
        assert nearest < 0.2, (where, seen)
    # nothing else: every point a robot's legs, or seen past a robot (an arm's lowest pixel above the turf)
    for point in seen:
        assert any(math.dist(point, (x, y)) < 0.3
                   or abs(x * point[1] - y * point[0]) / math.hypot(*point) < 0.25     # its sight line passes by
                   and math.hypot(*point) > math.hypot(x, y) for x, y in others.values()), point
    image, pose = look(world, rid, render, 0.6, 1.4)                      # to the left: turf and lines only
    assert len(camera.find_obstacles(image, *pose)) == 0
    with pytest.raises(ValueError, match="320 x 240 pixels"):
        camera.find_obstacles(b"abc", *camera.camera_pose(kid.TORSO_HEIGHT, 0.0, 0.0, 0.0, 0.5))


def test_near_the_ball_a_player_walks_slowly_while_a_robot_stands_in_its_way():
    """The referee calls a robot faster than 0.2 m/s near the ball that runs into another a foul."""
    player = Player(3, "red")
    player.me.place(0.0, 0.0, 0.0)
    player.me.ball, player.me.ball_time, player.game = (0.3, 0.0), 0.0, Game()
    player.dribbling = True
    assert player._careful(1.0, 0.1) == 1.0                               # nothing in the way
    player._see_obstacles(0.1, np.array([[0.31, 0.02], [0.6, -0.1]]))    # the ball's underside, a robot
    assert len(player.obstacles) == 1
    assert player._careful(1.0, 0.2) == CAREFUL
    assert player._careful(1.0, 0.2 + SEEN_FOR) == 1.0                    # forgotten
    player._see_obstacles(1.3, np.array([[0.6, 0.45]]))                   # beside the way: no matter
    assert player._careful(1.0, 1.4) == 1.0
    player.me.place(0.0, 0.0, math.atan2(0.45, 0.6))                      # turned towards it: in the way
    assert player._careful(1.0, 1.4) == CAREFUL
    player.me.ball = (3.0, 3.0)                                           # the ball far away
    assert player._careful(1.0, 1.4) == 1.0


def test_going_to_the_ball_a_player_walks_slowly_only_while_a_robot_stands_near_the_ball():
    player = Player(3, "red")
    player.me.place(0.0, 0.0, 0.0)
    player.me.ball, player.me.ball_time, player.game = (1.0, 0.0), 0.0, Game()
    assert player._careful(1.0, 0.1) == 1.0                               # 1 m from the ball, nobody near it
    player._see_obstacles(0.1, np.array([[1.2, 1.1]]))                    # a robot 1.1 m from the ball
    assert player._careful(1.0, 0.2) == 1.0
    player._see_obstacles(0.3, np.array([[1.3, -0.6]]))                   # and one 0.67 m from it
    assert player._careful(1.0, 0.4) == CAREFUL
    assert player._careful(1.0, 0.3 + SEEN_FOR) == 1.0                    # forgotten
    player._see_obstacles(2.0, np.array([[1.3, -0.6]]))
    player.me.ball = (2.0, -0.6)                                          # the ball 2 m away: not yet near it
    assert player._careful(1.0, 2.1) == 1.0


def test_the_first_to_the_ball_walks_to_it_at_full_speed_whoever_stands_near():
    """The referee spares the nearer of two robots moving to the ball: so the player first to
    it goes on at full speed, but not while turned away from the ball nor with a robot as near."""
    player = Player(3, "red")
    player.me.place(0.0, 0.0, 0.0)
    player.me.ball, player.me.ball_time, player.game = (0.5, 0.0), 0.0, Game()
    player._see_obstacles(0.1, np.array([[1.1, 0.1]]))                    # 0.61 m from the ball
    assert player._crowded(0.2) and not player._close_by(0.2)
    assert player._careful(1.0, 0.2) == 1.0                               # 0.5 m from it: the first to it
    player.me.place(0.0, 0.0, math.radians(35))                           # the ball 35 deg off: not to it
    assert player._careful(1.0, 0.2) == CAREFUL
    player.me.place(0.0, 0.0, 0.0)
    player._see_obstacles(0.3, np.array([[0.85, -0.45]]))                 # another 0.57 m from it
    assert player._careful(1.0, 0.4) == CAREFUL                           # not 0.1 m nearer than that one
    player.me.place(0.2, 0.0, 0.0)                                        # 0.3 m from it: first again
    assert not player._close_by(0.4) and player._careful(1.0, 0.4) == 1.0


def test_near_the_ball_a_player_walks_slowly_while_a_robot_stands_close_beside_it_even_first_to_the_ball():
    """Upright robots at 0.20 to 0.33 m/s called for fouls near the ball had the other robot
    beside them, not ahead; at the ball the referee's judgement of who moves to it turns on a few
    centimetres. A robot seen close beside or ahead makes the player careful within 2.3 m of the
    ball; one behind it does not, nor one far from the ball."""
    player = Player(3, "red")
    player.me.place(0.0, 0.0, 0.0)
    player.me.ball, player.me.ball_time, player.game = (0.3, 0.0), 0.0, Game()
    assert player._first_to_ball(0.1) and player._careful(1.0, 0.1) == 1.0
    player._see_obstacles(0.1, np.array([[0.0, 0.55]]))                   # beside it, 0.63 m from the ball
    assert player._first_to_ball(0.2) and not player._in_the_way(0.2)
    assert player._careful(1.0, 0.2) == CAREFUL
    assert player._careful(1.0, 0.1 + SEEN_FOR) == 1.0                    # forgotten
    player._see_obstacles(2.0, np.array([[-0.3, 0.3]]))                   # behind it: walking away from it
    assert not player._close_by(2.1) and player._careful(1.0, 2.1) == 1.0
    player._see_obstacles(3.0, np.array([[0.4, -0.5]]))                   # ahead to the right, 0.64 m away
    player.me.ball = (0.0, 2.0)                                           # a ball 2 m away: still near it
    assert player._careful(1.0, 3.1) == CAREFUL
    player.me.ball = (-2.5, 0.0)                                          # 2.5 m away: far from it
    assert player._careful(1.0, 3.1) == 1.0


def test_walking_the_ball_on_beside_a_robot_a_player_keeps_full_speed_only_with_the_ball_straight_ahead():
    """A player walking the ball on 22 degrees off its heading, a robot near, was called for a
    foul: the referee saw it move more than 30 degrees away from the ball. Beside a robot it walks
    the ball on at full speed only while the ball lies straight ahead."""
    player = Player(3, "red")
    player.me.place(0.0, 0.0, 0.0)
    player.game, player.dribbling, player.me.ball_time = Game(), True, 0.0
    player._see_obstacles(0.1, np.array([[0.8, -0.25]]))                 # beside the way, near the ball
    player.me.ball = (0.4, 0.0)
    assert player._crowded(0.2) and not player._in_the_way(0.2) and not player._first_to_ball(0.2)
    assert not player._close_by(0.2)
    assert player._careful(1.0, 0.2) == 1.0                               # straight ahead
    off = math.radians(22)
    player.me.ball = (0.4 * math.cos(off), 0.4 * math.sin(off))
    assert player._careful(1.0, 0.2) == CAREFUL


def test_a_player_waits_while_a_robot_nearer_the_ball_plays_it_but_not_for_ever():
    player = Player(3, "red")
    player.me.place(0.0, 0.0, 0.0)
    player.me.ball, player.me.ball_time, player.game = (0.6, 0.2), 0.0, Game()
    assert player._attack(0.6, 0.2, 0.1)[:2] != (0.0, 0.0)               # nobody else: it goes
    player._see_obstacles(0.1, np.array([[1.5, 0.2]]))                    # 0.9 m from the ball: further
    assert player._attack(0.6, 0.2, 0.2)[:2] != (0.0, 0.0)
    for now in np.arange(0.3, 0.3 + GIVE_WAY, 0.5):                       # 0.27 m from it: nearer
        player._see_obstacles(now, np.array([[0.85, 0.3]]))
        forward, sideways, turn = player._attack(0.6, 0.2, now)
        assert (forward, sideways) == (0.0, 0.0) and turn > 0            # waits, turning to the ball
    player._see_obstacles(0.4 + GIVE_WAY, np.array([[0.85, 0.3]]))
    assert player._attack(0.6, 0.2, 0.4 + GIVE_WAY)[:2] != (0.0, 0.0)    # waited long enough


def test_the_attitude_keeps_the_heading_through_a_fall_and_back():
    attitude, dt = Attitude(0.5), 0.008
    for _ in range(125):                                                 # turn 1 rad to the left in 1 s
        attitude.update((0.0, 0.0, 1.0), (0.0, 0.0, 9.81), dt)
    assert attitude.heading == pytest.approx(1.5, abs=1e-6)
    for _ in range(125):                                                 # fall on the front: pitch 90 deg
        attitude.update((0.0, math.pi / 2, 0.0), (0.0, 0.0, 0.0), dt)    # (in the air: no gravity to read)
    assert attitude.up == pytest.approx((-1.0, 0.0, 0.0), abs=1e-6)
    for _ in range(250):                                                 # lying still: the accelerometer agrees
        attitude.update((0.0, 0.0, 0.0), (-9.81, 0.0, 0.0), dt)
    for _ in range(125):                                                 # and up again
        attitude.update((0.0, -math.pi / 2, 0.0), (0.0, 0.0, 0.0), dt)
    assert attitude.heading == pytest.approx(1.5, abs=1e-3)
    assert attitude.up == pytest.approx((0.0, 0.0, 1.0), abs=1e-3)
    for _ in range(3000):                                                # a tilted start is pulled upright
        attitude.update((0.0, 0.0, 0.0), (9.81 * math.sin(0.2), 0.0, 9.81 * math.cos(0.2)), dt)
    assert attitude.up == pytest.approx((math.sin(0.2), 0.0, math.cos(0.2)), abs=1e-3)


def test_the_player_reads_its_state_from_the_game_controller():
    teams = (gc.TeamInfo(7, gc.TEAM_BLUE), gc.TeamInfo(9, gc.TEAM_RED))
    teams[1].players[1].penalty = gc.HL_PICKUP_OR_INCAPABLE
    data = gc.GameData.decode(gc.GameData(teams, state=gc.STATE_READY, kick_off_team=9,
                                          secondary_state=gc.STATE2_CORNER_KICK,
                                          secondary_state_info=bytes((7, 1, 0, 0))).encode())
    red2, red3, blue1 = (Game.from_packet(data, c, n) for c, n in (("red", 2), ("red", 3), ("blue", 1)))
    assert (red2.state, red2.kick_off, red2.penalised, red2.their_set_play) == (gc.STATE_READY, True, True, True)
    assert (red3.penalised, blue1.kick_off, blue1.their_set_play) == (False, False, False)
    assert (red2.our_set_play, blue1.our_set_play, blue1.penalty_kick) == (False, True, False)
    assert (red2.phase, blue1.phase) == (1, 1)                                 # the set play's phase
    overtime = gc.GameData.decode(gc.GameData(teams, state=gc.STATE_PLAYING, secondary_state=gc.STATE2_OVERTIME).encode())
    red2 = Game.from_packet(overtime, "red", 2)
    assert not (red2.our_set_play or red2.their_set_play) and red2.phase == 0  # an overtime is no set play
    assert Game.from_packet(gc.GameData((gc.TeamInfo(7, gc.TEAM_BLUE), gc.TeamInfo(8, gc.TEAM_BLUE))), "red", 1) is None


def test_the_game_controller_listener_skips_garbage_and_keeps_the_newest_state():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    listener = GameListener("red", 2, port)
    try:
        assert listener.latest() is None
        teams = (gc.TeamInfo(7, gc.TEAM_BLUE), gc.TeamInfo(9, gc.TEAM_RED))
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sender:
            for data in (b"RGme" + b"\0" * 10, b"\xff" * 2000, gc.GameData(teams, state=gc.STATE_SET).encode(),
                         gc.GameData(teams, state=gc.STATE_PLAYING).encode(), b"junk"):
                sender.sendto(data, ("127.0.0.1", port))
        time.sleep(0.1)
        game = listener.latest()
        assert game is not None and game.state == gc.STATE_PLAYING
    finally:
        listener.close()


def test_team_mates_hear_each_other_and_garbage_is_ignored():
    one, two = TeamChannel("red", "127.255.255.255"), TeamChannel("red", "127.255.255.255")
    try:
        one.say(2, 1.234, (-1.5, 2.25), (-2.0, 1.5))
        one.say(3, math.inf, (1e9, -1e9), (0.0, -1e9))
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as rogue:
            rogue.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
            for junk in (b"simleague x 3 0 0", b"\xff" * 60, b"simleague 4", b"simleague 4 3", b"other 1 2 0 0",
                         b"simleague 99 3 0 0 0 0", b"simleague 4 3 1.5 0 0 0", b"simleague 4 3 0 0 0",
                         b"simleague 4 3 0 0", b"simleague 4 3 --1 0 0 0", b"simleague 4 3 0 0 0 0 0"):
                rogue.sendto(junk, ("127.255.255.255", 3737))
        heard = []
        for _ in range(100):                                             # up to 1 s for the datagrams
            heard += two.heard()
            if len(heard) >= 2:
                break
            time.sleep(0.01)
        time.sleep(0.05)
        heard += two.heard()
        # the garbage and player 99 ignored; a position out of range at the most the message carries
        assert heard == [(2, 1.23, (-1.5, 2.25), (-2.0, 1.5)), (3, math.inf, (999.99, -999.99), (0.0, -999.99))]
        for k in range(MAX_DATAGRAMS + 10):                                # a flood: read a bounded share a step
            one.say(2, k / 100, (0.0, 0.0), (0.0, 0.0))
        time.sleep(0.1)
        assert len(two.heard()) == MAX_DATAGRAMS and len(two.heard()) == 10
    finally:
        one.close()
        two.close()


def test_the_nearest_field_player_takes_the_ball_and_keeps_it():
    player = Player(3, "red")
    player.me.place(0.0, 0.0, 0.0)
    player.me.ball, player.me.ball_time = (1.0, 0.0), 0.0
    player.hear(4, 0.8, 0.0)                                       # a team-mate nearer
    player.hear(1, 0.1, 0.0)                                       # the goalkeeper does not count
    assert not player._takes_ball(0.5)
    player.hear(4, 1.2, 0.5)
    assert player._takes_ball(0.6)
    player.hear(4, 0.9, 0.7)                                       # nearer, but not by KEEP_BALL
    assert player._takes_ball(0.8)
    assert player._takes_ball(2.0)                                 # a team-mate not heard for 1 s is gone
    player.me.ball = (-3.5, 0.5)                                   # in the goalkeeper's zone: it counts
    player.hear(1, 0.3, 2.5)
    assert not player._takes_ball(2.6)
    player.hear(1, 5.0, 2.6)
    assert player._takes_ball(2.7)


def test_a_sample_player_walks_the_ball_towards_the_opponents_goal(cameras):
    world, rid = world_with(robot=(-2.0, 0.3, 0.4), ball=(0.0, -0.3))
    render = cameras(world)
    player = Player(3, "red")
    player.me.place(-2.0, 0.3, 0.4)
    pending, touched = [], False
    for i in range(int(35 / kid.STEP)):
        image = render.image(rid, "camera", camera.WIDTH, camera.HEIGHT) if i % 8 == 0 else None
        now, seen = sensed(world, rid, i * kid.STEP, image), player.me.ball_time
        pending.append(player.act(now, Game(), look=False))            # as run() plays: the targets
        assert player.me.ball_time == seen                                 # first, then the image
        player.look(now)
        if len(pending) > 3:
            for joint, angle in pending.pop(0).items():
                world.set_position(rid, joint, angle)
        world.step()
        touched = touched or bool(world.ball_touchers())
    ball = world.ball()[0]
    assert touched and ball[0] > 1.0, ball                             # towards the goal at x = 4.5
    assert abs(player.me.heading - world.heading(rid)) < 0.1 or abs(world.upright(rid)) < 0.5


def test_a_player_that_has_not_seen_the_ball_lately_sweeps_its_head_round_where_it_should_lie():
    """Seen in the last LOOK_ROUND s, the head keeps the ball; then its yaw sweeps LOOK_SWEEP either
    side of where a team-mate sees it, else of where it was last seen; after BALL_FORGET s with no
    team-mate's word, all round."""
    player = Player(3, "red")
    player.me.place(0.0, 0.0, 0.0)
    player.me.ball, player.me.ball_time = (1.0, 0.0), 0.0

    def yaws(start: float, told=None, seconds: float = LOOK_PERIOD) -> np.ndarray:
        out = []
        for k in range(round(seconds / kid.STEP)):
            now = start + k * kid.STEP
            if told is not None:
                player.hear(2, 1.0, now, told)
            out.append(player._head(Sensed(now, {}, (0.0, 0.0, 0.0), (0.0, 0.0, 9.81)))["head_yaw"])
        return np.array(out)
    assert np.abs(yaws(0.1, seconds=LOOK_ROUND - 0.2)).max() < 1e-9            # seen: held on it
    remembered = yaws(LOOK_ROUND)
    assert remembered.max() > 0.9 * LOOK_SWEEP and remembered.min() < -0.9 * LOOK_SWEEP
    assert np.abs(remembered).max() <= LOOK_SWEEP + 1e-9
    told = yaws(LOOK_ROUND + LOOK_PERIOD, told=(1.0, 0.7)) - math.atan2(0.7, 1.0)  # a team-mate's: left
    assert told.max() > 0.9 * LOOK_SWEEP and told.min() < -0.9 * LOOK_SWEEP and np.abs(told).max() <= LOOK_SWEEP + 1e-9
    assert np.abs(yaws(BALL_FORGET + HEARD_FOR + 3.0)).max() > 1.2                # nothing known: all round


def test_from_the_set_state_until_the_kick_off_is_played_the_ball_lies_on_the_centre_spot():
    """The referee puts the kick-off's ball on the centre spot: a player that has not seen it takes
    it to lie there until it is in play, and the taker goes to it; a sighting takes over."""
    player = Player(4, "red")
    player.me.place(-0.6, -0.4, 0.0)

    def step(game: Game, now: float):
        player._follow_game(game)
        player._sense(Sensed(now, {}, (0.0, 0.0, 0.0), (0.0, 0.0, 9.81)))
    step(Game(state=gc.STATE_READY), 1.0)
    assert player.me.ball_time == -math.inf                                   # not yet
    step(Game(state=gc.STATE_SET), 2.0)
    assert player.me.ball == (0.0, 0.0) and 2.0 - player.me.ball_time == LOOK_ROUND
    waiting = Game(kick_off=True, free=False)
    step(waiting, 12.0)
    assert player.me.ball == (0.0, 0.0) and player._decide(Sensed(12.0, {}, (0.0, 0.0, 0.0), (0.0, 0.0, 9.81)))[2] > 0
    player.me.ball, player.me.ball_time = (0.1, 0.05), 12.5                    # seen: taken as seen
    step(waiting, 13.0)
    assert player.me.ball == (0.1, 0.05)
    step(Game(), 20.0)                                                        # in play: where it was seen
    assert player.me.ball == (0.1, 0.05) and player.me.ball_time == 12.5


def test_a_player_half_a_metre_off_finds_the_kick_off_ball_and_where_it_stands(cameras):
    """A traced kick-off: the taker stood 0.57 m from where its odometry put it, its head held on the
    bearing of the ball a team-mate told it about, and the ball stayed out of the camera's view. Sweeping
    round that bearing, it sees the ball in the set state and takes its place from it."""
    world, rid = world_with(robot=(-0.5, 0.57, 0.0), ball=(0.0, 0.0))
    render = cameras(world)
    player = Player(4, "red")
    player.me.place(-0.5, 0.0, 0.0)                                          # believes it faces the ball
    game = Game(state=gc.STATE_SET)
    pending = []
    for i in range(int(4.0 / kid.STEP)):
        now = i * kid.STEP
        player.hear(2, 2.0, now, (0.0, 0.0))                                  # a team-mate sees it there
        image = render.image(rid, "camera", camera.WIDTH, camera.HEIGHT) if i % 8 == 0 else None
        s = sensed(world, rid, now, image)
        pending.append(player.act(s, game, look=False))
        player.look(s)
        if len(pending) > 3:
            for joint, angle in pending.pop(0).items():
                world.set_position(rid, joint, angle)
        world.step()
    x, y, _ = world.pose(rid)[0]
    assert player.me.ball == (0.0, 0.0) and 4.0 - player.me.ball_time < 1.0   # seen lately
    assert math.dist((player.me.x, player.me.y), (x, y)) < 0.15, (player.me.x, player.me.y, x, y)


@pytest.mark.parametrize("start", [math.pi - 0.2, -(math.pi - 0.2)], ids=["turning right", "turning left"])
def test_a_player_turning_round_to_walk_to_the_ball_stops_its_turn_in_time(start):
    # the walk changes its speed a little a step: turning at full speed, it needs 1.2 rad to stop
    world, rid = world_with(robot=(0.0, 0.0, start))
    player, pending, headings = Player(3, "red"), [], []
    player.me.place(0.0, 0.0, start)
    for i in range(int(12 / kid.STEP)):
        now = i * kid.STEP
        player.me.ball, player.me.ball_time = (2.5, 0.0), now      # seen each step; its place behind: x 2.2
        pending.append(player.act(sensed(world, rid, now), Game()))
        if len(pending) > 2:
            for joint, angle in pending.pop(0).items():
                world.set_position(rid, joint, angle)
        world.step()
        headings.append(math.remainder(world.heading(rid), 2 * math.pi))
    first = next(i for i, h in enumerate(headings) if abs(h) < 0.35)   # come round within 20 degrees
    beyond = max(-math.copysign(1.0, start) * h for h in headings[first:])
    assert beyond < math.radians(30), math.degrees(beyond)           # the turn not carried on past the way
    assert world.pose(rid)[0][0] > 1.5 and world.upright(rid) > 0.9   # and on its way there, standing


def test_a_player_coming_from_beside_the_ball_heads_for_a_place_further_behind_it():
    player = Player(3, "red")
    player.me.place(0.0, 1.5, -math.pi / 2)                           # beside the ball at (0, 0)
    assert player._approach(0.0, 0.0, 0.0) == pytest.approx((-BEHIND - APPROACH, 0.0))
    player.me.place(-2.0, 0.0, 0.0)                                   # straight behind it
    assert player._approach(0.0, 0.0, 0.0) == pytest.approx((-BEHIND, 0.0))
    player.me.place(-1.0, 1.0, 0.0)                                   # 45 degrees off: half the way back
    assert player._approach(0.0, 0.0, 0.0) == pytest.approx((-BEHIND - APPROACH / 2, 0.0))
    player.me.place(0.0, 0.4, 0.0)                                    # near it: its place behind
    assert player._approach(0.0, 0.0, 0.0) == pytest.approx((-BEHIND, 0.0))
    player.me.place(-3.0, 2.0, 0.0)                                   # a ball at the goal line: on the line
    assert player._approach(-4.4, 0.0, 0.0) == pytest.approx((-4.5, 0.0))


def _walk_seeing(heading: float, robot: list[tuple[float, float]], to=(3.0, 0.0)):
    """Player 3 at the origin facing ``heading`` walking to own-frame ``to`` having seen a
    robot's points at ``robot`` (own frame, m) a moment ago: its (forward, sideways, turn)."""
    player = Player(3, "red")
    player.me.place(0.0, 0.0, heading)
    player._see_obstacles(5.0, np.array([player.me.to_robot(x, y) for x, y in robot]).reshape(-1, 2))
    player._time = 5.1
    return player._go_to(*to, heading)


def test_a_player_keeps_clear_of_team_mates_out_of_its_view_where_they_say_they_stand():
    """Where a team-mate says it stands counts as a thing seen there: the way to a place goes
    round it and the player walks carefully near the ball with one close beside it; which of
    them plays the ball the team settles by what they say, so no team-mate makes the player give
    way at the ball. A team-mate not heard for SEEN_FOR s is forgotten."""
    player = Player(3, "red")
    player.me.place(0.0, 0.0, 0.0)
    player._time = 5.0
    assert player._go_to(3.0, 0.0, 0.0)[2] == pytest.approx(0.0, abs=1e-9)
    player.hear(4, 2.5, 5.0, (3.0, 0.0), (0.6, 0.05))                       # on the way, a little left
    assert player._go_to(3.0, 0.0, 0.0)[2] < -0.1                            # round its right
    player.me.ball, player.me.ball_time, player.game = (1.5, 0.0), 5.0, Game()
    player.hear(4, 1.6, 5.0, (1.5, 0.0), (0.1, 0.5))                         # close beside
    assert player._careful(1.0, 5.1) == CAREFUL
    player.hear(4, 0.5, 5.0, (1.5, 0.0), (1.0, 0.1))                         # nearer the ball
    assert not player._contested(5.1)
    player._see_obstacles(5.0, np.array([[1.0, 0.1]]))                       # an opponent seen there
    assert player._contested(5.1)
    player.obstacles = np.empty((0, 3))
    player.hear(4, 2.5, 5.0, (3.0, 0.0), (0.6, 0.05))
    player._time = 5.0 + SEEN_FOR
    assert player._go_to(3.0, 0.0, 0.0)[2] == pytest.approx(0.0, abs=1e-9)
    assert player._careful(1.0, 5.0 + SEEN_FOR) == 1.0


@pytest.mark.parametrize("heading", [0.0, math.pi / 2], ids=["facing the way", "facing left"])
def test_a_player_walks_round_a_robot_standing_on_its_way(heading):
    """The robot's points 0.6 m ahead, a little to the left of the way: the player heads right
    of it, and left of one a little to the right; one beside the way, or beyond the place, is
    no matter."""
    def way(points, to=(3.0, 0.0)):
        c, s = math.cos(heading), math.sin(heading)       # the same scene turned with the player
        turned = [(x * c - y * s, x * s + y * c) for x, y in points]
        return _walk_seeing(heading, turned, (to[0] * c - to[1] * s, to[0] * s + to[1] * c))

    forward, _, turn = way([])
    assert turn == pytest.approx(0.0, abs=1e-9) and forward > 0.5
    _, _, turn = way([(0.6, 0.0), (0.6, 0.08), (0.62, 0.16)])
    assert turn < -0.1                                     # round its right
    _, _, turn = way([(0.6, 0.0), (0.6, -0.08), (0.62, -0.16)])
    assert turn > 0.1                                      # round its left
    assert way([(0.6, 0.6), (0.6, 0.7)])[2] == pytest.approx(0.0, abs=1e-9)          # beside the way
    assert way([(1.0, 0.0), (1.0, 0.1)], to=(1.2, 0.0))[2] == pytest.approx(0.0, abs=1e-9)   # at the place
    player = Player(3, "red")                              # forgotten after SEEN_FOR s
    player.me.place(0.0, 0.0, 0.0)
    player._see_obstacles(5.0, np.array([[0.6, 0.05]]))
    player._time = 5.0 + SEEN_FOR
    assert player._go_to(3.0, 0.0, 0.0)[2] == pytest.approx(0.0, abs=1e-9)


def test_at_their_set_play_the_field_players_wait_apart_inside_the_field():
    game = Game(their_set_play=True)
    for ball in ((0.0, 0.0), (1.0, 2.9), (-4.4, -2.9)):
        places = {n: Player(n, "red")._wait_place(*ball) for n in (2, 3, 4)}
        for a, b in itertools.combinations(places.values(), 2):
            assert math.dist(a, b) >= 1.2 - 1e-9, (ball, places)
        for x, y in places.values():
            assert abs(x) <= HALF_LENGTH - 0.3 and abs(y) <= HALF_WIDTH - 0.3, (ball, places)
            assert math.dist((x, y), ball) > 1.0 or x == -HALF_LENGTH + 0.3, (ball, places)
    forward, _, _ = _decision(3, (-1.3, 1.2, 0.0), game)
    assert forward == 0.0                                  # player 3 stands at its place


def test_the_kid_kicks_with_either_foot_the_ball_before_it():
    for foot, yaw in (("right", 0.5), ("left", 2.0)):
        kicked = kick(yaw=yaw, foot=foot)
        assert kicked["distance"] > 2.0 and not kicked["fell"], (foot, kicked)
    right, left = kid.kick({}, "right"), kid.kick({}, "left")
    for r, lt in zip(iter(right.step, None), iter(left.step, None)):
        assert (lt["left_knee"], lt["left_hip_roll"], lt["right_ankle_roll"]) == pytest.approx(
            (r["right_knee"], -r["right_hip_roll"], -r["left_ankle_roll"]))
    with pytest.raises(ValueError, match="right or left"):
        kid.kick({}, "both")


@pytest.mark.parametrize("side, seed", [("front", 3), ("back", 3)])
def test_the_kid_gets_up_from_its_front_and_from_its_back(side, seed):
    # a fall of the walking kid that the get-ups were not found on (bench_kid.fallen)
    tried = get_up(side, seed)
    assert tried["lay"] == side and tried["stood"] is not None and tried["stood"] < 5.0, tried
    with pytest.raises(ValueError, match="front or back"):
        kid.get_up("side", {})


def walking_pushed_over(seconds: float, before_the_push=lambda player, now: None, game: Game | None = None):
    """Player 3 walking from (-2, 0) to the ball 4 m ahead (as if seen each step), pushed onto its
    front after 3 s, its answers acting two steps after what it read: yields (world, rid, player,
    now (s)) after each step; ``before_the_push(player, now)`` is called just before the push;
    ``game``: the GameController's state throughout (default: playing)."""
    world, rid = world_with(robot=(-2.0, 0.0, 0.0))
    player, pending = Player(3, "red"), []
    player.me.place(-2.0, 0.0, 0.0)
    for i in range(int(seconds / kid.STEP)):
        now = i * kid.STEP
        player.me.ball, player.me.ball_time = (2.0, 0.0), now
        if i == int(3.0 / kid.STEP):
            before_the_push(player, now)
            world.push_robot(rid, (1.5, 0.0, 0.0))
        pending.append(player.act(sensed(world, rid, now), game or Game()))
        if len(pending) > 2:
            for joint, angle in pending.pop(0).items():
                world.set_position(rid, joint, angle)
        world.step()
        yield world, rid, player, now


def test_a_player_pushed_over_gets_up_and_walks_on():
    lay, got_up = [], None
    for world, rid, player, _ in walking_pushed_over(12.0):
        lay.append(player.lying)
        if got_up is None and any(lay) and player.motion is None and world.upright(rid) > 0.9:
            got_up = world.pose(rid)[0]
    assert any(lay) and got_up is not None                       # it knew it lay, and got up
    assert world.upright(rid) > 0.9 and world.pose(rid)[0][0] - got_up[0] > 0.2     # and walked on to the ball


@pytest.mark.parametrize("robot_near, set_play", [(False, False), (True, False), (True, True)])
def test_a_player_fallen_next_to_a_robot_lies_longer_before_getting_up_but_not_at_a_set_play(robot_near, set_play):
    """Pushed over while walking; with a robot seen 0.5 m beside it just before, it lies still
    for a time between LIE_NEAR's bounds (the referee's charging rule), else LIE_STILL; and
    LIE_STILL during a set play (the referee takes off robots down when it puts the ball down)."""
    def a_robot_beside(player, now):
        if robot_near:
            player.obstacles = np.array([[now, player.me.x, player.me.y + 0.5]])

    lay_from, rise_at = None, None
    for _, _, player, now in walking_pushed_over(10.0, a_robot_beside, Game(their_set_play=set_play)):
        if lay_from is None and player.lying:
            lay_from = now
        if lay_from is not None and rise_at is None and player.motion is not None:
            rise_at = now
    assert lay_from is not None and rise_at is not None, (lay_from, rise_at)
    if robot_near and not set_play:
        assert LIE_NEAR[0] <= rise_at - lay_from <= LIE_NEAR[1] + kid.STEP
    else:
        assert rise_at - lay_from == pytest.approx(LIE_STILL, abs=2 * kid.STEP)
    draws = {Player(n, colour)._stagger.uniform(*LIE_NEAR) for n in (2, 3) for colour in ("red", "blue")}
    assert len(draws) == 4                                         # each player its own wait


@pytest.mark.parametrize("side, foot", [(-1.0, "right"), (1.0, "left")])
def test_a_player_stands_and_kicks_with_the_foot_the_ball_lies_before(side, foot):
    """The ball 0.16 m ahead and 5 cm to one side, the player facing the goal as that foot's kick
    needs (its ball goes KICK_OFF_LINE off to the other side): it stops, waits, kicks with that foot."""
    player = Player(3, "red")
    player.me.place(0.0, 0.0, side * kid.KICK_OFF_LINE)
    ball = (0.16 * math.cos(player.me.heading) - side * 0.05 * math.sin(player.me.heading),
            0.16 * math.sin(player.me.heading) + side * 0.05 * math.cos(player.me.heading))
    assert player._attack(*ball, 0.0) == (0.0, 0.0, 0.0) and player.kicking is None and player.still
    player._attack(*ball, 1.0)
    assert player.kicking == foot


#: the legs' joints, and their targets standing in the walking crouch (rad by joint name)
LEGS = [joint for joint in kid.stand(kid.walk()) if "hip" in joint or "knee" in joint or "ankle" in joint]
STANDING = {joint: angle for joint, angle in kid.stand(kid.walk()).items() if joint in LEGS}


def player_facing_a_ball_before_its_right_foot(forward: float) -> Player:
    """Player 3, up and settled, facing the right foot's kick heading with the ball ``forward`` m
    ahead and 4.5 cm to the right (the middle of the right foot's window across)."""
    player = Player(3, "red")
    player.me.place(0.0, 0.0, -kid.KICK_OFF_LINE)
    player.me.ball, player.me.ball_time, player.game = player.me.to_field(forward, -0.045), 0.0, Game()
    player.standing_since = -10.0
    return player


def test_a_player_about_to_kick_stands_with_its_feet_together():
    """The walk at zero speed still steps in place; after a walk, a kick from there fell 10 times
    in 10 (benchmarks/bench_kid.py measures the kick after walking and standing)."""
    player = player_facing_a_ball_before_its_right_foot(0.18)
    for i in range(50):
        targets = player.act(Sensed(i * kid.STEP, {}, (0.0, 0.0, 0.0), (0.0, 0.0, 9.81)))
        assert {joint: targets[joint] for joint in LEGS} == pytest.approx(STANDING), i
    assert player.still and player.kicking is None
    player.me.ball = player.me.to_field(0.4, -0.045)                      # out of reach: it walks again
    stepping = player.act(Sensed(0.5, {}, (0.0, 0.0, 0.0), (0.0, 0.0, 9.81)))
    assert not player.still and {joint: stepping[joint] for joint in LEGS} != pytest.approx(STANDING)


def test_a_player_standing_for_a_kick_keeps_standing_while_the_ball_is_seen_at_the_windows_edge():
    """The camera's ball jitters by a centimetre or two: once standing for a kick the window
    widens by KICK_HELD, so a ball seen just beyond its edge does not send the player stepping
    again (stepping off from the stand it fell, benchmarks/bench_dribble.py); further off it walks."""
    (near, far), _ = KICK_WINDOW
    edge = far + KICK_HELD / 2
    fresh = player_facing_a_ball_before_its_right_foot(edge)       # not yet standing: beyond the window
    fresh.act(Sensed(0.0, {}, (0.0, 0.0, 0.0), (0.0, 0.0, 9.81)))
    assert not fresh.still
    player = player_facing_a_ball_before_its_right_foot((near + far) / 2)
    for i in range(20):
        player.act(Sensed(i * kid.STEP, {}, (0.0, 0.0, 0.0), (0.0, 0.0, 9.81)))
    assert player.still
    player.me.ball = player.me.to_field(edge, -0.045)
    for i in range(20, 40):
        targets = player.act(Sensed(i * kid.STEP, {}, (0.0, 0.0, 0.0), (0.0, 0.0, 9.81)))
        assert {joint: targets[joint] for joint in LEGS} == pytest.approx(STANDING), i
    assert player.still
    player.me.ball = player.me.to_field(far + 2 * KICK_HELD, -0.045)
    player.act(Sensed(40 * kid.STEP, {}, (0.0, 0.0, 0.0), (0.0, 0.0, 9.81)))
    assert not player.still


def crosses(a, b, c, d) -> bool:
    """Whether the segments a-b and c-d (x, y points) cross."""
    def side(p, q, r):
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
    return side(a, b, c) * side(a, b, d) < 0 and side(c, d, a) * side(c, d, b) < 0


@pytest.mark.parametrize("left_first", [True, False], ids=["on the left", "on the right"])
@pytest.mark.parametrize("kick_off", [True, False], ids=["we kick off", "they kick off"])
def test_before_a_kick_off_no_two_players_walk_across_each_others_way(left_first, kick_off):
    """On the right the starting poses are the left's reflected in x, each player on the other
    touch line of its own frame: the kick-off places are mirrored with them."""
    ways = {}
    for number in (1, 2, 3, 4):
        player = Player(number, "blue", left_first)
        player.game = Game(state=gc.STATE_READY, kick_off=kick_off, first_half=True)
        start = player._start(first_half=True)[:2]
        place = player.ready_place()
        assert place[1] * start[1] >= 0, (number, start, place)      # on its own side of the field
        ways[number] = (start, place)
    for one, other in itertools.combinations(ways, 2):
        assert not crosses(*ways[one], *ways[other]), (one, other, ways)


def test_a_penalised_player_knows_it_stands_where_the_referee_put_it():
    """Taken off while walking: for the 30 s of the penalty the walk's last steps do not count."""
    world, rid = world_with(robot=(-1.0, 0.0, 0.0))
    player = Player(3, "red")
    player.me.place(-1.0, 0.0, 0.0)
    player.me.ball, player.me.ball_time = (2.0, 0.5), 0.0
    playing, penalised = Game(), Game(penalised=True)
    for i in range(int(40.0 / kid.STEP)):
        now = i * kid.STEP
        player.me.ball_time = now
        game = playing if now < 5.0 else penalised
        for joint, angle in player.act(sensed(world, rid, now), game).items():
            if now < 5.0:                                          # the referee holds its joints after
                world.set_position(rid, joint, angle)
        world.step()
        if i == int(4.9 / kid.STEP):
            assert player.walk.moving                              # it was walking when taken off
    # taken to the penalty mark's x on the touch line, the ball seen at y > 0: on the y < 0 line
    assert (player.me.x, player.me.y) == pytest.approx((-3.0, -3.06), abs=1e-9)


@pytest.mark.parametrize("after", [0.0, 5.0], ids=["while penalised", "after"])
def test_a_penalised_player_finds_which_touch_line_it_was_put_on_by_the_ball(after):
    """The ball was last seen at y > 0, so the player thinks itself on the y < 0 line; it sees
    the ball 1.06 m ahead and 3 m to its left, where a team-mate sees it at (0, 2) only if it
    stands on the y > 0 line, facing the other way."""
    player = Player(3, "red")
    player.me.place(-1.0, 0.0, 0.0)
    player.me.ball, player.me.ball_time = (0.0, 1.0), 0.0
    player._time = 1.0
    player._follow_game(Game(penalised=True))
    assert (player.me.x, player.me.y, player.me.heading) == pytest.approx((-3.0, -3.06, math.pi / 2))
    if after:
        player._time = 31.0
        player._follow_game(Game())
    now = 31.0 + after
    player.hear(2, 2.0, now, (0.0, 2.0))
    player._check_side(1.06, 3.0, now)                     # on the y < 0 line it would lie at (-6, -2)
    assert (player.me.x, player.me.y, player.me.heading) == pytest.approx((-3.0, 3.06, -math.pi / 2))
    player._check_side(1.06, 3.0, now)                     # now it fits: no more turns
    assert player.me.y == pytest.approx(3.06)
    player.hear(2, 2.0, now, (-3.0, 0.0))                  # a ball half way between the lines
    player._check_side(2.56, 0.3, now)                     # fits both as well: no turn
    assert player.me.y == pytest.approx(3.06)


def test_a_ball_seen_where_it_fits_neither_touch_line_does_not_turn_the_player_round():
    """A traced half: put on the line it thought (y < 0, facing the field), the player saw a ball
    6 m away where none lay; on the other line that sighting lies 8.7 m from where a team-mate
    sees the ball, on this one 9.9 m. Neither fits: it keeps its pose. A sighting near the
    team-mate's ball on the other line still turns it round."""
    player = Player(2, "red")
    player.me.ball, player.me.ball_time = (0.0, 1.0), 0.0
    player._time = 1.0
    player._follow_game(Game(penalised=True))
    assert (player.me.x, player.me.y) == pytest.approx((-3.0, -3.06))
    player.hear(3, 2.0, 2.0, (5.46, -2.48))
    player._check_side(5.99, -0.23, 2.0)
    assert (player.me.x, player.me.y, player.me.heading) == pytest.approx((-3.0, -3.06, math.pi / 2))
    player.hear(3, 2.0, 2.0, (-3.2, -2.5))                 # near the sighting turned to the other line
    player._check_side(5.99, -0.23, 2.0)
    assert (player.me.x, player.me.y) == pytest.approx((-3.0, 3.06))


def test_a_player_checks_its_touch_line_only_after_a_penalty_and_for_a_while():
    player = Player(3, "red")
    player.me.place(-3.0, -3.06, math.pi / 2)               # where a penalty puts it, but not penalised
    player.hear(2, 2.0, 1.0, (0.0, 2.0))
    player._check_side(1.06, 3.0, 1.0)                      # the same sighting: nothing to check
    assert player.me.y == pytest.approx(-3.06)
    player.me.ball, player.me.ball_time = (0.0, 1.0), 0.0
    player._time = 1.0
    player._follow_game(Game(penalised=True))
    player._time = 31.0
    player._follow_game(Game())
    late = 31.0 + SIDE_CHECK + 1.0
    player.hear(2, 2.0, late, (0.0, 2.0))
    player._check_side(1.06, 3.0, late)                     # too late: it has walked on since
    assert player.me.y == pytest.approx(-3.06)


def _decision(number: int, at: tuple[float, float, float], game: Game, ball=(0.0, 0.0), unseen: float = 0.1,
              told: tuple[float, float] | None = None):
    """Player ``number``'s walk (forward, sideways, turn) standing ``at`` (own frame), the ball
    last seen at ``ball`` ``unseen`` s ago; ``told``: where a team-mate said 0.5 s ago it sees it."""
    player = Player(number, "red")
    player.me.place(*at)
    player.me.ball, player.me.ball_time, player.game = ball, 0.0, game
    if told is not None:
        player.hear(4 if number != 4 else 3, math.dist(told, at[:2]), unseen - 0.5, told)
    return player._decide(Sensed(unseen, {}, (0.0, 0.0, 0.0), (0.0, 0.0, 9.81)))


def test_a_player_that_lost_the_ball_at_its_feet_steps_back_before_it_searches():
    """The camera does not see a ball under the torso: a ball last seen within AT_FEET, gone from
    the images for BALL_FORGET s, is looked for by stepping back for a while, then by turning."""
    at, near, far = (0.0, 0.0, 0.0), (0.3, 0.0), (2.0, 0.0)
    assert _decision(3, at, Game(), near, unseen=BALL_FORGET + 0.5) == (kid.MOST_BACKWARDS, 0.0, 0.0)
    assert _decision(3, at, Game(), near, unseen=BALL_FORGET + STEP_BACK + 0.5)[:2] == (0.0, 0.0)      # then turns
    assert _decision(3, at, Game(), far, unseen=BALL_FORGET + 0.5)[:2] == (0.0, 0.0)        # far: turns at once
    assert _decision(3, at, Game(), near, unseen=1.0)[0] > 0                                # seen lately: to it


def test_a_player_that_does_not_see_the_ball_looks_where_a_team_mate_sees_it_else_from_the_centre():
    """A team-mate's sighting (heard in the last HEARD_FOR s) takes a searching field player to
    LOOK_FROM m of it, facing it; without one it turns on the spot for TURN_ROUND s, then walks to the
    centre spot, from where the camera reaches every ball on the field. The goalkeeper only turns."""
    def search(number, at, unseen, told=None):
        return _decision(number, at, Game(), (3.0, 0.0), unseen, told)
    lost = BALL_FORGET + 1.0
    assert search(3, (-2.0, 0.0, 0.0), lost, told=(2.0, 0.0))[0] > 0.5                  # ahead: walks to it
    assert abs(search(3, (-2.0, 0.0, math.pi), lost, told=(2.0, 0.0))[2]) == 1.0          # behind: turns to it
    assert search(3, (1.5, 0.0, math.pi / 2), lost, told=(2.0, 0.0))[:2] == (0.0, 0.0)    # near enough: faces it
    assert search(3, (1.5, 0.0, 0.0), lost, told=(2.0, 0.0)) == (0.0, 0.0, 0.0)
    assert search(3, (-2.0, 0.0, 0.0), lost) == (0.0, 0.0, 1.0)                            # nobody sees it: turns
    assert search(3, (-2.0, 0.0, 0.0), BALL_FORGET + TURN_ROUND + 0.5)[0] > 0.5         # then to the centre
    assert search(3, (0.2, 0.1, 0.0), BALL_FORGET + TURN_ROUND + 0.5) == (0.0, 0.0, 1.0)   # there: turns
    assert search(1, (-4.1, 0.0, 0.0), lost, told=(2.0, 0.0)) == (0.0, 0.0, 1.0)          # the goalkeeper stays
    player = Player(3, "red")
    player.hear(2, math.inf, 0.0, (0.0, 0.0))                                            # not seeing it says nothing
    player.hear(4, 1.0, 0.0, (1.0, 1.0))
    player.hear(1, 0.5, 0.0, (1.2, 1.1))                                                  # the nearest tells best
    assert player._told_ball(0.5) == (1.2, 1.1) and player._told_ball(0.5 + HEARD_FOR) is None


def _walk_to_wait(number: int, at: tuple[float, float, float], game: Game, ball: tuple[float, float],
                  seconds: float = 25.0) -> list[tuple[float, float]]:
    """Player ``number``'s way (own-frame places, m, every 0.1 s) from ``at`` following its
    decisions, each moving it at the kid's full speeds times the shares asked for."""
    player = Player(number, "red")
    player.me.place(*at)
    player.me.ball, player.game = ball, game
    way = [at[:2]]
    for k in range(round(seconds / 0.1)):
        now = k * 0.1
        player.me.ball_time = now
        forward, sideways, turn = player._decide(Sensed(now, {}, (0.0, 0.0, 0.0), (0.0, 0.0, 9.81)))
        c, s = math.cos(player.me.heading), math.sin(player.me.heading)
        vx, vy = forward * kid.FULL_SPEED[0], sideways * kid.FULL_SPEED[1]
        player.me.place(player.me.x + 0.1 * (vx * c - vy * s), player.me.y + 0.1 * (vx * s + vy * c),
                        player.me.heading + 0.1 * turn * kid.FULL_TURN)
        way.append((player.me.x, player.me.y))
    return way


@pytest.mark.parametrize("number, at", [(2, (0.5, 0.05, math.pi)), (3, (0.5, 0.0, math.pi)),
                                        (4, (0.3, -0.4, 2.5)), (3, (0.0, 0.5, -math.pi / 2))],
                         ids=["2 beyond", "3 beyond", "4 beyond, right", "3 beside"])
def test_at_their_set_play_a_player_beyond_the_ball_walks_round_it_to_its_place(number, at):
    """The referee leaves robots 0.5 m from a set play's ball on whatever side they stood; an
    opponent's touch then is a warning and the set play is taken again. Walking to its waiting
    place the player keeps its torso 0.35 m from the ball (a foot's reach and the ball's
    radius; turning round at first it steps on slowly), once out of the free-kick distance
    (0.75 m) outside it, and gets there. Straight there, players 2 and 3 passed 0.05 and 0.13 m
    from the ball."""
    ball = (0.0, 0.0)
    way = _walk_to_wait(number, at, Game(their_set_play=True), ball)
    out = next(k for k, place in enumerate(way) if math.dist(place, ball) > 0.75)
    assert min(math.dist(place, ball) for place in way[:out]) > 0.35
    assert min(math.dist(place, ball) for place in way[out:]) > 0.75 - 0.05
    assert math.dist(way[-1], Player(number, "red")._wait_place(*ball)) < 0.15
    player = Player(number, "red")                          # straight there with the ball behind it
    player.me.place(-0.5, 0.0, 0.0)
    assert player._round_ball(0.0, 0.0, -1.3, 1.2) == (-1.3, 1.2)


def test_at_their_set_play_a_player_stands_until_it_sees_the_ball_put_on_its_spot():
    """When the set play's phase 0 ends the referee puts the ball on its spot, at times 0.5 to 1 m
    from where a player last saw it: until it sees it again, for PLACED_LOOK s at most, the player
    stands, turning to where it saw the ball; seeing it, or after that time, it walks to its place."""
    player = Player(3, "red")
    player.me.place(0.6, 0.3, math.pi)                      # on the ball's far side: it must go round
    player.me.ball, player.me.ball_time = (0.0, 0.0), 1.0   # (seen less than BALL_FORGET s ago throughout)

    def walk(now: float, phase: int) -> tuple[float, float, float]:
        player._follow_game(Game(their_set_play=True, phase=phase))
        player._time = now
        return player._decide(Sensed(now, {}, (0.0, 0.0, 0.0), (0.0, 0.0, 9.81)))

    assert walk(1.2, 0) != (0.0, 0.0, 0.0)                  # phase 0: on its way
    forward, sideways, _ = walk(1.3, 1)                     # the ball put down (at 1.2 s, the last step): stands
    assert (forward, sideways) == (0.0, 0.0)
    assert walk(1.2 + PLACED_LOOK - 0.1, 1)[:2] == (0.0, 0.0)
    assert walk(1.2 + PLACED_LOOK + 0.1, 1)[:2] != (0.0, 0.0)   # not seen in time: on its way
    player.me.ball_time = 10.0
    walk(10.5, 0)                                           # a retake: phase 0 again, then 1
    assert walk(10.6, 1)[:2] == (0.0, 0.0)
    player.me.ball, player.me.ball_time = (1.2, 0.3), 11.0    # seen where it now lies, behind it
    assert walk(11.1, 1)[:2] != (0.0, 0.0)


@pytest.mark.parametrize("game", [Game(their_set_play=True), Game(kick_off=False, free=False)],
                         ids=["their set play", "their ball waiting to be played"])
def test_at_their_restart_the_goalkeeper_keeps_its_goal_clear_of_the_ball_in_its_zone(game):
    """A ball in the goalkeeper's zone is the goalkeeper's to play, but not the other team's set
    play's: it keeps its goal, its place moved along the line out of the free-kick distance, and
    does not come nearer the ball on its way there (going for it, it touched it)."""
    ball = (-3.4, 0.3)
    assert _decision(1, (-4.1, 0.0, 0.0), Game(), ball)[0] > 0          # in play: goes for it
    way = _walk_to_wait(1, (-4.1, 0.0, 0.0), game, ball, seconds=15.0)
    assert min(math.dist(place, ball) for place in way) > 0.75
    assert way[-1] == pytest.approx((-4.1, 0.3 - math.sqrt(KEEP_AWAY ** 2 - 0.7 ** 2)), abs=0.15)


def test_a_player_turning_on_the_spot_steps_on_but_not_into_the_ball_before_it():
    player = Player(3, "red")
    player.me.place(0.3, 0.0, math.pi)                     # the ball 0.3 m ahead, the place behind it to the right
    assert player._go_to(0.3, -2.0, 0.0)[0] == pytest.approx(0.2)
    forward, sideways, turn = player._go_to(0.3, -2.0, 0.0, avoid=(0.0, 0.0))
    assert (forward, sideways) == (0.0, 0.0) and turn > 0.5
    assert player._go_to(0.3, -2.0, 0.0, avoid=(-0.6, 0.0))[0] == pytest.approx(0.2)   # 0.9 m ahead


def test_at_their_penalty_kick_the_goalkeeper_stands_on_its_line_and_the_others_leave_the_area():
    """The referee takes off, when the kick is taken, any defender between the penalty mark
    (1.5 m from the goal line) and the goal line but the goalkeeper on it."""
    theirs = Game(their_set_play=True, penalty_kick=True)
    mark = (-3.0, 0.0)
    assert _decision(1, (-4.1, 0.0, 0.0), theirs, mark)[0] < 0                  # back to the line
    assert _decision(1, (-4.55, 0.0, 0.0), theirs, mark)[:2] == (0.0, 0.0)      # there: stays
    assert _decision(2, (-3.6, 0.0, 0.0), theirs, mark)[0] > 0                  # out of the area
    assert _decision(2, (-2.0, 0.0, 0.0), theirs, mark)[:2] == (0.0, 0.0)       # 1 m before the mark
    # at their free kick the goalkeeper keeps its goal, 0.4 m before the line
    free_kick = Game(their_set_play=True)
    assert _decision(1, (-4.1, 0.0, 0.0), free_kick, mark)[:2] == (0.0, 0.0)


def test_at_their_kick_off_players_hold_their_places_until_the_ball_is_in_play():
    waiting = Game(kick_off=False, free=False)
    forward, sideways, turn = _decision(3, (-1.2, -1.0, 0.0), waiting)
    assert (forward, sideways) == (0.0, 0.0) and turn > 0                       # turns to face the ball
    assert _decision(3, (-1.2, -1.0, 0.0), Game(kick_off=False))[0] > 0          # in play: to the ball
    assert _decision(3, (-0.5, -0.3, 0.0), waiting)[:2] != (0.0, 0.0)           # too near: walks away


@pytest.mark.parametrize("left_first", [True, False], ids=["on the left", "on the right"])
def test_at_our_kick_off_the_taker_stands_in_our_half_ready_to_kick_then_kicks_towards_the_goal(cameras, left_first):
    """Player 4 stands at its kick's place short of the centre spot in the ready state, its
    whole body in our half (else the referee takes it off at set); once the ball waits to be put in
    play it steps up, stands and kicks it with the foot on its side of the ball, at most a few
    seconds of the 10 the ball waits for it."""
    taker = Player(KICK_OFF_TAKER, "red", left_first)
    start = taker._start(first_half=True)
    taker.me.place(*start)
    taker.game = Game(state=gc.STATE_READY)
    x, y, heading = taker.ready_place()
    assert -0.5 < x < -0.35 and 0.0 < y * start[1] and abs(heading) < 0.2, (x, y, heading)
    assert taker._foot == ("right" if start[1] > 0 else "left")        # the ball on its side of the robot
    world, rid = world_with(robot=(x, y, heading), ball=(0.0, 0.0))
    taker.me.place(x, y, heading)                                    # walked there
    render = cameras(world)
    pending, kicked_at = [], None
    for i in range(int(9.0 / kid.STEP)):
        now = i * kid.STEP
        game = Game(state=gc.STATE_SET) if now < 1.5 else Game(kick_off=True, free=False)
        image = render.image(rid, "camera", camera.WIDTH, camera.HEIGHT) if i % 8 == 0 else None
        s = sensed(world, rid, now, image)
        pending.append(taker.act(s, game, look=False))
        taker.look(s)
        if kicked_at is None and taker.motion is not None:
            kicked_at = now
        if len(pending) > 2:
            for joint, angle in pending.pop(0).items():
                world.set_position(rid, joint, angle)
        world.step()
        if i == int(1.4 / kid.STEP):                            # at set: wholly in our half
            ground, _ = world.contacts()
            assert np.max(ground[rid][:, 0]) < -0.2, ground[rid]
    (bx, by, _), _ = world.ball()
    assert kicked_at is not None and kicked_at < 7.5 and world.upright(rid) > 0.5, kicked_at
    assert bx > 1.5 and abs(math.atan2(by, bx)) < 0.3, (bx, by)     # towards the goal


def test_at_our_set_play_the_taker_waits_behind_the_ball_until_it_may_be_played():
    """A touch of the ball before the set play's end is a warning (two make a yellow card)."""
    ours = Game(our_set_play=True)
    ball = (1.0, 0.0)
    assert _decision(3, (0.6, 0.0, 0.0), ours, ball)[0] < 0                    # too near: backs off
    assert _decision(3, (0.4, 0.0, 0.0), ours, ball)[:2] == (0.0, 0.0)         # 0.6 m behind: waits
    assert _decision(3, (0.4, 0.0, 0.0), Game(), ball)[0] > 0                  # the set play over: goes
    assert _decision(1, (-4.1, 0.0, 0.0), ours, (-3.5, 0.0))[:2] == (0.0, 0.0)  # the goalkeeper stays
    # the ball on its spot (phases 1 and 2): to where it lies STAGE m beyond the kick's place
    placed = Game(our_set_play=True, phase=1)
    assert _decision(3, (0.4, 0.0, 0.0), placed, ball)[0] > 0
    taker = Player(3, "red")
    taker.me.place(0.4, 0.1, 0.0)
    x, y, heading = taker._kick_place(*ball, STAGE)
    assert taker._foot == "right" and math.dist((x, y), ball) == pytest.approx(0.33, abs=0.01)
    assert _decision(3, (x, y, heading), placed, ball)[0] == pytest.approx(CREEP)  # there: steps up


def test_at_our_set_play_the_taker_stands_ready_short_of_the_ball_and_kicks_as_it_ends():
    """In phases 1 and 2 the taker stops with the ball in the kick window's far part (from
    EARLY_NEAR m, clear of its feet: a touch is a warning) and stands there; at the set play's end
    it has stood long enough and kicks at once (benchmarks/bench_restart.py: in play after a
    median 2.2 and 1.0 s, not 4.4 and 4.6)."""
    (near, far), _ = KICK_WINDOW
    short = player_facing_a_ball_before_its_right_foot((near + EARLY_NEAR) / 2)    # in the window, too near
    short.game = Game(our_set_play=True, phase=1)
    short._foot = "right"
    assert short._decide(Sensed(0.0, {}, (0.0, 0.0, 0.0), (0.0, 0.0, 9.81)))[0] == pytest.approx(-CREEP)
    taker = player_facing_a_ball_before_its_right_foot((EARLY_NEAR + far) / 2)
    taker.game, taker._foot = Game(our_set_play=True, phase=1), "right"
    for i in range(300):                                        # 2.4 s of phases 1 and 2 (the ball seen at 0 s)
        taker.act(Sensed(i * kid.STEP, {}, (0.0, 0.0, 0.0), (0.0, 0.0, 9.81)))
        assert taker.still and taker.kicking is None and taker.motion is None, i
    taker.act(Sensed(300 * kid.STEP, {}, (0.0, 0.0, 0.0), (0.0, 0.0, 9.81)), Game(free=False))   # the set play over
    assert taker.motion is not None                                            # the kick under way


def test_after_a_set_play_the_team_whose_set_play_it_was_puts_the_ball_in_play():
    """The packets name the half's kick-off team while the ball waits its 10 s after an executed
    set play: the awarded team (here blue, which did not kick off) goes to the ball, and the other
    keeps out of the free-kick distance, where the referee would take it off."""
    def packet(secondary_state, info=0, secondary_time=0):
        teams = (gc.TeamInfo(7, gc.TEAM_BLUE), gc.TeamInfo(9, gc.TEAM_RED))
        return gc.GameData(teams, state=gc.STATE_PLAYING, kick_off_team=9, secondary_state=secondary_state,
                           secondary_state_info=bytes((info, 2, 0, 0)), secondary_time=secondary_time)
    set_play = packet(gc.STATE2_DIRECT_FREEKICK, info=7, secondary_time=3)
    waiting = packet(gc.STATE2_NORMAL, secondary_time=10)
    ball = (1.0, 0.0)

    def after(colour, at, *packets):
        follower = Player(3, colour)
        for data in packets:
            follower._follow_game(Game.from_packet(data, colour, 3))
        return follower.game, _decision(3, at, follower.game, ball)

    game, walk = after("blue", (0.4, 0.0, 0.0), set_play)
    assert game.our_set_play and walk[0] > 0                                # to its kick's place
    game, walk = after("blue", (0.4, 0.0, 0.0), set_play, waiting, waiting)
    assert game.kick_off and not game.free and walk[0] > 0                  # then plays it
    game, walk = after("red", (0.7, 0.2, 0.75 * math.pi), set_play, waiting, waiting)
    assert not game.kick_off and walk[0] > 0.5                              # too near: walks away to its place
    game, walk = after("red", (-1.0, 0.0, 0.0), set_play, waiting)
    assert walk[:2] == (0.0, 0.0)                                           # out of it: stays
    # after a kick-off the packets' kicking team restarts
    kicked_off = packet(gc.STATE2_NORMAL, secondary_time=8)
    assert after("red", (-1.0, 0.0, 0.0), kicked_off, kicked_off)[0].kick_off
    assert not after("blue", (-1.0, 0.0, 0.0), kicked_off, kicked_off)[0].kick_off


def test_at_a_dropped_ball_both_teams_go_to_the_ball_at_once():
    """A dropped ball's packets name no kicking team (128) while its 10 s count down, and either
    team may play it (the referee keeps no one away): neither waits."""
    teams = (gc.TeamInfo(7, gc.TEAM_BLUE), gc.TeamInfo(9, gc.TEAM_RED))
    dropped = gc.GameData(teams, state=gc.STATE_PLAYING, kick_off_team=gc.DROPPED_BALL_TEAM, secondary_time=8)
    for colour in ("red", "blue"):
        game = Game.from_packet(dropped, colour, 3)
        assert game.free and _decision(3, (-1.5, 0.0, 0.0), game, (0.0, 0.0))[0] > 0.5
    kicked_off = replace(dropped, kick_off_team=9)                       # a kick-off's ball: blue waits
    assert _decision(3, (-1.5, 0.0, 0.0), Game.from_packet(kicked_off, "blue", 3), (0.0, 0.0))[:2] == (0.0, 0.0)
