"""What a robot's camera sees: points and line segments in polar coordinates of the head's frame,
restricted to the view cone, with noise; as the original's RestrictedVisionPerceptor
(naoneckhead.rsg: 120 x 120 degrees, noise on, no own position; specs/simspark.md "See").

Polar coordinates: distance (m), horizontal angle (degrees, 0 straight ahead along the head's +y,
positive to the left) and vertical angle (degrees, positive up).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

LINE_SAMPLES = 32                       # points tried along a line to find its visible part


@dataclass(frozen=True)
class VisionNoise:
    """Normal noise of the original's vision (sigma of the distance in percent of it, of the
    horizontal and vertical angles in degrees); all zero: exact values."""

    distance_percent: float = 0.0965
    horizontal: float = 0.1225
    vertical: float = 0.1480

    @property
    def off(self) -> bool:
        """True when every sigma is 0: exact values."""
        return self.distance_percent == self.horizontal == self.vertical == 0


def polar(points: np.ndarray, eye: np.ndarray, rotation: np.ndarray) -> np.ndarray:
    """``points`` (shape (..., n, 3), world m) seen from ``eye`` (shape (..., 3)) with the head's
    rotation matrix ``rotation`` (..., 3, 3): shape (..., n, 3) of distance, horizontal and
    vertical angle. Leading dimensions (several heads at once) broadcast."""
    local = (np.asarray(points, dtype=float) - eye[..., None, :]) @ rotation      # world -> head frame
    forward, left, up = local[..., 1], -local[..., 0], local[..., 2]
    flat = np.hypot(forward, left)
    return np.stack([np.sqrt(flat ** 2 + up ** 2), np.degrees(np.arctan2(left, forward)),
                     np.degrees(np.arctan2(up, flat))], axis=-1)


def in_view(pol: np.ndarray, field_of_view: float = 120.0) -> np.ndarray:
    """Which of the polar coordinates ``pol`` (..., 3) are inside the view cone, shape (...)."""
    half = field_of_view / 2
    return (np.abs(pol[..., 1]) <= half) & (np.abs(pol[..., 2]) <= half)


def visible_segments(segments: np.ndarray, eyes: np.ndarray, rotations: np.ndarray,
                     field_of_view: float = 120.0) -> list[list[tuple[np.ndarray, np.ndarray]]]:
    """For each of several heads (``eyes`` shape (a, 3), ``rotations`` (a, 3, 3)), the visible part
    of each line segment (``segments`` shape (n, 2, 3), world m) as the polar coordinates of its
    two ends, for the segments of which some part is in view. A segment is tried at
    ``LINE_SAMPLES`` points, then the ends of its visible part are found to 1/128 of a sample's
    spacing by bisection (1/4096 of the segment). All heads are done together: one array
    operation per step."""
    heads, n = len(eyes), len(segments)
    t = np.linspace(0.0, 1.0, LINE_SAMPLES)
    starts, span = segments[:, 0, :], segments[:, 1, :] - segments[:, 0, :]
    points = (starts[:, None, :] + span[:, None, :] * t[None, :, None]).reshape(-1, 3)
    seen = in_view(polar(np.broadcast_to(points, (heads, *points.shape)), eyes, rotations),
                   field_of_view).reshape(heads, n, LINE_SAMPLES)
    head, line = np.nonzero(seen.any(axis=2))                 # (head, segment) pairs with a view
    seen = seen[head, line]
    first = seen.argmax(axis=1)
    last = LINE_SAMPLES - 1 - seen[:, ::-1].argmax(axis=1)
    step = t[1]
    eye_of, rotation_of = eyes[head][:, None, :], rotations[head]

    def at(u: np.ndarray) -> np.ndarray:
        return polar((starts[line] + span[line] * u[:, None])[:, None, :], eye_of[:, 0], rotation_of)[:, 0]

    def edge(inside: np.ndarray, direction: float) -> np.ndarray:
        """Move from a visible sample towards the invisible neighbour (``direction`` -1 or +1)."""
        good = t[inside]
        bad = np.clip(good + direction * step, 0.0, 1.0)
        open_ = bad != good                              # the segment's end is not visible there
        for _ in range(7):
            middle = (good + bad) / 2
            ok = in_view(at(middle), field_of_view)
            good = np.where(ok & open_, middle, good)
            bad = np.where(~ok & open_, middle, bad)
        return good

    a, b = at(edge(first, -1.0)), at(edge(last, 1.0))
    result: list[list] = [[] for _ in range(heads)]
    for k, h in enumerate(head):
        result[h].append((a[k], b[k]))
    return result


def add_noise(pol: np.ndarray, noise: VisionNoise, rng: np.random.Generator) -> np.ndarray:
    """``pol`` (n, 3) with the noise of the original added (a new array; unchanged if off)."""
    if noise.off or len(pol) == 0:
        return pol
    n = len(pol)
    noisy = pol.copy()
    noisy[:, 0] *= 1 + rng.normal(0.0, noise.distance_percent / 100, n)
    noisy[:, 1] += rng.normal(0.0, noise.horizontal, n)
    noisy[:, 2] += rng.normal(0.0, noise.vertical, n)
    return noisy
