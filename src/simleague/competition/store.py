"""The results of a competition in an SQLite file (Python's ``sqlite3``): one row per run of a
trial, written as each trial ends, so that a competition stopped at any point (Ctrl-C, a crash, a
power cut) resumes where it was: what finished is kept, what was in flight runs again.

A trial may run more than once: ``run`` 2 after the judges voided run 1 (:class:`Void`). Each run
is ``done`` (its result) or ``failed`` (its infrastructure failed ``attempts`` times: the error).
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from .. import errors

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    trial TEXT NOT NULL, run INTEGER NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL,
    seed INTEGER NOT NULL, slots TEXT NOT NULL, result TEXT, error TEXT,
    started REAL NOT NULL, finished REAL NOT NULL, PRIMARY KEY (trial, run));
"""


class StoreError(errors.Error):
    """The results file cannot be used (another competition's, unreadable); ``str()`` says why."""


@dataclass(frozen=True)
class Run:
    """A stored run: ``trial`` key, ``run`` number, ``status`` ("done" or "failed"), ``attempts``,
    the trial's ``seed`` and ``slots`` ([(pos, team)]), its ``result`` (dict, when done) or
    ``error`` (when failed), ``started``/``finished`` (Unix time, s)."""

    trial: str
    run: int
    status: str
    attempts: int
    seed: int
    slots: list
    result: dict | None
    error: str | None
    started: float
    finished: float


class Store:
    """``Store(path, fingerprint)`` opens (or makes) the results file of the competition whose
    :func:`fingerprint` is given. Raises :class:`StoreError` when the file holds another
    competition's results."""

    def __init__(self, path: str | Path, fingerprint: str):
        self.path = Path(path)
        try:
            self.db = sqlite3.connect(self.path)
            self.db.executescript(SCHEMA)
            row = self.db.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: not a results file: {e}") from None
        if row is None:
            with self.db:
                self.db.execute("INSERT INTO meta VALUES ('fingerprint', ?)", (fingerprint,))
        elif row[0] != fingerprint:
            self.db.close()
            raise StoreError(f"{self.path} holds the results of another competition (its teams, legs or seed "
                             "differ from the file's); give another --out folder, or --restart to start again")

    def get(self, trial: str, run: int) -> Run | None:
        """The stored run ``run`` of ``trial``, or None."""
        row = self.db.execute("SELECT * FROM runs WHERE trial = ? AND run = ?", (trial, run)).fetchone()
        return None if row is None else _run(row)

    def runs(self) -> list[Run]:
        """Every stored run, in the order they finished."""
        return [_run(r) for r in self.db.execute("SELECT * FROM runs ORDER BY finished, trial, run")]

    def put(self, trial: str, run: int, status: str, attempts: int, seed: int, slots: list,
            result: dict | None = None, error: str | None = None, started: float | None = None) -> None:
        """Record a run's outcome (replacing a failed one of the same number), committed at once."""
        now = time.time()
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            (trial, run, status, attempts, seed, json.dumps(slots),
                             None if result is None else json.dumps(result), error, started or now, now))

    def close(self) -> None:
        self.db.close()


def _run(row) -> Run:
    trial, run, status, attempts, seed, slots, result, error, started, finished = row
    return Run(trial, run, status, attempts, seed, json.loads(slots), None if result is None else json.loads(result),
               error, started, finished)
