"""The sample agent: its dead reckoning against the world's true poses, and a whole scored trial."""

import json
import math

import numpy as np
import pytest

from golden import LABS
from test_ciberrato_trial import simleague

from simleague.ciberrato.agent import Brain
from simleague.ciberrato.scenario import load_scenario
from simleague.ciberrato.types import Observation
from simleague.ciberrato.world import World

MANGA1 = (LABS / "CiberRato2008" / "Ciber2008_Manga1Lab.xml", LABS / "CiberRato2008" / "Ciber2008_Manga1Grid.xml")
FINAL = (LABS / "CiberRato2008" / "Ciber2008_FinalLab.xml", LABS / "CiberRato2008" / "Ciber2008_FinalGrid.xml")


def _started_alone(scenario, seed: int):
    """One sample agent on ``scenario``'s grid position 1, in-process: registered, seven Measures
    before the Start (as over the network: the compass settles), then started. Returns (world,
    robot id, brain)."""
    world = World(scenario, seed=seed)
    rid = world.add_robot("alone")
    p = scenario.params
    brain = Brain(len(scenario.lab.beacons), p.compass_latency, p.beacon_latency)
    world.step()                                    # registered; Measures exist from here on
    for _ in range(7):                              # waiting for Start: the compass settles
        world.step({rid: brain.decide(world.observe(rid))})
    world.start()
    return world, rid, brain


def test_dead_reckoning_follows_the_true_pose_with_noise_on():
    scenario = load_scenario(*FINAL)
    world, rid, brain = _started_alone(scenario, seed=5)
    home = scenario.grid.positions[0]
    worst = 0.0
    for _ in range(400):
        world.step({rid: brain.decide(world.observe(rid))})
        worst = max(worst, math.hypot(home.x + brain.x - world.x[0], home.y + brain.y - world.y[0]))
    assert world.cycle == 399                         # the step after Start still has Time 0
    assert math.hypot(world.x[0] - home.x, world.y[0] - home.y) > 3     # it went somewhere
    assert worst < 0.4
    heading_error = (brain.th - world.theta[0] + math.pi) % (2 * math.pi) - math.pi
    assert abs(math.degrees(heading_error)) < 5


def test_sample_agent_finishes_a_2008_lab_over_udp():
    r = simleague("ciberrato", "trial", "--lab", MANGA1[0], "--grid", MANGA1[1], "--agents", 1,
                  "--mode", "lockstep", "--seed", 1, "--json")
    assert r.returncode == 0, r.stderr
    (robot,) = json.loads(r.stdout)["robots"]
    assert robot["state"] == "Finished"
    assert robot["visited"] == "1"
    # 2008 rules: I = 300; the visit takes 100 and the return signal another 100
    assert robot["score"] < 100


MANGA2 = (LABS / "CiberRato2008" / "Ciber2008_Manga2Lab.xml", LABS / "CiberRato2008" / "Ciber2008_Manga2Grid.xml")


@pytest.mark.parametrize("files", [FINAL, MANGA2, (None, None)], ids=["Final", "Manga2", "bundled"])
@pytest.mark.parametrize("seed", [1, 2])
def test_alone_the_sample_agent_does_the_whole_mission_on_each_lab(files, seed):
    """Issue 2 item 6 on the labs the UDP test above leaves out (in-process, noise on, SimTime
    1800): every target visited, the return signalled, home reached and the end signalled. Over
    seeds 1-96 alone it does so in 374 of 384 trials (README, Known gaps); seeds 1 and 2 are the
    first two, not picked."""
    scenario = load_scenario(*files)
    world, rid, brain = _started_alone(scenario, seed)
    while not world.finished:
        world.step({rid: brain.decide(world.observe(rid))})
    record, home = world.records[rid], scenario.grid.positions[0]
    assert record.state == "Finished" and all(record.visited)
    assert record.start_returning_time >= record.visiting_time > 0     # the return was signalled
    assert math.hypot(world.x[0] - home.x, world.y[0] - home.y) < 0.5
    assert world.cycle < scenario.params.sim_time - 1         # it ended itself, before the time limit


@pytest.mark.parametrize("arena", [(28.0, 14.0), (17.5, 17.5)])
def test_planning_window_holds_what_is_known_and_no_more_than_an_arena_beyond_it(arena):
    from simleague.ciberrato.agent import HALF, RES

    brain = Brain(1) if arena == (28.0, 14.0) else Brain(1, arena=arena)   # 28 x 14: the 2008 default
    width, height = arena
    brain.th = 0.0
    rows, cols = brain._window(*brain._cell(0.0, 0.0))                 # nothing known: an arena on every side
    size = lambda s: (s.stop - s.start) * RES    # noqa: E731
    assert size(rows) >= 2 * height and size(cols) >= 2 * width - 1
    # walls seen 10 u_m east and 5 u_m south of the start: the arena lies within its size of them
    for x, y in ((10.0, 0.0), (0.0, -5.0)):
        r, c = brain._cell(x, y)
        brain.logodds[r, c] = 4.0
    rows, cols = brain._window(*brain._cell(0.0, 0.0))
    west, east = cols.start * RES - HALF, cols.stop * RES - HALF
    south, north = rows.start * RES - HALF, rows.stop * RES - HALF
    assert west <= -0.1 and east >= 10.25 and south <= -5.0 and north >= 0.25
    assert east - west <= 2 * width - 10 + 1.5 and north - south <= 2 * height - 5 + 1.5
    assert 10.0 - west <= width + 1.0 and north + 5.0 <= height + 1.0
    brain._plan()                                # plans inside it, to the nearest unknown place
    assert brain.path and all(west <= x <= east and south <= y <= north for x, y in brain.path)


@pytest.mark.parametrize("arena", [(0.0, 14.0), (28.0, 40.0), (float("nan"), 14.0)])
def test_an_arena_the_map_cannot_hold_is_refused(arena):
    with pytest.raises(ValueError, match="arena"):
        Brain(1, arena=arena)


