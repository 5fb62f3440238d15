"""The sample SimSpark team (issue 32): self-localisation from the See perceptor, and sample
players that play through the real server in sync mode (real TCP on 127.0.0.1)."""

import asyncio
import math

import pytest
from threaded import in_thread

from simleague.simspark.agent import (AGAIN_CYCLES, AGAIN_WINDOW, BEND_CYCLES, DOWN_CYCLES, KICK_SPOT, LYING_CYCLES,
                                      SHOOT_X, STAND_BEFORE_KICK, Player)
from simleague.simspark.client import AgentClient, Perception, Seen
from simleague.simspark.game import Game
from simleague.simspark.localisation import LANDMARKS, Localiser, fit_pose, in_robot_frame, to_field, to_robot
from simleague.simspark.match import play
from simleague.simspark.motions import FINISH, kick
from simleague.simspark.server import SimSparkOptions, SimSparkServer
from simleague.simspark.walk import CYCLE


def seen_from(pose, names, pan=0.0):
    """The polar coordinates (as See gives them, camera 0.5 m up, head turned by ``pan`` degrees)
    of the named landmarks from a robot at ``pose`` (x, y, heading rad), field frame."""
    out = {}
    for name in names:
        x, y = to_robot(pose, LANDMARKS[name])
        z = (0.8 if name.startswith("G") else 0.0) - 0.5
        h = math.degrees(math.atan2(y, x)) - pan
        out[name] = (math.sqrt(x * x + y * y + z * z), h, math.degrees(math.atan2(z, math.hypot(x, y))))
    return out


def test_a_seen_object_is_put_where_it_lies_in_the_robot_frame_for_any_head_angle():
    x, y, z = in_robot_frame((2.0, 0.0, 0.0), pan=30.0, tilt=0.0)
    assert (x, y) == pytest.approx((2 * math.cos(math.radians(30)), 2 * math.sin(math.radians(30))))
    # looking 20 degrees down, an object seen 20 degrees up lies level ahead
    x, y, z = in_robot_frame((1.5, 0.0, 20.0), pan=0.0, tilt=-20.0)
    assert (x, y, z) == pytest.approx((1.5, 0.0, 0.0), abs=1e-9)


@pytest.mark.parametrize("pose", [(-5.0, 3.0, 0.5), (10.0, -7.0, 2.8), (0.0, 0.0, -1.2)])
def test_the_pose_is_fitted_from_the_landmarks_seen(pose):
    seen = seen_from(pose, ["F1L", "G1L", "G2L", "F2L", "F1R", "F2R"])
    pairs = [(in_robot_frame(pol, 0.0, 0.0)[:2], LANDMARKS[name]) for name, pol in seen.items()]
    x, y, heading = fit_pose(pairs)
    assert (x, y) == pytest.approx(pose[:2], abs=1e-6)
    assert heading == pytest.approx(pose[2], abs=1e-6)
    # one landmark and a known heading fix the position
    assert fit_pose(pairs[:1], heading=pose[2])[:2] == pytest.approx(pose[:2], abs=1e-6)
    # too few landmarks, or two seen much closer together than they stand: no fit
    assert fit_pose(pairs[:1]) is None
    assert fit_pose([pairs[0], (pairs[1][0], LANDMARKS["F2R"])]) is None


def test_the_running_estimate_follows_sightings_in_the_teams_frame():
    pose = (4.0, -2.0, 0.3)                          # field frame
    seen = Seen(landmarks=seen_from(pose, ["F1R", "F2R", "G1R", "G2R"], pan=25.0))
    ball = to_field(pose, (1.0, 0.2))
    x, y = to_robot(pose, ball)
    seen.ball = (math.hypot(math.hypot(x, y), 0.5), math.degrees(math.atan2(y, x)) - 25.0,
                 math.degrees(math.atan2(-0.5, math.hypot(x, y))))
    for side, expected, expected_ball in (("left", pose, ball),
                                          ("right", (-4.0, 2.0, 0.3 - math.pi), (-ball[0], -ball[1]))):
        where = Localiser(side)
        for cycle in range(20):
            where.update(cycle * 0.02, 0.0, seen, 25.0, 0.0)
        x, y, heading = where.estimate.pose
        assert (x, y) == pytest.approx(expected[:2], abs=1e-6)
        assert math.cos(heading - expected[2]) == pytest.approx(1.0)
        assert where.estimate.ball == pytest.approx(expected_ball, abs=1e-6)


