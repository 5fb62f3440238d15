"""Length-prefixed framing and S-expressions, on the real SimSpark streams in golden/simspark and on
whatever bytes hypothesis comes up with."""

import re

import pytest
from golden import SHARED
from hypothesis import given
from hypothesis import strategies as st

from simleague.wire.framing import FrameDecoder, FrameError, encode
from simleague.wire.sexp import Limits, SexpError, dumps, parse

STREAMS = SHARED / "golden" / "simspark"


def wire_log(name: str) -> list[tuple[int, bytes]]:
    """The (announced length, payload) of every whole message of a wire log (``... len=N: payload``;
    the log cuts payloads at 3,000 characters, and those are left out)."""
    found = []
    for line in (STREAMS / name).read_text().splitlines():
        m = re.match(r"\S+ #\d+ t=[\d.]+ len=(\d+): (.*)$", line)
        if m and int(m.group(1)) == len(m.group(2)):
            found.append((int(m.group(1)), m.group(2).encode("ascii")))
    return found


def samples(name: str) -> list[bytes]:
    """The payloads of a capture (the lines that are neither annotations nor what was sent)."""
    return [line.encode("ascii") for line in (STREAMS / name).read_text().splitlines()
            if line.startswith("(")]


REAL = (wire_log("fcp_agent_wire_1player.txt") + wire_log("fcp_monitor_wire_1player.txt"))


def test_real_streams_frame_and_parse():
    assert len(REAL) >= 40
    stream = b"".join(encode(payload) for _, payload in REAL)
    decoder = FrameDecoder(max_frame=1 << 20)
    frames = [f for k in range(0, len(stream), 1000) for f in decoder.feed(stream[k:k + 1000])]
    assert frames == [payload for _, payload in REAL] and decoder.pending == 0
    for _, payload in REAL:
        expressions = parse(payload)
        assert parse(dumps(expressions)) == expressions
    first = parse(REAL[0][1])
    assert first == [["scene", "rsg/agent/nao/nao_hetero.rsg", "0"]]


def test_every_captured_perceptor_and_monitor_message_parses():
    messages = samples("agent_sample.txt") + samples("agent_sample_hear.txt") + samples("monitor_sample.txt")
    assert len(messages) > 100
    heads = set()
    for message in messages:
        heads.update(e[0] if isinstance(e[0], str) else "(" for e in parse(message))
    assert {"time", "GS", "GYR", "ACC", "HJ", "See", "hear"} <= heads


@pytest.mark.parametrize("data, problem", [
    (b"(a (b)", "1 '(' not closed at byte 6"),
    (b"(a))", "')' without a matching '(' at byte 3"),
    (b"hello (a)", "atom 'hello' outside parentheses at byte 0"),
    (b"(say \xc3\xa9)", "byte 0xc3, not printable ASCII at byte 5"),
    ("(say é)", "a character that is not ASCII at byte 5"),
    (b"(a\x00b)", "byte 0x00, not printable ASCII at byte 2"),
    (b"(" * 65 + b")" * 65, "nesting deeper than 64 at byte 64"),
])
def test_malformed_messages_name_the_byte_and_the_problem(data, problem):
    with pytest.raises(SexpError) as e:
        parse(data)
    assert str(e.value) == problem


def test_limits_on_size_and_atoms():
    small = Limits(max_bytes=100, max_depth=4, max_atoms=3)
    assert parse(b"(a b c)", small) == [["a", "b", "c"]]
    with pytest.raises(SexpError, match="more than 3 atoms"):
        parse(b"(a b c d)", small)
    with pytest.raises(SexpError, match="a message of 101 bytes"):
        parse(b"(" + b"a" * 99 + b")", small)
    assert parse(b"(syn)\0") == [["syn"]]                  # a trailing NUL is tolerated


def test_dumps_refuses_what_cannot_be_an_atom():
    assert dumps([["beam", "-3", "0.5", "90"], ["syn"]]) == "(beam -3 0.5 90)(syn)"
    for atom in ("", "two words", "a(b"):
        with pytest.raises(ValueError, match="cannot be an atom"):
            dumps([["say", atom]])


