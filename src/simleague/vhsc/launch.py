"""Starting the teams' robot control software for a match (issue 6, part 5): each player's program
gets the environment the original gives it (``ROBOCUP_SIMULATOR_ADDR`` host:port of its robot,
``ROBOCUP_ROBOT_ID``, ``ROBOCUP_TEAM_COLOR``) and runs either as a docker container (``docker run
--network host ... <image>:<dockerTag> <dockerCmd>``, seed 000) or as a local process (its
``dockerCmd`` as a command line; the sample player when it has none).
"""

from __future__ import annotations

import asyncio
import os
import shlex
import sys

from .. import errors
from .config import Player

LAUNCHERS = ("local", "docker")


class LaunchError(errors.Error, RuntimeError):
    """A player's software could not be started; ``str()`` says which and why."""


GAME_CONTROLLER_PORT = "SIMLEAGUE_GAMECONTROLLER_PORT"   # ours, beside the league's three
FIELD_SIDE = "SIMLEAGUE_FIELD_SIDE"


def environment(host: str, port: int, robot_id: int, colour: str, gc_port: int | None = None,
                side: str | None = None) -> dict[str, str]:
    """What a player's software is told: its robot's address, number and team colour (the
    league's variables) and, when given, simleague's own two for the sample player: the UDP port
    the GameController's packets go to (when it is not the league's 3838) and the side its team
    plays on in the first half ("left" or "right"; the GameController's packets do not say)."""
    env = {"ROBOCUP_SIMULATOR_ADDR": f"{host}:{port}", "ROBOCUP_ROBOT_ID": str(robot_id),
           "ROBOCUP_TEAM_COLOR": colour}
    if gc_port is not None:
        env[GAME_CONTROLLER_PORT] = str(gc_port)
    if side is not None:
        env[FIELD_SIDE] = side
    return env


def container_name(env: dict[str, str]) -> str:
    """The docker container's name for a player: ``simleague-<colour>-<id>-<port>``."""
    port = env["ROBOCUP_SIMULATOR_ADDR"].rpartition(":")[2]
    return f"simleague-{env['ROBOCUP_TEAM_COLOR']}-{env['ROBOCUP_ROBOT_ID']}-{port}"


def command(launcher: str, player: Player, env: dict[str, str], image: str | None = None) -> list[str]:
    """The command line that starts ``player``'s software. Raises :class:`LaunchError`."""
    extra = shlex.split(player.docker_cmd) if player.docker_cmd else []
    if launcher == "docker":
        if not image:
            raise LaunchError("the docker launcher needs an image name (--image)")
        options = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
        return ["docker", "run", "--rm", "--network", "host", "--name", container_name(env), *options,
                f"{image}:{player.docker_tag}", *extra]
    if launcher == "local":
        return extra or [sys.executable, "-m", "simleague.vhsc.player"]
    raise LaunchError(f"unknown launcher {launcher!r}; one of {', '.join(LAUNCHERS)}")


async def start(launcher: str, player: Player, env: dict[str, str], image: str | None = None,
                quiet: bool = True) -> asyncio.subprocess.Process:
    """Start ``player``'s software. Raises :class:`LaunchError` when it cannot be started."""
    argv = command(launcher, player, env, image)
    try:
        return await asyncio.create_subprocess_exec(
            *argv, env={**os.environ, **env},
            stdout=asyncio.subprocess.DEVNULL if quiet else None, stderr=asyncio.subprocess.DEVNULL if quiet else None)
    except OSError as e:
        raise LaunchError(f"cannot start {shlex.join(argv)}: {e.strerror}") from None