def test_sightings_just_after_a_beam_are_not_believed():
    where = Localiser("left")
    where.moved((-3.0, 1.0, 0.0))
    stale = Seen(landmarks=seen_from((5.0, 5.0, 1.0), ["F1R", "F2R", "G1R"]))
    where.update(0.0, 0.0, stale, 0.0, 0.0)
    assert where.estimate.pose == pytest.approx((-3.0, 1.0, 0.0))


def test_a_sample_player_knows_where_it_stands_through_the_server():
    """A sample player beamed into its place, seeing with the original's noise, through the real
    server in sync mode: its estimate is the robot's true place within 15 cm and 5 degrees."""
    game = Game(seed=3)
    server = SimSparkServer(game, SimSparkOptions("127.0.0.1", 0, 0, realtime=False, sync=True))
    with in_thread(server), AgentClient("127.0.0.1", server.agent_port) as client:
        client.scene(0)
        client.receive()
        client.init(4, "Sample")
        player = None
        for _ in range(250):
            seen = client.receive()
            if seen.side is not None:
                player = Player(seen.unum, seen.side, "Sample", 11)
            if player is None:
                client.act({}, syn=True)
                continue
            speeds, beam = player.think(seen)
            if beam is not None:
                client.beam(*beam)
            client.act(speeds, syn=True)
        robot = next(iter(game.agents.values())).robot
        position, _ = game.world.pose(robot, "torso")
        x, y, heading = player.where.estimate.pose
        assert math.dist((x, y), position[:2]) < 0.15
        assert abs(math.degrees(math.remainder(heading - game.world.heading(robot), math.tau))) < 5.0


def test_a_sample_player_takes_the_kick_off_and_dribbles_towards_the_goal():
    """One sample player a side (separate processes, real TCP): the left one kicks off and
    carries the ball into the opponent's half."""
    result = asyncio.run(play(agents=1, seed=0, half_time=40.0))
    assert result.contacts[0] >= 1                 # the robots join at cycles the processes decide:
    assert result.ball_travel >= 3.0              # 8 runs moved the ball 5.1-15.3 m


@pytest.mark.parametrize("foot, side", [("right", 1.0), ("left", -1.0)])
def test_a_player_lines_up_the_ball_before_the_foot_it_lies_nearer_and_kicks_with_that_foot(foot, side):
    player = Player(2, "left", "A")
    spot = (KICK_SPOT[0], side * KICK_SPOT[1])
    p = Perception(joints={"rlj3": 0.0, "llj3": 0.0})
    player.foot = foot
    for _ in range(STAND_BEFORE_KICK):
        assert player.motion is None
        targets = player.line_up(spot, 0.0, p)
    expected = kick(p.joints, foot)
    assert targets == expected.step()
    assert [player.motion.step() for _ in range(5)] == [expected.step() for _ in range(5)]
    # off the spot, the player steps towards it instead
    other = Player(2, "left", "A")
    other.foot = foot
    other.line_up((spot[0], spot[1] + side * 0.1), 0.0, p)
    assert other.motion is None and other.standing == 0


def test_a_player_that_leaves_the_ball_to_a_team_mate_forgets_its_kick():
    """Standing on the kick spot, a player that hears a team mate nearer the ball leaves it: it
    no longer counts as lining up or standing for a kick (its head used to stay straight and down,
    as for the kick, while it walked back to its place)."""
    player = Player(2, "left", "A")
    e = player.where.estimate
    e.pose, e.ball, e.ball_seen, e.ball_near = (SHOOT_X + 1.0, 0.0, 0.0), (SHOOT_X + 1.2, 0.0), 10.0, KICK_SPOT
    p = Perception(time=10.0, play_mode="PlayOn", joints={"rlj3": 0.0, "llj3": 0.0})
    for _ in range(5):
        player.play(p)
    assert player.lining == 5 and player.standing > 0 and player.motion is None
    player.heard[3] = (0.05, 10.0)                        # number 3 says it is 5 cm from the ball
    player.play(p)
    assert not player.has_ball
    assert player.lining == 0 and player.standing == 0


