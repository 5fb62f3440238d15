"""The humanoid sample player taking our set play alone: how soon it puts the waiting ball in
play and how far the ball goes, a measure of the restarts that the 4 v 4 match
(``bench_vhsc_match.py``) measures among everything else.

    python benchmarks/bench_restart.py [--runs 24] [--first 0]

Player 2 of the red team (simleague.vhsc.player.Player, in process) on simleague's kid robot on
the kid field, with the ball and no other robot, its camera rendered as our server renders it
every 96 ms and its joint targets acting two steps after the measurements they answer
(``bench_kid.Driver``). Each run puts the ball at a place drawn from the run's number (every fourth
on the centre spot) and the robot where a set play's phase 0 leaves its taker, 0.6 m behind the
ball as seen from the opponents' goal, spread by 0.12 m and 0.25 rad; its estimate of its place is
0.05 m off. The GameController's state is 8 s of our set play's phase 1 (the ball on its spot), then
the ball waiting to be put in play (seed 000's referee: until touched and moved 5 cm, or for 10 s),
then in play for the rest of 20 s. Per run: when the ball was put in play (s after the set play's
end), the ball's travel in the 20 s and its progress towards the opponents' goal line (m), whether
the player kicked, whether the robot fell, whether the ball was touched before the set play ended
(a warning).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics

import numpy as np

os.environ.setdefault("MUJOCO_GL", "osmesa")      # the camera rendered without a display (libosmesa6)

from bench_kid import robot

from simleague.soccer.cameras import Cameras
from simleague.vhsc import camera, kid, player
from simleague.vhsc.referee import IN_PLAY_MOVE
from simleague.vhsc.setup import FIELDS

FIELD = FIELDS["kid"]
CAMERA_STEPS = round(player.CAMERA_MS / 1000 / kid.STEP)     # control steps between camera images
SET_PLAY = 8.0                   # s of the set play's phase 1 before the ball waits
WAIT = 10.0                      # s the ball waits at most (the referee's in-play timeout)
AFTER = 20.0                     # s measured from the set play's end


def run(number: int) -> dict:
    """One run (its places drawn from ``number``): when the ball was put in play (s after the
    set play's end), its travel and progress (m) in :data:`AFTER` s, whether the player kicked,
    whether the robot fell, whether the ball was touched before the set play's end."""
    rng = random.Random(number)
    bx, by = (0.0, 0.0) if number % 4 == 0 else (rng.uniform(-3.0, 2.5), rng.uniform(-2.3, 2.3))
    (x, y), aim = player._behind(bx, by, player.WAIT_BEHIND)
    x, y, yaw = x + rng.gauss(0, 0.12), y + rng.gauss(0, 0.12), aim + rng.gauss(0, 0.25)
    driver = robot(x, y, yaw)
    driver.world.place_ball((bx, by, FIELD.ball_radius))
    cameras = Cameras(driver.world)
    p = player.Player(2, "red")
    p.me.place(x + rng.gauss(0, 0.05), y + rng.gauss(0, 0.05), yaw)
    set_play, waiting, free = player.Game(our_set_play=True, phase=1), player.Game(free=False), player.Game()
    spot = last = np.array([bx, by])
    travel, in_play, kicked, fell, early = 0.0, None, False, False, False
    for k in range(int((SET_PLAY + AFTER) / kid.STEP)):
        now = k * kid.STEP
        if in_play is None and now >= SET_PLAY + WAIT:
            in_play = now
        game = set_play if now < SET_PLAY else waiting if in_play is None else free
        o = driver.world.observe(driver.rid)
        image = (cameras.image(driver.rid, "camera", camera.WIDTH, camera.HEIGHT)
                 if k % CAMERA_STEPS == 0 else None)
        sensed = player.Sensed(now, dict(o.joints), tuple(o.gyro), tuple(o.accelerometer), image)
        driver.step(p.act(sensed, game))
        kicked = kicked or (p.motion is not None and not p.lying and not fell)
        ball = driver.world.ball()[0][:2].copy()
        travel += float(np.linalg.norm(ball - last))
        last = ball
        if in_play is None and np.linalg.norm(ball - spot) >= IN_PLAY_MOVE:
            in_play, early = now, now < SET_PLAY          # early: a warning, and the ball in play
            in_play = max(in_play, SET_PLAY)
        fell = fell or driver.world.upright(driver.rid) < 0.5
        if abs(ball[0]) > FIELD.field_length / 2 or abs(ball[1]) > FIELD.field_width / 2:
            break
    cameras.close()
    return {"in play": in_play - SET_PLAY, "travel": travel, "progress": float(last[0] - bx), "kicked": kicked,
            "fell": fell, "touched in the set play": early}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=24)
    ap.add_argument("--first", type=int, default=0, help="the first run's number (another set of places)")
    args = ap.parse_args()
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    results = []
    for number in range(args.first, args.first + args.runs):
        r = run(number)
        results.append(r)
        print(f"run {number:2}: in play after {r['in play']:4.1f} s, the ball {r['travel']:4.2f} m, towards the goal "
              f"{r['progress']:5.2f} m{', kicked' if r['kicked'] else ''}{', fell' if r['fell'] else ''}"
              f"{', touched in the set play' if r['touched in the set play'] else ''}", flush=True)
    print(f"\n{args.runs} runs: in play after a median {statistics.median(r['in play'] for r in results):.1f} s; "
          f"in {AFTER:.0f} s the ball {statistics.mean(r['travel'] for r in results):.2f} m (mean), "
          f"{statistics.mean(r['progress'] for r in results):.2f} m towards the goal; "
          f"{sum(r['kicked'] for r in results)} kicked, {sum(r['fell'] for r in results)} fell, "
          f"{sum(r['touched in the set play'] for r in results)} touched the ball in the set play")


if __name__ == "__main__":
    main()
