"""The soccer world on MuJoCo (seed 002 for SimSpark's Nao robots, seeds 000/001 for the humanoid
API's robots from model files): field, goals, ball, robots, devices, cameras and the referee's
rules. :mod:`~simleague.soccer.world` holds the SimSpark world, :mod:`~simleague.soccer.humanoids`
the one with robots from model files (:mod:`~simleague.soccer.models`)."""

import ctypes.util
import os
from pathlib import Path

# MuJoCo picks its OpenGL platform when it is imported: EGL where a GPU's render node exists,
# else OSMesa (software; Debian's libosmesa6) where it is installed, unless the user chose one
# (issue 6, cameras). MuJoCo 4 loads the platform on import, so naming a missing OSMesa would make
# every soccer command fail; without one, only camera images are refused (cameras.CameraError).
if not os.environ.get("MUJOCO_GL"):
    if Path("/dev/dri/renderD128").exists():
        os.environ["MUJOCO_GL"] = "egl"
    elif ctypes.util.find_library("OSMesa"):
        os.environ["MUJOCO_GL"] = "osmesa"
