"""Run a whole competition: leg by leg, every trial of the leg on a pool, each result stored as
it comes, the standings after each leg (the best teams go on when the leg says so).

The results file (``<out>/results.sqlite``) makes a run resumable: trials already done are not
run again; a trial whose infrastructure failed (the server's port, a robot program that could not
be started, a worker lost) is run again up to ``retries`` times, then reported as failed; a team's
program that crashes is the team's affair (its robot keeps its score, or gets the highest when it
never registered). Judges' voids make a trial run again as its next run.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .config import Competition, CompetitionError, Decisions
from .pools import Pool
from .ranking import Entry, Standing, leg_standings, trial_entries
from .schedule import Trial, leg_trials
from .store import Store

#: per world, its trial function and its check function (``module:function``, plain dicts)
WORLDS = {"ciberrato": ("simleague.ciberrato.trial:run_described", "simleague.ciberrato.trial:check_described")}
HOST = "127.0.0.1"


@dataclass
class TrialOutcome:
    """A trial as the report shows it: the schedule's ``trial``, the ``run`` number, ``status``
    (done, failed, not run), ``attempts``, the ``entries`` (with decisions), the ``error``, the
    files (relative to the output folder) and the ``voided`` runs before it with their reasons."""

    trial: Trial
    run: int
    status: str
    attempts: int = 0
    entries: list[Entry] = field(default_factory=list)
    error: str | None = None
    folder: str = ""
    cycles: int | None = None
    voided: list[str] = field(default_factory=list)


@dataclass
class Outcome:
    """A competition's outcome: per leg its ``trials`` and ``standings``; ``final``: every team in
    order (those of the last leg they reached, by that leg's standings)."""

    name: str
    legs: list[tuple[str, list[TrialOutcome], list[Standing]]]
    final: list[Standing]


def fingerprint(comp: Competition) -> str:
    """What makes two runs the same competition: its seed, teams' names and legs."""
    key = {"seed": comp.competition.seed, "teams": [t.name for t in comp.team],
           "legs": [leg.model_dump(mode="json") for leg in comp.leg], "world": comp.competition.world}
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()


def possible_trials(comp: Competition) -> set[str]:
    """Every trial key a competition may have (for checking a decisions file)."""
    teams = len(comp.team)
    return {f"{leg.name}/{n}" for leg in comp.leg
            for n in range(1, -(-teams // leg.robots_per_trial) * leg.trials + 1)}


def slug(text: str) -> str:
    """``text`` as a file name: runs of characters other than letters, digits, ``.``, ``_`` and
    ``-`` become one ``-`` ("Leg 1/2" -> "Leg-1-2")."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "x"


def describe(comp: Competition, trial: Trial, run: int, out: Path) -> tuple[dict, str]:
    """The plain description of a trial's run for the world's trial function, and its folder
    (relative to ``out``)."""
    leg = comp.leg[trial.leg]
    folder = f"trials/{slug(trial.key)}-run{run}"
    (out / folder).mkdir(parents=True, exist_ok=True)
    teams = comp.teams
    robots = [{"pos": s.pos, "name": s.team, "argv": teams[s.team].argv(host=HOST, pos=s.pos, name=s.team),
               "workdir": str(teams[s.team].workdir) if teams[s.team].workdir else None,
               "output": str(out / folder / f"{slug(s.team)}.out")} for s in trial.slots]
    return ({"lab": leg.lab and str(leg.lab), "grid": leg.grid and str(leg.grid), "params": leg.params and str(leg.params),
             "seed": trial.seed, "scoring": leg.scoring, "mode": leg.mode,
             "register_timeout": comp.competition.register_timeout, "log": str(out / folder / "log.jsonl.gz"),
             "plot": str(out / folder / "plot.png"), "robots": robots}, folder)


def check(comp: Competition, pool: Pool, world: dict | None = None) -> list[str]:
    """The problems that would stop the trials or matches (teams' programs and images, and the
    world's files given by ``world`` to its check function), checked where they run (a worker of
    ``pool``; on a cluster, one of its workers)."""
    programs = [{"team": t.name, "argv0": t.argv()[0], "workdir": t.workdir and str(t.workdir)}
                for t in comp.team if t.image is None]
    images = [{"team": t.name, "image": t.image} for t in comp.team if t.image is not None]
    checks = WORLDS.get(comp.competition.world, (None, None))[1]
    pool.submit("check", {"programs": programs, "images": images, "world_check": checks if world else None,
                          "world": world or {}}, "simleague.competition.checks:check_teams")
    _, answer = pool.next()
    if isinstance(answer, BaseException):
        return [f"the check could not run: {answer}"]
    return list(answer)


def run_number(trial: str, decisions: Decisions) -> tuple[int, list[str]]:
    """The run of ``trial`` that counts (1 + the runs the judges voided) and the voids' reasons."""
    voids = [v for v in decisions.void if v.trial == trial]
    return max((v.run for v in voids), default=0) + 1, [f"run {v.run} voided: {v.reason}" for v in voids]


def run_competition(comp: Competition, out: Path, decisions: Decisions, pool: Pool,
                    on_event: Callable[[str, str, str], None] = lambda kind, key, text: None) -> Outcome:
    """Run (or resume) ``comp`` on ``pool``, keeping results under ``out``; the outcome.
    ``on_event(kind, trial key, text)`` is told of each trial started ("start"), done ("done"),
    retried ("retry"), failed ("failed") or kept from before ("kept"). Raises
    :class:`CompetitionError` when a check fails and :class:`~.store.StoreError` for a results file
    of another competition. KeyboardInterrupt stops it; finished trials are kept."""
    out.mkdir(parents=True, exist_ok=True)
    store = Store(out / "results.sqlite", fingerprint(comp))
    try:
        legs = [{k: getattr(leg, k) and str(getattr(leg, k)) for k in ("lab", "grid", "params")} for leg in comp.leg]
        problems = check(comp, pool, {"legs": legs})
        if problems:
            raise CompetitionError("cannot run the competition: " + "; ".join(problems))
        teams = [t.name for t in comp.team]
        legs, previous = [], None
        for index, leg in enumerate(comp.leg):
            trials = leg_trials(comp.competition.seed, index, leg.name, teams, leg.trials, leg.robots_per_trial)
            outcomes = _run_leg(comp, trials, out, decisions, pool, store, on_event)
            entries = [e for o in outcomes for e in o.entries]
            standings = leg_standings(leg, teams, entries, previous)
            legs.append((leg.name, outcomes, standings))
            previous = {s.team: s for s in standings}
            if leg.qualify and index + 1 < len(comp.leg):
                teams = [s.team for s in standings[:leg.qualify]]
        return Outcome(comp.competition.name, legs, _final(legs))
    finally:
        store.close()


def _final(legs) -> list[Standing]:
    order, seen = [], set()
    for _, _, standings in reversed(legs):
        for s in standings:
            if s.team not in seen:
                seen.add(s.team)
                order.append(s)
    return [Standing(s.team, rank, s.score, s.time, s.counted) for rank, s in enumerate(order, 1)]


@dataclass
class Job:
    """One trial or match to run: its ``key``, ``run`` number, ``seed``, ``slots`` (stored with
    the result) and its plain ``description``."""

    key: str
    run: int
    seed: int
    slots: list
    description: dict


@dataclass
class Done:
    """How a job ended: ``status`` ("done", "failed"), ``attempts``, its ``result`` or ``error``."""

    status: str
    attempts: int
    result: dict | None = None
    error: str | None = None


def run_jobs(jobs: list[Job], pool: Pool, store: Store, retries: int, summary: Callable[[dict], str],
             on_event: Callable[[str, str, str], None]) -> dict[str, Done]:
    """Run the ``jobs`` not already done in ``store`` on ``pool``, storing each outcome as it
    comes; a job that raised is submitted again up to ``retries`` times. ``summary(result)`` is
    the text of a "done" event."""
    ended: dict[str, Done] = {}
    by_key, started, attempts = {j.key: j for j in jobs}, {}, {}

    def submit(job: Job) -> None:
        attempts[job.key] = attempts.get(job.key, 0) + 1
        started[job.key] = time.time()
        pool.submit(job.key, job.description)
        on_event("start", job.key, "")

    for job in jobs:
        stored = store.get(job.key, job.run)
        if stored is not None and stored.status == "done":
            ended[job.key] = Done("done", stored.attempts, stored.result)
            on_event("kept", job.key, "done before")
        else:
            submit(job)
    while pool.pending:
        key, answer = pool.next()
        job = by_key[key]
        if isinstance(answer, BaseException):
            error = f"{type(answer).__name__}: {answer}"
            if attempts[key] <= retries:
                on_event("retry", key, error)
                submit(job)
                continue
            store.put(key, job.run, "failed", attempts[key], job.seed, job.slots, error=error, started=started[key])
            ended[key] = Done("failed", attempts[key], error=error)
            on_event("failed", key, error)
        else:
            store.put(key, job.run, "done", attempts[key], job.seed, job.slots, result=answer, started=started[key])
            ended[key] = Done("done", attempts[key], answer)
            on_event("done", key, summary(answer))
    return ended


def _run_leg(comp, trials: list[Trial], out: Path, decisions: Decisions, pool: Pool, store: Store,
             on_event) -> list[TrialOutcome]:
    outcomes, jobs = [], []
    for trial in trials:
        run, reasons = run_number(trial.key, decisions)
        description, folder = describe(comp, trial, run, out)
        jobs.append(Job(trial.key, run, trial.seed, [[s.pos, s.team] for s in trial.slots], description))
        outcomes.append(TrialOutcome(trial, run, "not run", folder=folder, voided=reasons))
    ended = run_jobs(jobs, pool, store, comp.competition.retries, lambda r: f"{r['cycles']} cycles", on_event)
    for outcome in outcomes:
        done = ended.get(outcome.trial.key)
        if done is None:
            continue
        outcome.status, outcome.attempts, outcome.error = done.status, done.attempts, done.error
        if done.result is not None:
            slots = [(s.pos, s.team) for s in outcome.trial.slots]
            outcome.entries = trial_entries(outcome.trial.key, slots, done.result, decisions)
            outcome.cycles = done.result.get("cycles")
    return outcomes
