"""Trial logs in the original simulator's XML format (issue 33, part 5): written by
``ciberrato trial --log-format xml`` as the original's logplayer reads them, and read by ``plot``
and ``replay`` beside our JSON logs; ``--defaults original``."""

import json
import subprocess
import sys

import pytest
from lxml import etree

from golden import LABS
from simleague.ciberrato.logs import read_trial_log, read_xml_log
from simleague.ciberrato.scenario import DEFAULTS, load_scenario
from simleague.ciberrato.web import load_replay
from simleague.recorder import LogError

LAB = LABS / "CiberRato2008" / "Ciber2008_FinalLab.xml"
GRID = LABS / "CiberRato2008" / "Ciber2008_FinalGrid.xml"


def simleague(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "simleague.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    """The same trial (seed 3, 120 cycles) logged in both formats."""
    folder = tmp_path_factory.mktemp("logs")
    params = folder / "params.xml"
    params.write_text('<Parameters SimTime="120"/>')
    out = {}
    for fmt in ("json", "xml"):
        log = folder / f"trial.{fmt}"
        r = simleague("ciberrato", "trial", "--lab", LAB, "--grid", GRID, "--params", params, "--agents", 2,
                      "--seed", 3, "--json", "--log", log, "--log-format", fmt)
        assert r.returncode == 0, r.stderr
        out[fmt] = (log, json.loads(r.stdout))
    return out


def test_the_xml_log_has_the_originals_layout(logs):
    log, result = logs["xml"]
    root = etree.parse(str(log)).getroot()
    assert root.tag == "Log"
    assert [child.tag for child in root[:3]] == ["Parameters", "Lab", "Grid"]
    assert root[0].get("SimTime") == "120" and root[0].get("CollisionWallPenalty") == "5"
    infos = root.findall("LogInfo")
    assert [int(i.get("Time")) for i in infos] == list(range(0, result["cycles"] + 1))
    first, last = infos[0], infos[-1]
    robot = first.find("Robot")
    assert set(robot.attrib) == {"Name", "Id", "State"}
    assert set(robot.find("Pos").attrib) == {"X", "Y", "Dir"}
    assert set(robot.find("Scores").attrib) == {"Score", "ArrivalTime", "ReturningTime", "Collisions",
                                                "Collision", "VisitedMask"}
    assert robot.find("Action").get("LeftMotor") is not None          # orders for the next cycle
    assert last.find("Robot/Action") is None                            # the last one has none


def test_both_logs_of_one_trial_hold_the_same_poses_and_scores(logs):
    header, xml_cycles = read_xml_log(logs["xml"][0])
    _, json_cycles = read_trial_log(logs["json"][0])
    assert header["params"]["sim_time"] == 120 and "<Lab" in header["lab_xml"]
    by_time = {c["time"]: c for c in json_cycles}
    compared = 0
    for c in xml_cycles:
        if c["time"] not in by_time:
            continue
        for a, b in zip(c["robots"], by_time[c["time"]]["robots"], strict=True):
            assert (a["id"], a["name"], a["state"], a["score"], a["collisions"]) == \
                   (b["id"], b["name"], b["state"], b["score"], b["collisions"])
            assert a["x"] == pytest.approx(b["x"], abs=1e-4) and a["y"] == pytest.approx(b["y"], abs=1e-4)
        compared += 1
    assert compared >= 119
    moved = {(r["x"], r["y"]) for c in xml_cycles for r in c["robots"] if r["id"] == 1}
    assert len(moved) > 10


def test_plot_and_replay_read_the_originals_log(logs, tmp_path):
    log, _ = logs["xml"]
    original = tmp_path / "original.log"          # as the original writes it on Linux: with the date,
    measures = ('<Measures Time="0">\n\t<Sensors Compass="3" Collision="No" Ground="-1">\n'   # and each
                '\t\t<IRSensor Id="0" Value="0.5"/>\n\t</Sensors>\n</Measures>\n\t</Robot>')  # robot's sensors
    original.write_text(log.read_text().replace("<Log>", '<Log Date="Fri Nov 27 02:09:31 2026" >', 1)
                        .replace("\t</Robot>", measures))
    picture = tmp_path / "trial.png"
    r = simleague("ciberrato", "plot", original, "-o", picture)
    assert r.returncode == 0, r.stderr
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    scene, roster, replay = load_replay(original)
    assert len(replay["frames"]) == len(read_xml_log(original)[1])


@pytest.mark.parametrize("text, problem", [
    ("<Log><Lab Name='x'/></Log>", "no <Grid>"),
    ("<Log>" + "<Grid><Position X='1' Y='1' Dir='0'/></Grid><Lab Name='x'/>"
     "<LogInfo Time='0'><Robot Id='1' Name='a'><Pos X='oops'/><Scores/></Robot></LogInfo></Log>", "X='oops'"),
    ("<Measures/>", "expected a <Log>"),
])
def test_a_broken_xml_log_is_named_with_its_problem(tmp_path, text, problem):
    bad = tmp_path / "bad.log"
    bad.write_text(text)
    with pytest.raises(LogError, match="bad.log") as caught:
        read_xml_log(bad)
    assert problem in str(caught.value)
    r = simleague("ciberrato", "plot", bad, "-o", tmp_path / "x.png", timeout=60)
    assert r.returncode != 0 and "Traceback" not in r.stderr and "bad.log" in r.stderr


def test_the_originals_defaults_are_taken_on_request(tmp_path):
    original = load_scenario(defaults="original").params
    assert (original.collision_wall_penalty, original.n_requests_per_cycle, original.key_time) == (2, 0, 1350)
    assert not original.beacon_sensor and not original.obstacle_requestable
    assert load_scenario().params == DEFAULTS["2008"]
    params = tmp_path / "params.xml"
    params.write_text('<Parameters SimTime="30"/>')
    r = simleague("ciberrato", "trial", "--params", params, "--agents", 1, "--defaults", "original")
    assert r.returncode == 0, r.stderr
    assert "original defaults" in r.stdout
    r = simleague("ciberrato", "trial", "--agents", 1, "--defaults", "1999", timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "1999" in r.stderr
