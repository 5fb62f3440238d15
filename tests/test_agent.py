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
