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

from ..soccer.nao import Part
from ..soccer.rules import SoccerRules, Team

#: a change of any matrix element above this is sent in an update (the original's threshold)
MOVED = 0.005
_LIGHTS = ("(nd TRF (SLT 1 0 0 0 0 1 0 0 0 0 1 0 -10 10 10 1)(nd Light (setDiffuse 1 1 1 1) "
           "(setAmbient 0.8 0.8 0.8 1) (setSpecular 0.1 0.1 0.1 1)))"
           "(nd TRF (SLT 1 0 0 0 0 1 0 0 0 0 1 0 10 -10 10 1)(nd Light (setDiffuse 1 1 1 1) "
           "(setAmbient 0 0 0 1) (setSpecular 0.1 0.1 0.1 1)))")
_SKY = " ".join(f"Material_skyrender_000{i}.tif" for i in range(1, 7))


def rotation(x_deg: float, y_deg: float, z_deg: float) -> np.ndarray:
    """The original's ``setLocalRotation x y z`` (degrees): rotations about x, then y, then z."""
    x, y, z = (math.radians(a) for a in (x_deg, y_deg, z_deg))
    rx = np.array([[1, 0, 0], [0, math.cos(x), -math.sin(x)], [0, math.sin(x), math.cos(x)]])
    ry = np.array([[math.cos(y), 0, math.sin(y)], [0, 1, 0], [-math.sin(y), 0, math.cos(y)]])
    rz = np.array([[math.cos(z), -math.sin(z), 0], [math.sin(z), math.cos(z), 0], [0, 0, 1]])
    return rz @ ry @ rx


def slt(position, matrix) -> np.ndarray:
    """The 16 numbers of an ``SLT``: rotation ``matrix`` (3, 3) and ``position`` (3,), column-major."""
    m = np.eye(4)
    m[:3, :3] = matrix
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
    """What the scene needs of a robot: its parts and, once it has them, team and number."""

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


def _shape(part: Part) -> str:
    """The drawable node of a part, as an update repeats it."""
    if part.name == "torso":
        return "(nd(nd StaticMesh))(nd(nd SMN))"
    if part.name == "head":
        return "(nd(nd StaticMesh))"
    if part.mesh is not None or part.name.endswith("toe"):
        return "(nd StaticMesh)"
    return "(nd SMN)"


class SceneGraph:
    """Builds full and update messages for one stream of monitor messages.

    ``static`` is the part that never moves; per message, the caller gives the ball's transform
    and each robot's part transforms (arrays of ``SLT`` rows, shape (n, 16)). Updates are relative
    to what this object last sent."""

    def __init__(self, rules: SoccerRules):
        hl, gd, gw, gh = rules.field_length / 2, rules.goal_depth, rules.goal_width, rules.goal_height
        ball = rules.ball_radius
        field = numbers(slt((0, 0, 0), rotation(90, 0, 180)))
        goal_mesh = numbers(slt((gd / 2, 0, -gh / 2), rotation(90, 90, 0)))
        goals = []
        for side, sign, colour in (("left", -1, "yellow"), ("right", 1, "sky-blue")):
            place = numbers(slt((sign * (hl + gd / 2), 0, gh / 2), rotation(0, 0, 0 if sign < 0 else 180)))
            goals.append(f"(nd TRF (SLT {place})(nd TRF (SLT {goal_mesh})(nd StaticMesh (setVisible 1) "
                         f"(setTransparent) (load models/{side}soccergoal.obj) "
                         f"(sSc {numbers((gw + 0.08, gh + 0.08, gd + 0.08))})(resetMaterials naogoalnet {colour}))))")
        self.static = (
            _LIGHTS
            + f"(nd TRF (SLT {field})(nd StaticMesh (setVisible 1) (load models/naosoccerfield.obj) "
            f"(sSc {numbers((rules.field_length / 12, 1, rules.field_width / 8))})"
            "(resetMaterials None_rcs-naofield.png)))"
            + f"(nd TRF (SLT {field})(nd StaticMesh (setVisible 1) (load models/skybox.obj) (sSc 10 10 10)"
            f"(resetMaterials {_SKY})))" + "".join(goals))
        self.static_shape = "(nd(nd))(nd(nd))(nd(nd StaticMesh))(nd(nd StaticMesh))" + "(nd(nd(nd StaticMesh)))" * 2
        self.ball_mesh = (f"(nd StaticMesh (setVisible 1) (load models/soccerball.obj) "
                          f"(sSc {numbers((ball, ball, ball))})(resetMaterials soccerball_rcs-soccerball.png))")
        self._sent: np.ndarray | None = None          # the transforms last sent, (n, 16)

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
        out = ["(RDS 0 1)(", self.static_shape, f"(nd{text[0]}(nd StaticMesh))"]
        i = 1
        for robot, transforms in robots:
            out.append("(nd" + "".join(f"(nd{text[i + k]}{_shape(part)})"
                                       for k, part in enumerate(robot.parts)) + ")")
            i += len(transforms)
        out.append(")")
        return "".join(out)
