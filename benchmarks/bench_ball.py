"""How long the humanoid sample player takes to find the ball in one of its camera's images
(simleague.vhsc.camera.find_ball): the player's main cost, every 96 ms of each robot's game.

    python benchmarks/bench_ball.py [--images 60] [--repeat 5]

A kid robot stands in its crouch on the kid field (MuJoCo's renderer; OSMesa without a GPU); for
each image the ball is put somewhere on the field (every fifth image: off it) and the head
turned and tilted at random (seeded), so the images hold the ball near and far, lines, goals or
nothing white. Prints the median over the repeats of the milliseconds per image, and how many
images the ball was found in.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

os.environ.setdefault("MUJOCO_GL", "osmesa")

from simleague.soccer.cameras import Cameras  # noqa: E402
from simleague.soccer.humanoids import HumanoidWorld  # noqa: E402
from simleague.soccer.models import find_model  # noqa: E402
from simleague.vhsc import camera, kid  # noqa: E402
from simleague.vhsc.setup import BUILT_IN_MODELS, FIELDS  # noqa: E402


def images(count: int, seed: int = 3) -> list[tuple[bytes, tuple]]:
    """``count`` (image, camera pose) pairs as the module's text says."""
    rng = random.Random(seed)
    world = HumanoidWorld(FIELDS["kid"])
    rid = world.add_robot(find_model("kid", [BUILT_IN_MODELS]), -1.5, 0.4, 0.3)
    render = Cameras(world)
    stand = kid.stand(kid.walk())
    for joint, angle in stand.items():
        world.set_position(rid, joint, angle)
    for _ in range(200):
        world.step()
    out = []
    try:
        for k in range(count):
            ball = (rng.uniform(-4, 4), rng.uniform(-3, 3)) if k % 5 else (100.0, 100.0)
            world.place_ball((*ball, FIELDS["kid"].ball_radius))
            head = {"head_pitch": rng.uniform(0.0, 0.85), "head_yaw": rng.uniform(-1.0, 1.0)}
            for joint, angle in (stand | head).items():
                world.set_position(rid, joint, angle)
            for _ in range(40):
                world.step()
            tilt = camera.tilt(world.sensor(rid, "accelerometer"))
            pose = camera.camera_pose(kid.TORSO_HEIGHT, *tilt, world.position(rid, "head_yaw"),
                                      world.position(rid, "head_pitch"))
            out.append((render.image(rid, "camera", camera.WIDTH, camera.HEIGHT), pose))
    finally:
        render.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--images", type=int, default=60)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    shots = images(args.images)
    found = sum(camera.find_ball(image, *pose) is not None for image, pose in shots)
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        for image, pose in shots:
            camera.find_ball(image, *pose)
        times.append((time.perf_counter() - start) / len(shots) * 1000)
    print(f"find_ball: median {statistics.median(times):.2f} ms an image over {args.repeat} repeats of "
          f"{len(shots)} images; the ball found in {found}")


if __name__ == "__main__":
    main()
