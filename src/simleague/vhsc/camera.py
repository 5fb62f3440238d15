"""What the sample player makes of its camera's images: where the ball is, where robots and goal posts
stand near it (:func:`find_obstacles`), and where painted lines lie (:func:`find_lines`). The kid
robot's camera (simleague's ``kid.xml``: 320 x 240 pixels, 60 degrees vertical field of view, 5.5
cm ahead of and 5 cm above the head's pitch axis) sees a white ball, white lines painted on green
turf, grey robots and goals. The ball is the white blob that is as wide as a ball would be where it
lies: each white pixel's ray is followed to the plane of the ball's centre, giving the ball's size
in pixels were it there, and the pixel deepest inside the white (a distance transform) relative to
that size marks the ball; a line (5 cm wide against the ball's 14 cm) seldom fills half of it, and
where it does (seen at a slant) it is told apart by its shading: painted lines are lit evenly, the
ball is bright on top and greyer below.

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
TURF = 20                    # least margin of a turf pixel's green over its red and over its blue (0-255)
OBSTACLE_RANGE = 2.5         # m: things standing further away are not reported
OBSTACLE_COLUMNS = 4         # every this many image columns are looked at
STANDING = 0.2               # m: a thing at least this tall stands (the ball is 0.14 m)
DARK = 140                   # a robot's or a post's pixel: its darkest channel under this (0-255)
LINE_RANGE = 3.0             # m: white further away is not reported as a line (a pixel row there spans 9 cm)
LINE_PIXELS = 4              # every this many rows and columns are looked at for lines
BALL_MARGIN = 2.0            # the ball's radius in pixels times this, about where it was seen, is no line


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


def _pixels(image: bytes) -> np.ndarray:
    """The raw image as an array (HEIGHT, WIDTH, 3) of blue, green, red; ValueError for another size."""
    if len(image) != WIDTH * HEIGHT * 3:
        raise ValueError(f"a camera image of {WIDTH} x {HEIGHT} pixels has {WIDTH * HEIGHT * 3} bytes, "
                         f"not {len(image)}")
    return np.frombuffer(image, np.uint8).reshape(HEIGHT, WIDTH, 3)


def _ground(row: np.ndarray, column: np.ndarray, position: np.ndarray,
            orientation: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the rays of pixels (``row``, ``column``: integer arrays) meet the ground: the points,
    shape (n, 3), ground frame, and which rays meet it ahead of the camera (the others' points
    are meaningless)."""
    rays = RAYS[row, column]
    down = rays @ orientation[2]                         # each ray's height change (the frame's z row)
    with np.errstate(divide="ignore", invalid="ignore"):
        reach = -position[2] / down
    return position + (rays @ orientation.T) * reach[:, None], down < 0


