"""Whole CiberRato competitions (issue 33): competition and decisions files (errors name the file,
the key and the problem), the schedule (groups by lot, the grid rotated so that every team starts
from every position in a leg, seeds from the file's), the ranking of section 5.5 with the judges'
decisions, and whole runs of the sample competition with real agent processes: its standings and
report, a resumed run that runs no trial twice, a team whose program crashes, the same results on a
Ray cluster; SimSpark tournaments: round robin and knock-out schedules, the table, the sample round
robin and a knock-out played by sample agent processes."""

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import pytest
from busybox import busybox_image

from simleague.competition.config import (CompetitionError, Decisions, Leg, load_competition,
                                          load_decisions)
from simleague.competition.ranking import leg_standings, trial_entries
from simleague.competition.run import possible_trials
from simleague.competition.schedule import Match, knockout_round, leg_trials, round_robin
from simleague.competition.store import Store, StoreError
from simleague.competition.tournament import MatchOutcome, standings

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ciberrato" / "competition.toml"
AGENT = "python -m simleague.ciberrato.agent --host {host} --port {port} --pos {pos} --name {name}"


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def short_trials(tmp_path: Path, cycles: int = 300) -> Path:
    """A parameters file whose trials end after ``cycles`` (the sample agents need up to 900 to
    finish on the default lab): for tests of how trials are run, not of how far robots get."""
    return write(tmp_path / "short.xml", f'<Parameters SimTime="{cycles}"/>')


def short_example(tmp_path: Path) -> Path:
    """The sample competition with :func:`short_trials` in each leg."""
    text = EXAMPLE.read_text().replace("[[leg]]\n", f'[[leg]]\nparams = "{short_trials(tmp_path)}"\n')
    return write(tmp_path / "competition.toml", text)


def competition_file(tmp_path: Path, teams: dict[str, str], legs: str, seed: int = 5) -> Path:
    text = f'[competition]\nname = "test"\nseed = {seed}\n'
    for name, command in teams.items():
        text += f'[[team]]\nname = "{name}"\ncommand = "{command}"\n'
    return write(tmp_path / "comp.toml", text + legs)


@pytest.mark.parametrize("text, expected", [
    ('[competition]\nname = "x"\n', r"comp\.toml: team: Field required"),
    ('[competition]\nname = "x"\n[[team]]\nname = "a"\ncommand = "run {pot}"\n[[leg]]\nname = "l"\n',
     r"comp\.toml: team\.0\.command: unknown placeholder \{pot\}; a ciberrato command has"),
    ('[competition]\nname = "x"\n[[team]]\nname = "a"\ncommand = "run"\n[[leg]]\nname = "l"\ntrials = 0\n',
     r"comp\.toml: leg\.0\.trials: Input should be greater than or equal to 1"),
    ('[competition]\nname = "x"\n[[team]]\nname = "a"\ncommand = "run"\n[[leg]]\nname = "l"\nlab = "nope.xml"\n',
     r"comp\.toml: leg\.0\.lab: no such file .*nope\.xml"),
    ('[competition]\nname = "x"\n[[team]]\nname = "a"\ncommand = "run"\n[[team]]\nname = "a"\ncommand = "r"\n'
     '[[leg]]\nname = "l"\n', r"comp\.toml: \(top\): team names must differ: a"),
    ('[competition]\nname = "x"\ncolour = 3\n', r"comp\.toml: competition\.colour: Extra inputs are not permitted"),
    ("[competition\n", r"comp\.toml: not TOML"),
])
def test_a_bad_competition_file_is_one_line_naming_the_file_the_key_and_the_problem(tmp_path, text, expected):
    with pytest.raises(CompetitionError, match=expected) as caught:
        load_competition(write(tmp_path / "comp.toml", text))
    assert "\n" not in str(caught.value)