@pytest.mark.parametrize("unum, x, kicks", [(2, SHOOT_X - 3.0, False), (2, SHOOT_X + 1.0, True),
                                            (1, -13.5, True)])
def test_a_field_player_dribbles_the_ball_until_it_is_near_the_opponents_goal(unum, x, kicks):
    """Behind the ball and facing the goal, with the ball on the kick spot: a field player walks
    on through the ball short of SHOOT_X and stops to kick it beyond; the goalkeeper kicks the
    ball out of its penalty area."""
    player = Player(unum, "left", "A")
    e = player.where.estimate
    e.pose, e.ball, e.ball_seen, e.ball_near = (x, 0.0, 0.0), (x + 0.2, 0.0), 10.0, KICK_SPOT
    p = Perception(time=10.0, play_mode="PlayOn", joints={"rlj3": 0.0, "llj3": 0.0})
    stood = False
    for _ in range(STAND_BEFORE_KICK + 20):
        player.play(p)
        stood = stood or player.standing > 0
    assert stood is kicks and (player.motion is not None) is kicks
    assert player.walk.moving is not kicks


def test_a_jolt_while_walking_does_not_make_a_player_leave_the_ball():
    """A single cycle's jolt of the accelerometer (a step) is no fall: the player on the ball
    tells its team mates its distance to the ball as before and keeps going for it. It used to add
    the 5 m of a robot down for that cycle, so the role flickered between team mates every few
    cycles in a match. Down for DOWN_CYCLES, or getting up, it does add them."""
    player = Player(2, "left", "A")
    e = player.where.estimate
    e.pose, e.ball, e.ball_seen = (-1.0, 0.0, 0.0), (0.0, 0.0), 10.0
    player.heard[3] = (1.4, 10.0)                          # number 3: 1.4 m from the ball
    player.bent = BEND_CYCLES                              # already in the walking crouch
    said = []
    for n, acceleration in enumerate([(0.0, 0.0, 9.81)] * 3 + [(0.0, 9.0, 3.0)] + [(0.0, 0.0, 9.81)] * 3):
        p = Perception(time=10.0 + n * CYCLE, play_mode="PlayOn", acceleration=acceleration,
                       joints=dict.fromkeys(FINISH[1], 0.0))
        player.think(p)
        said.append(player.message(p.time))
        assert player.has_ball
    assert said == ["2b100"] * 7
    player.lying = DOWN_CYCLES
    assert player.message(11.0) == "2b600"


def polar(x, y, z=-0.3):
    """See's polar coordinates (camera frame, head straight) of a point at robot frame (x, y, z)."""
    return (math.sqrt(x * x + y * y + z * z), math.degrees(math.atan2(y, x)), math.degrees(math.atan2(z, math.hypot(x, y))))


def test_the_robots_seen_are_kept_in_the_robot_frame_and_forgotten_after_half_a_second():
    """Other robots, each the mean of its parts seen; the robot's own arm, seen below its lowered
    head, is no robot in its way (a player going for the ball side-stepped its own arm, 0.11 m/s
    instead of walking on)."""
    where = Localiser("left", me=("A", 2))
    seen = Seen(players=[("B", 3, {"head": polar(0.6, 0.1, 0.0), "rfoot": polar(0.6, 0.2, -0.5)}),
                         ("A", 4, {"head": polar(2.0, -1.0, 0.0)}), ("A", 2, {"llowerarm": polar(0.1, 0.15, -0.2)})])
    where.update(1.0, 0.0, seen, 0.0, 0.0)
    assert [team for team, _, _ in where.estimate.others] == ["B", "A"]
    assert [v for _, x, y in where.estimate.others for v in (x, y)] == pytest.approx([0.6, 0.15, 2.0, -1.0])
    where.update(1.4, 0.0, None, 0.0, 0.0)
    assert len(where.estimate.others) == 2                 # not seen every cycle: still believed
    where.update(1.6, 0.0, None, 0.0, 0.0)
    assert where.estimate.others == ()


