"""The sample player's walk and kick (simleague.vhsc.kid) on simleague's kid robot in the humanoid
API's world, in process (the world stepped directly, the player's joint targets acting two steps
after what it read, as through our server): issue 32's targets for the kid.
With ``--robot booster-k1`` the walk alone on the league's Booster K1 (simleague.vhsc.booster_k1;
its model from ../shared/reference/robots), which has no kick; with ``--robot wolfgang`` the same on
Bit-Bots' Wolfgang (simleague.vhsc.wolfgang; imported from its PROTO in ../shared/reference/robots).

    python benchmarks/bench_kid.py [--runs 10] [--robot booster-k1|wolfgang]

Walking is measured on a 30 x 20 m field (the kid field is 9 m long), the kick on the kid field
with its ball. Forward: each run starts 10 m behind the centre spot facing +x within 15 degrees (each run
another heading, after another time standing), and walks straight ahead until it has covered
20 m (or falls, or 120 s pass): its speed over the 20 m. Turning on the spot and side steps:
degrees per second and metres per second over the 6 s after a 1 s start. Kick: the ball placed 1 cm nearer to
2 cm further than the kick's place, each run facing another way, with either foot: how far it went;
then the same after walking ahead 1 to 3 s, stopping and standing as the sample player does. Get-ups:
each run the kid walks 1 to 3 s under another command, is pushed towards its front or back (0.8 to
1.5 m/s, up to 0.5 rad off straight), lies 1 s, and gets up (simleague.vhsc.kid.get_up from the side
its accelerometer tells): the seconds until it stands (torso upright within 26 degrees, 0.38 m high)
and stays standing, over the first ``--runs`` falls that left it on that side. Other falls than
those the get-ups were found on. Medians, and how many runs fell. Last, twice ``--runs`` falls the
same way but pushed to the left or right: where each came to rest (the kid has no get-up from a side).
"""

from __future__ import annotations

import argparse
import math
import statistics
from pathlib import Path

import numpy as np

from simleague import walking
from simleague.soccer.humanoids import HumanoidWorld
from simleague.soccer.models import find_model
from simleague.soccer.rules import SoccerRules
from simleague.vhsc import booster_k1, kid, wolfgang
from simleague.vhsc.player import KICK_STILL
from simleague.vhsc.setup import BUILT_IN_MODELS, FIELDS

ROBOTS = {"kid": kid, "booster-k1": booster_k1, "wolfgang": wolfgang}     # robot model -> the module with its walk
MODELS = [BUILT_IN_MODELS, Path(__file__).resolve().parents[2] / "shared" / "reference" / "robots"]

DELAY = 2                       # steps between a reading and the answer acting on it
LONG_FIELD = SoccerRules()      # 30 x 20 m: room for 20 m of walking (the kid field is 9 m long)


class Driver:
    """Robot ``rid`` of ``world`` driven as the sample player drives it: targets set :data:`DELAY`
    steps after the reading they answer."""

    def __init__(self, world: HumanoidWorld, rid: int, body=kid):
        self.world, self.rid, self.body = world, rid, body
        self.pending: list[dict[str, float]] = []

    def angles(self) -> dict[str, float]:
        return {m.name: self.world.position(self.rid, m.name) for m in self.world.model_of(self.rid).motors}

    def gyro(self) -> tuple[float, float, float]:
        return tuple(float(v) for v in self.world.sensor(self.rid, self.body.GYRO))

    def step(self, targets: dict[str, float]) -> None:
        self.pending.append(targets)
        if len(self.pending) > DELAY:
            for joint, angle in self.pending.pop(0).items():
                self.world.set_position(self.rid, joint, angle)
        self.world.step()


def robot(x: float = 0.0, y: float = 0.0, yaw: float = 0.0, settle: int = 100, rules=FIELDS["kid"],
          body=kid) -> Driver:
    """A robot of ``body`` (:data:`ROBOTS`) at (x, y) facing ``yaw`` on the field of ``rules``,
    bent into its crouch over ``body.BEND`` s, then standing ``settle`` steps."""
    world = HumanoidWorld(rules)
    rid = world.add_robot(find_model(body.MODEL, MODELS), x, y, yaw)
    world.place_ball((100.0, 100.0, rules.ball_radius))   # off the centre spot the robot may stand on
    driver = Driver(world, rid, body)
    stand = body.stand(body.walk())
    if body.BEND:                                    # into the crouch over BEND s, then stand
        bend = walking.Motion([(body.BEND, stand)], driver.angles(), body.STEP)
        while (targets := bend.step()) is not None:
            driver.step(targets)
    for _ in range(settle):
        driver.step(stand)
    return driver


