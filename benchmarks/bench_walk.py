"""The sample walk, get-up and kick (simleague.simspark.walk, .motions) of a Nao of type 0 on our
SimSpark world, in process (the world stepped directly, the agent's controller in the loop with
the server's timing: its answer acts two cycles after what it read, :class:`Agent`): issue 32's
walk, get-up and kick targets.

    python benchmarks/bench_walk.py [--runs 10]
    python benchmarks/bench_walk.py --wide      # the get-ups alone, on 100 falls and from sides

Forward: each run starts 10 m behind the centre spot, facing the far goal within 15 degrees (each
run another heading, after another time standing, so the gait meets the world in another state),
and walks straight ahead until it has covered 20 m (or falls, or 90 s pass): its speed over the
20 m. Turning on the spot and side steps: degrees per second and metres
per second over the 5 s after a 1 s start. Get-up: the robot knocked over backwards or forwards
from its crouch (each try facing another way, pushed harder or softer and a little to a side),
lying still, then the motion chosen from the accelerometer, and again when it lies after the
motion, as the sample player does; a success when it stands 1.5 s after the last motion, having
walked on the spot, and that motion ended within 4 s of the first one's start; the first motion's
successes counted too; from a side, the robot laid on it (either, facing another way each time,
tilted a little towards its front or back), rolling onto its front first as the player does.
Kick: standing facing another way each time, the ball placed 1 cm nearer to 1 cm further than
the kick's place: how far it went. Medians, and how many runs fell. ``--wide``: the get-ups from
100 falls, the runs' 30 and 70 of two other sequences of headings, pushes and sideways pushes
(:data:`WIDE_FALLS`), and from sides for robot types 0, 2 and 4.
"""

from __future__ import annotations

import argparse
import math
import statistics

import mujoco
import numpy as np

from simleague.simspark.agent import AGAIN_CYCLES, AGAIN_WINDOW, DOWN_CYCLES, LYING_CYCLES, STILL
from simleague.simspark.motions import FINISH, KICK_BALL, get_up as get_up_motion, kick as kick_motion, lying
from simleague.simspark.walk import Walk, velocities
from simleague.soccer.world import SoccerWorld

CYCLE = 0.02
WITHIN = 4.0                    # s: issue 32's time for getting up, retries included
ARMS_DOWN = {"laj1": -90.0, "raj1": -90.0}


class Agent:
    """Robot ``rid`` of ``world`` driven as an agent drives it through our server in sync mode: it
    reads the joint angles (to 0.01 degree, as ``HJ``), gyro and accelerometer after cycle t, and the
    velocities it answers with act from cycle t + 2 (the server sends the perceptions of cycle t at
    the start of cycle t + 1, after applying the effectors received for it: simspark/server.py, as
    the original's sync mode). :meth:`drive` the targets, then :meth:`step`."""

    def __init__(self, world: SoccerWorld, rid: int):
        self.world, self.rid = world, rid
        self.names = [p.joint.perceptor for p in world.parts(rid) if p.joint]
        self._answer: dict[str, float] = {}
        self._sent: dict[str, float] = {}

    def angles(self) -> dict[str, float]:
        return {n: round(float(a), 2) for n, a in zip(self.names, np.degrees(self.world.joint_angles(self.rid)))}

    def drive(self, targets: dict[str, float]) -> None:
        self._answer = velocities(targets, self.angles())

    def bend_into(self, pose: dict[str, float], cycles: int) -> None:
        """Move from straight joints into ``pose`` over 1 s and hold it, ``cycles`` cycles in all."""
        for k in range(cycles):
            self.drive({n: pose[n] * min(1.0, k / 50) for n in self.names})
            self.step()

    def step(self) -> None:
        for effector, v in self._sent.items():
            self.world.set_joint_velocity(self.rid, effector, v)
        self.world.step()
        self._sent = self._answer