@pytest.mark.parametrize("other, aside", [(("B", 0.5, 0.1), -1.0), (("B", 0.5, -0.1), 1.0), (("A", 0.7, 0.3), -1.0),
                                          (("B", 0.5, 0.5), 0.0), (("A", -0.4, 0.0), 0.0), (("A", 1.5, 0.0), 0.0)])
def test_a_player_walking_to_its_place_steps_aside_of_a_robot_in_its_way(other, aside):
    """Walking 3 m straight ahead: a robot seen less than 0.8 m ahead and 0.35 m aside makes the
    player step away from it (to its right when the robot is left of its path); one off the path,
    behind it or further on does not. Going for the ball, only a team mate (A) is avoided."""
    commands = []

    def walked(duel):
        player = Player(5, "left", "A")
        player.where.estimate.pose = (-3.0, 0.0, 0.0)
        player.where.estimate.others = (other,)
        player.walk.step = lambda forward, sideways=0.0, turn=0.0, gyro=None: commands.append((forward, sideways)) or {}
        player.go_to((0.0, 0.0), (5.0, 0.0), (0.0, 0.0, 0.0), duel=duel)
        return commands.pop()

    for duel in (False, True):
        forward, sideways = walked(duel)
        expected = aside if not (duel and other[0] == "B") else 0.0
        assert sideways == expected
        assert forward < 1.0 if expected else forward == 1.0


def test_a_player_going_for_the_ball_walks_on_with_its_own_arm_in_view():
    """The arm See shows below the lowered head is the player's own (its team and number): it
    walks on at full stride; a team mate's arm in the same place makes it step aside."""
    for unum, aside in ((5, 0.0), (6, 1.0)):
        player = Player(5, "left", "A")
        player.where.estimate.pose = (-3.0, 0.0, 0.0)
        player.where.update(1.0, 0.0, Seen(players=[("A", unum, {"llowerarm": polar(0.1, 0.15, -0.2)})]), 0.0, 0.0)
        commands = []
        player.walk.step = lambda forward, sideways=0.0, turn=0.0, gyro=None: commands.append((forward, sideways)) or {}
        player.go_to((0.0, 0.0), (5.0, 0.0), (0.0, 0.0, 0.0), duel=True)
        assert commands == [(0.2 if aside else 1.0, -aside)]


def test_a_player_lying_on_a_side_does_not_lie_there_for_ever():
    """On a side and still, the player starts its roll after LYING_CYCLES, as a get-up (it used
    to lie still with its arms down for the rest of the half)."""
    player, joints = Player(2, "left", "A"), dict.fromkeys(FINISH[1], 0.0)
    for n in range(1, 200):
        player.think(Perception(time=n * CYCLE, play_mode="PlayOn", acceleration=(9.7, 0.0, 1.2), joints=joints))
        if player.motion is not None:
            break
    assert player.motion is not None and n == LYING_CYCLES and player.getting_up
    assert player.motion.step()["rlj4"] < 0.0                               # bending its knees to roll


def test_a_player_down_again_just_after_a_get_up_tries_again_sooner_than_after_a_knock():
    """Lying on its back and still: the first get-up after LYING_CYCLES; down again within
    AGAIN_WINDOW of that get-up's end, the next after AGAIN_CYCLES; down long after, LYING_CYCLES."""
    player, clock = Player(2, "left", "A"), iter(range(10**6))
    joints = dict.fromkeys(FINISH[1], 0.0)

    def cycle(acceleration):
        player.think(Perception(time=next(clock) * CYCLE, play_mode="PlayOn", acceleration=acceleration,
                                joints=joints))

    def cycles_to_get_up():
        for n in range(1, 500):
            cycle((0.0, 9.81, 0.0))                          # on its back, not turning
            if player.motion is not None:
                return n
        raise AssertionError("no get-up")

    def finish_motion():
        while player.motion is not None:
            cycle((0.0, 0.0, 9.81))                          # rising

    assert cycles_to_get_up() == LYING_CYCLES
    finish_motion()
    assert cycles_to_get_up() == AGAIN_CYCLES                # straight down again: the get-up failed
    finish_motion()
    for _ in range(round(AGAIN_WINDOW / CYCLE) + 1):          # up for longer than the window
        cycle((0.0, 0.0, 9.81))
    assert cycles_to_get_up() == LYING_CYCLES
