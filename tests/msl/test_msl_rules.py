"""MSL middleware math on hand-worked cases: buffers and interpolation (thesis 4.2), mirroring (3.1),
ball arbitration (4.1.2), time synchronisation (4.3, Table 1, Algorithm 1), and the message parser."""

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, strategies as st

from simleague.msl.buffer import Snapshot, StateBuffer, TimeOrderError, mirror
from simleague.msl.messages import (MAX_LINE, Ball, MessageSplitter, ProtocolError, Request, Robot, State,
                                    decode_pauser, decode_team, encode, schema)
from simleague.msl.exchange import Match
from simleague.msl.rules import BallArbiter, SyncState, TimeSync

PI = math.pi


def snap(t, robots, ball=(0, 0, 0, 0, 0, 0)):
    """robots: {id: (x, y, th, vx, vy, w, engaged)}"""
    rs = [Robot(i, tuple(v[:3]), tuple(v[3:6]), v[6] if len(v) > 6 else 0) for i, v in robots.items()]
    return Snapshot.from_state(State(t, rs, [Ball(tuple(ball[:3]), tuple(ball[3:]))]))


# -- buffer: interpolation and extrapolation, thesis 4.2 -----------------------------------------

def filled():
    b = StateBuffer(4)
    b.push(snap(1.0, {1: (0, 0, 0.1, 1, 0, 0)}, (0, 0, 0, 2, 0, 0)))
    b.push(snap(2.0, {1: (1, 2, 0.3, 3, 0, 0)}, (2, 0, 0, 2, 0, 0)))
    b.push(snap(4.0, {1: (5, 2, 0.7, 3, 0, 0)}, (6, 0, 1, 2, 0, 0)))
    return b


def test_interpolation_between_two_stored_times():
    s, how = filled().at(3.0)
    assert how == "interpolated"
    assert s.robots[0] == pytest.approx([3, 2, 0.5, 3, 0, 0])
    assert s.ball == pytest.approx([4, 0, 0.5, 2, 0, 0])


def test_stored_time_returns_the_stored_state_unchanged():
    b = filled()
    s, how = b.at(2.0)
    assert how == "exact"
    assert s.robots[0] == (1, 2, 0.3, 3, 0, 0)


def test_extrapolation_after_newest_uses_the_two_newest():
    s, how = filled().at(5.0)
    assert how == "extrapolated"
    # between t=2 (x=1) and t=4 (x=5): slope 2 per s -> x(5) = 7; θ: 0.3 -> 0.7 -> 0.9
    assert s.robots[0] == pytest.approx([7, 2, 0.9, 3, 0, 0])
    assert s.ball == pytest.approx([8, 0, 1.5, 2, 0, 0])


def test_extrapolation_before_oldest_uses_the_two_oldest():
    s, how = filled().at(0.5)
    assert how == "extrapolated"
    # t=1 x=0, t=2 x=1 -> x(0.5) = -0.5; vx 1 -> 3 -> 0; θ 0.1 -> 0.3 -> 0.0 (or 2π - tiny)
    x, y, th, vx, vy, w = s.robots[0]
    assert (x, y, vx, vy, w) == pytest.approx((-0.5, -1, 0, 0, 0))
    assert math.cos(th) == pytest.approx(1.0) and 0 <= th < 2 * PI


def test_heading_interpolates_the_short_way_round():
    b = StateBuffer()
    b.push(snap(0.0, {1: (0, 0, 2 * PI - 0.1, 0, 0, 0)}))
    b.push(snap(1.0, {1: (0, 0, 0.1, 0, 0, 0)}))
    s, _ = b.at(0.25)
    assert s.robots[0][2] == pytest.approx(2 * PI - 0.05)
    s, _ = b.at(0.75)
    assert s.robots[0][2] == pytest.approx(0.05)


def test_circular_buffer_keeps_the_last_n():
    b = StateBuffer(3)
    for k in range(5):
        b.push(snap(float(k), {1: (k, 0, 0, 0, 0, 0)}))
    assert len(b) == 3
    s, how = b.at(0.0)  # 0 and 1 fell out: extrapolated back from 2 and 3
    assert how == "extrapolated" and s.robots[0][0] == pytest.approx(0.0)


def test_non_increasing_time_is_rejected_and_not_stored():
    b = filled()
    for t in (4.0, 3.0):
        with pytest.raises(TimeOrderError, match="not after"):
            b.push(snap(t, {1: (99, 99, 0, 0, 0, 0)}))
    assert len(b) == 3 and b.newest.robots[0][0] == 5


