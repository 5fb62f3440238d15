"""The sample agent: its dead reckoning against the world's true poses, and a whole scored trial."""

import json
import math

from golden import LABS
from test_trial import simleague

from simleague.ciberrato.agent import Brain
from simleague.ciberrato.scenario import load_scenario
from simleague.ciberrato.world import World

MANGA1 = (LABS / "CiberRato2008" / "Ciber2008_Manga1Lab.xml", LABS / "CiberRato2008" / "Ciber2008_Manga1Grid.xml")
FINAL = (LABS / "CiberRato2008" / "Ciber2008_FinalLab.xml", LABS / "CiberRato2008" / "Ciber2008_FinalGrid.xml")


def test_dead_reckoning_follows_the_true_pose_with_noise_on():
    scenario = load_scenario(*FINAL)
    world = World(scenario, seed=5)
    rid = world.add_robot("a")
    p = scenario.params
    brain = Brain(len(scenario.lab.beacons), p.compass_latency, p.beacon_latency)
    world.step()                                    # registered; Measures exist from here on
    for _ in range(7):                              # waiting for Start: the compass settles
        world.step({rid: brain.decide(world.observe(rid))})
    world.start()
    home = scenario.grid.positions[0]
    worst = 0.0
    for _ in range(400):
        world.step({rid: brain.decide(world.observe(rid))})
        worst = max(worst, math.hypot(home.x + brain.x - world.x[0], home.y + brain.y - world.y[0]))
    assert world.time == 399                         # the step after Start still has Time 0
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


def test_planning_window_holds_what_is_known_and_no_more_than_a_lab_beyond_it():
    from simleague.ciberrato.agent import HALF, LAB_MAX, RES

    brain = Brain(1)
    brain.th = 0.0
    rows, cols = brain._window(*brain._cell(0.0, 0.0))                 # nothing known: a lab's size on every side
    size = lambda s: (s.stop - s.start) * RES    # noqa: E731
    assert size(rows) >= 2 * LAB_MAX[0] and size(cols) >= 2 * LAB_MAX[1] - 1
    # walls seen 10 u_m east and 5 u_m south of the start: the lab lies within LAB_MAX of them
    for x, y in ((10.0, 0.0), (0.0, -5.0)):
        r, c = brain._cell(x, y)
        brain.logodds[r, c] = 4.0
    rows, cols = brain._window(*brain._cell(0.0, 0.0))
    west, east = cols.start * RES - HALF, cols.stop * RES - HALF
    south, north = rows.start * RES - HALF, rows.stop * RES - HALF
    assert west <= -0.1 and east >= 10.25 and south <= -5.0 and north >= 0.25
    assert east - west <= 2 * LAB_MAX[1] - 10 + 1.5 and north - south <= 2 * LAB_MAX[0] - 5 + 1.5
    assert 10.0 - west <= LAB_MAX[1] + 1.0 and north + 5.0 <= LAB_MAX[0] + 1.0
    brain._plan()                                # plans inside it, to the nearest unknown place
    assert brain.path and all(west <= x <= east and south <= y <= north for x, y in brain.path)
