"""CiberRato scenario files: ``Lab``, ``Grid`` and ``Parameters`` -> immutable dataclasses.

The file formats are those of the 2008 rules (seed 004, section 6) as the original simulator
reads them today (``../shared/specs/ciberrato.md``, "Files"):

* ``<Lab Name Width Height>`` with ``<Beacon X Y Height/>``, ``<Target X Y Radius/>``,
  ``<Wall Height>`` of ``<Corner X Y/>`` (either winding) and ``<Row Pos Pattern Height/>``;
* ``<Grid>`` of ``<Position X Y Dir/>`` (Dir in degrees);
* ``<Parameters .../>``: every attribute optional, defaults from the 2008 rules.

Numbers may use a decimal comma (``Y="7,0"``). Stray text between elements is tolerated, as the
original does. Lengths are in u_m (robot diameter = 1), times in cycles.

Every problem is reported as one :class:`ScenarioError` naming the file, the line and the problem.
"""

from __future__ import annotations

import logging

import math
from dataclasses import dataclass, field, fields, replace
from importlib import resources
from pathlib import Path

from lxml import etree

from .. import errors


log = logging.getLogger("simleague.ciberrato.scenario")

#: Size limit for a scenario file; the largest real lab is ~20 kB.
MAX_FILE_BYTES = 4 * 1024 * 1024
#: Height of the implicit border wall (original behaviour, golden README "labs/*.json").
BORDER_HEIGHT = 4.0
#: Row patterns: cell size and wall thickness (spec "Row patterns").
CELL = 2.0
WALL_HALF_THICKNESS = 0.1


class ScenarioError(errors.Error):
    """A scenario file that cannot be used.

    ``str(error)`` is one line: ``FILE:LINE: problem``. ``file`` and ``line`` are also attributes
    (``line`` is ``None`` when the problem is not tied to a line). It pickles with those three
    fields, so that a process pool hands it back whole (by default unpickling would call
    ``__init__`` with the message alone, and fail).
    """

    def __init__(self, file: str, line: int | None, problem: str):
        self.file, self.line, self.problem = file, line, problem
        where = f"{file}:{line}" if line else file
        super().__init__(f"{where}: {problem}")

    def __reduce__(self):
        return type(self), (self.file, self.line, self.problem)


@dataclass(frozen=True)
class Wall:
    """A wall: a polygon with ``corners`` ((x, y) tuples, u_m, counter-clockwise) and a ``height``.

    Walls of height 0 are lines on the floor: seen by the line sensor only.
    """

    height: float
    corners: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class Beacon:
    """A beacon at (x, y) u_m with a height (u_m); hidden behind walls at least as high."""

    x: float
    y: float
    height: float


@dataclass(frozen=True)
class Target:
    """A target area: a circle of ``radius`` u_m centred on (x, y)."""

    x: float
    y: float
    radius: float


@dataclass(frozen=True)
class Lab:
    """A maze: arena ``width`` x ``height`` u_m, beacons, targets and walls.

    ``walls`` excludes the border (0,0)-(width,height), which is implicit (original behaviour).
    """

    name: str
    width: float
    height: float
    beacons: tuple[Beacon, ...] = ()
    targets: tuple[Target, ...] = ()
    walls: tuple[Wall, ...] = ()

    @property
    def border(self) -> Wall:
        """The implicit border wall, height 4, as the original adds it."""
        w, h = self.width, self.height
        return Wall(BORDER_HEIGHT, ((0.0, 0.0), (w, 0.0), (w, h), (0.0, h)))


@dataclass(frozen=True)
class GridPosition:
    """A starting grid position: (x, y) in u_m, ``dir`` in degrees."""

    x: float
    y: float
    dir: float


@dataclass(frozen=True)
class Grid:
    """The starting grid; a robot registering with ``Id=k`` starts at ``positions[k-1]``."""

    positions: tuple[GridPosition, ...]


def _on_off(value: str) -> bool:
    v = value.strip().lower()
    if v in ("on", "yes", "true", "1"):
        return True
    if v in ("off", "no", "false", "0"):
        return False
    raise ValueError(f"expected On or Off, got {value!r}")


