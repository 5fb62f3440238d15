"""The game-state part of monitor messages, byte for byte against the messages a real rcssserver3d
0.7.3 sent (golden/simspark/monitor_sample.txt): full headers and updates, in order."""

import dataclasses

from golden import SHARED

from simleague.simspark.monitor import GameState, full_header, number, update_header
from simleague.soccer.rules import PlayMode, Referee, SoccerRules, Team
from simleague.wire.sexp import parse

MONITOR = (SHARED / "golden" / "simspark" / "monitor_sample.txt").read_text().splitlines()


def headers() -> list[tuple[str, str]]:
    """(kind, header text) of every captured message, in order: kind RSG (full) or RDS (update)."""
    found = []
    for line in MONITOR:
        if line.startswith("(("):
            kind = "RSG" if "(RSG 0 1)" in line else "RDS"
            found.append((kind, line[:line.index(f"({kind} 0 1)")]))
    return found


def fields(header: str) -> dict[str, str]:
    """The game-state fields of a header (the rule parameters and play_modes left out)."""
    keep = {"time", "team_left", "team_right", "half", "score_left", "score_right", "play_mode"}
    return {e[0]: e[1] for e in parse(header)[0] if e[0] in keep}


def test_full_and_update_headers_match_the_original_byte_for_byte():
    captured = headers()
    assert sum(kind == "RSG" for kind, _ in captured) >= 4 and sum(kind == "RDS" for kind, _ in captured) >= 20
    state = None
    for kind, header in captured:
        got = fields(header)
        if kind == "RSG":
            state = GameState(float(got["time"]), got.get("team_left"), got.get("team_right"), int(got["half"]),
                              int(got["score_left"]), int(got["score_right"]), PlayMode(int(got["play_mode"])))
            assert full_header(SoccerRules(), state) == header
        else:
            previous = state
            changes = {"time": float(got["time"])}
            if "play_mode" in got:
                changes["play_mode"] = PlayMode(int(got["play_mode"]))
            for name in ("half", "score_left", "score_right"):
                if name in got:
                    changes[name] = int(got[name])
            for name in ("team_left", "team_right"):
                if name in got:
                    changes[name] = got[name]
            state = dataclasses.replace(previous, **changes)
            assert update_header(previous, state) == header


def test_state_from_the_referee():
    referee = Referee()
    referee.kick_off(Team.LEFT)
    for _ in range(152):
        referee.step(0.02, (0.0, 0.0, 0.042), Team.LEFT)
    state = GameState.of(referee, team_left="Probe")
    assert (state.time, state.play_mode, state.team_left, state.team_right) == (3.04, PlayMode.PlayOn, "Probe", None)
    assert full_header(SoccerRules(), state).endswith(
        "(time 3.04)(team_left Probe)(half 1)(score_left 0)(score_right 0)(play_mode 3))")
    assert [number(v) for v in (30.0, 2.1, 0.042, 300.04, 0.0)] == ["30", "2.1", "0.042", "300.04", "0"]