@pytest.mark.parametrize("value", ["28", "axb", "40x14", "0x14"])
def test_agent_command_refuses_a_bad_arena_with_one_line(value):
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-m", "simleague.ciberrato.agent", "--arena", value],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert "--arena" in run.stderr.splitlines()[-1] and "Traceback" not in run.stderr


def _u_trail(side: float = 3.0):
    """Out ``side`` u_m north, east and south: a trail of points 0.5 apart ending ``side`` east of home."""
    n = round(side / 0.5)
    up = [(0.0, 0.5 * k) for k in range(n + 1)]
    across = [(0.5 * k, side) for k in range(1, n + 1)]
    down = [(side, side - 0.5 * k) for k in range(1, n + 1)]
    return up + across + down


def _measures(t: int, collision: bool, ir: tuple[float, float, float], compass: float = 0.0) -> Observation:
    """Measures of cycle ``t`` with the start button pressed: the bumper, the readings of obstacle
    sensors 0-2 and the compass (degrees); nothing else sensed."""
    return Observation(time=t, collision=collision, compass=compass, ground=None, ir=dict(enumerate(ir)),
                       beacons={}, gps=None, line=None, score=None, messages=[],
                       leds=(False, False, False), buttons=(True, False))


def _length(path, start):
    """Length (u_m) of the way from ``start`` through the points of ``path``."""
    pts = [start, *path]
    return sum(math.dist(a, b) for a, b in zip(pts, pts[1:]))


def test_way_home_follows_the_trail_round_a_wall_and_cuts_corners_where_clear():
    from simleague.ciberrato.agent import OCCUPIED

    def home_path(wall, seen=True):
        brain = Brain(1)
        brain.th, brain.phase = 0.0, "home"
        trail = _u_trail()
        brain.trail, (brain.x, brain.y) = trail[:-1], trail[-1]
        if seen:                                   # the square the trail goes round, seen free
            _mark(brain, -0.5, 3.5, -0.5, 3.5, -4.0)
        if wall:                                   # a wall between home and the robot, x = 1.5
            for k in range(-8, 9):
                r, c = brain._cell(1.5, 0.25 * k)
                brain.logodds[r, c] = OCCUPIED + 2
        return brain._home_path()

    def length(path):
        return _length(path, (3.0, 0.0))

    walled, open_, unseen = home_path(True), home_path(False), home_path(False, seen=False)
    assert walled[-1] == (0.0, 0.0) and open_[-1] == (0.0, 0.0) and unseen[-1] == (0.0, 0.0)
    # across space not seen, only corners are cut (Manga2 seed 1, 3 agents, robot 3: a 3 u_m
    # short cut through unknown crossed a wall of the lab, and the robot took itself to be 7.7 u_m
    # from home, 16 by the way round)
    assert length(unseen) > 7.5
    # round the wall: every step of the way passes north of its end (y = 2), none crosses x = 1.5 below it
    pts = [(3.0, 0.0)] + walled
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        if (x0 - 1.5) * (x1 - 1.5) < 0:
            assert min(y0, y1) > 2.0 + 0.5
    assert length(walled) <= 9.0 + 1e-9                # never longer than the trail itself
    assert length(open_) == pytest.approx(3.0)        # in the open, straight home (trail: 9 u_m)


def test_walled_in_by_its_map_it_halves_the_walls_evidence_and_explores_again():
    from simleague.ciberrato.agent import OCCUPIED

    brain = Brain(1)
    brain.th = 0.0
    for k in range(-12, 13):                      # a closed square of walls 3 u_m round the start
        for x, y in ((0.25 * k, -3.0), (0.25 * k, 3.0), (-3.0, 0.25 * k), (3.0, 0.25 * k)):
            r, c = brain._cell(x, y)
            brain.logodds[r, c] = 4.0
    inside = np.zeros_like(brain.logodds, dtype=bool)
    r0, c0 = brain._cell(-2.75, -2.75)
    r1, c1 = brain._cell(2.75, 2.75)
    brain.logodds[r0:r1 + 1, c0:c1 + 1] = -4.0    # all seen, all free: nothing left to explore inside
    inside[r0:r1 + 1, c0:c1 + 1] = True
    plans = 0
    while not brain.path:
        brain._plan()
        plans += 1
        assert plans < 10
    assert brain.logodds.max() <= 4.0 / 2 ** (plans - 1) + 1e-6 and brain.logodds.max() < OCCUPIED
    assert brain.logodds[inside].max() < 0                      # what was seen free stays free


def _mark(brain: Brain, x0: float, x1: float, y0: float, y1: float, value: float):
    """Set the map cells from the one holding (x0, y0) to the one holding (x1, y1) (u_m from the
    start; cells are 0.25 u_m with centres at odd multiples of 0.125)."""
    r0, c0 = brain._cell(x0, y0)
    r1, c1 = brain._cell(x1, y1)
    brain.logodds[r0:r1 + 1, c0:c1 + 1] = value


def _box(brain: Brain, x0: float, x1: float, y0: float, y1: float):
    """A closed outline of wall cells round [x0, x1] x [y0, y1]."""
    for xa, xb, ya, yb in ((x0, x1, y0, y0), (x0, x1, y1, y1), (x0, x0, y0, y1), (x1, x1, y0, y1)):
        _mark(brain, xa, xb, ya, yb, 4.0)


def _bearings_to(brain: Brain, b: int, beacon: tuple[float, float], places) -> None:
    """Bearings to beacon ``b`` at ``beacon`` taken from each of ``places`` (u_m from the start)."""
    for ox, oy in places:
        brain.rays[b].append((ox, oy, math.atan2(beacon[1] - oy, beacon[0] - ox)))


