"""The 2008 scoring rules (seed 004, section 5.4), checked against hand-worked numbers."""


import pytest

from simleague.ciberrato.scenario import Lab, Parameters, Target, Beacon
from simleague.ciberrato.scoring import Rules2008, StepFacts

LAB = Lab("t", 28, 14, (Beacon(20, 7, 4),), (Target(20, 7, 1.5),), ())


def facts(t=1, target=-1, wall=False, robot=False, vis=False, ret=False, end=False, home=10.0, sim_time=1800):
    return StepFacts(t, sim_time, target, wall, robot, vis, ret, end, ret, lambda: home)


@pytest.fixture
def rules():
    return Rules2008(Parameters(), 1, 1)


def running(rules):
    rec = rules.new_robot()
    rec.state = "Running"
    return rec


def test_rule1_start_score(rules):
    rec = running(rules)
    rules.update_score(rec, facts())
    assert rec.score == 300               # 200 + 100 * 1 beacon


def test_rules2_3_collision_episodes(rules):
    rec = running(rules)
    for t, wall in enumerate([True, True, False, True], 1):   # two episodes
        rules.update_score(rec, facts(t, wall=wall))
    assert (rec.collisions, rec.score) == (2, 310)
    rules.update_score(rec, facts(5, robot=True))              # same episode continues: no new penalty
    assert rec.score == 310


def test_rules4_5_visit_and_led_misuse(rules):
    rec = running(rules)
    rules.update_score(rec, facts(1, vis=True))                # outside: +5 per cycle
    rules.update_score(rec, facts(2, vis=True))
    assert rec.score == 310
    rules.update_score(rec, facts(3, target=0, vis=True))      # inside: -100, visiting time 3
    assert (rec.score, rec.visited_mask, rec.visiting_time) == (210, "1", 3)
    rules.update_score(rec, facts(4, target=0, vis=True))      # only once per target
    assert rec.score == 210


def test_rules6_8_9_return(rules):
    rec = running(rules)
    rules.update_score(rec, facts(10, target=0, vis=True))
    rules.update_score(rec, facts(11, target=0, ret=True, home=15.0))   # D_R = 15, T_R = 100
    assert rec.score == 100 and rec.return_distance == 15.0
    rules.update_state(rec, "Running", facts(11, target=0, ret=True))
    assert rec.state == "Returning"
    rules.update_score(rec, facts(61, home=7.5))     # half way: 50 steps of D_R/100 closer
    assert rec.score == 100 - 50
    rules.update_score(rec, facts(11 + 150, home=0.0))   # home, 50 cycles late: 2 x 25
    assert rec.score == 100 - 100 + 2
    rules.update_state(rec, "Running", facts(161, end=True))
    assert rec.state == "Finished"


def test_rule7_return_led_outside_target_ends(rules):
    rec = running(rules)
    rules.update_score(rec, facts(5, ret=True))
    rules.update_state(rec, "Running", facts(5, ret=True))
    assert rec.state == "Finished" and rec.score == 300


def test_rules10_11_time_limit_and_cap(rules):
    rec = running(rules)
    for t in range(1, 40):
        rules.update_score(rec, facts(t, vis=True))            # 39 * 5 = 195 of LED misuse
    assert rec.score == 400                                    # capped at I + 100
    rec2 = running(rules)
    rules.update_score(rec2, facts(1800, sim_time=1800))
    assert rec2.score == 315                                   # +15 when time runs out


def test_ranking_by_score_then_visiting_time(rules):
    a, b = running(rules), running(rules)
    a.score = b.score = 100
    a.visiting_time, b.visiting_time = 500, 400
    assert sorted([a, b], key=rules.ranking_key) == [b, a]
