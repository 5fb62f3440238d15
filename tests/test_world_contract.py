"""The face every world shows (ARCHITECTURE.md rule 1), checked the same way on each, as
Gymnasium's environment checker does: the same seed and actions give the same snapshots;
``observe`` after ``step`` reads the state that step made; ``snapshot()`` is JSON-ready and
observing does not change the world; ``cycle`` counts the steps.

A world here is driven by its own vocabulary of actions (CiberRato's wheel powers in ``step``, the
soccer worlds' motor commands before ``step``): each case says how."""

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

import pytest

from golden import LABS
from simleague.ciberrato.scenario import load_scenario
from simleague.ciberrato.types import Action
from simleague.ciberrato.world import World
from simleague.soccer.humanoids import HumanoidWorld
from simleague.soccer.models import find_model
from simleague.soccer.world import SoccerWorld

ROBOTS = Path(__file__).resolve().parents[1] / "src" / "simleague" / "soccer" / "robots"
CYCLES = 30


@dataclass
class Case:
    """``make(seed)`` -> (world, robot id); ``step(world, rid, k)`` applies cycle ``k``'s actions and
    steps once."""

    make: Callable
    step: Callable


def _ciberrato(seed: int):
    world = World(load_scenario(LABS / "CiberRato2008" / "Ciber2008_FinalLab.xml",
                                LABS / "CiberRato2008" / "Ciber2008_FinalGrid.xml"), seed=seed)
    rid = world.add_robot("contract")
    world.step()
    world.start()
    world.step()                # as the original, the step after Start still has Time 0: now it runs
    return world, rid


def _ciberrato_step(world, rid, k):
    world.step({rid: Action(left=0.1, right=0.05 + 0.001 * k, requests=("IRSensor0", "Compass"))})


def _simspark(seed: int):
    world = SoccerWorld(seed=seed)
    rid = world.add_robot(0, -2.0, 0.5, 0.3)
    world.place_ball((0.0, 0.0, 0.042), (1.0, 0.2, 0.0))
    return world, rid


def _simspark_step(world, rid, k):
    world.set_joint_velocity(rid, "he1", math.sin(k / 5))
    world.set_joint_velocity(rid, "rle4", -0.5)
    world.step()


def _humanoid(seed: int):
    world = HumanoidWorld(seed=seed)
    rid = world.add_robot(find_model("kid", [ROBOTS]), -1.0, 0.0, 0.2)
    world.place_ball((0.5, 0.0, 0.1), (0.5, 0.1, 0.0))
    return world, rid


def _humanoid_step(world, rid, k):
    world.set_position(rid, "head_yaw", 0.5 * math.sin(k / 5))
    world.step()


CASES = {"ciberrato": Case(_ciberrato, _ciberrato_step), "simspark": Case(_simspark, _simspark_step),
         "humanoid": Case(_humanoid, _humanoid_step)}


def _observed(world, rid):
    observation = world.observe(rid)
    return json.dumps(asdict(observation), sort_keys=True, default=str)


def _run(case: Case, seed: int):
    world, rid = case.make(seed)
    snapshots, observations = [], []
    for k in range(CYCLES):
        case.step(world, rid, k)
        snapshots.append(json.dumps(world.snapshot(), sort_keys=True))
        observations.append(_observed(world, rid))
    return world, rid, snapshots, observations


@pytest.fixture(params=sorted(CASES))
def case(request) -> Case:
    return CASES[request.param]


def test_the_same_seed_and_actions_give_the_same_snapshots_and_observations(case):
    _, _, snapshots, observations = _run(case, seed=3)
    _, _, again, observed_again = _run(case, seed=3)
    assert snapshots == again and observations == observed_again
    assert len(set(snapshots)) == CYCLES                    # and the world did change every cycle


def test_a_snapshot_is_json_ready_and_observing_changes_nothing(case):
    world, rid = case.make(1)
    for k in range(5):
        case.step(world, rid, k)
    snapshot = world.snapshot()
    assert json.loads(json.dumps(snapshot)) == snapshot     # plain data: no numpy, no tuples, str keys
    first = _observed(world, rid)
    assert _observed(world, rid) == first and world.snapshot() == snapshot


def test_cycle_counts_the_steps_and_observe_follows_each_step(case):
    world, rid = case.make(2)
    start, before = world.cycle, _observed(world, rid)
    for k in range(3):
        case.step(world, rid, k)
        assert world.cycle == start + k + 1
        now = _observed(world, rid)
        assert now != before                                # the step's new state is what it reads
        before = now