def heading(driver: Driver) -> float:
    return driver.world.heading(driver.rid)


def walk(command, seconds: float, yaw: float = 0.0, settle: int = 100, until: float | None = None,
         body=kid) -> dict:
    """Walk with ``command`` (forward, sideways, turn) for ``seconds`` (or until ``until`` m)."""
    driver = robot(-10.0, 0.0, yaw, settle, rules=LONG_FIELD, body=body)
    gait = body.walk()
    start, _ = driver.world.pose(driver.rid)
    turned, last, t = 0.0, heading(driver), 0.0
    while t < seconds:
        driver.step(body.leg_targets(gait.step(*command, rates=driver.gyro())) | body.ARMS)
        t += body.STEP
        now = heading(driver)
        turned += (now - last + math.pi) % (2 * math.pi) - math.pi
        last = now
        if driver.world.upright(driver.rid) < 0.5:
            return {"fell": True, "t": t}
        if until is not None and np.linalg.norm(driver.world.pose(driver.rid)[0][:2] - start[:2]) >= until:
            break
    end, _ = driver.world.pose(driver.rid)
    return {"fell": False, "t": t, "distance": float(np.linalg.norm(end[:2] - start[:2])),
            "sideways": float(end[1] - start[1]), "turned": math.degrees(turned)}


def kick(yaw: float = 0.0, ahead: float = 0.0, foot: str = "right", walked: float = 0.0) -> dict:
    """Stand, put the ball ``ahead`` m beyond the kick's place before ``foot``, kick with it; how
    far the ball went. With ``walked`` (s), walk ahead that long first, stop, and stand with the
    feet together for the sample player's KICK_STILL, as the player does before it kicks."""
    driver = robot(0.0, 0.0, yaw)
    if walked:
        gait = kid.walk()
        for _ in range(int(walked / kid.STEP)):
            driver.step(kid.leg_targets(gait.step(0.6, 0.0, 0.0, driver.gyro())) | kid.ARMS)
        while gait.moving:
            driver.step(kid.leg_targets(gait.step(0.0, 0.0, 0.0, driver.gyro())) | kid.ARMS)
        for _ in range(int(KICK_STILL / kid.STEP)):
            driver.step(kid.stand(gait))
        yaw = heading(driver)
    c, s = math.cos(yaw), math.sin(yaw)
    ankle = driver.world.data.xpos[driver.world.model.body(f"r{driver.rid}_{foot}_foot").id]
    forward, side = kid.KICK_BALL[0] + ahead, kid.KICK_BALL[1] * (1 if foot == "right" else -1)
    ball = (ankle[0] + forward * c - side * s, ankle[1] + forward * s + side * c, FIELDS["kid"].ball_radius)
    driver.world.place_ball(ball)
    motion = kid.kick(driver.angles(), foot)
    while (targets := motion.step()) is not None:
        driver.step(targets)
    stand = kid.stand(kid.walk())
    for _ in range(int(3.0 / kid.STEP)):
        driver.step(stand)
    end = driver.world.ball()[0]
    return {"distance": float(math.dist(end[:2], ball[:2])), "fell": driver.world.upright(driver.rid) < 0.5}


STOOD_UP = 0.9                  # the torso's z axis' z component of a robot standing again
STOOD_HEIGHT = 0.38             # m: the torso's centre above the ground standing (0.42 in the crouch)


PUSHED_TOWARDS = {"front": 0.0, "left": math.pi / 2, "back": math.pi, "right": -math.pi / 2}   # rad from the heading


def fallen(side: str, seed: int) -> Driver:
    """A kid that walked ahead 1 to 3 s under a command drawn from ``seed`` and was pushed towards its
    ``side`` ("front", "back", "left" or "right"), lying still 1 s after."""
    rng = np.random.default_rng(seed)
    driver = robot(0.0, 0.0, rng.uniform(-3.0, 3.0), settle=60)
    gait = kid.walk()
    command = (rng.uniform(0.0, 1.0), rng.uniform(-0.3, 0.3), rng.uniform(-0.5, 0.5))
    walked, pushed = rng.uniform(1.0, 3.0), rng.uniform(0.8, 1.5)
    towards = driver.world.heading(driver.rid) + rng.uniform(-0.5, 0.5) + PUSHED_TOWARDS[side]
    for k in range(int((walked + 2.0) / kid.STEP)):
        if k == int(walked / kid.STEP):
            vx, vy, vz = driver.world.velocity(driver.rid)
            driver.world.push_robot(driver.rid, (vx + pushed * math.cos(towards), vy + pushed * math.sin(towards), vz))
        driver.step(kid.leg_targets(gait.step(*command, rates=driver.gyro())) | kid.ARMS)
    still = driver.angles()
    for _ in range(int(1.0 / kid.STEP)):
        driver.step(still)
    return driver


