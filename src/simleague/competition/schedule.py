"""Who runs in which trial, from which grid position, with which seed (seed 004, section 5.3).

At the start of a leg the teams still in the competition are drawn by lot into groups of at most
``robots_per_trial`` (as few groups as fit, their sizes differing by one at most); every group runs the leg's trials, and the starting positions rotate from one
trial to the next (trial k puts the group's j-th team on grid position (j + k) mod n + 1), so that
over ``n`` trials every team starts once from every position. The lot and every trial's seed come
from the competition's seed, the leg's number and the trial's: the same file gives the same
schedule.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Slot:
    """A team's robot in a trial: grid position ``pos`` (1-based) and ``team`` name."""

    pos: int
    team: str


@dataclass(frozen=True)
class Trial:
    """One trial of a leg: ``key`` ("<leg name>/<number>", number 1-based over the leg), the leg's
    index ``leg`` (0-based), ``group`` (1-based), the trial's ``round`` within its group (1-based),
    its ``seed`` and its ``slots``."""

    key: str
    leg: int
    group: int
    round: int
    seed: int
    slots: tuple[Slot, ...]


def _rng(seed: int, *path: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([seed, *path]))


def leg_trials(seed: int, leg_index: int, leg_name: str, teams: list[str], trials: int,
               robots_per_trial: int) -> list[Trial]:
    """The trials of leg ``leg_index`` for ``teams`` (in the competition file's order): groups
    drawn by lot, ``trials`` trials per group with the grid rotated. Raises ValueError without
    teams."""
    if not teams:
        raise ValueError(f"leg {leg_name!r}: no team left to run")
    order = [teams[i] for i in _rng(seed, leg_index, 0).permutation(len(teams))]
    count = -(-len(order) // robots_per_trial)                 # as few groups as fit, as even as can be
    groups = [order[g::count] for g in range(count)]
    out, number = [], 0
    for g, group in enumerate(groups, 1):
        n = len(group)
        for k in range(trials):
            number += 1
            trial_seed = int(_rng(seed, leg_index, 1, g, k).integers(0, 2**31 - 1))
            slots = tuple(Slot((j + k) % n + 1, team) for j, team in enumerate(group))
            out.append(Trial(f"{leg_name}/{number}", leg_index, g, k + 1, trial_seed,
                             tuple(sorted(slots, key=lambda s: s.pos))))
    return out


@dataclass(frozen=True)
class Match:
    """One match of a tournament: ``key`` ("<round>/<number>"), ``round`` (1-based), its ``seed``,
    the ``left`` and ``right`` team (``right`` None: a bye, ``left`` goes on without playing)."""

    key: str
    round: int
    seed: int
    left: str
    right: str | None


def round_robin(seed: int, teams: list[str]) -> list[Match]:
    """Every pair of ``teams`` once, in rounds (the circle method: with an odd count one team
    rests each round); in each match the team that played on the left less often so far plays on
    the left, so that the sides even out."""
    names: list[str | None] = list(teams) + ([None] if len(teams) % 2 else [])
    n, out, lefts = len(names), [], dict.fromkeys(teams, 0)
    for r in range(n - 1):
        pairs = [(names[i], names[n - 1 - i]) for i in range(n // 2)]
        number = 0
        for a, b in pairs:
            if a is None or b is None:
                continue
            number += 1
            # the one that played on the left less often so far plays there (a tie: by round)
            left, right = (a, b) if (lefts[a], r % 2) < (lefts[b], 1) else (b, a)
            lefts[left] += 1
            key = f"Round {r + 1}/{number}"
            out.append(Match(key, r + 1, int(_rng(seed, 2, r, number).integers(0, 2**31 - 1)), left, right))
        names = [names[0], names[-1], *names[1:-1]]               # rotate all but the first
    return out


def knockout_round(seed: int, round_number: int, teams: list[str]) -> list[Match]:
    """One knock-out round of ``teams`` in bracket order (the first round: the competition file's
    order is the seeding, best first): the first plays the last, the second the second last ...;
    when the count is not a power of two the best seeds have a bye in the first round."""
    size = 1
    while size < len(teams):
        size *= 2
    byes = size - len(teams) if round_number == 1 else 0
    out = []
    for i in range(byes):
        out.append(Match(f"Round {round_number}/{i + 1}", round_number, 0, teams[i], None))
    rest = teams[byes:]
    for i in range(len(rest) // 2):
        number = byes + i + 1
        left, right = rest[i], rest[len(rest) - 1 - i]
        out.append(Match(f"Round {round_number}/{number}", round_number,
                         int(_rng(seed, 3, round_number, number).integers(0, 2**31 - 1)), left, right))
    return out