def walk(command, seconds: float, yaw: float = 0.0, settle: int = 100, until: float | None = None,
         robot_type: int = 0) -> dict:
    """Stand up into the crouch for ``settle`` cycles, then walk with ``command`` (forward,
    sideways, turn) ramped in over 1 s; stop after ``seconds`` or once ``until`` m are covered."""
    world = SoccerWorld(seed=0)
    rid = world.add_robot(robot_type, -10.0, 0.0, yaw)
    agent, gait = Agent(world, rid), Walk()
    names = agent.names
    crouch = {n: 0.0 for n in names} | ARMS_DOWN | gait.stand()
    agent.bend_into(crouch, settle)
    start, heading = world.pose(rid, "torso")[0].copy(), world.heading(rid)
    turned, fell, k, started = 0.0, False, 0, 0.0
    for k in range(1, int(seconds / CYCLE) + 1):
        ramp = min(1.0, k / 50)
        agent.drive(crouch | gait.step(*(v * ramp for v in command), gyro=tuple(np.degrees(world.gyro(rid)))))
        agent.step()
        now = world.heading(rid)
        turned += math.atan2(math.sin(now - heading), math.cos(now - heading))
        heading = now
        if k == 50:
            started = turned
        position, rotation = world.pose(rid, "torso")
        if rotation[2, 2] < 0.5 or position[2] < 0.2:
            fell = True
            break
        if until is not None and math.dist(position[:2], start[:2]) >= until:
            break
    position = world.pose(rid, "torso")[0]
    return {"seconds": k * CYCLE, "distance": math.dist(position[:2], start[:2]),
            "sideways": position[1] - start[1], "turned": math.degrees(turned),
            "turned_after_start": math.degrees(turned - started), "fell": fell}


def get_up(back: bool, yaw: float = 0.0, push: float = 1.0, roll: float = 0.0, robot_type: int = 0) -> dict:
    """Knock a robot standing in the crouch (facing ``yaw``) over backwards or forwards (its hips
    and ankles driven at ``push`` x 5 rad/s and its hip rolls at ``roll`` x 5 rad/s for 0.5 s), then
    :func:`recover`. None when the push left it on its side."""
    world = SoccerWorld(seed=0)
    rid = world.add_robot(robot_type, 0.0, 0.0, yaw)
    agent = Agent(world, rid)
    crouch = {n: 0.0 for n in agent.names} | ARMS_DOWN | Walk().stand()
    agent.bend_into(crouch, 80)
    pitch = (-1.0 if back else 1.0) * push * 5
    for _ in range(25):
        agent._answer = {"rle3": pitch, "lle3": pitch, "rle5": pitch, "lle5": pitch, "rle2": roll * 5, "lle2": roll * 5}
        agent.step()
    tried = recover(world, rid, agent, robot_type)
    return None if tried["side"] == "side" else tried


def get_up_from_side(up: int, yaw: float = 0.0, tilt: float = 0.0, robot_type: int = 0) -> dict:
    """Lay a robot (straight joints, arms down) on its right side (``up`` -1: its left side up) or
    its left (``up`` +1), facing ``yaw``, turned ``tilt`` rad further about its forward axis (towards
    its back for the right side up), let it settle for 2 s, then :func:`recover`."""
    world = SoccerWorld(seed=0)
    rid = world.add_robot(robot_type, 0.0, 0.0, yaw)
    agent = Agent(world, rid)
    world.place_robot(rid, 0.0, 0.0, yaw, z=0.12)
    adr, _ = world._roots[rid]
    # place_robot turns the torso by yaw - pi/2 about z; its forward axis is then along (cos yaw, sin yaw)
    half = up * (math.pi / 2 + tilt) / 2
    roll = np.array([math.cos(half), math.sin(half) * math.cos(yaw), math.sin(half) * math.sin(yaw), 0.0])
    turned = np.empty(4)
    mujoco.mju_mulQuat(turned, roll, world.data.qpos[adr + 3:adr + 7].copy())
    world.data.qpos[adr + 3:adr + 7] = turned
    mujoco.mj_kinematics(world.model, world.data)
    rest = {n: 0.0 for n in agent.names} | ARMS_DOWN
    for _ in range(100):
        agent.drive(rest)
        agent.step()
    return recover(world, rid, agent, robot_type)


