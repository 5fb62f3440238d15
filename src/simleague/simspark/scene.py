"""The scene graph that SimSpark monitors draw (seed 002 "Scene graph"; layout and number format as
a real rcssserver3d 0.7.3 sent it, golden/simspark/monitor_sample.txt).

A full message (``RSG``) lists every node: transforms ``(nd TRF (SLT m0 .. m15) ...)`` with the
4x4 matrix column-major (translation in m12-m14), meshes ``(nd StaticMesh (setVisible 1) (load
models/x.obj) (sSc x y z)(resetMaterials ...))`` and standard shapes ``(nd SMN (setVisible 1) (load
StdUnitSphere) (sSc r r r) (sMat matYellow))``. An update (``RDS``) repeats the tree's shape with
empty ``(nd)`` nodes and carries an ``SLT`` only where a transform changed by more than 0.005.

Monitors find robots by a mesh whose materials include ``matNum<N>`` and ``matLeft``/``matRight``
(on the torso), and the ball by ``models/soccerball.obj``. The static part keeps the original's
nodes a monitor shows (lights, field, sky, goals, ball); colliders and flags, which have nothing to
draw, are left out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..soccer.field import lines
from ..soccer.nao import Part
from ..soccer.pitch import BAR
from ..soccer.rules import SoccerRules, Team

#: a change of any matrix element above this is sent in an update (the original's threshold)
MOVED = 0.005
_LIGHTS = ("(nd TRF (SLT 1 0 0 0 0 1 0 0 0 0 1 0 -10 10 10 1)(nd Light (setDiffuse 1 1 1 1) "
           "(setAmbient 0.8 0.8 0.8 1) (setSpecular 0.1 0.1 0.1 1)))"
           "(nd TRF (SLT 1 0 0 0 0 1 0 0 0 0 1 0 10 -10 10 1)(nd Light (setDiffuse 1 1 1 1) "
           "(setAmbient 0 0 0 1) (setSpecular 0.1 0.1 0.1 1)))")
_SKY = " ".join(f"Material_skyrender_000{i}.tif" for i in range(1, 7))


def rotation(x_deg: float, y_deg: float, z_deg: float) -> np.ndarray:
    """The original's ``setLocalRotation x y z`` (degrees) as its 4x4 matrix: the rotation about x,
    then about the new y, then about the newest z (salt's ``RotationX``, ``RotateY``,
    ``RotateZ``, which also turn the matrix's bottom row), in the original's single precision, so
    that the monitor gets its very numbers (``-4.37114e-08`` for the cosine of 90 degrees, signed
    zeros)."""
    f = np.float32

    def cs(deg: float):
        angle = f(math.radians(deg))
        return f(math.cos(angle)), f(math.sin(angle))

    m = np.eye(4, dtype=f)
    c, s = cs(x_deg)
    m[1, 1], m[2, 1], m[1, 2], m[2, 2] = c, s, -s, c
    c, s = cs(y_deg)
    m[:, 0], m[:, 2] = c * m[:, 0] - s * m[:, 2], s * m[:, 0] + c * m[:, 2]
    c, s = cs(z_deg)
    m[:, 0], m[:, 1] = c * m[:, 0] + s * m[:, 1], -s * m[:, 0] + c * m[:, 1]
    return m


def slt(position, matrix) -> np.ndarray:
    """The 16 numbers of an ``SLT``, column-major: ``matrix``, a rotation (3, 3) or the original's
    whole 4x4 matrix (:func:`rotation`), with ``position`` (3,) as its translation."""
    m = np.eye(4)
    m[:len(matrix), :len(matrix)] = matrix
    m[:3, 3] = position
    return m.T.reshape(16)


def transforms_of(positions: np.ndarray, rotations: np.ndarray) -> np.ndarray:
    """The ``SLT`` rows (shape (n, 16)) of n bodies at ``positions`` (n, 3) turned by
    ``rotations`` (n, 3, 3)."""
    n = len(positions)
    m = np.zeros((n, 4, 4))
    m[:, :3, :3] = rotations
    m[:, :3, 3] = positions
    m[:, 3, 3] = 1.0
    return m.transpose(0, 2, 1).reshape(n, 16)


def numbers(values) -> str:
    """Numbers as the monitor port prints them: six significant digits (``%g``)."""
    return ("%g " * len(values) % tuple(values))[:-1]


_MESH_TURN = slt((0, 0, 0), rotation(-90, 0, 180))     # nao_hetero.rsg / naoneckhead.rsg meshes
_SELECTION = ("(nd TRF (SLT 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1)(nd SMN (setVisible 0) (setTransparent) "
              "(load StdUnitCylinder 1 1) (sSc 0.2 0.2 0.02) (sMat matSelect)))")


@dataclass(frozen=True)
class RobotView:
    """What the scene needs of a robot: who it is (``key``, unique in the game), its parts and,
    once it has them, team and number."""

    key: int
    parts: tuple[Part, ...]
    robot_type: int
    team: Team | None
    unum: int | None


def _materials(part: Part, robot: RobotView) -> str:
    number = f"matNum{robot.unum}" if robot.unum is not None else "matNum"
    team = {Team.LEFT: "matLeft", Team.RIGHT: "matRight"}.get(robot.team, "matTeam")
    kind = f"matType{robot.robot_type}"
    if part.name == "rthigh":                  # the number shows on the right thigh only
        return f"{number} {team} naowhite"
    name = part.name[1:] if part.name[0] in "lr" else part.name
    return {"torso": f"{number} {team} {kind} naowhite", "head": f"{team} naoblack naogrey naowhite",
            "upperarm": f"{team} {kind} naowhite", "shank": f"{team} {kind} naowhite"}.get(name, f"{team} naowhite")


def _visual(part: Part, robot: RobotView) -> str:
    """The drawable node of a part, full form."""
    if part.mesh is not None or part.name.endswith("toe"):
        mesh = (part.mesh or f"models/{part.name[0]}foot.obj").format(type=robot.robot_type)
        if part.name in ("torso", "head"):
            scale = "0.1 0.1 0.1"
        else:
            scale = numbers((part.size[0],) * 3)
        node = (f"(nd StaticMesh (setVisible 1) (load {mesh}) (sSc {scale})"
                f"(resetMaterials {_materials(part, robot)}))")
        if part.name == "head":
            return f"(nd TRF (SLT {numbers(_MESH_TURN)}){node})"
        if part.name == "torso":               # and the trainer's selection marker, hidden
            return f"(nd TRF (SLT {numbers(_MESH_TURN)}){node}){_SELECTION}"
        return node
    if part.shape == "capsule":
        return (f"(nd SMN (setVisible 1) (load StdCapsule {numbers(part.size)}) (sSc 1 1 1) "
                "(sMat matDarkGrey))")
    if part.shape == "sphere":
        r = part.size[0]
        colour = "matRed" if part.name.endswith("ankle") else "matYellow"
        return f"(nd SMN (setVisible 1) (load StdUnitSphere) (sSc {numbers((r, r, r))}) (sMat {colour}))"
    return f"(nd SMN (setVisible 1) (load StdUnitBox) (sSc {numbers(part.size)}) (sMat matGrey))"


def _shape(part: Part, new: bool) -> str:
    """The drawable node of a part, as an update repeats it; ``new``: with its visibility, as the
    original's first update after the node appeared."""
    shown, hidden = (" (setVisible 1)", " (setVisible 0)") if new else ("", "")
    if part.name == "torso":
        return f"(nd(nd StaticMesh{shown}))(nd(nd SMN{hidden}))"
    if part.name == "head":
        return f"(nd(nd StaticMesh{shown}))"
    if part.mesh is not None or part.name.endswith("toe"):
        return f"(nd StaticMesh{shown})"
    return f"(nd SMN{shown})"


def _static_shape(rules: SoccerRules, new: bool) -> str:
    """The static part of the scene (lights, field, sky, goals, walls, flags, lines) as an update
    repeats it; ``new``: with visibilities (:func:`_shape`)."""
    shown = " (setVisible 1)" if new else ""
    return ("(nd(nd))(nd(nd))" + f"(nd(nd StaticMesh{shown}))" * 2
            + (f"(nd(nd(nd StaticMesh{shown}))" + "(nd)" * 6 + ")") * 2
            + f"(nd(nd SMN{shown}))" * 4 + "(nd)" * (4 + len(lines(rules))))


class SceneGraph:
    """Builds full and update messages for one stream of monitor messages.

    ``static`` is the part that never moves; per message, the caller gives the ball's transform
    and each robot's part transforms (arrays of ``SLT`` rows, shape (n, 16)). Updates are relative
    to what this object last sent."""

    def __init__(self, rules: SoccerRules):
        hl, hw = rules.field_length / 2, rules.field_width / 2
        gd, gw, gh = rules.goal_depth, rules.goal_width, rules.goal_height
        ball = rules.ball_radius
        field = numbers(slt((0, 0, 0), rotation(90, 180, 0)))                 # soccer.rsg
        goal_mesh = numbers(slt((gd / 2, 0, -gh / 2), rotation(90, 90, 0)))     # goal.rsg
        # the goal's colliders and flags, in the goal's frame: posts, back wall, bar, flags
        goal_nodes = "".join(f"(nd TRF (SLT {numbers(slt(p, np.eye(3)))}))" for p in (
            (0, -(gw / 2 + BAR / 2), 0), (0, gw / 2 + BAR / 2, 0), (-(gd / 2 - BAR / 2), 0, 0),
            (0, 0, gh / 2 + BAR / 2), (gd / 2, gw / 2, gh / 2), (gd / 2, -gw / 2, gh / 2)))
        goals = []
        for side, sign, colour in (("left", -1, "yellow"), ("right", 1, "sky-blue")):
            place = numbers(slt((sign * (hl + gd / 2), 0, gh / 2), rotation(0, 0, 0 if sign < 0 else 180)))
            goals.append(f"(nd TRF (SLT {place})(nd TRF (SLT {goal_mesh})(nd StaticMesh (setVisible 1) "
                         f"(setTransparent) (load models/{side}soccergoal.obj) "
                         f"(sSc {numbers((gw + 2 * BAR, gh + 2 * BAR, gd + 2 * BAR))})"
                         f"(resetMaterials naogoalnet {colour})))" + goal_nodes + ")")
        # the walls around the field (soccer.rsg: borders of a third of the length and three
        # quarters of the width, 1 m thick and high), the corner flags and the field lines
        border_x, border_y = rules.field_length * 0.333, rules.field_width * 0.75
        wall_length = 1 + rules.field_length + 2 * border_x
        wall_width = 1 + rules.field_width + 2 * border_y
        walls = "".join(
            f"(nd TRF (SLT {numbers(slt(p, np.eye(3)))})(nd SMN (setVisible 1) (load StdUnitBox) "
            f"(sSc {numbers(size)}) (sMat matGrey)))"
            for p, size in (((-(hl + border_x), 0, 0), (1, wall_width, 1)), ((hl + border_x, 0, 0), (1, wall_width, 1)),
                            ((0, hw + border_y, 0), (wall_length, 1, 1)), ((0, -(hw + border_y), 0), (wall_length, 1, 1))))
        corners = "".join(f"(nd TRF (SLT {numbers(slt(p, np.eye(3)))}))"
                          for p in ((-hl, hw, 0), (-hl, -hw, 0), (hl, hw, 0), (hl, -hw, 0)))
        line_nodes = f"(nd TRF (SLT {numbers(slt((0, 0, 0), np.eye(3)))}))" * len(lines(rules))
        self.static = (
            _LIGHTS
            + f"(nd TRF (SLT {field})(nd StaticMesh (setVisible 1) (load models/naosoccerfield.obj) "
            f"(sSc {numbers((rules.field_length / 12, 1, rules.field_width / 8))})"
            "(resetMaterials None_rcs-naofield.png)))"
            + f"(nd TRF (SLT {field})(nd StaticMesh (setVisible 1) (load models/skybox.obj) (sSc 10 10 10)"
            f"(resetMaterials {_SKY})))" + "".join(goals) + walls + corners + line_nodes)
        self.static_shape = {new: _static_shape(rules, new) for new in (True, False)}
        self.ball_mesh = (f"(nd StaticMesh (setVisible 1) (load models/soccerball.obj) "
                          f"(sSc {numbers((ball, ball, ball))})(resetMaterials soccerball_rcs-soccerball.png))")
        self._sent: np.ndarray | None = None          # the transforms last sent, (n, 16)
        self._known: set | None = None                # robots (keys) of the last update; None: none yet
        self._new: set = set()                        # what the next update shows as new

    def full(self, ball: np.ndarray, robots: list[tuple[RobotView, np.ndarray]]) -> str:
        """``(RSG 0 1)(...)``: every node; ``ball`` shape (16,), each robot's transforms (n, 16)."""
        out = ["(RSG 0 1)(", self.static, f"(nd TRF (SLT {numbers(ball)}){self.ball_mesh})"]
        for robot, transforms in robots:
            out.append("(nd TRF (SLT 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1)")
            out += [f"(nd TRF (SLT {numbers(t)}){_visual(part, robot)})"
                    for part, t in zip(robot.parts, transforms)]
            out.append(")")
        out.append(")")
        self._sent = np.vstack([ball[None, :]] + [t for _, t in robots])
        keys = {robot.key for robot, _ in robots}
        self._new |= {"static"} if self._known is None else set()
        self._new |= keys - (self._known or set())
        return "".join(out)

    def update(self, ball: np.ndarray, robots: list[tuple[RobotView, np.ndarray]]) -> str:
        """``(RDS 0 1)(...)``: the tree's shape, with the transforms that moved since the last
        message. The robots must be those of the last full message (else send a full one)."""
        now = np.vstack([ball[None, :]] + [t for _, t in robots])
        if self._sent is None or self._sent.shape != now.shape:
            raise ValueError("the scene changed since the last full message; send a full one")
        moved = np.abs(now - self._sent).max(axis=1) > MOVED
        self._sent[moved] = now[moved]
        text = [f" (SLT {numbers(row)})" if m else "" for row, m in zip(now, moved)]
        fresh = "static" in self._new
        ball_mesh = "(nd StaticMesh (setVisible 1))" if fresh else "(nd StaticMesh)"
        out = ["(RDS 0 1)(", self.static_shape[fresh], f"(nd{text[0]}{ball_mesh})"]
        i = 1
        for robot, transforms in robots:
            new = robot.key in self._new
            out.append("(nd" + "".join(f"(nd{text[i + k]}{_shape(part, new)})"
                                       for k, part in enumerate(robot.parts)) + ")")
            i += len(transforms)
        out.append(")")
        self._known, self._new = {robot.key for robot, _ in robots}, set()
        return "".join(out)
