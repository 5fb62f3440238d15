"""Agent messages into typed effectors: the real FC Portugal agent's wire log, and bad input."""

import re

import pytest
from golden import SHARED
from hypothesis import given
from hypothesis import strategies as st

from simleague.simspark.messages import (
    JOINTS,
    TOE_JOINTS,
    Beam,
    Init,
    JointVelocity,
    Say,
    Scene,
    Syn,
    parse_agent_message,
    parse_general,
)

WIRE = (SHARED / "golden" / "simspark" / "fcp_agent_wire_1player.txt").read_text().splitlines()


def sent() -> list[bytes]:
    """What the real agent sent, whole messages only (the log cuts at 3,000 characters)."""
    found = []
    for line in WIRE:
        m = re.match(r"C\d+->S #\d+ t=[\d.]+ len=(\d+): (.*)$", line)
        if m and int(m.group(1)) == len(m.group(2)):
            found.append(m.group(2).encode("ascii"))
    return found


def test_the_real_agents_messages_are_understood_whole():
    messages = [parse_agent_message(m) for m in sent()]
    assert len(messages) >= 40
    assert all(m.problems == [] for m in messages)
    assert messages[0].effectors == [Scene("rsg/agent/nao/nao_hetero.rsg", 0)]
    assert messages[1].effectors == [Init(1, "FCPortugal")]
    assert messages[2].effectors == [Syn()]
    fifth = messages[5].effectors
    assert fifth[0] == Beam(-14.0, 0.0, 0.0) and fifth[-1] == Syn()
    assert {e.joint for e in fifth if isinstance(e, JointVelocity)} == set(JOINTS)
    says = [e for m in messages for e in m.effectors if isinstance(e, Say)]
    assert says and says[0] == Say("p9zkS`uNYEM%:rS_L]B")


@pytest.mark.parametrize("data, problem", [
    (b"(kick 3)", "unknown effector 'kick'"),
    (b"((he1 1))", "unknown effector '(...)'"),
    (b"(beam 1 2)", "beam: 3 arguments expected, 2 given"),
    (b"(beam 1 2 nan)", "beam: 'nan' is not a finite number"),
    (b"(he1 fast)", "he1: 'fast' is not a finite number"),
    (b"(say abcdefghijklmnopqrstu)", "say: a message of at most 20 characters without blanks or parentheses"),
    (b"(scene rsg/agent/soccerbot.rsg)", "scene: unknown scene 'rsg/agent/soccerbot.rsg'; one of"),
    (b"(scene rsg/agent/nao/nao_hetero.rsg 5)", "scene: robot type '5'; one of 0-4"),
    (b"(init (unum 12)(teamname A))", "init: unum '12'; 0 (the next free) to 11"),
    (b"(init (teamname A))", "init: (init (unum N)(teamname NAME)) expected"),
    (b"(syn", "not an S-expression message: 1 '(' not closed at byte 13"),
])
def test_bad_effectors_are_named_and_the_rest_still_applies(data, problem):
    message = parse_agent_message(data + b"(he2 0.5)")
    assert len(message.problems) == 1 and message.problems[0].startswith(problem), message.problems
    if not problem.startswith("not an S-expression"):
        assert message.effectors == [JointVelocity("he2", 0.5)]


@given(st.binary(max_size=200))
def test_no_bytes_make_the_agent_parser_raise(data):
    message = parse_agent_message(data)
    assert isinstance(message.problems, list)


@given(st.lists(st.tuples(st.sampled_from(JOINTS + TOE_JOINTS + ("syn",)),
                          st.floats(allow_nan=True, allow_infinity=True, width=32)), max_size=30))
def test_the_routine_shortcut_reads_a_message_as_the_general_parser(effectors):
    text = "".join(f"({name})" if name == "syn" else f"({name} {value!r})" for name, value in effectors)
    data = text.replace("inf", "1e999").encode()
    assert parse_agent_message(data) == parse_general(data)