def test_exploring_never_aims_into_the_unknown_inside_of_a_wall():
    """A robot 0.4 u_m from a thick wall whose inside it never saw, in a room it has seen all of:
    a path into the inside would cross only three blocked cells of the map, but there is no way
    in; it has nothing to explore (and so lets the walls' evidence fade) rather than push in."""
    brain = Brain(1)
    brain.th = 0.0
    brain.x = 1.6
    _mark(brain, -10, 10, -6, 6, -4.0)             # a closed room, all seen free ...
    _box(brain, -10, 10, -6, 6)
    _mark(brain, 2.0, 5.0, -1.5, 1.5, 0.0)         # ... but the wall's inside
    _box(brain, 2.0, 5.0, -1.5, 1.5)
    brain._plan()
    assert brain.explore_target is None
    assert all(not (2.0 <= x <= 5.0 and -1.5 <= y <= 1.5) for x, y in brain.path), brain.path


def _room_with_a_narrow_corridor(brain: Brain, west: float) -> Brain:
    """``brain`` heading east in a closed room, all seen, from x = ``west`` to 10 and y = -4 to
    4 (u_m), with a wall across it at x = 4 and in it a corridor 1.5 u_m wide mapped a cell too
    narrow on each side (1 u_m), as the 2008 labs' corridors are mapped (Manga2)."""
    brain.th = 0.0
    _mark(brain, west, 10, -4, 4, -4.0)
    _box(brain, west, 10, -4, 4)
    _mark(brain, 4.0, 4.5, -4, 4, 4.0)
    _mark(brain, 4.0, 4.5, -0.3, 0.3, -4.0)
    return brain


def test_a_corridor_mapped_a_cell_too_narrow_is_squeezed_through_to_the_beacon():
    """The 2008 labs have corridors 1.5 u_m wide (Manga2); with their walls mapped a cell into
    the corridor, the robot's inflated map closes it. The beacon is only reachable through it,
    so the plan squeezes through rather than stopping at the nearest open place."""
    brain = _room_with_a_narrow_corridor(Brain(1), west=-3)
    _bearings_to(brain, 0, (8.0, 0.0), ((0, 0), (0, 2), (0, -2), (2, 3)))   # from four places
    assert brain.beacon_estimate(0) == pytest.approx((8.0, 0.0), abs=1e-6)
    brain._plan()
    assert brain.path, "no plan to the beacon"
    assert math.hypot(brain.path[-1][0] - 8.0, brain.path[-1][1]) < 0.25, brain.path[-1]
    crossing = [y for x, y in brain.path if 4.0 <= x <= 4.5]
    assert crossing and all(abs(y) < 0.5 for y in crossing)


def test_backing_into_something_stops_the_backing():
    """Four bumps ahead make the robot back off for six cycles, through the bumps it still
    feels from the front; a bump after it got free means something is behind: it stops reversing
    (it used to count those bumps, back off again and push at that wall to the end)."""
    def measures(t: int, collision: bool) -> Observation:
        return _measures(t, collision, ir=(0.5, 0.5, 0.5))

    def reversing(action) -> bool:
        return action.left < 0 and action.right < 0

    brain = Brain(1, requestable=False)
    brain.th = 0.0
    bumps = [brain.decide(measures(t, True)) for t in range(1, 5)]
    assert [reversing(a) for a in bumps] == [False, False, False, True]     # four bumps: back off
    still = [brain.decide(measures(t, True)) for t in (5, 6)]               # still touching ahead
    assert all(map(reversing, still))
    assert reversing(brain.decide(measures(7, False)))                       # free ...
    assert not reversing(brain.decide(measures(8, True)))                    # ... then into something
    assert brain.backing == 0 and brain.bumps == 1

    brain = Brain(1, requestable=False)                                      # nothing behind:
    brain.th = 0.0
    actions = [brain.decide(measures(t, t <= 4)) for t in range(1, 12)]
    assert [reversing(a) for a in actions] == [False] * 3 + [True] * 6 + [False] * 2


def test_on_the_way_home_a_robot_in_the_way_is_waited_for_and_a_wall_is_planned_round():
    """On the way home, ten cycles in front of something it did not bump into (on its own trail,
    most often a robot coming the other way, which moves on) make the robot back off and go on
    along the trail: planning on the map then took it the long way round (Manga1, seed 3: two
    robots ended under 1 u_m from home); stopped so again within 1 u_m of where it was, it takes
    what stops it for a wall. Four bumps in a row (a wall) make it plan on the map for
    a while: 20 cycles, about 2 u_m, then it is back on the trail (it planned on the map for 60, and
    those plans took it the long way round too: 3 agents, 176 and 172 robots of 288 finished with
    seeds 1-24 and 25-48, against 160 and 160)."""
    from simleague.ciberrato.agent import OFF_TRAIL

    def measures(t: int, collision: bool, front: float) -> Observation:
        return _measures(t, collision, ir=(front, 0.3, 0.3), compass=180)

    def homeward(collision: bool, front: float) -> Brain:
        brain = Brain(1, requestable=False)
        brain.th, brain.x, brain.phase = math.pi, 3.0, "home"
        brain.trail = [(0.5 * k, 0.0) for k in range(7)]
        for t in range(1, 12):
            brain.decide(measures(t, collision, front))
            if brain.backing:
                return brain
        raise AssertionError("it never backed off")

    waited = homeward(collision=False, front=5.0)                   # something 0.2 u_m ahead
    assert waited.off_trail == 0
    # stopped again where it was stopped before (it cannot have moved: the Measures still show
    # the thing ahead): a wall the trail, as reckoned now, runs into (traced alone, Manga2 seed
    # 33: a stub of wall stopped the robot from cycle 1,360 to the end of the trial)
    t = 12
    while waited.off_trail == 0 and t < 60:
        waited.decide(measures(t, False, 5.0))
        t += 1
    assert waited.off_trail == OFF_TRAIL and t <= 12 + 5 + 10 + 1
    bumped = homeward(collision=True, front=0.3)
    assert bumped.off_trail == OFF_TRAIL
    t = 12
    while bumped.off_trail > 0 and t < 100:
        bumped.decide(measures(t, False, 0.3))
        t += 1
    assert t <= 12 + 5 + 20, "back on the trail after backing off and 20 cycles on the map"
    assert bumped.path[-1] == (0.0, 0.0) and all(abs(y) < 0.1 for _, y in bumped.path)   # the trail