def test_one_state_is_held_and_an_empty_buffer_raises():
    b = StateBuffer()
    with pytest.raises(LookupError):
        b.at(1.0)
    b.push(snap(1.0, {1: (1, 1, 0, 0, 0, 0)}))
    s, how = b.at(3.0)
    assert how == "held" and s.robots[0] == (1, 1, 0, 0, 0, 0)


def test_robot_missing_from_one_state_comes_from_the_nearer_state():
    b = StateBuffer()
    b.push(snap(0.0, {1: (0, 0, 0, 0, 0, 0), 2: (5, 5, 0, 0, 0, 0)}))
    b.push(snap(1.0, {1: (1, 0, 0, 0, 0, 0)}))
    s, _ = b.at(0.25)
    assert s.ids == (1, 2) and s.robots[1] == (5, 5, 0, 0, 0, 0)
    s, _ = b.at(0.75)
    assert s.ids == (1,) and s.robots[0][0] == pytest.approx(0.75)


def test_buffer_length_limits():
    for bad in (1, 10_001):
        with pytest.raises(ValueError):
            StateBuffer(bad)


# -- mirroring, thesis 3.1 -----------------------------------------------------------------------

def test_mirror_negates_x_y_and_turns_heading_by_pi():
    s = mirror(snap(1.0, {3: (1.5, -2.0, 0.5, 0.2, 0.3, 0.7)}, (1, 2, 0.4, 3, 4, 5)))
    assert s.robots[0] == pytest.approx([-1.5, 2.0, 0.5 + PI, -0.2, -0.3, 0.7])
    assert s.ball == pytest.approx([-1, -2, 0.4, -3, -4, 5])
    s = mirror(snap(1.0, {3: (0, 0, 4.0, 0, 0, 0)}))
    assert s.robots[0][2] == pytest.approx(4.0 + PI - 2 * PI)  # stays in [0, 2π)


def test_mirror_twice_is_identity():
    s = snap(1.0, {1: (1, 2, 1.0, 3, 4, 5)}, (1, 2, 3, 4, 5, 6))
    back = mirror(mirror(s))
    assert back.robots[0] == pytest.approx(s.robots[0]) and back.ball == pytest.approx(s.ball)


# -- ball arbitration, thesis 4.1.2 ----------------------------------------------------------------

def rng(seed=0):
    return np.random.default_rng(seed)


def test_ball_of_the_team_in_possession_then_last_in_possession():
    arb = BallArbiter(rng())
    free_c = snap(0, {1: (0, 0, 0, 0, 0, 0, 0)})
    free_m = snap(0, {1: (0, 0, 0, 0, 0, 0, 0)})
    assert arb.update({"cyan": free_c, "magenta": free_m}) == "cyan"  # nobody yet: cyan's (documented)
    holding_m = snap(0, {1: (1, 0, 0, 0, 0, 0, 1)}, (1.2, 0, 0, 0, 0, 0))
    assert arb.update({"cyan": free_c, "magenta": holding_m}) == "magenta"
    assert arb.update({"cyan": free_c, "magenta": free_m}) == "magenta"  # passed or shot: last in possession
    holding_c = snap(0, {2: (0, 0, 0, 0, 0, 0, 1)}, (0.1, 0, 0, 0, 0, 0))
    assert arb.update({"cyan": holding_c, "magenta": free_m}) == "cyan"


def test_both_claim_the_closer_robot_to_its_own_ball_wins():
    arb = BallArbiter(rng())
    c = snap(0, {1: (0, 0, 0, 0, 0, 0, 1)}, (0.3, 0.4, 0, 0, 0, 0))  # 0.5 m
    m = snap(0, {1: (5, 5, 0, 0, 0, 0, 1)}, (5.0, 5.2, 0, 0, 0, 0))  # 0.2 m
    assert arb.update({"cyan": c, "magenta": m}) == "magenta"
    m_far = snap(0, {1: (5, 5, 0, 0, 0, 0, 1)}, (5.0, 6.0, 0, 0, 0, 0))  # 1.0 m
    assert arb.update({"cyan": c, "magenta": m_far}) == "cyan"


def test_exact_tie_is_a_seeded_draw():
    c = snap(0, {1: (0, 0, 0, 0, 0, 0, 1)}, (0.25, 0, 0, 0, 0, 0))
    m = snap(0, {1: (0, 0, 0, 0, 0, 0, 1)}, (0, 0.25, 0, 0, 0, 0))
    outcomes = {seed: BallArbiter(rng(seed)).update({"cyan": c, "magenta": m}) for seed in range(20)}
    assert set(outcomes.values()) == {"cyan", "magenta"}
    again = {seed: BallArbiter(rng(seed)).update({"cyan": c, "magenta": m}) for seed in range(20)}
    assert again == outcomes


# -- time synchronisation, thesis 4.3 Table 1 and Algorithm 1 --------------------------------------

