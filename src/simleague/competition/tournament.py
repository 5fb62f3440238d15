"""Soccer tournaments: a round robin (every pair once; standings by points, 3 for a win and 1 for a
draw, then goal difference, then goals scored) or a knock-out (the file's team order is the
seeding; a drawn match is decided by lot from its seed, and the report says so), each match played
by the world's match function on a pool, stored and resumable as competitions are."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from .config import Competition, CompetitionError
from .pools import Pool
from .run import HOST, Job, check, fingerprint, run_jobs, slug
from .schedule import Match, knockout_round, round_robin
from .store import Store

#: per world, its match function (``module:function``, plain dicts)
MATCHES = {"simspark": "simleague.simspark.match:run_described"}
WIN, DRAW = 3, 1


@dataclass
class MatchOutcome:
    """A match as the report shows it: the schedule's ``match``, ``status`` (done, failed, bye,
    not run), ``score`` (left, right), the ``winner`` (knock-out), ``notes``, ``attempts``, the
    ``error``, its ``folder`` (relative to the output folder)."""

    match: Match
    status: str
    score: tuple[int, int] | None = None
    winner: str | None = None
    notes: list[str] = field(default_factory=list)
    attempts: int = 0
    error: str | None = None
    folder: str = ""


@dataclass
class Row:
    """A team's line in the standings."""

    team: str
    rank: int = 0
    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    goals_for: int = 0
    goals_against: int = 0

    @property
    def points(self) -> int:
        """3 a win, 1 a draw."""
        return WIN * self.won + DRAW * self.drawn

    @property
    def difference(self) -> int:
        """Goals scored minus goals conceded."""
        return self.goals_for - self.goals_against


@dataclass
class TournamentOutcome:
    """``rounds``: per round its name and matches; ``standings``: the table (round robin: by
    points, goal difference, goals; knock-out: by the round a team reached, then the same)."""

    name: str
    format: str
    rounds: list[tuple[str, list[MatchOutcome]]]
    standings: list[Row]


def standings(teams: list[str], matches: list[MatchOutcome], reached: dict[str, int] | None = None) -> list[Row]:
    """The table of ``teams`` from the played ``matches``; ``reached`` (knock-out) ranks first by
    the last round a team played."""
    rows = {t: Row(t) for t in teams}
    for m in matches:
        if m.status != "done" or m.score is None:
            continue
        (a, b), (left, right) = m.score, (rows[m.match.left], rows[m.match.right])
        for row, mine, theirs in ((left, a, b), (right, b, a)):
            row.played += 1
            row.goals_for += mine
            row.goals_against += theirs
            if mine > theirs:
                row.won += 1
            elif mine == theirs:
                row.drawn += 1
            else:
                row.lost += 1
    order = sorted(rows.values(), key=lambda r: (-(reached or {}).get(r.team, 0), -r.points, -r.difference,
                                                 -r.goals_for, r.team))
    for rank, row in enumerate(order, 1):
        row.rank = rank
    return order


def describe_match(comp: Competition, match: Match, out: Path) -> tuple[dict, str]:
    """The plain description of a match for the world's match function, and its folder."""
    folder = f"matches/{slug(match.key)}"
    (out / folder).mkdir(parents=True, exist_ok=True)
    teams = comp.teams

    def side(name: str) -> dict:
        team = teams[name]
        return {"name": name, "argv": team.argv(host=HOST), "workdir": str(team.workdir) if team.workdir else None,
                "output": str(out / folder / f"{slug(name)}.out")}

    return ({"teams": [side(match.left), side(match.right)], "agents": comp.competition.agents,
             "half_time": comp.competition.half_time, "seed": match.seed,
             "join_timeout": comp.competition.register_timeout,
             "log": str(out / folder / "log.jsonl.gz")}, folder)


def run_tournament(comp: Competition, out: Path, pool: Pool,
                   on_event: Callable[[str, str, str], None] = lambda kind, key, text: None) -> TournamentOutcome:
    """Run (or resume) the tournament ``comp`` on ``pool``, keeping results under ``out``.
    Raises :class:`CompetitionError` when a team's program or image is missing and
    :class:`~.store.StoreError` for a results file of another competition."""
    out.mkdir(parents=True, exist_ok=True)
    store = Store(out / "results.sqlite", fingerprint(comp))
    settings, teams = comp.competition, [t.name for t in comp.team]
    try:
        problems = check(comp, pool)
        if problems:
            raise CompetitionError("cannot run the tournament: " + "; ".join(problems))
        if settings.format == "round_robin":
            matches = round_robin(settings.seed, teams)
            outcomes = _play(comp, matches, out, pool, store, on_event)
            rounds = [(f"Round {r}", [o for o in outcomes if o.match.round == r])
                      for r in sorted({m.round for m in matches})]
            return TournamentOutcome(settings.name, settings.format, rounds, standings(teams, outcomes))
        rounds, reached, alive, number = [], {t: 0 for t in teams}, teams, 0
        while len(alive) > 1:
            number += 1
            outcomes = _play(comp, knockout_round(settings.seed, number, alive), out, pool, store, on_event)
            rounds.append((f"Round {number}", outcomes))
            for o in outcomes:
                reached[o.match.left] = number
                if o.match.right:
                    reached[o.match.right] = number
            if any(o.winner is None for o in outcomes):          # a match that could not be played
                break
            alive = [o.winner for o in outcomes]
        played = [o for _, outcomes in rounds for o in outcomes]
        for team in alive if len(alive) == 1 else []:
            reached[team] = number + 1
        return TournamentOutcome(settings.name, settings.format, rounds, standings(teams, played, reached))
    finally:
        store.close()


def _play(comp, matches: list[Match], out: Path, pool: Pool, store: Store, on_event) -> list[MatchOutcome]:
    outcomes, jobs = [], []
    for match in matches:
        if match.right is None:
            outcomes.append(MatchOutcome(match, "bye", winner=match.left, notes=[f"{match.left} has a bye"]))
            continue
        description, folder = describe_match(comp, match, out)
        jobs.append(Job(match.key, 1, match.seed, [[0, match.left], [1, match.right]], description))
        outcomes.append(MatchOutcome(match, "not run", folder=folder))
    ended = run_jobs(jobs, pool, store, comp.competition.retries,
                     lambda r: f"{r['teams'][0]} {r['score'][0]}:{r['score'][1]} {r['teams'][1]}", on_event)
    for o in outcomes:
        done = ended.get(o.match.key)
        if done is None:
            continue
        o.status, o.attempts, o.error = done.status, done.attempts, done.error
        if done.result is not None:
            o.score = tuple(done.result["score"])
            if done.result.get("walkover"):
                o.notes.append(f"walkover: {done.result['walkover']} forfeits ({done.result['reason']})")
            a, b = o.score
            if a != b:
                o.winner = o.match.left if a > b else o.match.right
            elif comp.competition.format == "knockout":
                lot = np.random.default_rng(o.match.seed).integers(0, 2)
                o.winner = (o.match.left, o.match.right)[int(lot)]
                o.notes.append(f"drawn: {o.winner} goes on by lot (the match's seed)")
    return outcomes