def test_held_up_near_home_it_ends_where_it_is_and_far_from_home_it_does_not():
    """On the way home, within 1.5 u_m of home and no nearer for 50 cycles (here: a wall it
    keeps bumping into, so that it cannot move), it turns on the End led where it is: rules 8
    and 9 cost a few points for the distance short of home and one for every 25 cycles waited
    (traced: default seed 7, 3 agents, a robot stood 0.9 u_m from home for 1,300 cycles behind
    a robot parked on its grid position). Held up 2 u_m from home it keeps trying; free to move,
    it drives on to home (by its reckoning) before it ends."""
    def homeward(x: float, collision: bool, cycles: int) -> tuple[Brain, int | None]:
        brain = Brain(1, requestable=False)
        brain.th, brain.x, brain.phase = math.pi, x, "home"
        brain.trail = [(0.5 * k, 0.0) for k in range(int(x / 0.5) + 1)]
        for t in range(1, cycles + 1):
            front = 5.0 if collision else 0.3
            if brain.decide(_measures(t, collision, ir=(front, 0.3, 0.3), compass=180)).end_led:
                return brain, t
        return brain, None

    held, ended = homeward(1.2, collision=True, cycles=300)
    assert ended is not None and 50 <= ended <= 60 and held.x == pytest.approx(1.2, abs=0.05)
    assert homeward(2.0, collision=True, cycles=300)[1] is None
    free, ended = homeward(1.2, collision=False, cycles=300)
    assert ended is not None and math.hypot(free.x, free.y) < 0.2


def test_a_robot_standing_inside_its_walls_inflation_still_has_a_way_out():
    """Its map has wall cells either side of it, a cell away, and behind it (other robots,
    noise): every cell round it is within its radius of a wall. The cells no nearer a wall than
    it stands are its way out, and the plan leads through them to the beacon ahead; it used to
    aim at its own cell and turn on the spot for hundreds of cycles (Manga2, seed 1)."""
    brain = Brain(1)
    brain.th = math.pi / 2
    _mark(brain, -8, 8, -5, 5, -4.0)               # a closed room, all seen
    _box(brain, -8, 8, -5, 5)
    _mark(brain, -0.2, -0.2, -1, 0.9, 4.0)         # a slot a cell wide round the robot
    _mark(brain, 0.4, 0.4, -1, 0.9, 4.0)
    _mark(brain, -0.2, 0.4, -0.4, -0.4, 4.0)
    _bearings_to(brain, 0, (0.0, 4.0), ((0, 0), (2, 1), (-2, 1), (0, 2)))
    brain._plan()
    assert brain.path and math.hypot(brain.path[-1][0], brain.path[-1][1] - 4.0) < 0.25, brain.path


def test_with_every_known_way_to_the_beacon_closed_it_explores_towards_it():
    """The beacon lies beyond a wall the robot has seen end to end, in a room whose far side is
    still unknown: rather than wait at the wall, nearest the beacon, it goes to see the unknown
    part (a way round may be there); with nothing left to see it lets the walls' evidence fade."""
    brain = Brain(1)
    brain.th = 0.0
    _mark(brain, -8, 8, -5, 5, -4.0)               # a closed room, all seen ...
    _box(brain, -8, 8, -5, 5)
    _mark(brain, -7.75, -5, -4.75, 4.75, 0.0)      # ... but its far end
    _mark(brain, 2.0, 2.0, -5, 5, 4.0)             # a wall across it, the beacon behind
    _bearings_to(brain, 0, (5.0, 0.0), ((0, 0), (0, 2), (0, -2), (-2, 3)))
    brain._plan()
    assert brain.path and brain.path[-1][0] <= -4.75, brain.path[-1:]   # off to the unknown end
    assert brain.explore_target is not None

    _mark(brain, -7.75, -5, -4.75, 4.75, -4.0)     # seen it all: nothing left to explore
    before = brain.logodds.max()
    brain.x, brain.y = 1.25, 0.0                   # at the wall already
    brain._plan()
    assert brain.path == [] and brain.logodds.max() == before / 2


def _room_with_two_unknown_places(east: tuple[float, float], west: tuple[float, float]) -> Brain:
    """A robot at the start facing east in a closed room 16 x 10 u_m, all seen free but two
    places 0.4 x 0.6 u_m, from ``east[0]`` to ``east[1]`` and ``west[0]`` to ``west[1]`` along y = 0."""
    brain = Brain(1)
    brain.th = 0.0
    _mark(brain, -8, 8, -5, 5, -4.0)
    _box(brain, -8, 8, -5, 5)
    _mark(brain, *east, -0.3, 0.3, 0.0)
    _mark(brain, *west, -0.3, 0.3, 0.0)
    return brain


def test_an_exploration_goal_reached_and_still_unknown_is_given_up():
    """Reaching a place to explore that stayed unknown marks it tried (as the robot does on
    arrival); the next plan explores elsewhere instead of keeping that goal."""
    brain = _room_with_two_unknown_places((4.0, 4.4), (-6.0, -5.6))
    brain._plan()
    first = brain.explore_target
    r, c = divmod(first, brain.logodds.shape[1])
    brain.tried[max(0, r - 3):r + 4, max(0, c - 3):c + 4] = True
    brain._plan()
    assert brain.explore_target is not None and brain.explore_target != first
    assert brain.path[-1][0] < -4.0, brain.path[-1]


