"""The sample SimSpark agent: one player of the sample team. It connects, asks for a robot, joins
its team and beams to its place (:data:`FORMATION`); then it plays: it finds itself from what it
sees (:mod:`~simleague.simspark.localisation`), tells its team mates how far it is from the
ball (``(say 7b423)``), walks (:mod:`~simleague.simspark.walk`) to the ball when it is the
nearest and dribbles it towards the opponent's goal, lining up and kicking it
(:mod:`~simleague.simspark.motions`) once near that goal; the goalkeeper keeps to its goal
line and kicks balls out of its penalty area; a robot that falls gets up (from a side, it rolls
onto its front first). It follows the play mode: kick-off places before a kick-off and after a
goal, its own team's kick-offs and set pieces taken, the opponent's left to them. In sync mode it
answers every cycle with ``(syn)``; it stops when the game is over or the server goes away.

Run it as ``python -m simleague.simspark.agent --team NAME --unum N --type T --players P`` (or
``simleague simspark agent``); it uses only the standard library and the pure modules named
above, so that 22 of them start quickly.
"""

from __future__ import annotations

import argparse
import math
import re
import sys

from ..angles import wrap
from .client import AgentClient, Perception
from .localisation import Localiser, to_robot
from .motions import FINISH, KICK_BALL, get_up, kick, lying
from .walk import CYCLE, Walk, velocities

#: own half, team frame (x towards the opponent's goal), metres; number 1 is the goalkeeper
#: (the first n numbers make a team of n: a striker, then midfield, then defence)
FORMATION = {1: (-14.2, 0.0), 2: (-1.0, 0.5), 3: (-2.5, -3.0), 4: (-6.5, 1.5), 5: (-6.5, -1.5),
             6: (-11.0, 1.5), 7: (-11.0, -1.5), 8: (-6.0, 6.0), 9: (-6.0, -6.0), 10: (-10.0, 5.0),
             11: (-10.0, -5.0)}
