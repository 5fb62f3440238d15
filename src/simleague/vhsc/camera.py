"""What the sample player makes of its camera's images: where the ball is. The kid robot's camera
(simleague's ``kid.xml``: 320 x 240 pixels, 60 degrees vertical field of view, 5.5 cm ahead of
and 5 cm above the head's pitch axis) sees a white ball, white lines painted on green turf, grey
robots and goals. The ball is the white blob that is as wide as a ball would be where it lies:
each white pixel's ray is followed to the plane of the ball's centre, giving the ball's size in
pixels were it there, and the pixel deepest inside the white (a distance transform) relative to
that size marks the ball; a line (5 cm wide against the ball's 14 cm) seldom fills half of it,
and where it does (seen at a slant) it is told apart by its shading: painted lines are lit
evenly, the ball is bright on top and greyer below.

Frames and units: the robot's ground frame has its origin on the ground under the torso, x forward
(the torso's heading), y to the left, z up; metres and radians. Images are the API's raw camera
bytes: blue, green, red, rows from the top.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import ndimage

BALL_RADIUS = 0.07           # m, the kid-size ball
WIDTH, HEIGHT = 320, 240     # pixels
FOVY = math.radians(60.0)
NECK = 0.13                  # m: the head's yaw axis above the torso's centre
HEAD = 0.03                  # m: the head's pitch axis above the yaw axis
LENS = (0.055, 0.05)         # m: the camera ahead of and above the pitch axis
WHITE = 150                  # the darkest channel of a white pixel (0-255)
GREY = 40                    # most difference between a white pixel's channels
FILLED = 0.55                # least share of the ball's radius the white must fill around the centre
MAX_RANGE = 6.0              # m: a ball further away is too small to tell from a line
SHADED = 8                   # least spread of brightness (0-255) over a ball's white: lines are even
CANDIDATES = 4               # ball-sized blobs looked at, best first


@dataclass(frozen=True)
class Sighting:
    """The ball seen: its centre (x, y) m in the robot's ground frame, and the pixel (column,
    row) it was seen at."""

    x: float
    y: float
    pixel: tuple[int, int]

    @property
    def distance(self) -> float:
        """Metres from the torso's foot point."""
        return math.hypot(self.x, self.y)


def _rays() -> np.ndarray:
    """Each pixel's ray in the camera's frame (x along the optical axis, y left, z up): shape
    (HEIGHT, WIDTH, 3), unnormalised, unit length along x."""
    focal = (HEIGHT / 2) / math.tan(FOVY / 2)
    columns = (np.arange(WIDTH) + 0.5 - WIDTH / 2) / focal
    rows = (np.arange(HEIGHT) + 0.5 - HEIGHT / 2) / focal
    rays = np.empty((HEIGHT, WIDTH, 3))
    rays[..., 0] = 1.0
    rays[..., 1] = -columns[None, :]
    rays[..., 2] = -rows[:, None]
    return rays


RAYS = _rays()
RAY_LENGTHS = np.linalg.norm(RAYS, axis=2)    # a rotation keeps them: the same in the ground frame
FOCAL = (HEIGHT / 2) / math.tan(FOVY / 2)     # pixels per unit of tangent


def _rotation(axis: str, angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    if axis == "x":
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    if axis == "y":
        return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def camera_pose(torso_height: float, pitch: float, roll: float, head_yaw: float,
                head_pitch: float) -> tuple[np.ndarray, np.ndarray]:
    """The camera's position (m, shape (3,)) and orientation (3 x 3, columns its axes) in the
    robot's ground frame, for the torso's centre ``torso_height`` m above the ground, tilted
    forward by ``pitch`` and to the right by ``roll`` (radians, as :func:`tilt` gives them), and
    the head's joints at ``head_yaw``, ``head_pitch`` (radians; positive pitch looks down)."""
    torso = _rotation("y", pitch) @ _rotation("x", roll)
    head = torso @ _rotation("z", head_yaw) @ _rotation("y", head_pitch)
    position = np.array([0.0, 0.0, torso_height]) + torso @ np.array([0.0, 0.0, NECK + HEAD]) \
        + head @ np.array([LENS[0], 0.0, LENS[1]])
    return position, head


def tilt(accelerometer) -> tuple[float, float]:
    """The torso's (pitch forward, roll to the right) in radians from the accelerometer's reading
    (m/s^2, torso frame x forward, y left, z up; (0, 0, 9.81) upright at rest)."""
    ax, ay, az = accelerometer
    return math.atan2(-ax, az), math.atan2(ay, math.hypot(ax, az))


def find_ball(image: bytes, position: np.ndarray, orientation: np.ndarray) -> Sighting | None:
    """The ball in a raw camera image (``WIDTH`` x ``HEIGHT`` BGR bytes) taken from the camera
    pose (``position``, ``orientation``: :func:`camera_pose`), or None when no white blob is ball
    sized. Raises ValueError for an image of another size."""
    if len(image) != WIDTH * HEIGHT * 3:
        raise ValueError(f"a camera image of {WIDTH} x {HEIGHT} pixels has {WIDTH * HEIGHT * 3} bytes, "
                         f"not {len(image)}")
    pixels = np.frombuffer(image, np.uint8).reshape(HEIGHT, WIDTH, 3)
    blue, green, red = pixels[..., 0], pixels[..., 1], pixels[..., 2]
    low = np.minimum(np.minimum(blue, green), red)
    high = np.maximum(np.maximum(blue, green), red)
    white = (low >= WHITE) & (high - low <= GREY)
    rows, columns = np.flatnonzero(white.any(axis=1)), np.flatnonzero(white.any(axis=0))
    if rows.size == 0:
        return None
    # the distance transform over the white's bounding box and a ring of non-white pixels around
    # it: the nearest non-white pixel of any white one is within (the same as over the whole image)
    box = (slice(max(0, rows[0] - 1), rows[-1] + 2), slice(max(0, columns[0] - 1), columns[-1] + 2))
    depth = np.zeros(white.shape)
    depth[box] = ndimage.distance_transform_edt(white[box])
    # each ray's height change in the ground frame (its x component in the camera frame is 1)
    z = orientation[2]
    down = z[0] + RAYS[..., 1] * z[1] + RAYS[..., 2] * z[2]
    with np.errstate(divide="ignore", invalid="ignore"):
        reach = (BALL_RADIUS - position[2]) / down            # along the ray to the ball's centre plane
    usable = white & (down < 0) & (reach * RAY_LENGTHS < MAX_RANGE)
    if not usable.any():
        return None
    # the white's depth against the ball's radius in pixels were it there: depth * reach / (FOCAL * R)
    score = np.where(usable, depth * np.where(usable, reach, 0.0) / (FOCAL * BALL_RADIUS), 0.0)
    for _ in range(CANDIDATES):
        row, column = np.unravel_index(int(np.argmax(score)), score.shape)
        if score[row, column] < FILLED:
            return None
        radius = max(1, int(depth[row, column]))
        window = (slice(max(0, row - radius), row + radius + 1), slice(max(0, column - radius), column + radius + 1))
        brightness = low[window][white[window]]
        if int(brightness.max()) - int(brightness.min()) >= SHADED:
            centre = position + orientation @ RAYS[row, column] * reach[row, column]
            return Sighting(float(centre[0]), float(centre[1]), (int(column), int(row)))
        score[window] = 0.0                                  # evenly lit: a line; look at the next
    return None
