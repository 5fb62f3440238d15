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


def _triple(values) -> str:
    return "%.2f %.2f %.2f" % (values[0], values[1], values[2])


def gyro_perceptor(rate) -> str:
    """``(GYR (n torso) (rt x y z))``: the torso's angular velocity, deg/s."""
    return f"(GYR (n torso) (rt {_triple(rate)}))"


def accelerometer_perceptor(acceleration) -> str:
    """``(ACC (n torso) (a x y z))``: the torso's proper acceleration, m/s^2."""
    return f"(ACC (n torso) (a {_triple(acceleration)}))"


def hinge_perceptor(name: str, angle: float) -> str:
    """``(HJ (n rlj3) (ax 12.34))``: a joint's angle, degrees."""
    return "(HJ (n %s) (ax %.2f))" % (name, angle)


def pressure_perceptor(name: str, centre, force) -> str:
    """``(FRP (n lf) (c x y z) (f x y z))``: where the contact forces on a foot act (m) and their
    sum (N), in the foot's frame; sent only while the foot touches something."""
    return f"(FRP (n {name}) (c {_triple(centre)}) (f {_triple(force)}))"


def pol(values) -> str:
    """``(pol d h v)``: distance (m), horizontal and vertical angle (degrees)."""
    return "(pol %.2f %.2f %.2f)" % (values[0], values[1], values[2])


def hear_perceptor(team: str, game_time: float, direction: float | None, message: str) -> str:
    """``(hear TEAM 12.34 -16.25 msg)``: what a robot of team ``TEAM`` said, from ``direction``
    degrees (horizontal, in the hearer's head frame), or ``self`` for one's own message."""
    source = "self" if direction is None else fixed(direction)
    return f"(hear {team} {fixed(game_time)} {source} {message})"