def test_a_huge_length_prefix_is_refused_before_anything_is_buffered():
    decoder = FrameDecoder(max_frame=64 * 1024)
    prefix = (100_000_000).to_bytes(4, "big")
    assert decoder.feed(prefix[:2]) == []
    with pytest.raises(FrameError, match="a frame of 100000000 bytes announced; the limit is 65536"):
        decoder.feed(prefix[2:] + b"(syn)")
    assert decoder.pending == 0
    with pytest.raises(FrameError):                        # the stream stays broken
        decoder.feed(encode(b"(syn)"))


@given(st.binary(max_size=300))
def test_no_bytes_make_the_parser_raise_anything_but_its_error(data):
    try:
        parse(data, Limits(max_bytes=200, max_depth=8, max_atoms=50))
    except SexpError:
        pass


@given(st.lists(st.binary(max_size=50), max_size=10), st.lists(st.integers(1, 40), min_size=1, max_size=10))
def test_frames_survive_any_cutting_of_the_stream(payloads, cuts):
    stream = b"".join(encode(p) for p in payloads)
    decoder = FrameDecoder(max_frame=50)
    got, pos, k = [], 0, 0
    while pos < len(stream):
        step = cuts[k % len(cuts)]
        got += decoder.feed(stream[pos:pos + step])
        pos, k = pos + step, k + 1
    assert got == payloads and decoder.pending == 0


def test_frames_before_an_oversized_prefix_are_kept():
    decoder = FrameDecoder(max_frame=100)
    frames = decoder.feed(encode(b"(beam 1 2 3)") + encode(b"(syn)") + (10**6).to_bytes(4, "big") + b"(")
    assert frames == [b"(beam 1 2 3)", b"(syn)"]          # what came before the bad frame counts
    assert decoder.error is not None and "1000000 bytes" in str(decoder.error)
    with pytest.raises(FrameError):
        decoder.feed(b"")


def test_a_log_limiter_logs_so_many_lines_a_second_then_counts(caplog, monkeypatch):
    import logging

    from simleague.wire import limits

    now = [100.0]
    monkeypatch.setattr(limits.time, "monotonic", lambda: now[0])
    logger = logging.getLogger("simleague.test")
    limiter = limits.LogLimiter(logger, "client 7", per_second=3)
    with caplog.at_level(logging.INFO, logger="simleague.test"):
        for n in range(10):
            limiter.log(logging.WARNING, f"bad {n}")
        assert [r.getMessage() for r in caplog.records] == ["bad 0", "bad 1", "bad 2"]
        limiter.flush()                                  # the same second: nothing yet
        now[0] += 1.0
        limiter.flush()
        limiter.log(logging.INFO, "bad 10")
    assert [r.getMessage() for r in caplog.records][3:] == [
        "client 7: 7 more problems in the last second not logged", "bad 10"]


@pytest.mark.parametrize("patience, verdicts", [
    (0, "S D"),                     # SimSpark, MSL, the viewers: cut off at once
    (2, "S R R D"),                 # the humanoid API: two measurements dropped, then cut off
    (None, "S R R R R R"),          # the RefBox bridge: skips, never cuts off
])
def test_one_slow_reader_rule_sends_drops_then_disconnects(patience, verdicts):
    from simleague.wire.limits import SlowReader, Verdict

    reader = SlowReader(max_unsent=100, patience=patience)
    code = {"S": Verdict.SEND, "R": Verdict.DROP, "D": Verdict.DISCONNECT}
    unsent = [100] + [101] * (len(verdicts.split()) - 1)     # at the bound, then over it
    assert [reader.verdict(n) for n in unsent] == [code[v] for v in verdicts.split()]


def test_a_slow_reader_that_catches_up_is_told_how_many_it_missed():
    from simleague.wire.limits import SlowReader, Verdict

    reader = SlowReader(max_unsent=100, patience=5)
    assert [reader.verdict(n) for n in (500, 500, 500)] == [Verdict.DROP] * 3
    assert reader.verdict(0) is Verdict.SEND and reader.missed == 3
    assert reader.verdict(0) is Verdict.SEND and reader.missed == 0
    # the count is of drops in a row: after a send, the patience is whole again
    assert [reader.verdict(500) for _ in range(6)] == [Verdict.DROP] * 5 + [Verdict.DISCONNECT]