def test_decisions_name_trials_and_teams_of_the_competition(tmp_path):
    comp = load_competition(EXAMPLE)
    trials = possible_trials(comp)
    assert trials == {f"Leg {leg}/{n}" for leg in (1, 2) for n in (1, 2, 3)}
    good = write(tmp_path / "d.toml", '[[void]]\ntrial = "Leg 1/2"\nreason = "the network failed"\n'
                                      '[[exclude]]\ntrial = "Leg 2/1"\nteam = "Bees"\nreason = "rammed"\n')
    decisions = load_decisions(good, comp, trials)
    assert decisions.void[0].run == 1 and decisions.exclude[0].team == "Bees"
    for text, problem in (('[[void]]\ntrial = "Leg 3/1"\nreason = "x"\n', r"void\.0\.trial: no trial 'Leg 3/1'"),
                          ('[[exclude]]\ntrial = "Leg 1/1"\nteam = "Wasps"\nreason = "x"\n',
                           r"exclude\.0\.team: no team 'Wasps'"),
                          ('[[correction]]\ntrial = "Leg 1/1"\nteam = "Ants"\nscore = 3\n',
                           r"correction\.0\.reason: Field required")):
        with pytest.raises(CompetitionError, match=r"d\.toml: " + problem):
            load_decisions(write(tmp_path / "d.toml", text), comp, trials)


def test_every_team_starts_from_every_grid_position_in_a_leg_and_the_schedule_repeats():
    teams = ["A", "B", "C", "D", "E", "F", "G"]
    trials = leg_trials(11, 0, "Leg 1", teams, 3, 3)
    assert [len(t.slots) for t in trials] == [3, 3, 3, 2, 2, 2, 2, 2, 2]    # 3 groups: 3, 2, 2 teams
    positions = {team: sorted(s.pos for t in trials for s in t.slots if s.team == team) for team in teams}
    for team, seen in positions.items():
        group = next(len(t.slots) for t in trials if any(s.team == team for s in t.slots))
        assert set(seen) == set(range(1, group + 1)), team                   # every position of its group
    assert trials == leg_trials(11, 0, "Leg 1", teams, 3, 3)
    assert len({t.seed for t in trials}) == len(trials)
    assert [t.slots for t in leg_trials(12, 0, "Leg 1", teams, 3, 3)] != [t.slots for t in trials]  # a new lot


def _result(rows, absent=(), max_score=400, sim_time=1800):
    return {"sim_time": sim_time, "max_score": max_score, "cycles": 900, "absent": list(absent),
            "robots": [{"id": pos, "score": score, "visiting_time": t, "state": "Finished", "collisions": 0,
                        "exit_code": 0} for pos, score, t in rows]}


def test_the_ranking_of_section_5_5_with_exclusions_and_corrections():
    decisions = Decisions.model_validate({
        "exclude": [{"trial": "L1/2", "team": "B", "reason": "rammed A twice"}],
        "correction": [{"trial": "L1/3", "team": "C", "score": 40, "reason": "a wall counted twice"}]})
    slots = [(1, "A"), (2, "B"), (3, "C")]
    entries = (trial_entries("L1/1", slots, _result([(1, 50, 300), (2, 60, 200), (3, 90, 500)]), decisions)
               + trial_entries("L1/2", slots, _result([(1, 70, 300), (2, 10, 100), (3, 50, 400)]), decisions)
               + trial_entries("L1/3", slots, _result([(1, 50, 250), (2, 80, 300)], absent=[{"id": 3, "exit_code": 1}]),
                               decisions))
    b2 = next(e for e in entries if e.trial == "L1/2" and e.team == "B")
    assert (b2.score, b2.time, b2.state) == (400, 1800, "Excluded") and "rammed A twice" in b2.notes[0]
    c3 = next(e for e in entries if e.trial == "L1/3" and e.team == "C")
    assert c3.score == 40 and "from 400 to 40: a wall counted twice" in c3.notes[-1]
    first = Leg(name="L1", best_trials=1)
    standings = leg_standings(first, ["A", "B", "C"], entries, None)
    # best trial each: C 40 (L1/3), A 50 at 250 (L1/3) before 50 at 300, B 60
    assert [(s.team, s.score, s.time, s.counted) for s in standings] == [
        ("C", 40, 1800, ["L1/3"]), ("A", 50, 250, ["L1/3"]), ("B", 60, 200, ["L1/1"])]
    second = Leg(name="L2", cumulative=True, best_trials=2, trials=3)
    more = (trial_entries("L2/1", slots, _result([(1, 5, 10), (2, 5, 10), (3, 5, 10)]), Decisions())
            + trial_entries("L2/2", slots, _result([(1, 7, 10), (2, 1, 10), (3, 9, 10)]), Decisions()))
    total = leg_standings(second, ["A", "B", "C"], more, {s.team: s for s in standings})
    assert [(s.team, s.score, s.counted) for s in total] == [
        ("C", 54, ["L1/3", "L2/1", "L2/2"]), ("A", 62, ["L1/3", "L2/1", "L2/2"]), ("B", 66, ["L1/1", "L2/2", "L2/1"])]
    short = leg_standings(second, ["A", "B", "C"], more[:3], {s.team: s for s in standings})
    assert [s.team for s in short] == ["C", "A", "B"]          # one trial of two: all incomplete, same order