@dataclass(frozen=True)
class Parameters:
    """Simulation parameters; defaults are the 2008 rules (seed 004, sections 3 and 6).

    Units: times in cycles (``CycleTime`` in ms of wall clock), noises as in the rules (degrees
    for compass and beacon, u_m^-1 for obstacle, percent for motors), ``BeaconAperture`` in
    radians (half-angle). Attribute names in files are the original's, case-sensitive: the
    collision latency is read from ``collisionLatency`` only (golden README, quirk 6).
    """

    sim_time: int = 1800
    cycle_time: int = 50
    key_time: int = 1000
    compass_noise: float = 2.0
    beacon_noise: float = 2.0
    obstacle_noise: float = 0.1
    motors_noise: float = 1.5
    gps: bool = False
    gps_lin_noise: float = 0.0
    gps_dir_noise: float = 0.0
    beacon_sensor: bool = True
    compass_sensor: bool = True
    score_sensor: bool = False
    show_actions: bool = True
    line_sensor_true_prob: float = 0.98
    n_requests_per_cycle: int = 4
    obstacle_requestable: bool = True
    beacon_requestable: bool = True
    ground_requestable: bool = True
    compass_requestable: bool = True
    collision_requestable: bool = False
    obstacle_latency: int = 0
    beacon_latency: int = 4
    ground_latency: int = 0
    compass_latency: int = 4
    collision_latency: int = 0
    beacon_aperture: float = math.pi
    return_time_penalty: int = 25
    arrival_time_penalty: int = 100
    collision_wall_penalty: int = 5
    collision_robot_penalty: int = 5
    target_reward: int = 100
    home_reward: int = 100

    def with_overrides(self, **changes) -> "Parameters":
        """A copy with the given fields changed (field names as in this class)."""
        return replace(self, **changes)


# File attribute name -> (field name, converter). Names as the original reads them.
_PARAM_ATTRS: dict[str, tuple[str, object]] = {
    "SimTime": ("sim_time", int),
    "CycleTime": ("cycle_time", int),
    "KeyTime": ("key_time", int),
    "CompassNoise": ("compass_noise", float),
    "BeaconNoise": ("beacon_noise", float),
    "ObstacleNoise": ("obstacle_noise", float),
    "MotorsNoise": ("motors_noise", float),
    "GPS": ("gps", _on_off),
    "GPSLinNoise": ("gps_lin_noise", float),
    "GPSDirNoise": ("gps_dir_noise", float),
    "BeaconSensor": ("beacon_sensor", _on_off),
    "CompassSensor": ("compass_sensor", _on_off),
    "ScoreSensor": ("score_sensor", _on_off),
    "ShowActions": ("show_actions", _on_off),
    "LineSensorTrueProb": ("line_sensor_true_prob", float),
    "NRequestsPerCycle": ("n_requests_per_cycle", int),
    "ObstacleRequestable": ("obstacle_requestable", _on_off),
    "BeaconRequestable": ("beacon_requestable", _on_off),
    "GroundRequestable": ("ground_requestable", _on_off),
    "CompassRequestable": ("compass_requestable", _on_off),
    "CollisionRequestable": ("collision_requestable", _on_off),
    "ObstacleLatency": ("obstacle_latency", int),
    "BeaconLatency": ("beacon_latency", int),
    "GroundLatency": ("ground_latency", int),
    "CompassLatency": ("compass_latency", int),
    "collisionLatency": ("collision_latency", int),
    "BeaconAperture": ("beacon_aperture", float),
    "ReturnTimePenalty": ("return_time_penalty", int),
    "ArrivalTimePenalty": ("arrival_time_penalty", int),
    "CollisionWallPenalty": ("collision_wall_penalty", int),
    "CollisionRobotPenalty": ("collision_robot_penalty", int),
    "TargetReward": ("target_reward", int),
    "HomeReward": ("home_reward", int),
}
#: Attributes the original accepts and ignores (echoes, or read elsewhere).
_IGNORED_PARAM_ATTRS = {"NBeacons", "Lab", "Grid", "CollisionLatency", "GPSLatency",
                        "GPSRequestable", "Scoring"}
#: Latencies above this are refused: they would only delay every reading past any use.
MAX_LATENCY = 100


def _number(text: str) -> float:
    """Parse a number written with a decimal point or a decimal comma; reject NaN/inf."""
    value = float(text.strip().replace(",", "."))
    if not math.isfinite(value):
        raise ValueError(f"{text!r} is not a finite number")
    return value


#: the elements and attributes the original reads, by element (anything else is ignored with a warning)
_KNOWN = {"Lab": {"Name", "Width", "Height"}, "Beacon": {"X", "Y", "Height"}, "Target": {"X", "Y", "Radius"},
          "Wall": {"Height"}, "Corner": {"X", "Y"}, "Row": {"Pos", "Pattern", "Height"}, "Grid": set(),
          "Position": {"X", "Y", "Dir"}}


