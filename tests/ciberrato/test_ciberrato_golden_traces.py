"""The world reproduces the recorded behaviour of the original simulator, message for message."""

import re

import pytest

from golden import SCORING, load_trace, replay

EXACT = ["a_default_lab_single.json", "b_rmi2425_c1_single.json", "c_2014final_three_robots.json",
         "d_2014final_latency.json", "e_rmi2223_c1_line.json"]
SCORE_FIELDS = re.compile(r' (Score|ArrivalTime|ReturningTime|VisitedMask|State)="[^"]*"|<Score [^>]*/>\n\t*')


@pytest.mark.parametrize("name", EXACT)
def test_motion_and_sensor_traces_byte_for_byte(name):
    trace = load_trace(name)
    scored = trace["scoring"] in SCORING      # scores compared only for rules we implement
    steps = 0
    for label, rid, ours_m, theirs_m, ours_s, theirs_s in replay(trace):
        if not scored:
            ours_m, theirs_m = SCORE_FIELDS.sub("", ours_m), SCORE_FIELDS.sub("", theirs_m)
            ours_s, theirs_s = SCORE_FIELDS.sub("", ours_s), SCORE_FIELDS.sub("", theirs_s)
        assert ours_m == theirs_m, f"{name} {label} robot {rid} Measures"
        assert ours_s == theirs_s, f"{name} {label} robot {rid} status"
        steps += 1
    assert steps == len(trace["cycles"]) * len(trace["robots"]) + (len(trace["prestart"]) + 2) * len(trace["robots"])


@pytest.mark.parametrize("name", ["scoring_default_lab_return.json", "scoring_default_lab_timeout.json"])
def test_competitive_scoring_traces(name):
    """Every score, including the return-distance score of the hundreds of cycles spent returning
    (the original's corner graph for a disc robot), matches exactly."""
    returning = 0
    for label, rid, ours_m, theirs_m, ours_s, theirs_s in replay(load_trace(name)):
        assert ours_m == theirs_m, label
        assert ours_s == theirs_s, label
        returning += 'State="Returning"' in theirs_s
    assert returning > 100