def test_after_backing_off_it_follows_the_path_closely_before_cutting_corners_again():
    """The path bends left round a corner 1 u_m ahead. Normally the robot steers for the
    farthest point it sees, cutting the corner; after backing off from a bump (it had clipped
    such a corner and backed off and clipped it again for 1,400 cycles: Manga1, seed 11) it
    drives on along the path's next points first."""
    def measures(t: int, collision: bool) -> Observation:
        return _measures(t, collision, ir=(0.3, 0.3, 0.3))

    bend = [(0.25 * k, 0.0) for k in range(1, 5)] + [(1.0, 0.25 * k) for k in range(1, 9)]

    def turn(brain: Brain) -> float:
        brain.x = brain.y = brain.th = 0.0
        brain.logodds[:] = 0.0                         # nothing on the map in the way (the bumps
        brain.blocked[:] = False                       # were elsewhere)
        brain.path = list(bend)
        left, right = brain._steer(measures(100, False))
        return right - left

    fresh = Brain(1, requestable=False)
    fresh.th = 0.0
    assert turn(fresh) > 0.1                           # aims past the corner, turning hard left

    backed = Brain(1, requestable=False)
    backed.th = 0.0
    t = 1
    while not backed.backing:                          # bumps ahead until it backs off ...
        backed.decide(measures(t, True))
        t += 1
    while backed.backing:                              # ... and it is done backing
        backed.decide(measures(t, False))
        t += 1
    assert abs(turn(backed)) < 0.02                    # straight on to the corner first


def _sensor_points(brain: Brain, d: float, sensor: int) -> list[tuple[int, int]]:
    """The map cells (row, col) ``d`` u_m from obstacle sensor ``sensor`` of a robot at the start
    heading ``brain.th``, on the sensor's axis and its cone's two edges (the agent's IR_RAYS)."""
    from simleague.ciberrato.agent import IR_ANGLES, IR_RAYS

    a = brain.th + IR_ANGLES[sensor]
    sx, sy = 0.5 * math.cos(a), 0.5 * math.sin(a)
    return [brain._cell(sx + d * math.cos(a + o), sy + d * math.sin(a + o)) for o in IR_RAYS]


def test_an_obstacle_reading_raises_the_three_points_it_may_come_from():
    """The original's reading is the nearest hit of the sensor's axis and of its cone's two edges
    (golden README, "IR sensors"). Seen first, the three points are raised alike; with one of
    them already a wall, the reading is explained and the other two hardly move."""
    from simleague.ciberrato.agent import IR_ANGLES, OCCUPIED

    def points(brain):
        cells = _sensor_points(brain, 0.8, 1)                        # the left sensor, 0.8 u_m
        assert len(set(cells)) == 3
        return cells

    brain = Brain(1)
    brain.th = 0.0
    brain._sense_obstacle(IR_ANGLES[1], 1.25)
    first = [float(brain.logodds[cell]) for cell in points(brain)]
    assert min(first) > 0 and max(first) == pytest.approx(min(first))

    brain = Brain(1)
    brain.th = 0.0
    axis, left, right = points(brain)
    brain.logodds[left] = 4.0                          # the outer edge's point is a known wall
    brain._sense_obstacle(IR_ANGLES[1], 1.25)
    assert brain.logodds[left] >= 4.0 - 1e-6
    assert brain.logodds[axis] < first[0] / 10 and brain.logodds[right] < first[0] / 10
    assert max(brain.logodds[axis], brain.logodds[right]) < OCCUPIED


def test_a_reading_the_map_explains_puts_no_wall_in_the_free_space_beside_it():
    """In a 1.5 u_m corridor the side sensor's nearest ray is the one square to the wall, and the
    points at the reading's distance on its other rays lie in the corridor. With the wall on the
    map a few cm beyond the reading, the reading is explained: the corridor's free cells stay
    free (marking them closed Manga2's corridors, cell by cell)."""
    from simleague.ciberrato.agent import IR_ANGLES

    brain = Brain(1)
    brain.th = 0.0
    wall_row, free_row = brain._cell(0.0, 0.8)[0], brain._cell(0.0, 0.6)[0]   # wall face at y = 0.75
    c0, c1 = brain._cell(-2.0, 0.0)[1], brain._cell(3.0, 0.0)[1]
    brain.logodds[wall_row, c0:c1] = 4.0
    brain.logodds[free_row, c0:c1] = -2.0
    a = IR_ANGLES[1]
    d = 0.28                                            # the wall is 0.317 away: noise made it nearer
    points = _sensor_points(brain, d, 1)
    assert {r for r, _ in points} == {free_row}         # all three points fall in the corridor
    brain._sense_obstacle(a, 1.0 / d)
    assert all(brain.logodds[p] <= -2.0 for p in points)
    assert (brain.logodds[wall_row, c0:c1] == 4.0).all()

    unknown = Brain(1)                                  # no wall on the map: the points are raised
    unknown.th = 0.0
    unknown._sense_obstacle(a, 1.0 / d)
    assert all(unknown.logodds[p] > 0 for p in points)


def test_a_glancing_front_reading_in_a_corridor_puts_no_wall_in_its_middle():
    """Heading 15 degrees off a 1.5 u_m corridor's axis, the front sensor's nearest ray is the
    cone's right edge, meeting the lower wall at a glancing angle; the point on the left edge
    lies in the corridor's middle. With the lower wall mapped a cell into the corridor, the
    reading is not explained along the ray (the wall's cells begin 0.25 u_m too near, 0.35 along
    a ray at 45 degrees), and only the points next to a wall of the map are raised (traced:
    Manga2 seed 60, alone, the front sensor's readings closed both bottom corridors, and the robot
    never reached the beacons it had placed)."""
    from simleague.ciberrato.agent import IR_ANGLES

    brain = Brain(1)
    brain.th = math.radians(-15)
    c0, c1 = brain._cell(-2.0, 0.0)[1], brain._cell(4.0, 0.0)[1]
    for y in (0.875, -0.625):                           # faces at y = 0.75 and (a cell too near) -0.5
        brain.logodds[brain._cell(0.0, y)[0], c0:c1] = 4.0
    d = 0.9                                             # the right edge meets the true face, y = -0.75
    axis, left, right = _sensor_points(brain, d, 0)
    assert right[0] == brain._cell(0.0, -0.875)[0] and left[0] == brain._cell(0.0, 0.125)[0]
    brain._sense_obstacle(IR_ANGLES[0], 1.0 / d)
    assert brain.logodds[left] == 0.0                    # the corridor's middle: left as it was
    assert brain.logodds[axis] > 0.0 and brain.logodds[right] > 0.0   # next to a wall of the map

    # nearer than 0.6 u_m, what the front sensor sees may be anything ahead (another robot, a
    # wall's end): all three points are raised, though only the axis point is next to a wall
    nearer = Brain(1)
    nearer.th = 0.0
    nearer.logodds[nearer._cell(1.375, -0.125)] = 4.0
    points = _sensor_points(nearer, 0.55, 0)
    nearer._sense_obstacle(IR_ANGLES[0], 1.0 / 0.55)
    assert all(nearer.logodds[p] > 0.0 for p in points)