def _white(pixels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which pixels of an (h, w, 3) array are white (bright and nearly grey), and each pixel's
    darkest channel: two (h, w) arrays."""
    blue, green, red = pixels[..., 0], pixels[..., 1], pixels[..., 2]
    low = np.minimum(np.minimum(blue, green), red)              # faster than a reduction over 3 channels
    high = np.maximum(np.maximum(blue, green), red)
    return (low >= WHITE) & (high - low <= GREY), low


def find_lines(image: bytes, position: np.ndarray, orientation: np.ndarray, ball: Sighting | None = None
               ) -> np.ndarray:
    """Where white painted on the turf lies within :data:`LINE_RANGE` m, from a raw camera image
    (``WIDTH`` x ``HEIGHT`` BGR bytes) taken from the camera pose (``position``, ``orientation``:
    :func:`camera_pose`): each :data:`LINE_PIXELS`-th pixel of each such row that is white, its
    ray followed to the ground. The ``ball`` seen in the image (:func:`find_ball`) is left out,
    :data:`BALL_MARGIN` times its radius in pixels about its centre pixel; white seen nowhere
    near a line (a lit face of a robot) is for the caller to weigh.

    Returns an array of shape (n, 2): (x, y) m in the robot's ground frame. Raises ValueError
    for an image of another size."""
    white, _ = _white(_pixels(image)[::LINE_PIXELS, ::LINE_PIXELS])
    if ball is not None:
        reach = float(np.linalg.norm(position - np.array([ball.x, ball.y, BALL_RADIUS])))
        margin = BALL_MARGIN * FOCAL * BALL_RADIUS / max(reach, 1e-3)
        column, row = ball.pixel
        rows = (np.arange(white.shape[0]) * LINE_PIXELS - row)[:, None]
        columns = (np.arange(white.shape[1]) * LINE_PIXELS - column)[None, :]
        white &= (np.abs(rows) > margin) | (np.abs(columns) > margin)
    row, column = np.nonzero(white)
    points, ahead = _ground(row * LINE_PIXELS, column * LINE_PIXELS, position, orientation)
    points = points[ahead, :2]
    return points[np.hypot(points[:, 0], points[:, 1]) < LINE_RANGE]


def find_obstacles(image: bytes, position: np.ndarray, orientation: np.ndarray) -> np.ndarray:
    """Where things stand on the turf within :data:`OBSTACLE_RANGE` m, from a raw camera image
    (``WIDTH`` x ``HEIGHT`` BGR bytes) taken from the camera pose (``position``, ``orientation``:
    :func:`camera_pose`): robots and goal posts. In each :data:`OBSTACLE_COLUMNS`-th column,
    each run of pixels that are dark (:data:`DARK`) and not turf (green) stands on the ground
    where the ray of its lowest pixel meets it, and is as tall as its highest pixel is above
    that point; a run at least :data:`STANDING` m tall, or reaching the image's top edge, is a
    thing standing. Lines and
    the ball are lower (the far side of a line and the ball's underside are grey, as robots
    are, so colour alone does not tell them apart). A thing seen only above the turf (an arm,
    the feet hidden) is reported beyond where it stands; one reaching the image's bottom edge
    stands there or nearer, and is reported at the edge.

    Returns an array of shape (n, 2): (x, y) m in the robot's ground frame, a row per run
    standing; empty when none do. Raises ValueError for an image of another size."""
    pixels = _pixels(image)[:, ::OBSTACLE_COLUMNS].astype(np.int16)
    blue, green, red = pixels[..., 0], pixels[..., 1], pixels[..., 2]
    other = ~((green - red > TURF) & (green - blue > TURF)) & (pixels.min(axis=2) < DARK)
    edges = np.diff(np.pad(other, ((1, 1), (0, 0))).astype(np.int8), axis=0).T   # column by column
    column, top = np.nonzero(edges == 1)                 # each run's first row, in the same order
    bottom = np.nonzero(edges == -1)[1] - 1              # as its last
    column = column * OBSTACLE_COLUMNS
    foot, ahead = _ground(bottom, column, position, orientation)
    rays = RAYS[top, column] @ orientation.T             # the top pixels' rays in the ground frame
    with np.errstate(divide="ignore", invalid="ignore"):
        along = np.hypot(*(foot[:, :2] - position[:2]).T) / np.hypot(rays[:, 0], rays[:, 1])
    height = position[2] + rays[:, 2] * along
    standing = ahead & ((height > STANDING) | (top == 0))
    points = foot[standing, :2]
    return points[np.hypot(points[:, 0], points[:, 1]) < OBSTACLE_RANGE]


def find_ball(image: bytes, position: np.ndarray, orientation: np.ndarray) -> Sighting | None:
    """The ball in a raw camera image (``WIDTH`` x ``HEIGHT`` BGR bytes) taken from the camera
    pose (``position``, ``orientation``: :func:`camera_pose`), or None when no white blob is ball
    sized. Raises ValueError for an image of another size."""
    pixels = _pixels(image)
    white, low = _white(pixels)
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
