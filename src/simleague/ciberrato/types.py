"""The typed content of the wire messages: a robot's orders (:class:`Action`), what its Measures
carry (:class:`Observation`) and what a viewer sees of it (:class:`RobotStatus`).

Plain dataclasses shared by the world (which consumes actions and produces observations), the
messages (which turn them into XML and back), the server and the Python client. Kept apart from
the world so that an agent process imports none of the simulation (nor numba).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .scoring import RobotScore


@dataclass
class Action:
    """One robot's orders for a cycle; ``None`` fields leave the device as it is.

    Motor powers are clipped to [-0.15, 0.15]; ``requests`` are sensor names as on the wire
    (``IRSensor0``, ``Beacon1``, ``Ground``, ``Compass``, ``GPS``, ``Collision``); ``say`` is at most
    100 characters (longer is ignored, as the original does).
    """

    left: float | None = None
    right: float | None = None
    visiting_led: bool | None = None
    returning_led: bool | None = None
    end_led: bool | None = None
    requests: tuple[str, ...] = ()
    say: str | None = None

    def merged(self, later: "Action") -> "Action":
        """This action followed by ``later`` in the same cycle: later values win, requests add up."""
        pick = lambda a, b: b if b is not None else a  # noqa: E731
        return Action(pick(self.left, later.left), pick(self.right, later.right),
                      pick(self.visiting_led, later.visiting_led),
                      pick(self.returning_led, later.returning_led),
                      pick(self.end_led, later.end_led), self.requests + later.requests,
                      pick(self.say, later.say))


@dataclass
class Observation:
    """What one robot's Measures carry for a cycle. ``None``: not delivered this cycle.

    ``ir`` maps sensor id -> value (1/u_m), ``beacons`` beacon id -> degrees or None (not
    visible), ``compass`` degrees, ``gps`` (x, y) u_m, ``line`` 7 characters, ``score`` the Score
    element's fields, ``messages`` (from id, text) heard this cycle.
    """

    time: int
    collision: bool | None
    compass: int | None
    ground: int | None
    ir: dict[int, float]
    beacons: dict[int, float | None]
    gps: tuple[float, float] | None
    line: str | None
    score: dict | None
    messages: list[tuple[int, str]]
    leds: tuple[bool, bool, bool]          # end, returning, visiting
    buttons: tuple[bool, bool]             # start, stop


@dataclass
class RobotStatus:
    """A robot as a viewer sees it: name, id, true pose (u_m, degrees) and its scoring record."""

    id: int
    name: str
    x: float
    y: float
    dir_deg: float
    record: RobotScore
    collision: bool
    state: str