def test_an_unplaced_beacon_is_aimed_at_short_of_a_wall_on_its_bearing_until_the_robot_stood_there():
    """Bearings taken while driving at a beacon are parallel and do not place it. The robot aims
    along the last one, but only up to the first wall of its map: on Final, aiming 8 u_m along
    past the corridor's end wall sent the plan round the long way, the robot turned back, and it
    went to and fro short of the target until the trial ended. Once it has stood at that wall,
    the beacon is seen over it: the wall (all of its piece) no longer counts, and the aim is
    8 u_m along, for the plan to find the way round."""
    brain = Brain(1)
    brain.th = 0.0
    _mark(brain, -3, 12, -4, 4, -4.0)              # a room, all seen
    _mark(brain, 4.0, 4.2, -3, 3, 4.0)             # a wall across the bearing, 4 u_m ahead
    _mark(brain, 7.0, 7.2, -3, 3, 4.0)             # another, apart from it, 7 u_m ahead
    brain.rays[0].append((0.0, 0.0, 0.0))          # one bearing, due east
    assert brain.beacon_estimate(0) is None
    assert brain._goals() == [pytest.approx((3.25, 0.0))]

    brain.x = 2.5                                  # standing at the wall (0.75 from the aim)
    assert brain._goals() == [pytest.approx((6.25, 0.0))]  # the next wall counts still
    assert len(brain.walls_met[0]) == 1
    brain.rays[0].append((2.5, 1.0, 0.0))          # the same wall piece, 1 u_m further along it
    assert brain._goals() == [pytest.approx((6.25, 1.0))]
    brain.x, brain.y = 5.75, 1.0
    assert brain._goals() == [pytest.approx((10.5, 1.0))]   # both met: 8 u_m along the bearing
    brain.walls_met[0].clear()
    assert brain._goals() == [pytest.approx((3.25, 1.0))], "without the record the first wall counts again"


def test_a_bearing_that_misses_the_others_is_left_out_of_placing_the_beacon():
    """Five bearings from five places meet at (6, 1); a sixth, taken while the heading was off by
    40 degrees, misses that point by metres. The beacon is placed from the five that agree (all
    six together were refused, and the robot went on aiming along a bearing it could not place)."""
    brain = Brain(1)
    beacon = (6.0, 1.0)
    _bearings_to(brain, 0, beacon, ((0, 0), (0, 3), (1, -2), (2, 4), (3, -1)))
    assert brain.beacon_estimate(0) == pytest.approx(beacon, abs=1e-6)
    brain.rays[0].append((1.0, 1.0, math.radians(40.0)))
    assert brain.beacon_estimate(0) == pytest.approx(beacon, abs=1e-6)
    brain.rays[0][:] = brain.rays[0][:3] + brain.rays[0][-1:]   # three good and the bad one: too few agree
    assert brain.beacon_estimate(0) is None


def test_a_beacon_once_placed_stays_placed_when_the_bearings_kept_are_parallel():
    """On Manga2 robots placed both beacons early, then drove along the corridor below them: the
    last 30 bearings, all taken on that stretch, were too parallel to place them, and the robot
    went back to aiming along a bearing. It keeps the last placement instead."""
    brain = Brain(1)
    beacon = (6.0, 1.0)
    _bearings_to(brain, 0, beacon, ((0, 0), (0, 3), (1, -2), (2, 4), (3, -1)))
    assert brain._goals() == [pytest.approx(beacon, abs=1e-6)]
    brain.rays[0][:] = [(-3.0 + 0.5 * k, 1.0, 0.0) for k in range(6)]   # along y = 1, due east
    assert brain.beacon_estimate(0) is None
    assert brain._goals() == [pytest.approx(beacon, abs=1e-6)]


def test_the_way_home_cuts_a_long_loop_only_across_space_seen_free():
    """The trail goes 6 u_m north, 6 east and 6 south, ending 6 u_m east of home. Across unknown
    space only short cuts of up to 3 u_m are taken; with the inside of the loop seen free, the
    way home is straight across, given as points at most a trail step apart."""
    from simleague.ciberrato.agent import TRAIL_STEP

    def home_path(seen_free: bool):
        brain = Brain(1)
        brain.th, brain.phase = 0.0, "home"
        trail = _u_trail(6.0)
        brain.trail, (brain.x, brain.y) = trail[:-1], trail[-1]
        if seen_free:
            _mark(brain, -0.5, 6.5, -0.5, 6.5, -4.0)
        return brain._home_path()

    def length(path):
        return _length(path, (6.0, 0.0))

    unknown, seen = home_path(False), home_path(True)
    assert unknown[-1] == (0.0, 0.0) and seen[-1] == (0.0, 0.0)
    assert length(unknown) > 12.0
    assert length(seen) == pytest.approx(6.0)
    steps = [math.dist(a, b) for a, b in zip([(6.0, 0.0)] + seen, seen)]
    assert max(steps) <= TRAIL_STEP + 1e-9



