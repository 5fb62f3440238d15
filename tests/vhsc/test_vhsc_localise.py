"""The sample player's place from the painted lines it sees (issue 32: localisation from the robot's
own perception): white on the turf in rendered camera images, laid on the field's lines
(simleague.vhsc.localise), and the player's estimate put right by it."""

import math

import numpy as np
import pytest
from gl import need_a_gl_platform

from simleague.soccer.humanoids import HumanoidWorld
from simleague.soccer.models import find_model
from simleague.vhsc import camera, kid, localise
from simleague.vhsc import gamecontroller as gc
from simleague.vhsc.player import FIELD_LINES, Game, Player, Sensed
from simleague.vhsc.setup import BUILT_IN_MODELS, KID_FIELD, MARKINGS

KID = find_model("kid", [BUILT_IN_MODELS])
MAP = localise.line_map(FIELD_LINES, KID_FIELD.field_length, KID_FIELD.field_width)


@pytest.fixture
def render():
    """A standing kid at (-1.0, 0.6), facing 0.3 rad (the centre circle and halfway line ahead), the
    ball off the field, and a renderer of its camera."""
    need_a_gl_platform()
    from simleague.soccer.cameras import Cameras
    world = HumanoidWorld(KID_FIELD, painted=MARKINGS["kid"].lines(KID_FIELD))     # as a match's
    rid = world.add_robot(KID, -1.0, 0.6, 0.3)
    world.place_ball((100.0, 100.0, KID_FIELD.ball_radius))
    cameras = Cameras(world)
    yield world, rid, cameras
    cameras.close()


def view(world, rid, cameras, pitch: float, yaw: float):
    """The robot in the crouch, its head at ``pitch``, ``yaw`` (rad): its camera image and the
    camera's pose."""
    for joint, angle in (kid.stand(kid.walk()) | {"head_pitch": pitch, "head_yaw": yaw}).items():
        world.set_position(rid, joint, angle)
    for _ in range(400):                       # settled: the accelerometer shows gravity alone
        world.step()
    tilt = camera.tilt(world.sensor(rid, "accelerometer"))
    pose = camera.camera_pose(kid.TORSO_HEIGHT, *tilt, world.position(rid, "head_yaw"),
                              world.position(rid, "head_pitch"))
    return cameras.image(rid, "camera", camera.WIDTH, camera.HEIGHT), pose


def laid(points, x, y, heading):
    c, s = math.cos(heading), math.sin(heading)
    return points @ np.array([[c, s], [-s, c]]) + np.array([x, y])


def test_the_player_knows_the_lines_a_match_paints():
    assert np.array_equal(FIELD_LINES, MARKINGS["kid"].lines(KID_FIELD))


def test_white_on_the_turf_is_found_where_the_lines_lie_and_the_ball_is_left_out(render):
    world, rid, cameras = render
    (x, y, _), heading = world.pose(rid)[0], world.heading(rid)
    image, pose = view(world, rid, cameras, 0.5, 0.0)
    points = camera.find_lines(image, *pose)
    assert len(points) >= 40
    assert np.mean(MAP.cost(laid(points, x, y, heading)) < localise.ON_LINE) > 0.9
    # the ball on a line is no line; without the sighting its white is taken for one
    world.place_ball((0.0, 0.9, KID_FIELD.ball_radius))
    image, pose = view(world, rid, cameras, 0.5, 0.0)
    ball = camera.find_ball(image, *pose)
    assert ball is not None
    near_ball = [math.dist(p, (ball.x, ball.y)) < 0.12 for p in camera.find_lines(image, *pose)]
    assert any(near_ball)
    assert not any(math.dist(p, (ball.x, ball.y)) < 0.12 for p in camera.find_lines(image, *pose, ball))
    with pytest.raises(ValueError, match="320 x 240 pixels"):
        camera.find_lines(b"abc", *pose)


