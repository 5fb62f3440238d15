"""Scenario files: every shared lab loads and matches the original's expansion; errors name file and line."""

import json
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import ndimage

from golden import GOLDEN, LABS
from simleague.ciberrato.scenario import (Parameters, ScenarioError, expand_row, load_grid, load_lab,
                                          load_parameters)

GOLDEN_LABS = sorted((GOLDEN / "labs").glob("*.json"))


def close(a, b):
    return abs(a - b) <= max(1e-5 * abs(b), 1e-5)   # golden numbers carry %g precision


@pytest.mark.parametrize("golden", GOLDEN_LABS, ids=lambda p: p.stem)
def test_lab_matches_original_expansion(golden):
    d = json.loads(golden.read_text())
    lab = load_lab(LABS / d["lab_file"]) if d["lab_file"] else load_lab()
    grid = load_grid(LABS / d["grid_file"]) if d["grid_file"] else None
    assert lab.name == d["name"] and close(lab.width, d["width"]) and close(lab.height, d["height"])
    assert len(lab.walls) == len(d["walls"])
    for ours, theirs in zip(lab.walls, d["walls"]):
        assert close(ours.height, theirs["height"])
        assert len(ours.corners) == len(theirs["corners"])
        for (x, y), (gx, gy) in zip(ours.corners, theirs["corners"]):
            assert close(x, gx) and close(y, gy)
    flat = lambda rows: [v for row in rows for v in row]  # noqa: E731
    assert flat((b.x, b.y, b.height) for b in lab.beacons) == pytest.approx(flat(b.values() for b in d["beacons"]))
    assert flat((t.x, t.y, t.radius) for t in lab.targets) == pytest.approx(flat(t.values() for t in d["targets"]))
    if grid is not None:
        assert flat((p.x, p.y, p.dir) for p in grid.positions) == pytest.approx(flat(d["grid"]))


def test_bundled_grid_leaves_every_way_open():
    """A robot that has finished stays on its grid position (an obstacle: the world keeps every
    robot not removed in its collision checks), so in the bundled lab no grid position may lie on
    another's only way to the target: with robots parked on the other two, the target is in reach
    of each (robot centres kept 0.5 u_m from wall faces and 1.0 from a parked robot's centre, on a
    0.05 u_m raster). Position 1 is the original simulator's built-in grid."""
    from simleague.ciberrato.geometry import LabGeometry

    lab, grid = load_lab(), load_grid()
    original = json.loads((GOLDEN / "labs" / "builtin__default.json").read_text())["grid"]
    first = grid.positions[0]
    assert [[first.x, first.y, first.dir]] == original
    step = 0.05
    ys, xs = np.mgrid[step / 2:lab.height:step, step / 2:lab.width:step]
    free = (LabGeometry(lab).wall_distance(np.column_stack([xs.ravel(), ys.ravel()])) >= 0.5).reshape(xs.shape)
    target = lab.targets[0]
    cell = lambda x, y: (int(y / step), int(x / step))  # noqa: E731
    assert len(grid.positions) == 3
    for k, home in enumerate(grid.positions):
        open_ = free.copy()
        for j, parked in enumerate(grid.positions):
            if j != k:
                open_ &= np.hypot(xs - parked.x, ys - parked.y) >= 1.0
        assert open_[cell(home.x, home.y)]
        regions, _ = ndimage.label(open_)
        assert regions[cell(home.x, home.y)] == regions[cell(target.x, target.y)], f"grid position {k + 1}"


def test_every_shared_lab_file_loads():
    files = sorted(LABS.rglob("*.xml"))
    assert len(files) >= 40
    for f in files:
        stem = f.name.lower()
        if "grid" in stem or "grd" in stem:
            assert load_grid(f).positions
        elif "config" in stem:
            assert load_parameters(f).sim_time == 5000
        else:
            assert load_lab(f).walls


def test_decimal_commas_and_stray_text():
    lab = load_lab(b'<Lab Name="L" Height="14" Width="28">junk<Beacon X="24" Y="7,5" Height="4,0"/>'
                   b'<Target X="24" Y="7,5" Radius="1,5"/></Lab>')
    assert (lab.beacons[0].y, lab.targets[0].radius) == (7.5, 1.5)
    grid = load_grid(b'<Grid>\\n"\n <Position X="3,0" Y="11.0" Dir="-90"/></Grid>')
    assert grid.positions[0].x == 3.0 and grid.positions[0].dir == -90


def test_clockwise_polygon_is_reversed():
    lab = load_lab(b'<Lab Name="L" Height="14" Width="28"><Wall Height="2">'
                   b'<Corner X="0" Y="0"/><Corner X="0" Y="1"/><Corner X="1" Y="1"/><Corner X="1" Y="0"/></Wall></Lab>')
    assert lab.walls[0].corners == ((1.0, 0.0), (1.0, 1.0), (0.0, 1.0), (0.0, 0.0))


