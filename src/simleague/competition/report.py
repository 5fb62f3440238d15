"""A competition's outcome as files for organisers and teams: ``standings.json`` (everything),
``standings.csv`` (the final order), ``trials.csv`` (one row per robot per trial) and a static
``index.html`` (standings after each leg, each trial with its scores, the decisions applied, links
to its log, its plot and its robots' output, and the command that replays it)."""

from __future__ import annotations

import csv
import dataclasses
import json
from pathlib import Path

from jinja2 import Environment, select_autoescape
from markupsafe import Markup

from .run import Outcome

STYLE = """<style>
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; }
th { background: #f0f0f0; } .num { text-align: right; } .note { color: #a33; font-size: 0.9em; }
code { background: #f6f6f6; padding: 0 0.2em; }
</style>"""

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ o.name }}</title>
{{ style }}</head><body>
<h1>{{ o.name }}</h1>
<h2>Standings</h2>
<table><tr><th>Rank</th><th>Team</th><th>Score</th><th>Time (cycles)</th><th>Trials counted</th></tr>
{% for s in o.final %}<tr><td class="num">{{ s.rank }}</td><td>{{ s.team }}</td><td class="num">{{ s.score }}</td>
<td class="num">{{ s.time }}</td><td>{{ s.counted | join(", ") }}</td></tr>
{% endfor %}</table>
<p>Lower is better: the score (seed 004, section 5.4), then the time to visit every target (cycles).</p>
{% for name, trials, standings in o.legs %}
<h2>{{ name }}</h2>
<table><tr><th>Rank</th><th>Team</th><th>Score</th><th>Time</th></tr>
{% for s in standings %}<tr><td class="num">{{ s.rank }}</td><td>{{ s.team }}</td><td class="num">{{ s.score }}</td>
<td class="num">{{ s.time }}</td></tr>{% endfor %}</table>
{% for t in trials %}
<h3 id="{{ t.trial.key }}">Trial {{ t.trial.key }} (run {{ t.run }}, seed {{ t.trial.seed }}): {{ t.status }}</h3>
{% for v in t.voided %}<p class="note">{{ v }}</p>{% endfor %}
{% if t.error %}<p class="note">{{ t.error }} (after {{ t.attempts }} attempts)</p>{% endif %}
{% if t.entries %}<table><tr><th>Grid</th><th>Team</th><th>Score</th><th>Time</th><th>Collisions</th><th>State</th><th>Notes</th></tr>
{% for e in t.entries | sort(attribute="pos") %}<tr><td class="num">{{ e.pos }}</td><td>{{ e.team }}</td>
<td class="num">{{ e.score }}</td><td class="num">{{ e.time }}</td><td class="num">{{ e.collisions }}</td>
<td>{{ e.state }}</td><td class="note">{{ e.notes | join("; ") }}</td></tr>{% endfor %}</table>
<p><a href="{{ t.folder }}/log.jsonl.gz">log</a> &middot; <a href="{{ t.folder }}/plot.png">plot</a>
{% for e in t.entries | sort(attribute="pos") %}&middot; <a href="{{ t.folder }}/{{ slug(e.team) }}.out">{{ e.team }}'s output</a> {% endfor %}
&middot; replay: <code>simleague ciberrato replay {{ t.folder }}/log.jsonl.gz --web 8000</code></p>
{% endif %}
{% endfor %}
{% endfor %}
</body></html>
"""


def write_report(outcome: Outcome, out: Path) -> list[Path]:
    """Write the report files into ``out``; their paths."""
    from .run import slug

    files = [out / "standings.json", out / "standings.csv", out / "trials.csv", out / "index.html"]
    data = {"name": outcome.name, "final": [dataclasses.asdict(s) for s in outcome.final],
            "legs": [{"name": name, "standings": [dataclasses.asdict(s) for s in standings],
                      "trials": [{"key": t.trial.key, "run": t.run, "seed": t.trial.seed, "status": t.status,
                                  "attempts": t.attempts, "error": t.error, "folder": t.folder, "cycles": t.cycles,
                                  "voided": t.voided, "entries": [dataclasses.asdict(e) for e in t.entries]}
                                 for t in trials]}
                     for name, trials, standings in outcome.legs]}
    files[0].write_text(json.dumps(data, indent=1))
    with files[1].open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["rank", "team", "score", "time", "counted"])
        for s in outcome.final:
            w.writerow([s.rank, s.team, s.score, s.time, " ".join(s.counted)])
    with files[2].open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["leg", "trial", "run", "seed", "status", "grid", "team", "score", "time", "collisions", "state", "notes"])
        for name, trials, _ in outcome.legs:
            for t in trials:
                for e in t.entries or [None]:
                    w.writerow([name, t.trial.key, t.run, t.trial.seed, t.status] +
                               ([e.pos, e.team, e.score, e.time, e.collisions, e.state, "; ".join(e.notes)]
                                if e else ["", "", "", "", "", "", t.error or ""]))
    env = Environment(autoescape=select_autoescape(default=True))
    files[3].write_text(env.from_string(PAGE).render(o=outcome, slug=slug, style=Markup(STYLE)))
    return files


TOURNAMENT_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ o.name }}</title>
{{ style }}</head><body>
<h1>{{ o.name }}</h1>
<h2>Standings ({{ "round robin" if o.format == "round_robin" else "knock-out" }})</h2>
<table><tr><th>Rank</th><th>Team</th><th>Played</th><th>Won</th><th>Drawn</th><th>Lost</th><th>Goals</th>
<th>Difference</th><th>Points</th></tr>
{% for r in o.standings %}<tr><td class="num">{{ r.rank }}</td><td>{{ r.team }}</td><td class="num">{{ r.played }}</td>
<td class="num">{{ r.won }}</td><td class="num">{{ r.drawn }}</td><td class="num">{{ r.lost }}</td>
<td class="num">{{ r.goals_for }}:{{ r.goals_against }}</td><td class="num">{{ r.difference }}</td>
<td class="num">{{ r.points }}</td></tr>{% endfor %}</table>
<p>{{ "Points (3 a win, 1 a draw), then goal difference, then goals." if o.format == "round_robin"
      else "By the round reached, then points, goal difference, goals." }}</p>
{% for name, matches in o.rounds %}<h2>{{ name }}</h2>
<table><tr><th>Match</th><th>Left</th><th>Score</th><th>Right</th><th>Files</th><th>Notes</th></tr>
{% for m in matches %}<tr><td>{{ m.match.key }}</td><td>{{ m.match.left }}</td>
<td>{% if m.score %}{{ m.score[0] }} : {{ m.score[1] }}{% else %}{{ m.status }}{% endif %}</td>
<td>{{ m.match.right or "" }}</td>
<td>{% if m.status == "done" %}<a href="{{ m.folder }}/log.jsonl.gz">log</a>
(<code>simleague simspark replay {{ m.folder }}/log.jsonl.gz</code>){% endif %}</td>
<td class="note">{{ (m.notes + ([m.error] if m.error else [])) | join("; ") }}</td></tr>{% endfor %}</table>
{% endfor %}
</body></html>
"""


