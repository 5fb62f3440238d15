"""The humanoid sample player alone with the ball: how fast it brings the ball towards the
opponents' goal when no one contests it, and where its time goes. A minute's measure of the ball
handling that the 4 v 4 match (``bench_vhsc_match.py``, 20 minutes a half) measures among
everything else.

    python benchmarks/bench_dribble.py [--runs 40] [--seconds 40] [--first 0]

Player 2 of the red team (simleague.vhsc.player.Player, in process, the GameController's state
"playing") on simleague's kid robot on the kid field, with the ball and no other robot. Its camera
is rendered as our server renders it, every 96 ms (the player's own request), and its joint
targets act two steps after the measurements they answer (``bench_kid.Driver``). Each run puts the
robot at a place and heading drawn from the run's number in its own half and the ball 0.5 to 2.5 m
from it, within 70 degrees of its heading (then brought within x -3.5 to 2 m, y -2.3 to 2.3 m, the
field being 9 x 6 m); the run ends after ``--seconds`` s or when the ball
leaves the field. Per run: the ball's travel (m), its progress towards the opponents' goal line
(m), whether the robot fell. Over all runs: the ball's travel and progress per minute of play, the
falls and goals, and the time spent in each of the player's phases (searching for the ball,
walking to it, within 0.5 m of it lining up, walking it on, a motion: a kick or a get-up) with the
ball's travel in each.
"""

from __future__ import annotations

import argparse
import collections
import math
import os
import random
import statistics

import numpy as np

os.environ.setdefault("MUJOCO_GL", "osmesa")      # the camera rendered without a display (libosmesa6)

from bench_kid import robot

from simleague.soccer.cameras import Cameras
from simleague.vhsc import camera, kid, player
from simleague.vhsc.setup import FIELDS

FIELD = FIELDS["kid"]
HALF_LENGTH, HALF_WIDTH = FIELD.field_length / 2, FIELD.field_width / 2
CAMERA_STEPS = round(player.CAMERA_MS / 1000 / kid.STEP)     # control steps between camera images


def phase(p: player.Player, now: float, near: float) -> str:
    """What player ``p`` is doing at ``now`` (s), the ball ``near`` m from its torso: walking
    straight at a ball further than 0.5 m ahead is walking to it, though the player walks on as
    it walks the ball on."""
    if p.motion is not None:
        return "motion"
    if now - p.me.ball_time > player.BALL_FORGET:
        return "search"
    if p.still:
        return "still for a kick"
    if near >= 0.5:
        return "walking to it"
    return "walking it on" if p.dribbling else "lining up (< 0.5 m)"


def run(number: int, seconds: float) -> dict:
    """One run (its places drawn from ``number``): the ball's travel and progress (m), whether
    the robot fell, whether the ball went into the goal, seconds and ball travel by phase."""
    rng = random.Random(number)
    x, y, yaw = rng.uniform(-3.5, 0.0), rng.uniform(-2.5, 2.5), rng.uniform(-math.pi, math.pi)
    driver = robot(x, y, yaw)
    distance, bearing = rng.uniform(0.5, 2.5), yaw + rng.uniform(-1.2, 1.2)
    ball = (max(-3.5, min(2.0, x + distance * math.cos(bearing))), max(-2.3, min(2.3, y + distance * math.sin(bearing))))
    driver.world.place_ball((*ball, FIELD.ball_radius))
    cameras = Cameras(driver.world)
    p = player.Player(2, "red")
    p.me.place(x, y, yaw)             # red plays on the left in the first half: its own frame is the field's
    game = player.Game()
    times, moved = collections.Counter(), collections.Counter()
    last = start = np.array(ball)
    fell = False
    steps = int(seconds / kid.STEP)
    for k in range(steps):
        o = driver.world.observe(driver.rid)
        image = (cameras.image(driver.rid, "camera", camera.WIDTH, camera.HEIGHT)
                 if k % CAMERA_STEPS == 0 else None)
        sensed = player.Sensed(k * kid.STEP, dict(o.joints), tuple(o.gyro), tuple(o.accelerometer), image)
        driver.step(p.act(sensed, game))
        now = driver.world.ball()[0][:2].copy()
        torso = driver.world.pose(driver.rid)[0][:2]
        doing = phase(p, sensed.time, float(np.linalg.norm(torso - now)))
        times[doing] += kid.STEP
        moved[doing] += float(np.linalg.norm(now - last))
        last = now
        fell = fell or driver.world.upright(driver.rid) < 0.5
        if abs(now[0]) > HALF_LENGTH or abs(now[1]) > HALF_WIDTH:
            break
    cameras.close()
    goal = last[0] > HALF_LENGTH and abs(last[1]) < FIELD.goal_width / 2
    return {"travel": sum(moved.values()), "progress": float(last[0] - start[0]), "fell": fell, "goal": goal,
            "seconds": sum(times.values()), "times": times, "moved": moved}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--seconds", type=float, default=40.0)
    ap.add_argument("--first", type=int, default=0, help="the first run's number (another set of starts)")
    args = ap.parse_args()
    if args.runs < 1 or args.seconds <= 0:
        ap.error("--runs must be at least 1 and --seconds above 0")
    results = []
    for number in range(args.first, args.first + args.runs):
        r = run(number, args.seconds)
        results.append(r)
        print(f"run {number:2}: {r['seconds']:5.1f} s, the ball {r['travel']:5.2f} m, towards the goal "
              f"{r['progress']:5.2f} m{', fell' if r['fell'] else ''}{', goal' if r['goal'] else ''}", flush=True)
    minutes = sum(r["seconds"] for r in results) / 60
    times, moved = collections.Counter(), collections.Counter()
    for r in results:
        times.update(r["times"])
        moved.update(r["moved"])
    print(f"\n{args.runs} runs, {minutes:.1f} min of play: the ball travelled "
          f"{sum(r['travel'] for r in results) / minutes:.2f} m a minute, "
          f"{sum(r['progress'] for r in results) / minutes:.2f} m a minute towards the goal "
          f"(median run {statistics.median(r['travel'] for r in results):.2f} m); "
          f"{sum(r['goal'] for r in results)} goals, {sum(r['fell'] for r in results)} runs fell")
    for doing, spent in times.most_common():
        print(f"  {doing:22} {100 * spent / (60 * minutes):4.0f} % of the time, the ball {moved[doing]:6.1f} m")


if __name__ == "__main__":
    main()
