"""time and GS perceptors, byte for byte against a real rcssserver3d 0.7.3 agent stream."""

import re

from golden import SHARED

from simleague.simspark.perceptors import game_state_perceptor, time_perceptor
from simleague.soccer.rules import PlayMode, Referee, Team

STREAM = (SHARED / "golden" / "simspark" / "agent_sample.txt").read_text().splitlines()
PREFIX = re.compile(r"\(time \(now ([-\d.]+)\)\)(\(GS (?:\(unum (\d+)\) \(team (left|right)\) )?"
                    r"\(sl (\d+)\) \(sr (\d+)\) \(t ([\d.]+)\) \(pm (\w+)\)\))")


def test_time_and_game_state_as_the_original_sent_them():
    checked = first = 0
    for line in STREAM:
        m = PREFIX.match(line)
        if not m:
            continue
        now, gs, unum, team, sl, sr, t, pm = m.groups()
        referee = Referee()
        referee.score = {Team.LEFT: int(sl), Team.RIGHT: int(sr)}
        referee.time, referee.play_mode = float(t), PlayMode.from_wire(pm)
        assert time_perceptor(float(now)) == f"(time (now {now}))"
        who = (Team(team), int(unum)) if unum else (None, None)
        assert game_state_perceptor(referee, *who) == gs
        checked += 1
        first += unum is not None
    assert checked >= 15 and first == 1
