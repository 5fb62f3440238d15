"""Camera images of robots from model files (issue 6: raw, 3 bytes per pixel in the original's
byte order, blue-green-red), rendered with MuJoCo's offscreen renderer. On machines without a GPU
MuJoCo renders with OSMesa (Debian's ``libosmesa6``; :mod:`simleague.soccer` sets ``MUJOCO_GL``).
Rendering is the one part of a world that needs a graphics library; the rest stays pure.

Software rendering is slow, so the field's light casts no shadows and images are not
anti-aliased: with 8 kid robots in view a 320 x 240 image took 137 ms with both, 31 ms without
shadows and 22 ms without either (OSMesa, this machine).
"""

from __future__ import annotations

import os

import mujoco

from .. import errors
from .humanoids import HumanoidWorld


class CameraError(errors.Error, RuntimeError):
    """No image can be rendered here (no OpenGL platform); ``str()`` says what to install."""


class Cameras:
    """Renders the cameras of a :class:`HumanoidWorld`'s robots; one renderer per image size,
    made again when the world's model was rebuilt."""

    def __init__(self, world: HumanoidWorld):
        self.world = world
        self._renderers: dict[tuple[int, int], mujoco.Renderer] = {}
        self._model = None

    def image(self, rid: int, camera: str, width: int, height: int) -> bytes:
        """The current image of robot ``rid``'s camera (``width`` x ``height`` pixels), BGR
        bytes, rows from the top. Raises :class:`CameraError` without an OpenGL platform."""
        if self._model is not self.world.model:
            self.close()
            self._model = self.world.model
        renderer = self._renderers.get((width, height))
        if renderer is None:
            if not os.environ.get("MUJOCO_GL") and not os.environ.get("DISPLAY"):
                # MuJoCo's default platform (GLFW) needs a display and aborts the process without one
                raise CameraError("cannot render camera images: no OpenGL platform; install libosmesa6 "
                                  "(apt-get install libosmesa6) or set MUJOCO_GL=egl on a GPU")
            try:
                renderer = mujoco.Renderer(self.world.model, height, width)
            except Exception as e:                       # the GL platform's own error types vary
                raise CameraError(f"cannot render camera images ({e}); install libosmesa6 "
                                  "(apt-get install libosmesa6) or set MUJOCO_GL=egl on a GPU") from None
            self._renderers[(width, height)] = renderer
        renderer.update_scene(self.world.data, camera=f"r{rid}_{camera}")
        return renderer.render()[:, :, ::-1].tobytes()

    def close(self) -> None:
        """Free the renderers."""
        for renderer in self._renderers.values():
            renderer.close()
        self._renderers.clear()
