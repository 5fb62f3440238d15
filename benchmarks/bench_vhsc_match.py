"""Two teams of the humanoid API's sample players play halves (``simleague vhsc match``: the
simulator, the GameController's packets, eight player processes over real TCP, in real time):
issue 32's match targets for the humanoid league (goals in total, the ball's travel per half).

    python benchmarks/bench_vhsc_match.py [--runs 3] [--half-time 600]

Both teams are ``examples/vhsc/kid.json`` (four kid robots). The world has no randomness of its
own here: the runs differ by the processes' timing. Prints each half's report, then the totals
and the medians. With each half, where its time went (before the kick-off, the ball in play, a
kick-off or set play over but the ball not yet played, each kind of set play) with the ball's
travel in each, the set plays awarded (a free kick's cause: a foul, or a team holding the ball;
a set play retaken because an opponent touched its ball counted apart) and the robots
penalised, by reason, and what came before each fall: a touch by a team-mate or an opponent in
the last 1.5 s, or none (falls counted as the match's figures count them).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import math
import statistics
from pathlib import Path

from simleague.soccer.figures import BALL_PLACED, FALLEN, RISEN
from simleague.vhsc import gamecontroller as gc
from simleague.vhsc.config import load_team
from simleague.vhsc.match import GameSetup, play
from simleague.vhsc.referee import FOUL_IMMUNITY

TEAM = Path(__file__).resolve().parent.parent / "examples" / "vhsc" / "kid.json"
READY, SET = 30.0, 5.0          # s: the referee's ready and set states before the kick-off
TOUCHED_FOR = 1.5               # s before a fall in which a robot's touch counts as its cause
SET_PLAYS = {gc.STATE2_DIRECT_FREEKICK: "direct free kick", gc.STATE2_INDIRECT_FREEKICK: "indirect free kick",
             gc.STATE2_PENALTY_KICK: "penalty kick", gc.STATE2_CORNER_KICK: "corner kick",
             gc.STATE2_GOAL_KICK: "goal kick", gc.STATE2_THROW_IN: "throw-in"}
PENALTIES = {gc.HL_BALL_MANIPULATION: "ball manipulation", gc.HL_PHYSICAL_CONTACT: "physical contact",
             gc.HL_ILLEGAL_ATTACK: "illegal attack", gc.HL_ILLEGAL_DEFENSE: "illegal defence",
             gc.HL_PICKUP_OR_INCAPABLE: "pick-up or incapable", gc.HL_SERVICE: "service"}


class Calls:
    """A half's time (s) and the ball's travel (m) by what the game was doing, the set plays
    awarded, the penalties given and the falls, by kind: ``progress`` for ``play``, after each step."""

    def __init__(self):
        self.time, self.travel = collections.Counter(), collections.Counter()
        self.awarded, self.penalties = collections.Counter(), collections.Counter()
        self.falls = collections.Counter()
        self._ball, self._secondary, self._phase = None, gc.STATE2_NORMAL, 0
        self._penalised, self._down = {}, {}
        self._touched: dict = {}                 # robot -> (when, the robot that touched it last)
        self._fallen: set = set()

    def __call__(self, report, referee) -> None:
        if referee.state != gc.STATE_PLAYING:
            doing = gc.STATES[referee.state]
        elif referee.set_play:
            doing = SET_PLAYS.get(referee.secondary, "set play")
        else:
            doing = "a restart not yet played" if referee.in_play is None else "ball in play"
        ball = tuple(float(v) for v in report.world.ball()[0][:2])
        self.time[doing] += 0.008
        rolled = math.dist(ball, self._ball or ball)
        if rolled < BALL_PLACED:                            # as the match's figures count it
            self.travel[doing] += rolled
        self._ball = ball
        if referee.set_play and (referee.secondary != self._secondary or referee.phase == 0 and self._phase):
            kind = SET_PLAYS.get(referee.secondary, "set play")
            # a foul makes both robots immune from this step on; holding the ball or a retake, no one
            fouled = sum(abs(p.immune_until - referee.clock - FOUL_IMMUNITY) < 1e-6
                         for p in referee.players.values()) >= 2
            if fouled and referee.secondary in (gc.STATE2_DIRECT_FREEKICK, gc.STATE2_PENALTY_KICK):
                kind += " (a foul)"
            elif referee.secondary == self._secondary:         # phase 1 or 2 back to 0: an opponent touched the ball
                kind += " (retaken: an opponent touched the ball)"
            elif referee.secondary in (gc.STATE2_DIRECT_FREEKICK, gc.STATE2_PENALTY_KICK):
                kind += " (holding the ball)"
            self.awarded[kind] += 1
        self._secondary, self._phase = referee.secondary, referee.phase
        self._count_falls(referee)
        for key, p in referee.players.items():
            penalty = p.info.penalty
            if penalty != gc.PENALTY_NONE and self._penalised.get(key, gc.PENALTY_NONE) == gc.PENALTY_NONE:
                self.penalties[self._why(referee, key, penalty)] += 1
            self._penalised[key] = penalty
            self._down[key] = p.down_since

    def _count_falls(self, referee) -> None:
        """Each fall by what came before it: a team-mate's or an opponent's touch, or none."""
        view = referee.view
        for a, b in view.contacts:
            self._touched[a], self._touched[b] = (referee.clock, b), (referee.clock, a)
        for key, up in view.upright.items():
            if up < FALLEN and key not in self._fallen:
                self._fallen.add(key)
                when, other = self._touched.get(key, (-math.inf, None))
                if referee.clock - when > TOUCHED_FOR:
                    cause = "no touch"
                else:
                    cause = "a team-mate's touch" if other[0] == key[0] else "an opponent's touch"
                self.falls[cause + (" (set play)" if referee.set_play else "")] += 1
            elif up > RISEN:
                self._fallen.discard(key)

    def _why(self, referee, key, penalty: int) -> str:
        """A penalty's reason; for "incapable", what the robot did: lay the fallen timeout out,
        stood wrongly before the kick-off, or else (near the ball when a set play was taken, down
        where the ball was put, or 20 s off the turf)."""
        why = PENALTIES.get(penalty, f"reason {penalty}")
        if penalty != gc.HL_PICKUP_OR_INCAPABLE:
            return why
        down = self._down.get(key)
        if down is not None and referee.clock - down >= referee.fallen_timeout - 0.1:
            return f"{why}: lying {referee.fallen_timeout:.0f} s"
        if referee.state in (gc.STATE_READY, gc.STATE_SET):
            return f"{why}: its place at the kick-off"
        return f"{why}: other (near the ball at a set play, down where it was put, off the turf)"

    def lines(self) -> list[str]:
        """What the half did, for the terminal."""
        out = [f"  {doing:33} {seconds:6.1f} s, the ball {self.travel[doing]:5.1f} m"
               for doing, seconds in self.time.most_common()]
        out.append("  set plays awarded: " + (", ".join(f"{n} {kind}" for kind, n in self.awarded.most_common())
                                              or "none"))
        out.append("  robots penalised: " + (", ".join(f"{n} {why}" for why, n in self.penalties.most_common())
                                             or "none"))
        out.append("  falls after: " + (", ".join(f"{n} {cause}" for cause, n in self.falls.most_common()) or "none"))
        return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--half-time", type=float, default=600.0)
    args = ap.parse_args()
    reports = []
    for run in range(args.runs):
        (red, _), (blue, _) = load_team(TEAM), load_team(TEAM)
        left = "red" if run % 2 == 0 else "blue"
        calls = Calls()
        report = asyncio.run(play(red, blue, seconds=READY + SET + args.half_time + 1.0, ready_time=READY,
                                  half_time=args.half_time, halves=1, setup=GameSetup(left=left, kick_off=left),
                                  progress=calls))
        print(f"run {run}: {report.line()}", *calls.lines(), sep="\n", flush=True)
        reports.append(report)
    robot_minutes = sum(report.players.values()) * args.half_time / 60.0
    falls = [sum(r.falls.values()) / robot_minutes for r in reports]
    print(f"goals in total: {sum(sum(r.score.values()) for r in reports)} in {len(reports)} halves; ball travel per "
          f"half: median {statistics.median(r.ball_travel for r in reports):.1f} m (least "
          f"{min(r.ball_travel for r in reports):.1f}); falls per robot-minute: median {statistics.median(falls):.2f}; "
          f"real-time factor: median {statistics.median(r.steps * 0.008 / r.seconds for r in reports):.2f}")


if __name__ == "__main__":
    main()
