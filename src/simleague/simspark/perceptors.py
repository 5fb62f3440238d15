"""Perceptor text sent to SimSpark agents, formatted as the original does (specs/simspark.md,
"Agents"; checked against golden/simspark/agent_sample.txt). Numbers with two decimals, never in
exponent notation (real agents break on it).

So far the perceptors that come from the referee: ``time`` and ``GS``; the robot's own (GYR, ACC,
HJ, FRP, See, hear) need the soccer world.
"""

from __future__ import annotations

from ..soccer.rules import Referee, Team


def fixed(value: float) -> str:
    """Two decimals, as every perceptor number (``-0.00`` kept as the original prints it)."""
    return f"{value:.2f}"


def time_perceptor(now: float) -> str:
    """``(time (now 3.24))``: the simulation's clock, s."""
    return f"(time (now {fixed(now)}))"


def game_state_perceptor(referee: Referee, team: Team | None = None, unum: int | None = None) -> str:
    """``(GS (sl 0) (sr 0) (t 0.00) (pm BeforeKickOff))``: score, game time (s) and play mode. With
    ``team`` and ``unum`` (only in the first GS after the team is assigned) they come first:
    ``(GS (unum 7) (team left) (sl 0) ...)``."""
    who = f"(unum {unum}) (team {team.value}) " if team is not None and unum is not None else ""
    return (f"(GS {who}(sl {referee.score[Team.LEFT]}) (sr {referee.score[Team.RIGHT]}) "
            f"(t {fixed(referee.time)}) (pm {referee.play_mode.wire}))")