def sync_in(state):
    s = TimeSync(0.2, 0.05)
    s.state = state
    return s


A, L, R = SyncState.BOTH_ACTIVE, SyncState.S1_PAUSED, SyncState.S2_PAUSED


@pytest.mark.parametrize("state, t1, t2, event, line, actions, after", [
    # line 1-2: both active, |Δ| <= ε1: nothing changes (also exactly at ε1)
    (A, 1.0, 1.1, None, 1, (), A),
    (A, 1.0, 1.2, None, 1, (), A),
    # e1 (line 3-4): |Δ| > ε1, t1 > t2: pause S1
    (A, 1.3, 1.0, "e1", 3, ((1, "pause"),), L),
    # e2 (line 5-6): |Δ| > ε1, t2 > t1: pause S2
    (A, 1.0, 1.3, "e2", 5, ((2, "pause"),), R),
    # line 7-8: S1 paused, |Δ| > ε2, t1 > t2: nothing changes (also above ε1)
    (L, 1.1, 1.0, None, 7, (), L),
    (L, 1.5, 1.0, None, 7, (), L),
    # line 9-10: S2 paused, |Δ| > ε2, t2 > t1: nothing changes
    (R, 1.0, 1.1, None, 9, (), R),
    # e3 (line 11-12): S1 paused, |Δ| <= ε2: resume S1 (exactly ε2 too, and t2 ahead by less)
    (L, 1.04, 1.0, "e3", 11, ((1, "resume"),), A),
    (L, 1.0, 1.04, "e3", 11, ((1, "resume"),), A),
    # e4 (line 13-14): S2 paused, |Δ| <= ε2: resume S2
    (R, 1.0, 1.03, "e4", 13, ((2, "resume"),), A),
    # e5 (line 15-16): S1 paused, |Δ| > ε2, t2 > t1: resume S1, pause S2
    (L, 1.0, 1.1, "e5", 15, ((1, "resume"), (2, "pause")), R),
    # e6 (line 17-18): S2 paused, |Δ| > ε2, t1 > t2: pause S1, resume S2
    (R, 1.1, 1.0, "e6", 17, ((1, "pause"), (2, "resume")), L),
])
def test_algorithm_1_row_by_row(state, t1, t2, event, line, actions, after):
    s = sync_in(state)
    tr = s.update(t1, t2)
    assert (tr.event, tr.line, tr.actions, s.state) == (event, line, actions, after)


def test_sync_boundaries_use_strict_and_non_strict_comparisons():
    s = TimeSync(0.25, 0.125)  # binary fractions: exact comparisons
    assert s.update(1.25, 1.0).event is None  # |Δ| = ε1 is not "exceeds"
    assert s.update(1.5, 1.0).event == "e1"
    assert s.update(1.125, 1.0).event == "e3"  # |Δ| = ε2 resumes


def test_sync_sequence_like_thesis_fig9():
    s = TimeSync(0.2, 0.05)
    events = [s.update(t1, t2).event for t1, t2 in
              [(0, 0), (1.0, 0.9), (1.25, 1.0), (1.25, 1.1), (1.25, 1.21), (1.3, 1.26), (1.5, 1.27)]]
    assert events == [None, None, "e1", None, "e3", None, "e1"]
    assert s.paused(1) and not s.paused(2)


def test_thresholds_must_be_ordered():
    for e1, e2 in ((0.05, 0.2), (0.1, 0.1), (0.2, -0.1)):
        with pytest.raises(ValueError, match="eps1 > eps2"):
            TimeSync(e1, e2)


# -- the match core: reply in the asker's frame with the chosen ball ---------------------------------

def test_reply_is_mirrored_interpolated_and_rounded():
    m = Match(buffer=5)
    ball = [Ball((0.0, 0.0, 0.0), (0.0, 0.0, 0.0))]
    m.on_state("magenta", State(1.0, [Robot(4, (1.0, 2.0, 0.5), (0.1, 0.0, 0.0), 1)],
                                [Ball((1.2, 2.0, 0.0), (0.0, 0.0, 0.0))]))
    m.on_state("magenta", State(2.0, [Robot(4, (2.0, 2.0, 0.5), (0.1, 0.0, 0.0), 1)],
                                [Ball((2.2, 2.0, 0.0), (0.0, 0.0, 0.0))]))
    m.on_state("cyan", State(1.5, [Robot(1, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), 0)], ball))
    reply = m.on_request("cyan", Request(1.123456))
    assert reply.estimate == "interpolated" and reply.ballFrom == "magenta"
    (r,) = reply.robots
    assert r.id == 4 and r.ballEngaged == 1
    assert r.pose == (-1.123, -2.0, round(0.5 + PI, 4))
    assert r.velocity == (-0.1, -0.0, 0.0)
    assert reply.balls[0].position == (-1.323, -2.0, 0.0)
    # magenta asks: cyan's robot in magenta's frame, and magenta's own ball as it is
    reply = m.on_request("magenta", Request(1.5))
    assert reply.estimate == "exact" and reply.robots[0].pose == (-0.0, -0.0, round(PI, 4))
    assert reply.ballFrom == "magenta" and reply.balls[0].position == (1.7, 2.0, 0.0)