def _warn_unknown(el: etree._Element, name: str, children: set[str]) -> None:
    """Warn (naming the line) about attributes of ``el`` and child elements the original does not
    read: it ignores them too, so the file still loads, but a misspelt ``<Wal>`` or ``Heigth``
    would otherwise pass unnoticed."""
    for key in el.attrib:
        if key not in _KNOWN.get(el.tag, set()):
            log.warning("%s:%s: <%s> attribute %s is not one the simulator reads; ignored", name, el.sourceline,
                        el.tag, key)
    for child in el:
        if isinstance(child.tag, str) and child.tag not in children:
            log.warning("%s:%s: <%s> inside <%s> is not an element the simulator reads; ignored", name,
                        child.sourceline, child.tag, el.tag)


def _parse_xml(data: bytes, name: str) -> etree._Element:
    if len(data) > MAX_FILE_BYTES:
        raise ScenarioError(name, None, f"file is {len(data)} bytes, more than the limit of {MAX_FILE_BYTES}")
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                             huge_tree=False, remove_comments=True)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        line = exc.position[0] if exc.position else None
        raise ScenarioError(name, line, f"not well-formed XML: {' '.join(exc.msg.split())}") from None
    if root is None:
        raise ScenarioError(name, None, "the file is empty")
    return root


def _read(source: str | Path | bytes, default: str) -> tuple[bytes, str]:
    """(bytes, display name) of a scenario file; None-like sources load the bundled default."""
    if isinstance(source, bytes):
        return source, "<data>"
    path = Path(source)
    try:
        return path.read_bytes(), str(path)
    except OSError as exc:
        raise ScenarioError(str(path), None, f"cannot read the file: {exc.strerror}") from None


def bundled(name: str) -> bytes:
    """The bytes of a bundled scenario file (``default-lab.xml``, ``default-grid.xml``, ...)."""
    return resources.files("simleague.ciberrato").joinpath("data", name).read_bytes()


def _attr(el: etree._Element, key: str, name: str, *, default: float | None = None) -> float:
    raw = el.get(key)
    if raw is None:
        if default is not None:
            return default
        raise ScenarioError(name, el.sourceline, f"<{el.tag}> has no {key} attribute")
    try:
        return _number(raw)
    except ValueError:
        raise ScenarioError(name, el.sourceline, f"<{el.tag}> {key}={raw!r} is not a number") from None


def _signed_area(corners: list[tuple[float, float]]) -> float:
    area = 0.0
    for (x0, y0), (x1, y1) in zip(corners, corners[1:] + corners[:1]):
        area += x0 * y1 - x1 * y0
    return area / 2


def _rectangle(x0: float, y0: float, x1: float, y1: float, height: float) -> Wall:
    return Wall(height, ((x0, y0), (x1, y0), (x1, y1), (x0, y1)))


def expand_row(pos: float, pattern: str, height: float) -> list[Wall]:
    """Expand one ``<Row Pos Pattern Height>`` into walls, as the original does.

    Rules (spec "Row patterns", golden README "labs/*.json"): a ``|`` at column c is a vertical
    wall centred on x = 2(c+1)/3 from y = pos to pos + 2; a run of ``-`` read at columns divisible
    by 3 from c0 to c1 is a horizontal wall from x = 2 c0/3 to 2(c1/3 + 1), centred on y = pos + 1;
    a run is closed by a non-``-`` at such a column or by a ``-`` at column 39, and a run still open
    at the end of a shorter pattern is dropped. Horizontal walls on even rows get height 0.
    Walls are returned in column order, 0.2 u_m thick.
    """
    walls: list[Wall] = []
    row_is_even = int(pos) % 2 == 0 and float(pos).is_integer()
    run_start: int | None = None
    for c, ch in enumerate(pattern):
        if ch == "|":
            x = CELL * (c + 1) / 3
            walls.append(_rectangle(x - WALL_HALF_THICKNESS, pos, x + WALL_HALF_THICKNESS, pos + CELL, height))
        if c % 3 != 0:
            continue
        if ch == "-":
            if run_start is None:
                run_start = c
            if c == 39:
                walls.append(_horizontal(pos, run_start, c, 0.0 if row_is_even else height))
                run_start = None
        elif run_start is not None:
            walls.append(_horizontal(pos, run_start, c - 3, 0.0 if row_is_even else height))
            run_start = None
    return walls