KICK_OFF_PLACE = (-0.3, 0.06)     # number 2's place when its team kicks off: the ball before its right foot
#: robot type of each number in the sample team: 7 of type 0 (the walk's and motions' own), 2 of
#: type 2 and 2 of type 4 (the league's mix rules: at most 7 of one type, 9 of two, 3 types at least)
TYPES = {1: 0, 2: 0, 3: 0, 4: 0, 5: 0, 6: 4, 7: 4, 8: 0, 9: 0, 10: 2, 11: 2}
FOLLOW = 0.5                      # share of the ball's x by which the field players' places follow it
OPPONENT_GOAL = (15.0, 0.0)
KEEP_AWAY = 2.5                   # m from the ball at the opponent's set piece (FreeKickDistance 2 and a margin)
PENALTY_AREA = (-12.0, 3.0)       # the goalkeeper clears balls with x below and |y| below these (m)
BALL_FORGOTTEN = 4.0              # s after which a ball not seen is searched for
HEAD_SWEEP = 35.0                 # degrees either side of the ball (or of straight ahead) the head swings
HEAD_PERIOD = 3.0                 # s
BEHIND = 0.22                     # m behind the ball (seen from the goal) a dribbler walks to
#: m: where the ball must lie from the camera (forward, left) for the kick with the right foot: 1 cm
#: nearer and 1 cm further left than KICK_BALL before the right foot (the middle of where the kick
#: works, measured), the foot 0.019 m ahead of the camera and 0.054 m to its right in the crouch;
#: for the left foot's kick the same mirrored (y > 0)
KICK_SPOT = (0.019 + KICK_BALL[1] - 0.01, -0.054 - (KICK_BALL[0] - 0.01))
KICK_WINDOW = (0.01, 0.02)        # m either way of the kick spot (forward, sideways) the kick still works
STAND_BEFORE_KICK = 25            # cycles standing still before the kick
KICK_HEAD = {"hj1": 0.0, "hj2": -40.0}
LINE_UP_CYCLES = 200              # cycles (4 s) a robot tries to line up for a kick before it dribbles
#: m (team frame x): a field player lines up and kicks a ball beyond this (5 m from the opponent's
#: goal line: the kick carries about 5 m); short of it, it dribbles (kicking wherever it could
#: scored fewer goals and fell more: docs/simspark.md)
SHOOT_X = 10.0
DRIBBLE_CYCLES = 150              # cycles it then dribbles before it tries again
ARMS_DOWN = {"laj1": -90.0, "raj1": -90.0}
#: m: a robot seen less than this far ahead (and nearer than where the player walks to) and less
#: than CLEAR_SIDE to either side is in the way: the player steps aside of it while walking on
#: (of an opponent only when not going for the ball, which may take a duel)
CLEAR_AHEAD = 0.8
CLEAR_SIDE = 0.35
SAID = re.compile(r"(\d{1,2})b(\d{1,4})")  # a team mate's message: its number, its distance to the ball in cm
KEEP_BALL = 0.5                   # m: a player that has the ball keeps it until a team mate is this much nearer
UPRIGHT = 3.0                     # m/s^2: sideways and forward acceleration of a robot upright enough to see by
DOWN_CYCLES = 10                  # cycles the accelerometer must say "lying" before a robot counts as down
LYING_CYCLES = 40                 # cycles a robot lies still before it gets up (a knock is not a fall)
#: a robot down again within AGAIN_WINDOW s of a get-up's end (the get-up failed: no knock to wait
#: out) lies still only AGAIN_CYCLES before it tries again: of 100 robots knocked onto their backs
#: as benchmarks/bench_walk.py knocks them (three sequences of pushes), 83 stood within 4 s, 76
#: waiting LYING_CYCLES again (20 and 30 cycles: 82 and 84; 35: 76), measured before the back
#: get-up ended in motions.BACK_SETTLE (since, 92 stand after the first get-up)
AGAIN_CYCLES = 25
AGAIN_WINDOW = 1.5
STILL = 30.0                      # deg/s: a robot turning slower than this about every axis lies still
BEND_CYCLES = 50                  # cycles (1 s) to bend from straight legs into the walking crouch
BEAM_MODES = ("BeforeKickOff", "Goal_Left", "Goal_Right")   # the play modes in which a player beams to its place
#: the play modes (wire names without the side) in which the team named by the side takes the ball
SET_PIECES = ("KickOff_", "KickIn_", "corner_kick_", "goal_kick_", "free_kick_", "direct_free_kick_", "pass_")