def test_row_pattern_by_hand():
    # "|" at column 2 -> x = 2, y 4..6; "-" read at columns 3 and 6 (multiples of 3), closed by the
    # space at column 9 -> one wall from x = 2*3/3 = 2 to 2*(6/3 + 1) = 6, centred on y = 5
    walls = expand_row(4, "  |--+--+  ", 4.0)
    assert walls[0].corners == ((1.9, 4.0), (2.1, 4.0), (2.1, 6.0), (1.9, 6.0))
    xs = [c[0] for c in walls[1].corners]
    ys = [c[1] for c in walls[1].corners]
    assert (min(xs), max(xs)) == (2.0, 6.0)
    assert (min(ys), max(ys)) == pytest.approx((4.9, 5.1))
    assert walls[1].height == 0.0       # horizontal wall on an even row: a floor line


def test_parameters_default_to_2008_rules_and_read_config():
    p = Parameters()
    assert (p.sim_time, p.cycle_time, p.n_requests_per_cycle, p.beacon_latency, p.compass_latency) == (1800, 50, 4, 4, 4)
    cfg = load_parameters(LABS / "rmi-2425" / "C1-config.xml")
    assert cfg.collision_wall_penalty == 5 and cfg.score_sensor is False and cfg.collision_latency == 0


@pytest.mark.parametrize("data,line,needle", [
    (b'<Lab Name="x">\n<Wall>\n<Corner X="1" Y="a"/></Wall></Lab>', 3, "not a number"),
    (b'<Lab Name="x"\n', 2, "not well-formed"),
    (b'<Grid></Grid>', 1, "no <Position>"),
    (b'<Lab Name="x"><Wall><Corner X="1" Y="1"/></Wall></Lab>', 1, "at least 3"),
    (b'<Foo/>', 1, "expected a <Lab>"),
])
def test_broken_files_name_the_line_and_problem(data, line, needle):
    loader = load_grid if b"Grid" in data else load_lab
    with pytest.raises(ScenarioError) as exc:
        loader(data)
    assert exc.value.line == line and needle in str(exc.value)


def test_bad_parameter_value():
    with pytest.raises(ScenarioError, match="SimTime"):
        load_parameters(b'<Parameters SimTime="-5"/>')
    with pytest.raises(ScenarioError, match="GPS"):
        load_parameters(b'<Parameters GPS="maybe"/>')


def test_a_scenario_error_survives_pickling_as_a_process_pool_returns_it():
    with pytest.raises(ScenarioError) as exc:
        load_lab(b'<Lab Name="x"><Wall><Corner X="1" Y="1"/></Wall></Lab>')
    back = pickle.loads(pickle.dumps(exc.value))
    assert type(back) is ScenarioError
    assert (back.file, back.line, back.problem, str(back)) == (exc.value.file, 1, exc.value.problem, str(exc.value))


def test_a_corner_written_twice_is_one_corner_and_the_lab_runs():
    from simleague.ciberrato.scenario import load_scenario
    from simleague.ciberrato.world import World
    lab_xml = b"""<Lab Name="dup" Height="14" Width="28"><Beacon X="25" Y="7" Height="4"/><Target X="25" Y="7"/>
      <Wall Height="5"><Corner X="10" Y="3"/><Corner X="12" Y="3"/><Corner X="12" Y="3"/><Corner X="12" Y="9"/>
      <Corner X="10" Y="9"/><Corner X="10" Y="3"/></Wall></Lab>"""
    lab = load_lab(lab_xml)
    assert lab.walls[0].corners == ((10.0, 3.0), (12.0, 3.0), (12.0, 9.0), (10.0, 9.0))
    sc = load_scenario()
    world = World(type(sc)(lab, sc.grid, sc.params), seed=1)      # the return-path graph is built
    assert world.lab is lab


def test_a_nul_byte_is_a_one_line_error_and_misspellings_are_warned_with_their_line(caplog):
    with pytest.raises(ScenarioError) as caught:
        load_lab(b'<Lab Name="x" Height="14" Width="28">\0<Beacon X="1" Y="1"/></Lab>')
    assert "\n" not in str(caught.value) and "line 1" not in str(caught.value).split(":", 2)[0]
    lab = load_lab(b'<Lab Name="x" Height="14" Width="28">\n<Beacon X="1" Y="1" Heigth="3"/>\n'
                   b'<Wal Height="2"><Corner X="1" Y="1"/></Wal>\n</Lab>')
    assert lab.walls == () and len(lab.beacons) == 1                 # loads, as the original does
    text = caplog.text
    assert "<data>:2: <Beacon> attribute Heigth is not one the simulator reads; ignored" in text
    assert "<data>:3: <Wal> inside <Lab> is not an element the simulator reads; ignored" in text


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=600) | st.text(max_size=400).map(lambda t: f"<Lab>{t}</Lab>".encode("utf-8", "replace")))
def test_any_bytes_as_a_lab_grid_or_parameters_file_give_a_scenario_error(data):
    for load in (load_lab, load_grid, load_parameters):
        try:
            load(data)
        except ScenarioError as e:
            assert "\n" not in str(e)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=600))
def test_any_bytes_as_a_run_log_give_a_log_error(tmp_path, data):
    from simleague.recorder import LogError, read_log
    for name in ("any.jsonl", "any.jsonl.gz"):
        path = tmp_path / name
        path.write_bytes(data)
        try:
            read_log(path)
        except LogError as e:
            assert "\n" not in str(e)
