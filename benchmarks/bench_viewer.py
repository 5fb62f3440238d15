"""The CiberRato web viewer under load, in Debian's chromium (headless, playwright).

Run by hand: ``python benchmarks/bench_viewer.py``. Two measurements:

1. **Smoothness**: a realtime trial (20 cycles/s) with 10 sample agents on the 2008 final lab
   (a 10-position grid made for it), one page watching for ``--seconds``: the share of cycles the
   page received, its draw time per frame and the interval between animation frames.
2. **Cost to the simulation**: cycles per second of a lockstep trial (3 steady agents that answer
   at once, SimTime ``--cycles``) without a viewer, with the viewer and no page, and with
   ``--pages`` pages open; medians of ``--repeat`` runs.
"""

import argparse
import json
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_ciberrato import SHARED, grid_for  # noqa: E402

from simleague.ciberrato import messages as M  # noqa: E402
from simleague.ciberrato.scenario import load_lab  # noqa: E402

LAB = SHARED / "CiberRato2008" / "Ciber2008_FinalLab.xml"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
WATCH = """
window.bench = {ticks: [], cycles: new Set()};
(function tick(now) { window.bench.ticks.push(now); requestAnimationFrame(tick); })(performance.now());
const Native = window.WebSocket;
window.WebSocket = function (url) {
  const ws = new Native(url);
  ws.addEventListener('message', (e) => { if (e.data.startsWith('{"type":"frame"'))
      window.bench.cycles.add(JSON.parse(e.data).t); });
  return ws;
};
window.WebSocket.OPEN = Native.OPEN;
"""


def start(args):
    proc = subprocess.Popen([sys.executable, "-m", "simleague.cli", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = None
    for line in proc.stderr:
        m = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
        if m:
            url = m.group(1)
            break
    threading.Thread(target=proc.stderr.read, daemon=True).start()
    return proc, url


def smoothness(browser, tmp: Path, seconds: float) -> dict:
    grid = tmp / "grid10.xml"
    grid.write_text(M.format_grid(grid_for(load_lab(LAB), 10)))
    params = tmp / "params.xml"
    params.write_text(f'<Parameters SimTime="{int(seconds * 20 + 200)}"/>')
    proc, url = start(["ciberrato", "trial", "--lab", LAB, "--grid", grid, "--params", params, "--agents", 10,
                       "--mode", "realtime", "--web", 0, "--linger", 0])
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 760})
        page.add_init_script(WATCH)
        page.goto(url)
        page.wait_for_function("window.simleague.frame && window.simleague.frame.state === 'Running' "
                               "&& window.simleague.frame.r.length === 10", timeout=120_000)
        page.evaluate("window.bench.ticks = []; window.bench.cycles = new Set(); window.simleague.drawMs = []")
        t0 = page.evaluate("window.simleague.frame.t")
        time.sleep(seconds)
        got = page.evaluate("""({ticks: window.bench.ticks, cycles: [...window.bench.cycles],
                                 draw: window.simleague.drawMs, t: window.simleague.frame.t})""")
        page.close()
    finally:
        proc.terminate()
        proc.wait(10)
    gaps = sorted(b - a for a, b in zip(got["ticks"], got["ticks"][1:]))
    span = got["t"] - t0
    return {"cycles": span, "received": len([c for c in got["cycles"] if t0 < c <= got["t"]]),
            "draw_ms_median": statistics.median(got["draw"]), "draw_ms_p95": got["draw"][int(0.95 * len(got["draw"]))]
            if got["draw"] else None,
            "raf_gap_ms_median": statistics.median(gaps), "raf_gap_ms_p99": gaps[int(0.99 * len(gaps))]}


def lockstep_rate(browser, tmp: Path, cycles: int, web: bool, pages: int) -> float:
    """Cycles per second of a lockstep trial with 3 steady agents (which answer at once)."""
    params = tmp / "params_long.xml"
    params.write_text(f'<Parameters SimTime="{cycles}"/>')
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    args = ["ciberrato", "trial", "--agents", 0, "--wait-for", 3, "--port", port, "--mode", "lockstep",
            "--params", params, "--json"]
    opened = []
    if web:
        proc, url = start(args + ["--web", 0, "--linger", 0])
        for _ in range(pages):
            opened.append(browser.new_page())
            opened[-1].goto(url)
    else:
        proc = subprocess.Popen([sys.executable, "-m", "simleague.cli", *map(str, args)],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        time.sleep(3.0)                    # let the server bind before the agents register
    began = time.perf_counter()
    agents = [subprocess.Popen([sys.executable, str(HERE / "steady_agent.py"), str(port), f"s{i}"])
              for i in range(3)]
    out, _ = proc.communicate(timeout=600)
    elapsed = time.perf_counter() - began
    for p in agents:
        p.wait(10)
    for pg in opened:
        pg.close()
    return json.loads(out)["cycles"] / elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--cycles", type=int, default=5000)
    ap.add_argument("--pages", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d, sync_playwright() as p:
        tmp = Path(d)
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        s = smoothness(browser, tmp, a.seconds)
        print(f"realtime, 10 robots, {a.seconds:g} s: page received {s['received']} of {s['cycles']} cycles; "
              f"draw {s['draw_ms_median']:.2f} ms median, {s['draw_ms_p95']:.2f} ms p95; "
              f"animation frame interval {s['raf_gap_ms_median']:.1f} ms median, {s['raf_gap_ms_p99']:.1f} ms p99",
              flush=True)
        for label, web, pages in (("no viewer", False, 0), ("viewer, no page", True, 0),
                                  (f"viewer, {a.pages} pages", True, a.pages)):
            runs = [lockstep_rate(browser, tmp, a.cycles, web, pages) for _ in range(a.repeat)]
            print(f"lockstep trial of {a.cycles} cycles, 3 steady agents, {label}: median "
                  f"{statistics.median(runs):.0f} cycles/s ({', '.join(f'{r:.0f}' for r in runs)})", flush=True)
        browser.close()


if __name__ == "__main__":
    main()