def test_request_before_the_opponent_sent_anything():
    with pytest.raises(LookupError, match="no state from the magenta team"):
        Match().on_request("cyan", Request(1.0))


# -- the parser and framing ----------------------------------------------------------------------

STATE = {"type": "state", "t": 1.5, "robots": [{"id": 1, "pose": [0, 0, 0], "velocity": [0, 0, 0],
                                                 "ballEngaged": 0}],
         "balls": [{"position": [0, 0, 0], "velocity": [0, 0, 0]}]}


@pytest.mark.parametrize("line, words", [
    (b'{"type": "state", "t": ', "not a JSON object: Input data was truncated"),
    (b'{"type": state}', "not a JSON object: JSON is malformed"),
    (b'{"type": "kick", "t": 1}', "Invalid value 'kick'"),
    (b'{"type": "request"}', "missing required field `t`"),
    (b'{"type": "request", "t": -1}', "`$.t`"),
    (b'{"type": "request", "t": 1e999}', "`$.t`"),
    (b'[1, 2]', "Expected `object`"),
    (json.dumps({**STATE, "balls": []}).encode(), "`$.balls`"),
    (json.dumps({**STATE, "robots": STATE["robots"] * 17}).encode(), "`$.robots`"),
    (json.dumps({**STATE, "robots": [{**STATE["robots"][0], "ballEngaged": 2}]}).encode(), "ballEngaged"),
    (b'{"type": "hello", "teamName": "A", "side": "red"}', "`$.side`"),
])
def test_bad_lines_raise_protocol_error_naming_the_problem(line, words):
    with pytest.raises(ProtocolError, match=None) as info:
        decode_team(line)
    assert words in str(info.value)


def test_extra_fields_of_the_world_state_format_are_accepted():
    msg = decode_team(json.dumps({**STATE, "teamName": "X", "intention": "attack", "ageMs": 12,
                                  "obstacles": []}).encode())
    assert isinstance(msg, State) and msg.t == 1.5


@given(st.binary(max_size=300))
def test_no_bytes_make_the_parsers_raise_anything_else(data):
    for decode in (decode_team, decode_pauser):
        try:
            decode(data)
        except ProtocolError:
            pass


def test_message_splitter_skips_oversized_messages_without_keeping_them():
    sp = MessageSplitter(limit=10)
    assert sp.feed(b"abc\nde") == [b"abc"]
    assert sp.feed(b"f\r\n") == [b"def"]
    assert sp.feed(b"x" * 8) == []
    assert sp.feed(b"x" * 8) == []  # now over the limit: skipping, nothing kept
    assert len(sp._buf) == 0
    assert sp.feed(b"yyy\nok\n") == [None, b"ok"]
    assert sp.feed(b"z" * 11 + b"\n") == [None]


def test_encode_is_one_compact_line():
    data = encode(Request(2.5))
    assert data == b'{"type":"request","t":2.5}\n' and len(data) < MAX_LINE


def test_schema_file_matches_the_message_types():
    path = Path(__file__).parents[2] / "src/simleague/msl/schema.json"
    assert json.loads(path.read_text()) == json.loads(json.dumps(schema())), \
        "regenerate schema.json from simleague.msl.messages.schema()"
    assert set(schema()["discriminator"]["mapping"]) == {
        "hello", "state", "worldstate", "request", "subscribe", "heartbeat", "start", "reply", "referee",
        "opponent", "end", "error", "pauser_hello", "command", "report"}


def test_message_splitter_reads_both_framings_and_pretty_printed_objects():
    sp = MessageSplitter()
    assert sp.feed(b'{"a": 1}\n{\n  "command": "STOP",\n  "targetTeam": ""\n}\x00{"b"') == \
        [b'{"a": 1}', b'{\n  "command": "STOP",\n  "targetTeam": ""\n}']
    assert sp.terminator == b"\n"                              # what ended the first message
    assert sp.feed(b": 2}\x00{not json\n") == [b'{"b": 2}', b"{not json"]   # broken JSON ends at its newline
    nul = MessageSplitter()
    assert nul.feed(b'{\n "type": "hello"\n}\x00') == [b'{\n "type": "hello"\n}'] and nul.terminator == b"\0"