def recover(world: SoccerWorld, rid: int, agent: Agent, robot_type: int = 0) -> dict:
    """Let robot ``rid`` lie with its arms down until it has lain still for 0.8 s, as the sample
    player does, then get up; when it lies again after the motion, lie still (the shorter
    :data:`AGAIN_CYCLES` now) and get up again, as the sample player does (:data:`DOWN_CYCLES`,
    :data:`LYING_CYCLES`, :data:`STILL`; it is down again within the player's :data:`AGAIN_WINDOW`),
    until :data:`WITHIN` s have passed; standing, walk on the spot for 1 s. Returns the side the
    accelerometer told first ("front", "back", "side" or None), the first motion's seconds,
    whether the robot stood after its first motion (``first``), the motions made (``tries``; from
    a side, the roll onto the front is one), the seconds from the first motion's start to the end
    of the last (``seconds_to_up``), and whether it stands 1.5 s after the last motion (``up``)."""
    names = agent.names
    crouch = {n: 0.0 for n in names} | ARMS_DOWN | Walk().stand()
    rest = {n: 0.0 for n in names} | ARMS_DOWN
    lying_for, tries = 0, 0                             # the sample player's count of cycles lying; motions made

    def step(targets: dict[str, float]) -> None:
        nonlocal lying_for
        agent.drive(targets)
        agent.step()
        lying_for = lying_for + 1 if lying(tuple(world.accelerometer(rid))) is not None else 0

    def still() -> bool:
        return lying_for >= (AGAIN_CYCLES if tries else LYING_CYCLES) \
            and max(abs(g) for g in np.degrees(world.gyro(rid))) < STILL

    for _ in range(300):
        step(rest)
        if still():
            break
    side = first_side = lying(tuple(world.accelerometer(rid)))
    first_seconds, seconds, ended = None, 0.0, 0.0
    while side is not None:
        motion = get_up_motion(side, agent.angles(), robot_type)
        tries += 1
        first_seconds = first_seconds or motion.seconds
        while (targets := motion.step()) is not None:
            step(rest | targets)
            seconds += CYCLE
        ended, side = seconds, None
        gait = Walk()
        for k in range(round(AGAIN_WINDOW / CYCLE)):    # the crouch held 0.5 s, then walking on the spot
            if lying_for >= DOWN_CYCLES:                # (lying after the motion, as after a roll: at once)
                break
            step((rest | FINISH[1]) if k < 25 else (crouch | gait.step(0.0, 0.0, 0.0, tuple(np.degrees(world.gyro(rid))))))
            seconds += CYCLE
        if lying_for < DOWN_CYCLES:
            break                                       # it stands (or at least does not lie)
        while seconds < WITHIN:                         # down again: lie still, then get up again
            step(rest)
            seconds += CYCLE
            if still():
                side = lying(tuple(world.accelerometer(rid)))
                break
    position, rotation = world.pose(rid, "torso")
    up = bool(rotation[2, 2] > 0.9 and position[2] > 0.3)
    return {"side": first_side, "seconds": first_seconds, "first": up and tries == 1, "tries": tries,
            "seconds_to_up": ended, "up": up}


def kick(yaw: float = 0.0, stand: int = 100, ahead: float = 0.0, robot_type: int = 0, foot: str = "right") -> dict:
    """Stand in the crouch ``stand`` cycles facing ``yaw``, the ball put at KICK_BALL (``ahead`` m
    further) before ``foot``, kick with it, stand 3 s: how far the ball went ahead (m) and aside,
    and whether the robot stands."""
    world = SoccerWorld(seed=0)
    rid = world.add_robot(robot_type, 0.0, 0.0, yaw)
    agent = Agent(world, rid)
    names = agent.names
    crouch = {n: 0.0 for n in names} | ARMS_DOWN | FINISH[1]
    agent.bend_into(crouch, stand)
    sole = world.pose(rid, "rfoot" if foot == "right" else "lfoot")[0]
    along, right = (math.cos(yaw), math.sin(yaw)), (math.sin(yaw), -math.cos(yaw))
    outward = 1.0 if foot == "right" else -1.0
    ball = [sole[i] + along[i] * (KICK_BALL[1] + ahead) + right[i] * outward * KICK_BALL[0] for i in (0, 1)]
    world.place_ball((*ball, world.rules.ball_radius))
    for _ in range(10):
        agent.drive(crouch)
        agent.step()
    motion = kick_motion(agent.angles(), foot)
    while (targets := motion.step()) is not None:
        agent.drive(targets)
        agent.step()
    for _ in range(150):
        agent.drive(crouch)
        agent.step()
    moved = world.ball()[0][:2] - ball
    position, rotation = world.pose(rid, "torso")
    return {"ahead": float(moved @ along), "aside": float(abs(moved @ right)),
            "up": bool(rotation[2, 2] > 0.9 and position[2] > 0.3)}


#: (yaw rad, push, roll) of the falls ``--wide`` gets up from: the runs' sequence, then two others
WIDE_FALLS = ([(0.71 * k + 0.2, 0.7 + 0.08 * k, 0.1 * (k % 7) - 0.3) for k in range(30)]
              + [(0.53 * k + 0.1, 0.75 + 0.05 * (k % 8), 0.07 * (k % 9) - 0.28) for k in range(30)]
              + [(1.13 * k + 0.4, 0.8 + 0.04 * (k % 11), 0.06 * (k % 11) - 0.3) for k in range(40)])