class Player:
    """The decisions of one sample player: ``Player(unum, side, team, players)`` (``players``: the
    team's size, its numbers 1 to ``players``; a team of one has no goalkeeper; ``robot_type``:
    the Nao type it plays, whose get-ups it uses); :meth:`think` each cycle
    with the perception gives the joint velocities to send (rad/s by effector name) and a beam
    (x, y m, heading degrees, team frame) or None."""

    def __init__(self, unum: int, side: str, team: str, players: int = 11, robot_type: int = 0):
        self.robot_type = robot_type
        self.side, self.players, self.team = side, players, team
        self.heard: dict[int, tuple[float, float]] = {}    # team mate -> (its cost, when heard)
        self.has_ball = False
        self.unum = unum if players > 1 else 2              # a team of one plays number 2's part
        self.where = Localiser(side, me=(team, unum))
        self.walk = Walk()
        self.motion = None
        self.beamed_in: str | None = None       # the play mode the last beam was made in
        self.bent = 0                           # cycles spent bending from straight legs into the crouch
        self.bend_from: dict[str, float] = {}   # the joint angles the bend started from
        self.lying = 0                          # cycles the accelerometer has said the robot lies
        self.getting_up = False                 # the motion is a get-up
        self.got_up_at: float | None = None     # the time the last get-up ended, s
        self.lining = 0                         # cycles spent lining up for a kick (then dribbling)
        self.standing = 0                       # cycles stood still on the kick spot
        self.foot = "right"                     # the foot that kicks, chosen as lining up starts

    # -- what the play mode allows ------------------------------------------------------------

    def ours(self, play_mode: str) -> bool | None:
        """True in a set piece of this team, False in the opponent's, None in other modes."""
        for prefix in SET_PIECES:
            if play_mode.lower().startswith(prefix.lower()):
                return play_mode.lower().endswith(self.side)
        return None

    def place(self, kicks_off: bool) -> tuple[float, float, float]:
        """Where to beam (x, y m, heading degrees), before a kick-off."""
        if kicks_off and self.unum == 2:
            return (*KICK_OFF_PLACE, 0.0)
        return (*FORMATION.get(self.unum, (-1.0 - 0.5 * self.unum, 0.0)), 0.0)

    # -- each cycle ---------------------------------------------------------------------------

    def think(self, p: Perception) -> tuple[dict[str, float], tuple[float, float, float] | None]:
        """The velocities (rad/s by effector) for this cycle and a beam, from perception ``p``."""
        ax, ay, az = p.acceleration
        upright = self.motion is None and abs(ax) < UPRIGHT and abs(ay) < UPRIGHT and az > 9.81 - UPRIGHT
        self.where.update(p.time, p.gyro[2], p.seen if upright else None,
                          p.joints.get("hj1", 0.0), p.joints.get("hj2", 0.0))
        self.hear(p)
        self.lying = self.lying + 1 if lying(p.acceleration) is not None else 0
        base = {j: 0.0 for j in p.joints} | ARMS_DOWN
        beam = None
        mode = p.play_mode
        if mode in BEAM_MODES and self.beamed_in != mode:
            # before a kick-off the left team kicks off (the match's first); after a goal, who conceded
            kicks_off = (self.side == "left") if mode == "BeforeKickOff" else not mode.lower().endswith(self.side)
            beam = self.place(kicks_off)
            self.where.moved(beam)
            self.beamed_in, self.motion, self.getting_up = mode, None, False
            self.walk, self.bent = Walk(), 0
        elif mode not in BEAM_MODES:
            self.beamed_in = None
        if self.motion is not None:
            targets = self.motion.step()
            if targets is not None:
                return velocities(base | targets, p.joints), beam
            self.motion = None
            if self.getting_up:
                self.getting_up, self.got_up_at = False, p.time
        if self.lying >= DOWN_CYCLES:               # down: lie still with the arms down, then get up
            side = lying(p.acceleration)
            fell_at = p.time - (self.lying - 1) * CYCLE
            again = self.got_up_at is not None and fell_at - self.got_up_at <= AGAIN_WINDOW
            if side is not None and self.lying >= (AGAIN_CYCLES if again else LYING_CYCLES) \
                    and max(abs(g) for g in p.gyro) < STILL:
                self.motion, self.getting_up = get_up(side, p.joints, self.robot_type), True
                return velocities(base | self.motion.step(), p.joints), beam
            self.bent = 0                               # and afterwards into the crouch slowly
            return velocities(base, p.joints), beam
        head = self.head(p.time)
        if self.bent < BEND_CYCLES:                 # straight legs (a new robot, a beam): bend slowly
            if self.bent == 0:
                self.bend_from = dict(p.joints)
            self.bent += 1
            share = self.bent / BEND_CYCLES
            pose = base | head | self.walk.stand()
            return velocities({j: self.bend_from[j] + (a - self.bend_from[j]) * share for j, a in pose.items()},
                              p.joints), beam
        if mode in BEAM_MODES or mode == "GameOver":
            return velocities(base | head | self.walk.stand(), p.joints), beam
        legs = self.play(p)
        if self.standing:                       # on the kick spot: head straight and down (a turned head topples the kick)
            head = KICK_HEAD
        return velocities(base | head | legs, p.joints), beam

    def head(self, now: float) -> dict[str, float]:
        """Head targets: looking at the ball when it was seen lately, swinging around it."""
        e = self.where.estimate
        sweep = HEAD_SWEEP * math.sin(2 * math.pi * now / HEAD_PERIOD)
        if e.pose is None or e.ball is None or now - e.ball_seen > BALL_FORGOTTEN:
            return {"hj1": 2 * sweep, "hj2": -10.0}
        x, y = to_robot(e.pose, e.ball)
        bearing = math.degrees(math.atan2(y, x))
        down = -math.degrees(math.atan2(0.45, max(math.hypot(x, y), 0.1)))
        return {"hj1": max(-90.0, min(90.0, bearing + sweep)), "hj2": max(-40.0, min(0.0, down + 10.0))}

    def play(self, p: Perception) -> dict[str, float]:
        """Leg targets while the ball is in play (or in a set piece)."""
        e = self.where.estimate
        gyro = p.gyro
        ours = self.ours(p.play_mode)
        lost = e.pose is None or e.ball is None or p.time - e.ball_seen > BALL_FORGOTTEN
        if not lost and ours is not False and self.takes_ball(e, p.time):
            return self.attack(e, p)
        self.lining = self.standing = 0            # lost, or left to a team mate: no kick under way
        if lost:                                    # turn to find itself, the ball
            return self.walk.step(0.0, 0.0, 0.5 if e.pose is None else 0.8, gyro)
        home = self.home(e.ball)
        if ours is False:                      # the opponent's set piece: keep the free-kick distance
            dx, dy = home[0] - e.ball[0], home[1] - e.ball[1]
            away = math.hypot(dx, dy)
            if away < KEEP_AWAY:
                dx, dy, away = (dx, dy, away) if away > 0.1 else (-1.0, 0.0, 1.0)
                home = (e.ball[0] + dx / away * KEEP_AWAY, e.ball[1] + dy / away * KEEP_AWAY)
        return self.go_to(home, e.ball, gyro)

    def home(self, ball: tuple[float, float]) -> tuple[float, float]:
        """This player's place while another takes the ball (team frame, m)."""
        if self.unum == 1:
            return FORMATION[1][0], max(-0.9, min(0.9, 0.3 * ball[1]))
        return self.home_of(self.unum, ball)

    def takes_ball(self, e, now: float) -> bool:
        """Whether this player goes for the ball: the goalkeeper when the ball is in its penalty
        area, no field player then; else the field player nearest to the ball as the team mates
        tell each other (:meth:`message`: heard in the last second, this player's own distance
        counted :data:`KEEP_BALL` m shorter once it has the ball), or, with no team mate heard,
        the one whose place (:meth:`home_of`) is nearest to the ball."""
        ball = e.ball
        in_penalty_area = ball[0] < PENALTY_AREA[0] and abs(ball[1]) < PENALTY_AREA[1]
        if self.unum == 1 or in_penalty_area:
            return self.unum == 1 and in_penalty_area
        heard = {u: d for u, (d, when) in self.heard.items() if now - when < 1.0 and u not in (1, self.unum)}
        if heard:
            mine = self.cost(now) - (KEEP_BALL if self.has_ball else 0.0)
            self.has_ball = all(mine < d or (mine == d and self.unum < u) for u, d in heard.items())
            return self.has_ball
        field_players = [u for u in range(2, self.players + 1) if u in FORMATION] or [2]
        return min(field_players, key=lambda u: math.dist(self.home_of(u, ball), ball)) == self.unum

    def cost(self, now: float) -> float:
        """How far (m) this player is from the ball, for choosing who takes it: 5 m more when it
        is down (:data:`DOWN_CYCLES`: a step's jolt is not a fall) or gets up, most when it does not
        know where the ball is."""
        e = self.where.estimate
        if e.pose is None or e.ball is None or now - e.ball_seen > BALL_FORGOTTEN:
            return 99.0
        return math.dist(e.pose[:2], e.ball) + (5.0 if self.lying >= DOWN_CYCLES or self.getting_up else 0.0)

    def message(self, now: float) -> str:
        """What this player says to its team (``(say ...)``, 20 characters at most): its number
        and :meth:`cost` in centimetres, ``7b423``."""
        return f"{self.unum}b{min(9999, round(self.cost(now) * 100))}"

    def hear(self, p: Perception) -> None:
        """Take in what team mates said (their :meth:`message`)."""
        for team, _, direction, text in p.heard:
            said = SAID.fullmatch(text)
            if team == self.team and direction is not None and said:
                self.heard[int(said.group(1))] = (int(said.group(2)) / 100, p.time)

    @staticmethod
    def home_of(unum: int, ball: tuple[float, float]) -> tuple[float, float]:
        """A field player's place (team frame, m): its place in :data:`FORMATION` moved
        along the field by :data:`FOLLOW` of the ball's x."""
        x, y = FORMATION.get(unum, (-1.0, 0.0))
        return max(-13.0, min(13.0, x + FOLLOW * ball[0])), y

    def attack(self, e, p: Perception) -> dict[str, float]:
        """Walk behind the ball, seen from the opponent's goal, then dribble it there; beyond
        :data:`SHOOT_X` (and the goalkeeper anywhere) line up and kick it (:meth:`line_up`),
        dribbling it for a while when lining up takes too long."""
        ball, pose = e.ball, e.pose
        to_goal = wrap(math.atan2(OPPONENT_GOAL[1] - ball[1], OPPONENT_GOAL[0] - ball[0]))
        ux, uy = math.cos(to_goal), math.sin(to_goal)
        behind = (ball[0] - BEHIND * ux, ball[1] - BEHIND * uy)
        rx, ry = pose[0] - ball[0], pose[1] - ball[1]
        along, across = rx * ux + ry * uy, -rx * uy + ry * ux
        facing = wrap(to_goal - pose[2])
        in_line = -0.6 < along <= -0.1 and abs(across) < 0.12 and abs(facing) < math.radians(20)
        if not in_line:                                         # no kick under way
            self.lining = self.standing = 0
        if along > -0.1:                                        # on the wrong side: go round the ball
            side = 1.0 if across >= 0 else -1.0
            detour = (ball[0] - 0.4 * ux - side * 0.5 * uy, ball[1] - 0.4 * uy + side * 0.5 * ux)
            return self.go_to(detour, ball, p.gyro, duel=True)
        if in_line:
            bx, by = to_robot(pose, ball)
            self.lining += 1
            if self.lining == 1 and e.ball_near is not None:      # the foot the ball lies before
                self.foot = "left" if e.ball_near[1] > 0 else "right"
            if (self.unum == 1 or ball[0] > SHOOT_X) and self.lining <= LINE_UP_CYCLES and e.ball_near is not None:
                return self.line_up(e.ball_near, facing, p)
            if self.lining > LINE_UP_CYCLES + DRIBBLE_CYCLES:
                self.lining = 0
            self.standing = 0
            # dribble: walk through the ball, steering so that it stays between the feet
            return self.walk.step(1.0, 0.0, max(-0.15, min(0.15, facing + 0.5 * math.atan2(by, max(bx, 0.1)))), p.gyro)
        return self.go_to(behind, OPPONENT_GOAL, p.gyro, duel=True)

    def line_up(self, ball: tuple[float, float], facing: float, p: Perception) -> dict[str, float]:
        """Small steps that bring the ball (``ball``: as last seen, robot frame, m) onto the kick
        spot of the chosen foot with the robot facing the goal (``facing``: radians off), then
        stand still and kick."""
        dx, dy = ball[0] - KICK_SPOT[0], ball[1] - (KICK_SPOT[1] if self.foot == "right" else -KICK_SPOT[1])
        slack = 1.6 if self.standing or not self.walk.moving else 1.0     # once still, a sighting's noise does not move it
        if abs(dx) < slack * KICK_WINDOW[0] and abs(dy) < slack * KICK_WINDOW[1] and abs(facing) < math.radians(10):
            if self.walk.moving:
                return self.walk.step(0.0, 0.0, 0.0, p.gyro)
            self.standing += 1
            if self.standing < STAND_BEFORE_KICK:           # from the walking crouch into the kick's
                share = min(1.0, self.standing / (STAND_BEFORE_KICK * 0.6))
                stand = self.walk.stand()
                return {j: a + (FINISH[1][j] - a) * share for j, a in stand.items()}
            self.motion, self.standing, self.lining = kick(p.joints, self.foot), 0, 0
            return self.motion.step()
        self.standing = 0
        return self.walk.step(max(-0.3, min(0.6, dx / 0.2)), max(-0.6, min(0.6, dy / 0.05)),
                              max(-0.3, min(0.3, 1.5 * facing)), p.gyro)

    def go_to(self, target: tuple[float, float], look: tuple[float, float], gyro,
              duel: bool = False) -> dict[str, float]:
        """Walk to ``target`` (team frame, m), turning on the spot when it lies off to the side,
        stepping aside of a robot in the way (:data:`CLEAR_AHEAD`, :data:`CLEAR_SIDE`: walking
        into one topples both; with ``duel``, going for the ball, only of a team mate), and once
        there face ``look``."""
        pose = self.where.estimate.pose
        x, y = to_robot(pose, target)
        distance, bearing = math.hypot(x, y), math.atan2(y, x)
        if distance > 0.35:
            if abs(bearing) > math.radians(25):
                return self.walk.step(0.0, 0.0, math.copysign(1.0, bearing), gyro)
            turn = max(-0.15, min(0.15, bearing))
            in_the_way = [(ox, oy) for team, ox, oy in self.where.estimate.others
                          if 0.0 < ox < min(CLEAR_AHEAD, distance) and abs(oy) < CLEAR_SIDE
                          and not (duel and team != self.team)]
            if in_the_way:
                _, oy = min(in_the_way)
                return self.walk.step(0.2, -math.copysign(1.0, oy), turn, gyro)
            return self.walk.step(min(1.0, distance), 0.0, turn, gyro)
        lx, ly = to_robot(pose, look)
        facing = math.atan2(ly, lx)
        if abs(facing) > math.radians(20):
            return self.walk.step(0.0, 0.0, math.copysign(1.0, facing), gyro)
        return self.walk.step(max(-1.0, min(1.0, x / 0.2)), max(-1.0, min(1.0, y / 0.1)), 0.0, gyro)