def test_the_penalty_mark_is_not_taken_for_the_ball(render):
    world, rid, cameras = render
    world.place_robot(rid, 1.9, 0.0, 0.0)                     # the mark 1.1 m ahead, the areas' lines, the goal
    for pitch in (0.3, 0.5):
        image, pose = view(world, rid, cameras, pitch, 0.0)
        assert camera.find_ball(image, *pose) is None
        assert len(camera.find_lines(image, *pose)) > 0


@pytest.mark.parametrize("off", [(0.25, -0.2, 0.04), (-0.3, 0.3, -0.05), (0.0, 0.0, 0.0)])
def test_the_lines_seen_put_a_pose_estimate_right(render, off):
    world, rid, cameras = render
    (x, y, _), heading = world.pose(rid)[0], world.heading(rid)
    image, pose = view(world, rid, cameras, 0.5, 0.0)
    points = camera.find_lines(image, *pose)
    found = localise.fix(MAP, points, x + off[0], y + off[1], heading + off[2])
    if off == (0.0, 0.0, 0.0):
        assert found is None                                       # nothing better than where it is
        return
    assert found is not None
    assert math.hypot(off[0] + found.dx, off[1] + found.dy) < 0.06, found
    assert abs(off[2] + found.turn) < 0.03, found


@pytest.mark.parametrize("x, y, distance", [
    (0.0, 1.0, 0.0), (0.1, 1.0, 0.075),                      # the halfway line, 5 cm wide
    (0.5, 0.5, 0.75 - math.hypot(0.5, 0.5)),                # inside the centre circle
    (2.48, 0.0, 0.02), (4.6, 1.0, 0.1),                     # before the penalty area's line; beyond the goal line
    (1.5, 1.5, localise.CAP), (9.0, 9.0, localise.CAP),     # nowhere near a line; off the map
])
def test_the_line_map_gives_each_place_its_distance_to_the_nearest_line(x, y, distance):
    assert MAP.cost(np.array([x, y])) == pytest.approx(distance, abs=localise.CELL)


def test_a_straight_line_alone_puts_a_pose_right_across_it_only():
    # a robot at (-1, 0) facing +x sees the halfway line 1 m ahead, from y -1 to 1
    points = np.stack([np.full(60, 1.0), np.linspace(-1.0, 1.0, 60)], axis=1)
    found = localise.fix(MAP, points, -1.3, 0.4, 0.0)                # 0.3 m short, 0.4 m to the left
    assert found is not None
    assert found.dx == pytest.approx(0.3, abs=0.03) and abs(found.dy) < 0.03 and abs(found.turn) < 0.02


def test_too_few_points_or_white_that_lies_on_no_line_give_no_fix():
    rng = np.random.default_rng(3)
    assert localise.fix(MAP, np.array([[1.0, 0.0]] * (localise.LEAST_POINTS - 1)), -1.0, 0.0, 0.0) is None
    scattered = rng.uniform(-2.0, 2.0, size=(80, 2))                 # white here and there: robots' lit faces
    assert localise.fix(MAP, scattered, -1.4, 1.3, 0.0) is None


def test_a_player_off_where_it_stands_finds_its_place_from_the_lines(render):
    world, rid, cameras = render
    (x, y, _), heading = world.pose(rid)[0], world.heading(rid)
    player = Player(3, "red")
    player.me.place(x + 0.35, y - 0.3, heading)
    player.game = Game(state=gc.STATE_PLAYING)
    angles = {m.name: world.position(rid, m.name) for m in KID.motors}
    for k, yaw in enumerate([0.0, 0.4, -0.4] * 5):                # the head sweeping, a look each 0.25 s
        image, _ = view(world, rid, cameras, 0.5, yaw)
        angles = {m.name: world.position(rid, m.name) for m in KID.motors}
        player.look(Sensed(0.25 * k, angles, (0.0, 0.0, 0.0), tuple(world.sensor(rid, "accelerometer")), image))
    assert math.dist((player.me.x, player.me.y), (x, y)) < 0.08, (player.me.x, player.me.y, x, y)
