"""CiberRato standings (seed 004, section 5.5) with the judges' decisions applied.

Per trial each team's robot has a score and a visiting time (5.4; the time limit when it did not
visit every target). A leg gives each team the sum of its ``best_trials`` best trials of that leg
(best: lowest score, then lowest time), plus, in a ``cumulative`` leg, its total of the leg
before; teams are ranked by ascending score, then ascending time (5.5 items 1-3). The judges may
exclude a robot from a trial (it gets the highest score, I + 100, and the time limit: 5.4 item 11)
or correct a score, each with a reason that the report shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .config import Decisions, Leg


@dataclass
class Entry:
    """A team's robot in one trial after the decisions: ``score``, ``time`` (cycles), what the
    simulator said (``state``, ``collisions``), and the ``notes`` of the decisions applied to it
    or of what happened to it (its program exited, it never registered)."""

    trial: str
    team: str
    pos: int
    score: int
    time: int
    state: str
    collisions: int = 0
    notes: list[str] = field(default_factory=list)


@dataclass
class Standing:
    """A team's place after a leg: ``rank`` (1-based), ``score`` and ``time`` (the sums that
    rank it), the ``trials`` (entries) that counted."""

    team: str
    rank: int
    score: int
    time: int
    counted: list[str]


def trial_entries(trial: str, slots: list, result: dict, decisions: Decisions) -> list[Entry]:
    """The entries of one trial's result (``slots``: [(pos, team)]) with the decisions applied."""
    by_pos = {row["id"]: row for row in result["robots"]}
    absent = {row["id"]: row for row in result.get("absent", [])}
    limit = result["sim_time"]
    entries = []
    for pos, team in slots:
        row = by_pos.get(pos)
        if row is not None:
            entry = Entry(trial, team, pos, row["score"], row["visiting_time"], row["state"], row["collisions"])
            if row.get("exit_code") not in (None, 0, -15):
                entry.notes.append(f"its program exited with code {row['exit_code']}")
        else:
            code = absent.get(pos, {}).get("exit_code")
            entry = Entry(trial, team, pos, result["max_score"], limit, "Absent",
                          notes=[f"its program exited (code {code}) before the robot registered: highest score"])
        for ex in decisions.exclude:
            if ex.trial == trial and ex.team == team:
                entry.score, entry.time, entry.state = result["max_score"], limit, "Excluded"
                entry.notes.append(f"excluded by the judges: {ex.reason}")
        for c in decisions.correction:
            if c.trial == trial and c.team == team:
                entry.notes.append(f"score corrected by the judges from {entry.score} to {c.score}: {c.reason}")
                entry.score = c.score
                if c.time is not None:
                    entry.time = c.time
        entries.append(entry)
    return entries


def leg_standings(leg: Leg, teams: list[str], entries: list[Entry],
                  previous: dict[str, Standing] | None) -> list[Standing]:
    """The standings of ``teams`` after ``leg`` from their ``entries`` in it (5.5). A team without
    a counted trial (its trials' infrastructure failed) ranks last, with no score."""
    rows = []
    for team in teams:
        own = sorted((e for e in entries if e.team == team), key=lambda e: (e.score, e.time, e.trial))
        best = own[:leg.best_trials]
        score, time = sum(e.score for e in best), sum(e.time for e in best)
        counted = [e.trial for e in best]
        if leg.cumulative and previous and team in previous:
            score, time = score + previous[team].score, time + previous[team].time
            counted = previous[team].counted + counted
        complete = len(best) == leg.best_trials
        rows.append((not complete, score, time, team, counted))
    rows.sort()
    return [Standing(team, rank, score, time, counted) for rank, (_, score, time, team, counted) in enumerate(rows, 1)]
