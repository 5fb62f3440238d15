"""Camera images need an OpenGL platform (OSMesa on machines without a GPU)."""

import os

import pytest


def need_a_gl_platform() -> None:
    """Skip the test without an OpenGL platform (OSMesa here: simleague.soccer picks it when
    installed); in CI, which installs it, fail instead."""
    if os.environ.get("MUJOCO_GL") or os.environ.get("DISPLAY"):
        return
    message = "camera images need OSMesa: apt-get install libosmesa6"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)