def test_on_the_way_home_a_way_through_seen_space_is_worth_a_detour():
    """Two ways lead to (0, 0) through a wall at x = 2: a short one through a gap 1.5 u_m wide
    whose surroundings are unknown, and one 4 u_m up through a gap in space seen free. Going to a
    beacon there, the plan takes the short way (unknown space is cheap to try); on the way home
    it takes the detour (stuck there, a plan through unknown space led it far astray)."""
    def plan(phase: str) -> list[tuple[float, float]]:
        brain = Brain(1)
        brain.th, brain.phase = math.pi, phase
        brain.x = 4.0
        _mark(brain, -8, 8, -6, 6, -4.0)           # a closed room, all seen ...
        _box(brain, -8, 8, -6, 6)
        _mark(brain, 2.0, 2.0, -6, 6, 4.0)         # ... a wall across it with two gaps
        _mark(brain, 2.0, 2.0, -0.75, 0.75, -4.0)
        _mark(brain, 2.0, 2.0, 2.5, 5.5, -4.0)
        _mark(brain, 0.25, 3.75, -2.0, 2.0, 0.0)   # the short way's surroundings unknown
        _bearings_to(brain, 0, (0.0, 0.0), ((4, 0), (4, 2), (4, -2), (6, 3)))
        brain._plan()
        assert brain.path and math.hypot(*brain.path[-1]) < 0.25, brain.path[-1:]
        return brain.path

    assert all(abs(y) < 1.5 for x, y in plan("visit") if 1.5 <= x <= 2.5)
    assert all(y > 2.0 for x, y in plan("home") if 1.5 <= x <= 2.5)


def test_of_two_beacons_the_one_with_the_shorter_way_is_visited_first():
    """Beacon 0 is 3 u_m away as the crow flies, behind a wall: about 8 u_m round it; beacon 1 is
    5 u_m away in the open. The robot goes to beacon 1. Choosing as the crow flies, a
    robot half-way between Final's two beacons, one of them closed off by its map, switched
    between them every few cycles for 1,300 cycles (Final, told the map, seed 1, robot 3)."""
    brain = Brain(2)
    brain.th = 0.0
    _mark(brain, -8, 8, -5, 5, -4.0)               # a closed room, all seen
    _box(brain, -8, 8, -5, 5)
    _mark(brain, 2.0, 2.0, -5, 3, 4.0)             # a wall between the robot and beacon 0, open at the top
    _bearings_to(brain, 0, (3.0, 0.0), ((0, 0), (-1, 2), (-1, -2), (-2, 3)))
    _bearings_to(brain, 1, (-5.0, 0.0), ((0, 0), (-1, 2), (-1, -2), (-2, 3)))
    brain._plan()
    assert brain.path and math.hypot(brain.path[-1][0] + 5.0, brain.path[-1][1]) < 0.25, brain.path[-1:]


def test_walls_seen_where_it_once_saw_clearly_free_space_are_doubted_when_they_close_every_way():
    """Robots standing across a room, seen where the robot once saw the room clearly free, close
    every way to the beacon on its map. Those marks count as unknown then, and it goes to see
    (told the map, Final with 3 agents, seeds 1-8: 24 robots of 24 finished, against 17: robots
    left marks across the mouth of the lower target's bay and went the long way round the lab).
    Marks it bumped into are believed; so is a wall it never saw through; and while a way is
    open, a way through doubted marks is not taken."""
    def plan(gap: bool, seen_free: bool, bumped: bool = False) -> Brain:
        brain = Brain(1)
        brain.th = 0.0
        _mark(brain, -8, 8, -5, 5, -4.0)           # a closed room, all seen
        _box(brain, -8, 8, -5, 5)
        if seen_free:
            r0, c0 = brain._cell(-7.75, -4.75)
            r1, c1 = brain._cell(7.75, 4.75)
            brain.seen_free[r0:r1 + 1, c0:c1 + 1] = True
        _mark(brain, 2.0, 2.0, -5, 2.5 if gap else 5, 4.0)   # the robots, across the room
        if bumped:                                 # bumped into them at (2.1, -0.5 ... 0.5)
            for brain.y in (-0.5, 0.0, 0.5):
                brain._mark_ahead(2.1, (0.0,))
            brain.y = 0.0
        _bearings_to(brain, 0, (5.0, 0.0), ((0, 0), (-1, 2), (-1, -2), (-2, 3)))
        brain._plan()
        return brain

    def at_beacon(brain: Brain) -> bool:
        return bool(brain.path) and math.hypot(brain.path[-1][0] - 5.0, brain.path[-1][1]) < 0.25

    doubted = plan(gap=False, seen_free=True)
    assert at_beacon(doubted)
    assert any(abs(x - 2.0) < 0.3 and abs(y) < 2.5 for x, y in doubted.path)   # straight through
    assert not at_beacon(plan(gap=False, seen_free=False))                     # a wall: believed
    bumped = plan(gap=False, seen_free=True, bumped=True)
    assert at_beacon(bumped)
    assert all(abs(y) > 0.75 for x, y in bumped.path if 1.75 <= x <= 2.5)   # not where it bumped
    round_ = plan(gap=True, seen_free=True)
    assert at_beacon(round_)
    assert all(y > 2.5 for x, y in round_.path if 1.5 <= x <= 2.5)            # round by the gap