def test_a_results_file_of_another_competition_is_refused(tmp_path):
    Store(tmp_path / "r.sqlite", "one").close()
    with pytest.raises(StoreError, match="another competition"):
        Store(tmp_path / "r.sqlite", "two")
    write(tmp_path / "bad.sqlite", "not a database at all" * 100)
    with pytest.raises(StoreError, match="not a results file"):
        Store(tmp_path / "bad.sqlite", "one")


def competition(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "simleague", "ciberrato", "competition", *map(str, args)],
                          capture_output=True, text=True, timeout=600, **kwargs)


def test_the_sample_competition_runs_to_its_standings_and_report(tmp_path):
    """The sample competition, its trials cut short (:func:`short_trials`; the sample agent's
    full trials: tests/ciberrato/test_ciberrato_agent.py)."""
    done = competition(short_example(tmp_path), "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "out" / "standings.json").read_text())
    assert [len(leg["trials"]) for leg in report["legs"]] == [3, 3]
    for leg in report["legs"]:
        for team in ("Ants", "Bees", "Crickets"):                  # every team from every grid position
            assert sorted(e["pos"] for t in leg["trials"] for e in t["entries"] if e["team"] == team) == [1, 2, 3]
        for trial in leg["trials"]:
            assert trial["status"] == "done" and trial["cycles"] > 0
            for name in ("log.jsonl.gz", "plot.png", "Ants.out"):
                assert (tmp_path / "out" / trial["folder"] / name).is_file()
    final = report["final"]
    assert [s["rank"] for s in final] == [1, 2, 3] and sorted(s["team"] for s in final) == ["Ants", "Bees", "Crickets"]
    # the final standing of each team is its best trial of leg 1 plus its best of leg 2 (5.5 item 2)
    for s in final:
        best = [min(((e["score"], e["time"]) for t in leg["trials"] for e in t["entries"] if e["team"] == s["team"]))
                for leg in report["legs"]]
        assert (s["score"], s["time"]) == (sum(b[0] for b in best), sum(b[1] for b in best))
    html = (tmp_path / "out" / "index.html").read_text()
    assert "Trial Leg 2/3" in html and "simleague ciberrato replay trials/Leg-2-3-run1/log.jsonl.gz" in html
    rows = (tmp_path / "out" / "trials.csv").read_text().splitlines()
    assert len(rows) == 1 + 6 * 3
    assert f"{final[0]['team']}" in done.stdout and "Rank" in done.stdout


def test_a_stopped_competition_resumes_without_running_a_trial_twice_and_a_void_runs_one_again(tmp_path):
    out = tmp_path / "out"
    example = competition_file(tmp_path, {"Ants": AGENT, "Bees": AGENT},
                               f'[[leg]]\nname = "Leg"\ntrials = 4\nparams = "{short_trials(tmp_path, 100)}"\n')
    command = [sys.executable, "-m", "simleague", "ciberrato", "competition", str(example), "--out", str(out),
               "--workers", "1"]
    proc = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        finished = []
        for line in proc.stderr:
            if ": done (" in line:
                finished.append(line.split(":")[0])
                if len(finished) == 2:
                    proc.send_signal(signal.SIGINT)
                    break
        assert proc.wait(timeout=60) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    stored = {p.parent.name: p.stat().st_mtime_ns for p in (out / "trials").glob("*/log.jsonl.gz")}
    done = competition(example, "--out", out, "--workers", "1")
    assert done.returncode == 0, done.stderr
    ran = [line.split(":")[0] for line in done.stderr.splitlines() if ": done (" in line]
    assert sorted(ran + finished) == [f"Leg/{n}" for n in (1, 2, 3, 4)]
    for key in finished:                                 # a kept trial's log is not written again
        folder = key.replace(" ", "-").replace("/", "-") + "-run1"
        assert (out / "trials" / folder / "log.jsonl.gz").stat().st_mtime_ns == stored[folder]
    decisions = write(tmp_path / "decisions.toml", f'[[void]]\ntrial = "{finished[0]}"\nreason = "the lights went out"\n')
    again = competition(example, "--out", out, "--decisions", decisions)
    assert again.returncode == 0, again.stderr
    assert [line.split(":")[0] for line in again.stderr.splitlines() if ": done (" in line] == [finished[0]]
    report = json.loads((out / "standings.json").read_text())
    trial = next(t for leg in report["legs"] for t in leg["trials"] if t["key"] == finished[0])
    assert trial["run"] == 2 and trial["voided"] == ["run 1 voided: the lights went out"]


def test_a_team_whose_program_crashes_gets_the_highest_score_and_the_others_play(tmp_path):
    crash = f"{sys.executable} -c 'import sys; sys.exit(3)'"
    path = competition_file(tmp_path, {"Ants": AGENT, "Broken": crash, "Crickets": AGENT},
                            '[[leg]]\nname = "L"\ntrials = 1\n')
    done = competition(path, "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    [trial] = json.loads((tmp_path / "out" / "standings.json").read_text())["legs"][0]["trials"]
    broken = next(e for e in trial["entries"] if e["team"] == "Broken")
    assert broken["state"] == "Absent" and broken["score"] == 400 and "code 3" in broken["notes"][0]
    assert all(e["state"] == "Finished" for e in trial["entries"] if e["team"] != "Broken")
    missing = competition_file(tmp_path, {"Ants": "no-such-program-here {port}"}, '[[leg]]\nname = "L"\n')
    done = competition(missing, "--out", tmp_path / "out2")
    assert done.returncode == 2 and "team Ants: program 'no-such-program-here' not found on the PATH" in done.stderr
    assert "Traceback" not in done.stderr


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def ray_head():
    """A Ray head of its own (2 CPUs) on a free port, stopped with everything it started (its
    session folder short: Ray's sockets live there)."""
    ray = shutil.which("ray", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
    if ray is None:
        pytest.skip("Ray is not installed: pip install -e '.[test]'")
    port, folder = free_port(), tempfile.mkdtemp(prefix="ray", dir="/tmp")
    head = subprocess.Popen([ray, "start", "--head", "--block", "--num-cpus", "2", "--port", str(port),
                             "--include-dashboard=false",
                             "--disable-usage-stats", "--temp-dir", folder],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert head.poll() is None and time.monotonic() < deadline, "the Ray head did not start"
            time.sleep(0.2)
        yield f"127.0.0.1:{port}"
    finally:                  # Ray's daemons leave the head's process group: find them by their folder
        os.killpg(head.pid, signal.SIGTERM)
        try:
            head.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait()
        for process in psutil.process_iter(["cmdline"]):
            if any(folder in word for word in process.info["cmdline"] or ()):
                with contextlib.suppress(psutil.Error):
                    process.kill()
        shutil.rmtree(folder, ignore_errors=True)


def test_on_a_ray_cluster_the_same_competition_gives_the_same_results(tmp_path, ray_head):
    path = competition_file(tmp_path, {"Ants": AGENT, "Bees": AGENT},
                            f'[[leg]]\nname = "L"\ntrials = 2\nparams = "{short_trials(tmp_path)}"\n')
    local = competition(path, "--out", tmp_path / "local")
    assert local.returncode == 0, local.stderr
    remote = competition(path, "--out", tmp_path / "ray", "--ray", ray_head)
    assert remote.returncode == 0, remote.stderr
    assert "on the Ray cluster at" in remote.stderr

    def results(folder):
        report = json.loads((tmp_path / folder / "standings.json").read_text())
        return report["final"], [[(e["team"], e["pos"], e["score"], e["time"]) for e in t["entries"]]
                                 for t in report["legs"][0]["trials"]]
    assert results("local") == results("ray")
    unreachable = competition(path, "--out", tmp_path / "none", "--ray", f"127.0.0.1:{free_port()}")
    assert unreachable.returncode == 2 and "cannot reach the Ray cluster" in unreachable.stderr


def test_a_round_robin_plays_every_pair_once_and_a_knockout_gives_byes_to_the_best_seeds():
    teams = ["A", "B", "C", "D", "E"]
    matches = round_robin(3, teams)
    pairs = [frozenset((m.left, m.right)) for m in matches]
    assert len(pairs) == 10 and len(set(pairs)) == 10
    lefts = {t: sum(m.left == t for m in matches) for t in teams}
    assert set(lefts.values()) == {2}, lefts                               # as often on each side
    for r in {m.round for m in matches}:                                  # nobody plays twice in a round
        playing = [t for m in matches if m.round == r for t in (m.left, m.right)]
        assert len(playing) == len(set(playing))
    first = knockout_round(3, 1, teams)                                   # 8 places: 3 byes for A, B, C
    assert [(m.left, m.right) for m in first] == [("A", None), ("B", None), ("C", None), ("D", "E")]
    assert [(m.left, m.right) for m in knockout_round(3, 2, ["A", "B", "C", "E"])] == [("A", "E"), ("B", "C")]


def test_tournament_standings_by_points_goal_difference_and_goals():
    def played(key, left, right, score):
        return MatchOutcome(Match(key, 1, 0, left, right), "done", score)
    table = standings(["A", "B", "C"], [played("1", "A", "B", (2, 0)), played("2", "B", "C", (1, 0)),
                                        played("3", "C", "A", (3, 1)),
                                        MatchOutcome(Match("4", 2, 0, "A", "C"), "failed", error="lost")])
    assert [(r.team, r.points, r.difference, r.goals_for) for r in table] == [
        ("C", 3, 1, 3), ("A", 3, 0, 3), ("B", 3, -1, 1)]


TOURNAMENT = Path(__file__).resolve().parents[1] / "examples" / "simspark" / "tournament.toml"


def short_tournament(path: Path, format: str = "round_robin") -> Path:
    """The sample tournament in ``format``, its matches' halves 5 s of game time instead of 20."""
    text = TOURNAMENT.read_text()
    assert 'format = "round_robin"' in text and "half_time = 20.0" in text
    return write(path, text.replace('format = "round_robin"', f'format = "{format}"').replace(
        "half_time = 20.0", "half_time = 5.0"))


def test_the_sample_round_robin_and_a_knockout_run_to_their_standings(tmp_path):
    done = subprocess.run([sys.executable, "-m", "simleague", "simspark", "tournament",
                           str(short_tournament(tmp_path / "rr.toml")), "--out", str(tmp_path / "rr")],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "rr" / "standings.json").read_text())
    assert sorted(sorted((m["left"], m["right"])) for m in report["matches"]) == [
        ["Ants", "Bees"], ["Ants", "Crickets"], ["Bees", "Crickets"]]
    assert sorted(m["left"] for m in report["matches"]) == ["Ants", "Bees", "Crickets"]   # each once on the left
    assert all(m["status"] == "done" and len(m["score"]) == 2 for m in report["matches"])
    assert [r["played"] for r in report["standings"]] == [2, 2, 2]
    for m in report["matches"]:
        assert (tmp_path / "rr" / m["folder"] / "log.jsonl.gz").is_file()
    assert "simleague simspark replay matches/" in (tmp_path / "rr" / "index.html").read_text()
    path = short_tournament(tmp_path / "ko.toml", "knockout")
    done = subprocess.run([sys.executable, "-m", "simleague", "simspark", "tournament", str(path)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "ko" / "standings.json").read_text())
    first, final = report["matches"][:2], report["matches"][2]
    assert (first[0]["left"], first[0]["status"]) == ("Ants", "bye")      # the first seed waits
    assert (first[1]["left"], first[1]["right"]) == ("Bees", "Crickets")
    assert final["left"] == "Ants" and final["right"] == first[1]["winner"]
    assert report["standings"][0]["team"] == final["winner"]
    if final["score"][0] == final["score"][1]:
        assert "by lot" in final["notes"][0]
    missing = TOURNAMENT.read_text().replace("command = \"python -m simleague.simspark.agent",
                                             "command = \"no-such-agent -m simleague.simspark.agent", 1)
    done = subprocess.run([sys.executable, "-m", "simleague", "simspark", "tournament",
                           str(write(tmp_path / "missing.toml", missing))], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "team Ants: program 'no-such-agent' not found on the PATH" in done.stderr


def test_the_sample_round_robin_runs_on_a_ray_cluster(tmp_path, ray_head):
    done = subprocess.run([sys.executable, "-m", "simleague", "simspark", "tournament",
                           str(short_tournament(tmp_path / "rr.toml")), "--out", str(tmp_path / "rr"), "--ray", ray_head],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "on the Ray cluster at" in done.stderr
    report = json.loads((tmp_path / "rr" / "standings.json").read_text())
    assert len(report["matches"]) == 3 and all(m["status"] == "done" for m in report["matches"])
    assert [r["played"] for r in report["standings"]] == [2, 2, 2]
    assert (tmp_path / "rr" / "index.html").is_file()


def test_a_team_whose_agents_never_join_forfeits_and_is_not_played_again(tmp_path):
    silent = TOURNAMENT.read_text().replace(
        'command = "python -m simleague.simspark.agent --host {host} --port {port} --team {team} --unum {unum}"',
        'command = "python -c pass"', 1).replace("seed = 2026", "seed = 2026\nregister_timeout = 5.0\nretries = 2")
    silent = silent[:silent.index('[[team]]\nname = "Crickets"')]       # Ants (silent) against Bees
    done = subprocess.run([sys.executable, "-m", "simleague", "simspark", "tournament",
                           str(write(tmp_path / "silent.toml", silent)), "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "out" / "standings.json").read_text())
    (match,) = report["matches"]
    assert match["status"] == "done" and match["attempts"] == 1
    assert match["winner"] == "Bees" and sorted(match["score"]) == [0, 3]
    assert "walkover: Ants forfeits" in match["notes"][0]
    assert [(r["team"], r["points"]) for r in report["standings"]] == [("Bees", 3), ("Ants", 0)]


# A SimSpark agent in busybox sh: joins as player $3 of team $4 on $1:$2 and stands, sending (syn).
SH_AGENT = r"""#!/bin/sh
frame() { printf "\000\000\000\\$(printf %o "$(expr length "$1")")%s" "$1"; }
{
  frame "(scene rsg/agent/nao/nao_hetero.rsg 0)"
  sleep 0.5
  frame "(init (unum $3)(teamname $4))"
  while true; do frame "(syn)"; sleep 0.02; done
} | nc "$1" "$2"
"""


def test_a_team_in_a_docker_image_plays_its_matches_and_leaves_no_container(tmp_path):
    client = busybox_image("simleague-test-agent", "1", ("sh", "printf", "nc", "sleep", "expr"),
                           {"agent.sh": SH_AGENT})
    text = short_tournament(tmp_path / "short.toml").read_text()
    text = text[:text.index('[[team]]\nname = "Crickets"')].replace(
        'name = "Ants"\ncommand = "python -m simleague.simspark.agent --host {host} --port {port} --team {team} '
        '--unum {unum}"', 'name = "Ants"\nimage = "simleague-test-agent:1"\n'
                          'command = "sh /agent.sh {host} {port} {unum} {team}"')
    assert 'image = "simleague-test-agent:1"' in text
    done = subprocess.run([sys.executable, "-m", "simleague", "simspark", "tournament",
                           str(write(tmp_path / "docker.toml", text)), "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    (match,) = json.loads((tmp_path / "out" / "standings.json").read_text())["matches"]
    assert match["status"] == "done" and match["notes"] == [], match          # no walkover: both joined
    assert not client.containers.list(all=True, filters={"ancestor": "simleague-test-agent:1"})
    missing = text.replace("simleague-test-agent:1", "simleague-test-agent:nope")
    done = subprocess.run([sys.executable, "-m", "simleague", "simspark", "tournament",
                           str(write(tmp_path / "nope.toml", missing))], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "team Ants: no docker image 'simleague-test-agent:nope' here" in done.stderr