def wide() -> None:
    """The get-ups from the front and the back on each of :data:`WIDE_FALLS`; from a side, for the
    sample team's robot types 0, 2 and 4, laid on either side facing two ways, tilted -0.3 to 0.2 rad."""
    for back in (False, True):
        tries = [t for yaw, push, roll in WIDE_FALLS if (t := get_up(back, yaw, push, roll)) is not None]
        within = sum(t["up"] and t["seconds_to_up"] <= WITHIN for t in tries)
        print(f"get-up from the {'back' if back else 'front'}: {within} of {len(tries)} falls (not left on a side) "
              f"stood within {WITHIN:.0f} s, {sum(t['first'] for t in tries)} after the first motion")
    for robot_type in (0, 2, 4):
        tries = [get_up_from_side(up, yaw, tilt, robot_type) for up in (1, -1) for yaw in (0.5, 2.0)
                 for tilt in np.linspace(-0.3, 0.2, 8)]
        tries = [t for t in tries if t["side"] == "side"]
        print(f"get-up from a side, type {robot_type}: {sum(t['up'] for t in tries)} of {len(tries)} stood "
              f"(most {max(t['seconds_to_up'] for t in tries):.2f} s from the roll's start), "
              f"{sum(t['up'] and t['seconds_to_up'] <= WITHIN for t in tries)} within {WITHIN:.0f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--wide", action="store_true", help="only the get-ups, on 100 falls")
    args = ap.parse_args()
    if args.wide:
        wide()
        return
    runs = args.runs
    forward = [walk((1.0, 0.0, 0.0), 90.0, yaw=0.06 * k - 0.27, settle=60 + 10 * k, until=20.0) for k in range(runs)]
    done = [r for r in forward if not r["fell"] and r["distance"] >= 20.0]
    speeds = [r["distance"] / r["seconds"] for r in done]
    print(f"forward 20 m: {len(done)} of {runs} runs without falling, median "
          f"{statistics.median(speeds) if speeds else 0:.3f} m/s (min {min(speeds, default=0):.3f})")
    for turn in (1.0, -1.0):
        rates = []
        for k in range(runs):
            r = walk((0.0, 0.0, turn), 6.0, settle=60 + 10 * k)
            rates.append(math.nan if r["fell"] else abs(r["turned_after_start"]) / 5.0)
        print(f"turning {'left' if turn > 0 else 'right'}: median {statistics.median(rates):.1f} deg/s over the 5 s "
              f"after a 1 s start, {sum(math.isnan(x) for x in rates)} of {runs} fell")
    for back in (False, True):
        tries = [get_up(back, yaw=0.71 * k + 0.2, push=0.7 + 0.08 * k, roll=0.1 * (k % 7) - 0.3) for k in range(runs)]
        tries = [t for t in tries if t is not None]
        within = [t for t in tries if t["up"] and t["seconds_to_up"] <= WITHIN]
        print(f"get-up from the {'back' if back else 'front'} (knocked over, not left on a side: {len(tries)}): "
              f"{sum(t['first'] for t in tries)} stood after the first motion ({tries[0]['seconds']:.2f} s); "
              f"{len(within)} stood within {WITHIN:.0f} s, getting up again when down (most "
              f"{max((t['seconds_to_up'] for t in within), default=0):.2f} s, {sum(t['tries'] > 1 for t in within)} "
              f"of them twice or more); lying on the {'back' if back else 'front'} as the accelerometer told in "
              f"{sum(t['side'] == ('back' if back else 'front') for t in tries)}")
    sides = [get_up_from_side(1 if k % 2 else -1, yaw=0.71 * k + 0.2, tilt=0.05 * k - 0.3) for k in range(runs)]
    within = sum(t["up"] and t["seconds_to_up"] <= WITHIN for t in sides)
    print(f"get-up from a side (laid on it; rolled onto the front first): {sum(t['up'] for t in sides)} of {runs} "
          f"stood, {within} within {WITHIN:.0f} s (most {max(t['seconds_to_up'] for t in sides):.2f} s from the "
          f"roll's start)")
    for foot in ("right", "left"):
        kicks = [kick(yaw=0.37 * k + 0.2, stand=80 + 8 * k, ahead=0.002 * (k - 5), foot=foot) for k in range(runs)]
        print(f"kick with the {foot} foot: median {statistics.median(k['ahead'] for k in kicks):.2f} m ahead "
              f"(least {min(k['ahead'] for k in kicks):.2f}), {statistics.median(k['aside'] for k in kicks):.2f} m "
              f"aside, the robot stands after {sum(k['up'] for k in kicks)} of {runs}")
    for side in (1.0, -1.0):
        r = walk((0.0, side, 0.0), 6.0)
        print(f"side steps {'left' if side > 0 else 'right'}: {abs(r['sideways']) / 6.0:.3f} m/s over 6 s (with the start), "
              f"{'fell' if r['fell'] else 'stayed up'}")


if __name__ == "__main__":
    main()