def test_bumping_into_something_on_the_trail_home_it_plans_round_it_back_onto_the_trail():
    """Bumping into a wall on the trail home, the plan on the map leads to the trail 3 u_m on,
    past the wall, and the robot is back on the trail once there. Planned to home instead, the
    map's way (through unknown space) turned the robot round, and 20 cycles later the trail turned
    it back, into the same wall (alone, Final seed 1: 300 cycles so, 24 u_m from home at the end)."""
    from simleague.ciberrato.agent import OFF_TRAIL

    brain = Brain(1, requestable=False)
    brain.th, brain.x, brain.phase = math.pi, 6.0, "home"
    brain.trail = [(0.5 * k, 0.0) for k in range(13)]
    t = 1
    while not brain.backing:
        brain.decide(_measures(t, True, ir=(0.3, 0.3, 0.3), compass=180))
        t += 1
        assert t < 12, "it never backed off"
    assert brain.off_trail == OFF_TRAIL
    assert brain.rejoin == pytest.approx((3.0, 0.0), abs=0.3)
    while brain.backing:
        brain.decide(_measures(t, False, ir=(0.3, 0.3, 0.3), compass=180))
        t += 1
    brain.decide(_measures(t, False, ir=(0.3, 0.3, 0.3), compass=180))
    assert brain.off_trail > 0 and brain.path
    assert math.dist(brain.path[-1], brain.rejoin) < 0.25, brain.path[-1:]
    assert all(x < brain.x + 0.5 for x, _ in brain.path)       # not back the way it came
    brain.x, brain.y = brain.path[-1]                          # there: back on the trail
    brain.decide(_measures(t + 1, False, ir=(0.3, 0.3, 0.3), compass=180))
    assert brain.off_trail == 0 and brain.path[-1] == (0.0, 0.0)


def test_an_exploration_goal_whose_way_grew_well_past_its_first_length_is_given_up():
    """The way to the place chosen to explore cost 5 (u_m through space seen free); a wall found
    across it makes it cost about 10.5, more than 4 past that. The robot marks the place tried
    and explores elsewhere (alone, Final seed 2: it chased an unknown place outside the arena
    from cycle 100 to 650, along the bottom wall and back)."""
    brain = _room_with_two_unknown_places((5.0, 5.4), (-6.6, -6.2))
    brain._plan()
    first = brain.explore_target
    assert first is not None and brain.path[-1][0] > 4.0
    _mark(brain, 2.5, 2.5, -5, 3, 4.0)             # a wall across the way, open at the top only
    brain._plan()
    assert brain.explore_target not in (None, first)
    assert brain.path[-1][0] < -5.0, brain.path[-1]
    assert brain.tried[divmod(first, brain.logodds.shape[1])]


def test_exploring_prefers_a_wide_unknown_area_to_a_small_pocket_nearer():
    """A robot facing east in a room seen free from x = -8 to 6, open to the east (unknown from
    x = 6 on), with a pocket of unknown 0.5 x 0.5 u_m 3.5 u_m ahead. The nearest unknown place is
    the pocket, but little is seen there; it explores the wide unknown area, 2.5 u_m farther
    (traced before the change, Final seed 3, 3 agents: grid position 3 got to the middle of the
    lab by cycle 300, then went back for the pockets of unknown along the walls it had passed and
    explored the left half for the rest of the trial)."""
    brain = Brain(1)
    brain.th = 0.0
    _mark(brain, -8, 6, -5, 5, -4.0)
    _mark(brain, -8, 6, -5, -5, 4.0)
    _mark(brain, -8, 6, 5, 5, 4.0)
    _mark(brain, -8, -8, -5, 5, 4.0)
    _mark(brain, 3.4, 3.6, -0.1, 0.1, 0.0)          # the pocket: 2 x 2 cells
    brain._plan()
    assert brain.explore_target is not None
    assert brain.path[-1][0] > 6.0, brain.path[-1]


def test_the_odds_of_lying_in_the_arena_follow_from_what_is_known():
    """Known from x = -8 to 6 and y = -5 to 5 (14 x 10 u_m) in a 28 x 14 arena: the arena's west
    side lies between x = -22 and -8, every place equally likely. A cell known lies in it for
    sure, one 7 u_m east of what is known in half of the places, one 14 u_m east in none; along y
    (4 u_m to spare) likewise."""
    from simleague.ciberrato.agent import _Window

    brain = Brain(1)
    brain.th = 0.0
    _mark(brain, -8, 6, -5, 5, -4.0)
    window = _Window(*brain._map_costs())
    odds = brain._in_arena(window)

    def at(x: float, y: float) -> float:
        r, c = window.local(*brain._cell(x, y))
        return float(odds[r, c])

    assert at(0.0, 0.0) == pytest.approx(1.0, abs=0.02)
    assert at(-8.0, 5.0) == pytest.approx(1.0, abs=0.02)
    assert at(13.0, 0.0) == pytest.approx(0.5, abs=0.03)
    assert at(-15.0, 0.0) == pytest.approx(0.5, abs=0.03)
    assert at(7.0, 7.0) == pytest.approx(0.5 * 0.93, abs=0.04)
    assert at(19.9, 0.0) < 0.03 and at(0.0, -8.9) < 0.07
    assert odds.shape == window.blocked.shape and odds.min() >= 0.0 and odds.max() <= 1.0 + 1e-9


def test_a_beacon_just_past_a_corridor_mapped_too_narrow_is_not_given_up_for_one_far_away():
    """Beacon 0 is 8 u_m east, past a 1.5 u_m corridor mapped a cell too narrow on each side;
    beacon 1 is 18 u_m west in the open. The plan with the walls inflated reaches only beacon 1,
    far more than twice as far as beacon 0: the squeezing plan is compared, and its way to
    beacon 0 is the shorter (Manga2 seed 1, 3 agents, robot 2: 4 u_m from a beacon in the 1.5 u_m
    bottom corridor, it turned for the other beacon, some 35 u_m round the lab)."""
    brain = _room_with_a_narrow_corridor(Brain(2), west=-20)
    _bearings_to(brain, 0, (8.0, 0.0), ((0, 0), (0, 2), (0, -2), (2, 3)))
    _bearings_to(brain, 1, (-18.0, 0.0), ((0, 0), (-6, 3), (-6, -3), (-10, 3)))
    assert brain.beacon_estimate(1) == pytest.approx((-18.0, 0.0), abs=1e-6)
    brain._plan()
    assert brain.path and math.hypot(brain.path[-1][0] - 8.0, brain.path[-1][1]) < 0.25, brain.path[-1:]
    assert not brain.blocked[brain._cell(4.25, 0.0)]        # the squeezing plan's map is kept
