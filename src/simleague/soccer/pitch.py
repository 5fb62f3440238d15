"""The pitch both soccer worlds stand on, as MJCF: ground, painted lines, goals, the walls around
the field and the ball; and who touches the ball. Shared by :mod:`simleague.soccer.world` (the
SimSpark Nao robots) and :mod:`simleague.soccer.humanoids` (robots from model files), which are
siblings and import nothing from each other.

Geometry from the original's scene (reference/simspark-rsg/nao/soccer.rsg, goal.rsg): the field is
``field_length`` x ``field_width`` m centred on the origin, x towards the right team's goal, z up;
each goal has posts and a top bar 0.04 m thick and a back wall, behind its goal line; walls far
outside the field keep the ball in.
"""

from __future__ import annotations

import math

import numpy as np

from .field import LINE_WIDTH, lines
from .rules import SoccerRules

GRAVITY = 9.81                # m/s^2 (spark.rb physicsGlobalGravity)
BAR = 0.04                    # m, goal posts and bar (goal.rsg BarDiameter)
#: the ball's contact as the humanoid world models it: MuJoCo's rolling friction, so that a
#: ball rolling at 3 m/s stops after about 4 m
ROLLING_BALL = 'condim="6" friction="1 0.005 0.004"'


def field_mjcf(r: SoccerRules, ball_contact: str = ROLLING_BALL, lines_painted: np.ndarray | None = None) -> str:
    """The MJCF of the field for a ``<worldbody>``: a light, the ground (geom ``ground``), the
    painted lines (seen by cameras, never touched: ``lines_painted``, segments of shape (n, 2, 3) as
    :func:`~simleague.soccer.field.lines` gives them, which are the default), the walls, the goals
    (bodies ``leftgoal`` and ``rightgoal``: posts, back wall and top bar) and the ball (a free body
    and geom ``ball``, contact attributes ``ball_contact``); sizes from the rules (m, kg)."""
    hl, hw = r.field_length / 2, r.field_width / 2
    gd, gw, gh = r.goal_depth, r.goal_width, r.goal_height
    goals = []
    for side, sign in (("left", -1), ("right", 1)):
        x = sign * (hl + gd / 2)
        goals.append(
            f'<body name="{side}goal" pos="{x:.9g} 0 {gh / 2:.9g}">'
            f'<geom type="box" size="{gd / 2:.9g} {BAR / 2:.9g} {gh / 2:.9g}" pos="0 {gw / 2 + BAR / 2:.9g} 0"/>'
            f'<geom type="box" size="{gd / 2:.9g} {BAR / 2:.9g} {gh / 2:.9g}" pos="0 {-(gw / 2 + BAR / 2):.9g} 0"/>'
            f'<geom type="box" size="{BAR / 2:.9g} {gw / 2:.9g} {gh / 2:.9g}" pos="{sign * (gd / 2 - BAR / 2):.9g} 0 0"/>'
            f'<geom type="box" size="{gd / 2:.9g} {gw / 2 + BAR:.9g} {BAR / 2:.9g}" pos="0 0 {gh / 2 + BAR / 2:.9g}"/>'
            "</body>")
    wall_x, wall_y = hl + r.field_length * 0.333 + 0.5, hw + r.field_width * 0.75 + 0.5
    walls = "".join(
        f'<geom type="box" size="{sx:.9g} {sy:.9g} 0.5" pos="{px:.9g} {py:.9g} 0.5"/>'
        for sx, sy, px, py in ((0.5, wall_y, -wall_x, 0), (0.5, wall_y, wall_x, 0),
                               (wall_x, 0.5, 0, wall_y), (wall_x, 0.5, 0, -wall_y)))
    ball = (f'<body name="ball" pos="0 0 {r.ball_radius:.9g}"><freejoint name="ball"/>'
            f'<geom name="ball" type="sphere" size="{r.ball_radius:.9g}" mass="{r.ball_mass:.9g}" '
            f'{ball_contact} rgba="1 1 1 1"/></body>')
    ground = '<geom name="ground" type="plane" size="0 0 1" rgba="0.18 0.5 0.18 1"/>'
    painted = []                          # for cameras only (no collision)
    for (x0, y0, _), (x1, y1, _) in (lines(r) if lines_painted is None else lines_painted):
        length = math.hypot(x1 - x0, y1 - y0)
        angle = math.atan2(y1 - y0, x1 - x0)
        painted.append(f'<geom type="box" contype="0" conaffinity="0" '
                       f'size="{(length + LINE_WIDTH) / 2:.9g} {LINE_WIDTH / 2:.9g} 0.0005" '
                       f'pos="{(x0 + x1) / 2:.9g} {(y0 + y1) / 2:.9g} 0.0005" '
                       f'quat="{math.cos(angle / 2):.9g} 0 0 {math.sin(angle / 2):.9g}" rgba="1 1 1 1"/>')
    light = '<light directional="true" castshadow="false" pos="0 0 20" dir="0.2 0.1 -1" diffuse="0.7 0.7 0.7"/>'
    return light + ground + "".join(painted) + walls + "".join(goals) + ball


def ball_touchers(model, data, ball_geom: int, owner: np.ndarray) -> set[int]:
    """The robots with a part in contact with the ball now, from MuJoCo's contacts: ``ball_geom``
    is the ball's geom id, ``owner`` maps body id -> robot number (shape (nbody,), 0: no robot)."""
    pairs = data.contact.geom                          # shape (ncon, 2)
    pairs = pairs[(pairs == ball_geom).any(axis=1)]
    other = np.where(pairs[:, 0] == ball_geom, pairs[:, 1], pairs[:, 0])
    return {int(rid) for rid in owner[model.geom_bodyid[other]] if rid}


def robot_contacts(model, data, ground_geom: int, owner: np.ndarray) -> tuple[dict[int, np.ndarray], set[tuple[int, int]]]:
    """From MuJoCo's contacts now: per robot number the points where its parts touch the
    ``ground_geom`` (shape (n, 2): x, y m), and the pairs (lower, higher robot number) of robots
    touching each other; ``owner`` as for :func:`ball_touchers`."""
    n = data.ncon
    if n == 0:
        return {}, set()
    geoms = data.contact.geom[:n]
    robots = owner[model.geom_bodyid[geoms]]              # shape (ncon, 2): robot number per side
    on_ground = geoms == ground_geom
    touching = np.flatnonzero(on_ground.any(axis=1))
    rids = np.where(on_ground[touching, 0], robots[touching, 1], robots[touching, 0])
    points = data.contact.pos[touching, :2]
    ground = {int(rid): points[rids == rid] for rid in np.unique(rids) if rid}
    both = robots[(robots[:, 0] != 0) & (robots[:, 1] != 0) & (robots[:, 0] != robots[:, 1])]
    pairs = {(int(min(a, b)), int(max(a, b))) for a, b in both}
    return ground, pairs
