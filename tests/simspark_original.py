"""Recordings of the original rcssserver3d 0.7.3 (golden/simspark/original, its README) and the
helpers that put our world in the state they record (shared by the vision and dynamics tests)."""

from __future__ import annotations

import gzip
import json
import math

import mujoco
import numpy as np
from golden import SHARED
from scipy.spatial.transform import Rotation

from simleague.soccer.world import SoccerWorld
from simleague.wire.sexp import Limits, parse

ORIGINAL = SHARED / "golden" / "simspark" / "original"


def records(name: str) -> list[dict]:
    """The JSON lines of one gzipped recording."""
    with gzip.open(ORIGINAL / name, "rt") as f:
        return [json.loads(line) for line in f]


def effector(perceptor: str) -> str:
    """The effector of a joint perceptor: ``hj1`` -> ``he1``, ``rlj3`` -> ``rle3``."""
    return perceptor[:-2] + "e" + perceptor[-1]


def set_pose(world: SoccerWorld, rid: int, torso: np.ndarray, angles_deg: dict[str, float]) -> None:
    """Put robot ``rid`` where the original had it: its torso at the 4x4 transform ``torso``
    (row-major, m) and its joints at ``angles_deg`` (perceptor name -> degrees), at rest."""
    model, data = world.model, world.data
    root = model.joint(f"r{rid}_root")
    x, y, z, w = Rotation.from_matrix(np.asarray(torso)[:3, :3]).as_quat()
    data.qpos[root.qposadr[0]:root.qposadr[0] + 7] = (*np.asarray(torso)[:3, 3], w, x, y, z)
    for name, degrees in angles_deg.items():
        data.qpos[model.joint(f"r{rid}_{effector(name)}").qposadr[0]] = math.radians(degrees)
    data.qvel[:] = 0
    mujoco.mj_kinematics(model, data)


def see_items(text: str) -> tuple[dict[str, np.ndarray], list[tuple[np.ndarray, np.ndarray]]]:
    """A ``See`` perceptor's objects (name, or ``P.<team>.<id>.<part>`` for players -> polar
    (3,)) and its lines (begin, end polar)."""
    (see,) = parse(text.encode(), Limits(max_bytes=1 << 20, max_depth=8, max_atoms=100_000))
    objects, lines = {}, []
    for item in see[1:]:
        if item[0] == "L":
            lines.append((np.array(item[1][1:], float), np.array(item[2][1:], float)))
        elif item[0] == "P":
            fields = {f[0]: f[1] for f in item[1:] if f[0] in ("team", "id")}
            for part in item[1:]:
                if part[0] not in ("team", "id"):
                    objects[f"P.{fields['team']}.{fields.get('id')}.{part[0]}"] = np.array(part[1][1:], float)
        else:
            objects[item[0]] = np.array(item[1][1:], float)
    return objects, lines


def replay(name: str):
    """Replay the original's recorded agent messages ``seq_<name>`` through a :class:`Game` with the
    original's sync cycle (its README, "Replay"): the agent's message k answers server message k
    and reaches the game in cycle k + 2; ``(playMode PlayOn)`` comes from a trainer where the
    recording says. Vision and beam noise off, as recorded. Yields (k, our perceptors of message
    k, the robot's torso position (3,) and rotation (3, 3) then)."""
    from simleague.simspark.client import parse_perceptors
    from simleague.simspark.game import Game
    from simleague.simspark.messages import parse_agent_message, parse_trainer_message
    from simleague.soccer.rules import SoccerRules
    from simleague.soccer.vision import EXACT

    sequence = records(f"seq_{name}.jsonl.gz")
    game = Game(SoccerRules(beam_noise_xy=0.0, beam_noise_angle=0.0), noise=EXACT)
    agent = game.connect()
    arrived, made = [sequence[0]], None
    while True:
        for message in arrived:
            assert game.apply(agent, parse_agent_message(message["msg"].encode()).effectors) == []
        arrived = []
        if made is not None:
            k = made[0]
            if k >= len(sequence):
                return
            yield made
            if sequence[k]["playOn_before_reply"]:
                game.trainer(parse_trainer_message(b"(playMode PlayOn)").commands)
            arrived.append(sequence[k])
        game.step()
        if agent.robot is not None:
            position, rotation = game.world.pose(agent.robot, "torso")
            made = (game.world.cycle, parse_perceptors(game.perceptors(agent)), position, rotation)