def _horizontal(pos: float, c0: int, c1: int, height: float) -> Wall:
    y = pos + CELL / 2
    return _rectangle(CELL * c0 / 3, y - WALL_HALF_THICKNESS, CELL * (c1 // 3 + 1), y + WALL_HALF_THICKNESS, height)


def load_lab(source: str | Path | bytes | None = None) -> Lab:
    """Load a ``<Lab>`` file (path or bytes); ``None`` loads the bundled default lab.

    Beacons, targets and walls keep file order within their kind (the original regroups them).
    Polygon corners are returned counter-clockwise. Raises :class:`ScenarioError`.
    """
    data, name = (bundled("default-lab.xml"), "default-lab.xml") if source is None else _read(source, "")
    root = _parse_xml(data, name)
    if root.tag != "Lab":
        raise ScenarioError(name, root.sourceline, f"expected a <Lab> element, found <{root.tag}>")
    width = _attr(root, "Width", name, default=28.0)
    height = _attr(root, "Height", name, default=14.0)
    if width <= 0 or height <= 0 or width > 1000 or height > 1000:
        raise ScenarioError(name, root.sourceline, f"arena {width} x {height} is outside 0 < size <= 1000")
    beacons, targets, walls = [], [], []
    _warn_unknown(root, name, {"Beacon", "Target", "Wall", "Row"})
    for el in root:
        if not isinstance(el.tag, str):
            continue
        _warn_unknown(el, name, {"Corner"} if el.tag == "Wall" else set())
        for corner in el if el.tag == "Wall" else ():
            if isinstance(corner.tag, str) and corner.tag == "Corner":
                _warn_unknown(corner, name, set())
        if el.tag == "Beacon":
            beacons.append(Beacon(_attr(el, "X", name), _attr(el, "Y", name), _attr(el, "Height", name, default=4.0)))
        elif el.tag == "Target":
            radius = _attr(el, "Radius", name, default=1.0)
            if radius <= 0:
                raise ScenarioError(name, el.sourceline, f"<Target> Radius={radius} must be positive")
            targets.append(Target(_attr(el, "X", name), _attr(el, "Y", name), radius))
        elif el.tag == "Wall":
            written = [(_attr(c, "X", name), _attr(c, "Y", name)) for c in el if c.tag == "Corner"]
            # a corner written twice in a row is one corner (the 2005 Manga3 lab has one; the original
            # loads it): a zero-length edge has no direction for the geometry
            corners = [p for i, p in enumerate(written) if i == 0 or p != written[i - 1]]
            while len(corners) > 1 and corners[-1] == corners[0]:
                corners.pop()
            if len(corners) < 3:
                raise ScenarioError(name, el.sourceline, f"<Wall> has {len(corners)} corners, at least 3 are needed")
            area = _signed_area(corners)
            if area == 0:
                raise ScenarioError(name, el.sourceline, "<Wall> corners enclose no area")
            if area < 0:
                corners.reverse()
            walls.append(Wall(_attr(el, "Height", name, default=BORDER_HEIGHT), tuple(corners)))
        elif el.tag == "Row":
            pattern = el.get("Pattern")
            if pattern is None:
                raise ScenarioError(name, el.sourceline, "<Row> has no Pattern attribute")
            walls.extend(expand_row(_attr(el, "Pos", name), pattern, _attr(el, "Height", name, default=BORDER_HEIGHT)))
    return Lab(root.get("Name", "NO NAMED LAB"), width, height, tuple(beacons), tuple(targets), tuple(walls))


def load_grid(source: str | Path | bytes | None = None) -> Grid:
    """Load a ``<Grid>`` file; ``None`` loads the bundled default grid. Raises :class:`ScenarioError`."""
    data, name = (bundled("default-grid.xml"), "default-grid.xml") if source is None else _read(source, "")
    root = _parse_xml(data, name)
    if root.tag != "Grid":
        raise ScenarioError(name, root.sourceline, f"expected a <Grid> element, found <{root.tag}>")
    _warn_unknown(root, name, {"Position"})
    for el in root:
        if isinstance(el.tag, str) and el.tag == "Position":
            _warn_unknown(el, name, set())
    positions = tuple(
        GridPosition(_attr(el, "X", name), _attr(el, "Y", name), _attr(el, "Dir", name, default=0.0))
        for el in root if el.tag == "Position"
    )
    if not positions:
        raise ScenarioError(name, root.sourceline, "<Grid> has no <Position>")
    return Grid(positions)


def load_parameters(source: str | Path | bytes | None = None, base: Parameters | None = None) -> Parameters:
    """Load a ``<Parameters>`` file (also the rmi ``*-config.xml``) over ``base`` (2008 defaults).

    ``None`` returns ``base`` unchanged. Unknown attributes are ignored as the original does,
    with a warning naming the line. Raises :class:`ScenarioError` for a value
    that does not convert or is out of range.
    """
    params = base or Parameters()
    if source is None:
        return params
    data, name = _read(source, "")
    root = _parse_xml(data, name)
    if root.tag != "Parameters":
        raise ScenarioError(name, root.sourceline, f"expected a <Parameters> element, found <{root.tag}>")
    changes = {}
    for key, raw in root.attrib.items():
        if key in _IGNORED_PARAM_ATTRS:
            continue
        if key not in _PARAM_ATTRS:
            log.warning("%s:%s: <Parameters> attribute %s is not one the simulator reads; ignored", name,
                        root.sourceline, key)
            continue
        field_name, convert = _PARAM_ATTRS[key]
        try:
            if convert is int:
                value = int(round(_number(raw)))
            elif convert is float:
                value = _number(raw)
            else:
                value = convert(raw)
        except ValueError as exc:
            raise ScenarioError(name, root.sourceline, f"{key}={raw!r}: {exc}") from None
        changes[field_name] = value
    params = replace(params, **changes)
    check_parameters(params, name, root.sourceline)
    return params


def check_parameters(p: Parameters, name: str = "<parameters>", line: int | None = None) -> None:
    """Raise :class:`ScenarioError` when a parameter is outside what the simulator can run."""
    problems = []
    if not 1 <= p.sim_time <= 10_000_000:
        problems.append(f"SimTime={p.sim_time} must be between 1 and 10000000 cycles")
    if not 0 <= p.cycle_time <= 60_000:
        problems.append(f"CycleTime={p.cycle_time} must be between 0 and 60000 ms")
    for f in fields(p):
        if f.name.endswith("_latency") and not 0 <= getattr(p, f.name) <= MAX_LATENCY:
            problems.append(f"{f.name}={getattr(p, f.name)} must be between 0 and {MAX_LATENCY} cycles")
        if f.name.endswith("_noise") and getattr(p, f.name) < 0:
            problems.append(f"{f.name}={getattr(p, f.name)} must not be negative")
    if not 0 <= p.line_sensor_true_prob <= 1:
        problems.append(f"LineSensorTrueProb={p.line_sensor_true_prob} must be between 0 and 1")
    if not 0 <= p.n_requests_per_cycle <= 1000:
        problems.append(f"NRequestsPerCycle={p.n_requests_per_cycle} must be between 0 and 1000")
    if p.return_time_penalty <= 0:
        problems.append(f"ReturnTimePenalty={p.return_time_penalty} must be positive")
    if problems:
        raise ScenarioError(name, line, "; ".join(problems))


#: The original simulator's defaults today (ciberRatoTools, simulator/cbsimulator.cpp's built-in
#: <Parameters> over the class defaults in simulator/simulator.cpp): a longer key time, collisions
#: cost 2, no beacon sensor, GPS noise 0.5 and 5 degrees, no sensor requestable and none per cycle,
#: no latencies.
ORIGINAL_DEFAULTS = Parameters(
    key_time=1350, beacon_sensor=False, gps_lin_noise=0.5, gps_dir_noise=5.0, n_requests_per_cycle=0,
    obstacle_requestable=False, beacon_requestable=False, ground_requestable=False,
    compass_requestable=False, collision_requestable=False, beacon_latency=0, compass_latency=0,
    collision_wall_penalty=2, collision_robot_penalty=2)

#: Parameter defaults by name: the 2008 rules (seed 004) or the original simulator's today.
DEFAULTS = {"2008": Parameters(), "original": ORIGINAL_DEFAULTS}


@dataclass(frozen=True)
class Scenario:
    """A lab, a grid and parameters: everything a trial needs besides the agents; ``defaults``
    names the parameter defaults the file (if any) was read over (a key of :data:`DEFAULTS`)."""

    lab: Lab = field(default_factory=load_lab)
    grid: Grid = field(default_factory=load_grid)
    params: Parameters = field(default_factory=Parameters)
    defaults: str = "2008"


def load_scenario(lab=None, grid=None, params=None, defaults: str = "2008") -> Scenario:
    """Load lab, grid and parameters files (``None``: the bundled defaults), the parameters over
    ``defaults`` ("2008" or "original", :data:`DEFAULTS`). Raises :class:`ScenarioError`, also
    for an unknown ``defaults``."""
    if defaults not in DEFAULTS:
        raise ScenarioError("--defaults", None, f"{defaults!r} is not one of {', '.join(DEFAULTS)}")
    return Scenario(load_lab(lab), load_grid(grid), load_parameters(params, DEFAULTS[defaults]), defaults)