def resting(side: str, seed: int) -> str | None:
    """Where the kid :func:`fallen` towards ``side`` lies: "front", "back" or None (neither: on a
    side, or not down), by its accelerometer (:func:`simleague.vhsc.kid.lying`)."""
    driver = fallen(side, seed)
    return kid.lying(driver.world.sensor(driver.rid, "accelerometer"))


def get_up(side: str, seed: int, limit: float = 8.0) -> dict:
    """The kid :func:`fallen` towards ``side`` gets up: ``lay`` (the side its accelerometer tells),
    ``stood``: seconds from the get-up's start until it stood and stayed standing to the end
    (``limit`` s), None if it did not."""
    driver = fallen(side, seed)
    lay = kid.lying(driver.world.sensor(driver.rid, "accelerometer"))
    if lay is None:
        return {"lay": None, "stood": None}
    motion, stand = kid.get_up(lay, driver.angles()), kid.stand(kid.walk())
    stood = None
    for k in range(1, int(limit / kid.STEP) + 1):
        targets = motion.step()
        driver.step(stand if targets is None else targets)
        up = driver.world.upright(driver.rid) > STOOD_UP and driver.world.pose(driver.rid)[0][2] > STOOD_HEIGHT
        stood = (stood or k * kid.STEP) if up else None
    return {"lay": lay, "stood": stood}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--robot", choices=sorted(ROBOTS), default="kid")
    args = ap.parse_args()
    runs, body = args.runs, ROBOTS[args.robot]
    forward = [walk((1.0, 0.0, 0.0), 120.0, yaw=math.radians(-15 + 30 * k / max(1, runs - 1)), settle=100 + 10 * k,
                    until=20.0, body=body) for k in range(runs)]
    done = [r for r in forward if not r["fell"] and r["distance"] >= 20.0]
    speeds = [r["distance"] / r["t"] for r in done]
    print(f"forward 20 m: {len(done)}/{runs} without falling, median {statistics.median(speeds) if speeds else 0:.3f} m/s")
    for name, command in (("turn left", (0.0, 0.0, 1.0)), ("turn right", (0.0, 0.0, -1.0)),
                          ("side step left", (0.0, 1.0, 0.0))):
        r = walk(command, 6.0, body=body)
        if r["fell"]:
            print(f"{name}: fell")
        elif "turn" in name:
            print(f"{name}: {abs(r['turned']) / 6.0:.1f} deg/s")
        else:
            print(f"{name}: {r['sideways'] / 6.0:.3f} m/s")
    if body is not kid:
        return
    for foot in ("right", "left"):
        kicks = [kick(yaw=2 * math.pi * k / runs, ahead=-0.01 + 0.03 * k / max(1, runs - 1), foot=foot)
                 for k in range(runs)]
        print(f"kick with the {foot} foot: median {statistics.median(r['distance'] for r in kicks):.2f} m, "
              f"{sum(r['fell'] for r in kicks)} falls")
    kicks = [kick(yaw=2 * math.pi * k / runs, foot=("right", "left")[k % 2], walked=1.0 + 2.0 * k / max(1, runs - 1))
             for k in range(runs)]
    print(f"kick after walking 1 to 3 s and standing {KICK_STILL} s: median "
          f"{statistics.median(r['distance'] for r in kicks):.2f} m, {sum(r['fell'] for r in kicks)} falls")
    for side in ("front", "back"):
        tries, seed = [], 0
        while len(tries) < runs and seed < 3 * runs:     # falls that left it on the other side do not count
            tried = get_up(side, seed)
            seed += 1
            if tried["lay"] == side:
                tries.append(tried)
        times = [r["stood"] for r in tries if r["stood"] is not None]
        print(f"get-up from the {side}: {sum(t <= 4.0 for t in times)}/{len(tries)} within 4 s, "
              f"{len(times)}/{len(tries)} at all, median {statistics.median(times) if times else math.nan:.2f} s "
              f"({seed} pushes)")
    rest = [resting(("left", "right")[k % 2], k) for k in range(2 * runs)]
    print(f"pushed to a side: came to rest on the front {rest.count('front')}, the back {rest.count('back')}, "
          f"neither (a side) {rest.count(None)} of {len(rest)}")


if __name__ == "__main__":
    main()