def run(host: str, port: int, team: str, unum: int, robot_type: int, cycles: int | None = None,
        players: int = 11) -> int:
    """Play until the game is over, the server closes or ``cycles`` messages were answered;
    returns the number of cycles played."""
    with AgentClient(host, port) as agent:
        agent.scene(robot_type)
        agent.receive()
        agent.init(unum, team)
        played, player = 0, None
        while cycles is None or played < cycles:
            seen = agent.receive()
            if seen.side is not None and player is None:
                player = Player(seen.unum or unum, seen.side, team, players, robot_type)
            if player is None:
                agent.act({}, syn=True)
            else:
                speeds, beam = player.think(seen)
                if beam is not None:
                    agent.beam(*beam)
                agent.act(speeds, say=player.message(seen.time), syn=True)
            played += 1
            if seen.play_mode == "GameOver":
                break
        return played


def main(argv: list[str] | None = None) -> int:
    """The command line (``--host --port --team --unum --type``); returns the exit code (1 when
    the server cannot be reached or goes away)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=3100)
    parser.add_argument("--team", default="Sample")
    parser.add_argument("--unum", type=int, default=0, help="0: the next free number")
    parser.add_argument("--type", type=int, default=None, help="robot type 0-4 (default: by number)")
    parser.add_argument("--players", type=int, default=11, choices=range(1, 12), metavar="1-11",
                        help="the team's size: numbers 1 to this play")
    args = parser.parse_args(argv)
    robot_type = args.type if args.type is not None else TYPES.get(args.unum, 0)
    try:
        run(args.host, args.port, args.team, args.unum, robot_type, players=args.players)
    except (OSError, ConnectionError) as e:
        print(f"agent {args.team} {args.unum}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
