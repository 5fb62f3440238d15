"""Camera images need an OpenGL platform (OSMesa on machines without a GPU)."""

import ctypes.util
import os

from system import missing


def need_a_gl_platform() -> None:
    """Skip the test without an OpenGL platform (OSMesa here: simleague.soccer picks it when
    installed); under SIMLEAGUE_REQUIRE_SYSTEM=1 (CI, which installs it) fail instead."""
    if os.environ.get("MUJOCO_GL") or os.environ.get("DISPLAY") or ctypes.util.find_library("OSMesa"):
        return
    missing("OSMesa (camera images without a GPU)", "apt-get install libosmesa6")
