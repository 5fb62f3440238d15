"""Camera images of robots from model files (issue 6: raw, 3 bytes per pixel in the original's
byte order, blue-green-red), rendered with MuJoCo's offscreen renderer. On machines without a GPU
MuJoCo renders with OSMesa (Debian's ``libosmesa6``; :mod:`simleague.soccer` sets ``MUJOCO_GL``).
Rendering is the one part of a world that needs a graphics library; the rest stays pure.

Software rendering is slow, so the field's light casts no shadows and images are not
anti-aliased: with 8 kid robots in view a 320 x 240 image took 137 ms with both, 31 ms without
shadows and 22 ms without either (OSMesa, this machine). Several images due in the same step are
rendered in threads at once (:meth:`Cameras.images`): MuJoCo's renderer lets go of the GIL while
it draws, and each thread has its own renderers (an OpenGL context is current in one thread at
a time). Eight kid robots' 320 x 240 images took 114 ms in one thread, 74 ms in two (2 cores, in
process); ``python benchmarks/bench_vhsc.py``: eight robots with cameras at 16 ms 17 -> 33 steps/s.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait

import mujoco

from .. import errors
from .humanoids import HumanoidWorld


class CameraError(errors.Error, RuntimeError):
    """No image can be rendered here (no OpenGL platform); ``str()`` says what to install."""


MAX_THREADS = 4              # rendering threads at most, whatever the machine's cores
#: one image to render: robot id, its camera's name in the robot's model, width and height (pixels)
Shot = tuple[int, str, int, int]


class Cameras:
    """Renders the cameras of a :class:`HumanoidWorld`'s robots, in the calling thread
    (:meth:`image`) or in up to ``threads`` threads at once (:meth:`images`; default: the
    machine's cores, at most :data:`MAX_THREADS`). Each thread has one renderer per image size,
    made again when the world's model was rebuilt. The world must not step while they render."""

    def __init__(self, world: HumanoidWorld, threads: int | None = None):
        self.world = world
        self.threads = max(1, threads or min(MAX_THREADS, os.cpu_count() or 1))
        self._local = threading.local()      # this thread's (model, generation, {(w, h): renderer})
        self._made: list[mujoco.Renderer] = []
        self._lock = threading.Lock()
        self._generation = 0                 # counts close(): renderers of an older one are freed
        self._pool: ThreadPoolExecutor | None = None

    def image(self, rid: int, camera: str, width: int, height: int) -> bytes:
        """The current image of robot ``rid``'s camera (``width`` x ``height`` pixels), BGR
        bytes, rows from the top. Raises :class:`CameraError` without an OpenGL platform."""
        renderer = self._renderer(width, height)
        renderer.update_scene(self.world.data, camera=f"r{rid}_{camera}")
        return renderer.render()[:, :, ::-1].tobytes()

    def images(self, shots: list[Shot]) -> list[bytes]:
        """The images of ``shots``, in their order, as :meth:`image` gives them (the same bytes),
        rendered in :attr:`threads` threads at once. Raises :class:`CameraError` without an
        OpenGL platform."""
        if len(shots) < 2 or self.threads < 2:
            return [self.image(*shot) for shot in shots]
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="camera")
        n = min(self.threads, len(shots))
        done = [self._pool.submit(lambda group: [self.image(*shot) for shot in group], shots[i::n]) for i in range(n)]
        wait(done)                                  # all of them, even when one fails: then the world may step
        out: list[bytes] = [b""] * len(shots)
        for i, future in enumerate(done):
            out[i::n] = future.result()
        return out

    def _renderer(self, width: int, height: int) -> mujoco.Renderer:
        """This thread's renderer for images of ``width`` x ``height``."""
        mine = getattr(self._local, "renderers", None)
        if mine is None or mine[0] is not self.world.model or mine[1] != self._generation:
            if mine is not None and mine[1] == self._generation:
                self._free(mine[2].values())             # the model was rebuilt
            mine = self._local.renderers = (self.world.model, self._generation, {})
        renderer = mine[2].get((width, height))
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
            mine[2][(width, height)] = renderer
            with self._lock:
                self._made.append(renderer)
        return renderer

    def _free(self, renderers) -> None:
        with self._lock:
            for renderer in list(renderers):
                renderer.close()
                self._made.remove(renderer)

    def close(self) -> None:
        """Stop the rendering threads and free every renderer."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
        with self._lock:
            for renderer in self._made:
                renderer.close()
            self._made.clear()
            self._generation += 1
