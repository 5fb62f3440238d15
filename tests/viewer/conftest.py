"""The browser tests' fixtures: ``cli`` (start ``simleague`` processes, stopped after the test),
``browser`` (Debian's chromium, headless, once per module; skipped with the install command where it
is missing) and ``page`` (a fresh page that fails the test if its script raised)."""

import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from system import missing

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

class Cli:
    """A ``simleague`` process whose stderr lines are collected by a thread."""

    def __init__(self, *args):
        # SIGINT as at a terminal, even when the tests run in a background job (which ignores it)
        self.proc = subprocess.Popen([sys.executable, "-m", "simleague.cli", *map(str, args)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stderr:
            self.lines.put(line)

    def wait_for(self, pattern: str, timeout: float = 60.0) -> re.Match:
        deadline = time.monotonic() + timeout
        while True:
            for line in self.seen:
                if m := re.search(pattern, line):
                    return m
            left = deadline - time.monotonic()
            assert left > 0 and self.proc.poll() is None, f"no {pattern!r} in {self.seen}"
            try:
                self.seen.append(self.lines.get(timeout=min(left, 0.5)))
            except queue.Empty:
                pass

    def url(self) -> str:
        return self.wait_for(r"(http://127\.0\.0\.1:\d+/)").group(1)

    def stop(self, sig=signal.SIGINT):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def cli():
    started: list[Cli] = []

    def start(*args):
        started.append(Cli(*args))
        return started[-1]

    yield start
    for c in started:
        c.stop()
        c.stop(signal.SIGKILL)


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        missing("Debian's chromium (for the browser tests)", "apt-get install chromium")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 760})
    pg = context.new_page()
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    context.close()
    assert errors == [], f"the page raised: {errors}"
