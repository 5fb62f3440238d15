"""System components some tests need (Debian's chromium, a docker engine, docker-compose, a static
busybox, OSMesa): where one is absent such a test is skipped with the command that installs it, so
the README's test command passes on a bare machine and says what it left out. CI installs them all
and sets ``SIMLEAGUE_REQUIRE_SYSTEM=1``, under which a missing component fails the test instead:
CI skips nothing."""

import os
import shutil

import pytest

REQUIRED = "SIMLEAGUE_REQUIRE_SYSTEM"


def missing(what: str, install: str) -> None:
    """Skip (or, under ``SIMLEAGUE_REQUIRE_SYSTEM=1``, fail) the test: ``what`` is absent and
    ``install`` is the command that installs it."""
    message = f"{what} is not here: {install}"
    if os.environ.get(REQUIRED) == "1":
        pytest.fail(f"{message} (required: {REQUIRED}=1)")
    pytest.skip(message)


def need_program(name: str, install: str) -> str:
    """The path of program ``name``, or :func:`missing`."""
    path = shutil.which(name)
    if path is None:
        missing(name, install)
    return path


def need_docker():
    """A docker client for a running engine, or :func:`missing`."""
    import docker

    try:
        client = docker.from_env()
        client.ping()
    except docker.errors.DockerException:
        missing("a running docker engine", "apt-get install docker.io && dockerd &")
    return client
