"""A trainer's commands applied to a game (seed 002 "Trainer commands"; specs/simspark.md), one typed
command at a time (:mod:`simleague.simspark.messages`). A command the game cannot carry out (no such
robot, killsim not allowed) raises :class:`TrainerRefused`; the caller logs it, as the original
logs nothing and carries on.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .. import errors
from ..soccer.rules import Team
from . import messages as M

if TYPE_CHECKING:                                    # pragma: no cover
    from .game import Agent, Game


class TrainerRefused(errors.Error, ValueError):
    """A well-formed trainer command the game cannot carry out (the message says why)."""


def apply(game: Game, command: M.TrainerCommand, allow_kill_sim: bool) -> tuple[str | None, bool]:
    """Carry out ``command`` on ``game``: (the reply to send, or None; whether the simulator must
    stop). Raises :class:`TrainerRefused`."""
    world, referee = game.world, game.referee
    if isinstance(command, M.GetAck):
        return f"(ack {command.token})", False
    if isinstance(command, M.RequestFullState):
        game.scene_changed = True
    elif isinstance(command, M.SetPlayMode):
        referee.set_play_mode(command.mode)
    elif isinstance(command, M.KickOff):
        placement = referee.kick_off(command.side)
        if placement is not None:
            world.place_ball(placement.ball)
    elif isinstance(command, M.DropBall):
        world.place_ball(referee.drop_ball(tuple(world.ball()[0])).ball)
    elif isinstance(command, M.MoveBall):
        position, velocity = world.ball()
        world.place_ball(command.position or position, command.velocity or velocity)
    elif isinstance(command, M.SetTime):
        referee.time = command.seconds
    elif isinstance(command, M.SetScore):
        if command.left is not None:
            referee.score[Team.LEFT] = command.left
        if command.right is not None:
            referee.score[Team.RIGHT] = command.right
    elif isinstance(command, (M.MoveAgent, M.SelectAgent, M.KillAgent, M.ReposAgent)):
        _agent_command(game, command)
    elif isinstance(command, M.KillSim):
        if not allow_kill_sim:
            raise TrainerRefused("killsim is off (start the server with --allow-killsim)")
        return None, True
    return None, False                               # M.MonitorHello: nothing to do


def _agent_command(game: Game, command) -> None:
    agent = _named(game, command.who) if command.who is not None else _selected(game)
    world = game.world
    if isinstance(command, M.SelectAgent):
        game.selection = agent.aid
    elif isinstance(command, M.KillAgent):              # the server closes a connection whose agent is gone
        game.disconnect(agent.aid)
    elif isinstance(command, M.ReposAgent):            # in front of its own goal, facing the field
        x = -(game.rules.field_length / 2 - 1) * (1 if agent.team is Team.LEFT else -1)
        world.place_robot(agent.robot, x, 0.0, 0.0 if agent.team is Team.LEFT else math.pi)
    else:
        if command.position is not None:               # the torso there, as it is (SoccerBase::MoveAgent)
            world.translate_robot(agent.robot, *command.position)
        if command.move is not None:                   # upright, the torso turned to ``direction`` about z
            x, y, z, direction = command.move          # (SoccerBase::MoveAndRotateAgent): facing direction + 90
            world.place_robot(agent.robot, x, y, math.radians(direction + 90.0), z)


def _named(game: Game, who: M.Who) -> Agent:
    for agent in game.agents.values():
        if agent.unum == who.unum and agent.team is who.team and agent.robot is not None:
            return agent
    raise TrainerRefused(f"no robot number {who.unum} in that team")


def _selected(game: Game) -> Agent:
    agent = game.agents.get(game.selection)
    if agent is None or agent.robot is None:
        raise TrainerRefused("no robot selected; give (unum N)(team Left|Right) or (select ...) first")
    return agent
