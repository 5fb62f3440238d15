"""What a worker checks before a competition's first trial or match: that every team's program
and docker image is there (on a Ray cluster, where the trials run, not where they were started),
and the world's own files through the world's check function. Run as a pool job."""

from __future__ import annotations

import shutil
from pathlib import Path

from ..programs import search_path
from .pools import call


def check_teams(description: dict) -> list[str]:
    """The problems, one line each (none: []): each program (``programs``: [{team, argv0,
    workdir}]) found on the PATH (this interpreter's folder first, as the trials run them) or,
    when it is a path, in the team's folder; each docker image (``images``: [{team, image}])
    present; then ``world_check`` (``module:function``, optional) on ``world``."""
    problems = []
    path = search_path()
    for program in description.get("programs", []):
        argv0, workdir = program["argv0"], program.get("workdir")
        if "/" in argv0:                                  # a path, relative to the team's folder
            found = (Path(workdir or ".") / argv0).exists()
        else:
            found = shutil.which(argv0, path=path) is not None
        if not found:
            problems.append(f"team {program['team']}: program {argv0!r} not found"
                            + (f" in {workdir or '.'}" if "/" in argv0 else " on the PATH"))
    if description.get("images"):
        import docker
        try:
            client = docker.from_env()
            for entry in description["images"]:
                try:
                    client.images.get(entry["image"])
                except docker.errors.ImageNotFound:
                    problems.append(f"team {entry['team']}: no docker image {entry['image']!r} here")
        except docker.errors.DockerException as exc:
            problems.append(f"docker is not reachable here: {exc}")
    if description.get("world_check"):
        problems += call(description["world_check"], description.get("world", {}))
    return problems