def write_tournament_report(outcome, out: Path) -> list[Path]:
    """Write a tournament's ``standings.json``, ``standings.csv``, ``matches.csv`` and
    ``index.html`` into ``out``; their paths."""
    files = [out / "standings.json", out / "standings.csv", out / "matches.csv", out / "index.html"]
    table = [dict(dataclasses.asdict(r), points=r.points, difference=r.difference) for r in outcome.standings]
    matches = [{"key": m.match.key, "round": m.match.round, "seed": m.match.seed, "left": m.match.left,
                "right": m.match.right, "status": m.status, "score": m.score, "winner": m.winner,
                "notes": m.notes, "attempts": m.attempts, "error": m.error, "folder": m.folder}
               for _, ms in outcome.rounds for m in ms]
    files[0].write_text(json.dumps({"name": outcome.name, "format": outcome.format, "standings": table,
                                    "matches": matches}, indent=1))
    with files[1].open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["rank", "team", "played", "won", "drawn", "lost", "goals_for", "goals_against", "difference",
                    "points"])
        for r in table:
            w.writerow([r[k] for k in ("rank", "team", "played", "won", "drawn", "lost", "goals_for",
                                       "goals_against", "difference", "points")])
    with files[2].open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["match", "left", "right", "status", "left_goals", "right_goals", "winner", "notes"])
        for m in matches:
            score = m["score"] or ("", "")
            w.writerow([m["key"], m["left"], m["right"] or "", m["status"], score[0], score[1], m["winner"] or "",
                        "; ".join(m["notes"] + ([m["error"]] if m["error"] else []))])
    env = Environment(autoescape=select_autoescape(default=True))
    files[3].write_text(env.from_string(TOURNAMENT_PAGE).render(o=outcome, style=Markup(STYLE)))
    return files
