"""Shared set-up of the tests, which live in one folder per world (``tests/ciberrato/``,
``tests/simspark/``, ``tests/vhsc/``, ``tests/msl/``, ``tests/soccer/``, ``tests/viewer/``) and here
for what spans worlds. pytest puts this folder on ``sys.path`` for every test, so the helper
modules beside this file are imported by name from any folder: ``golden`` (the shared data's
paths), ``system`` (skipping when a system component is missing), ``busybox`` (docker images made
locally), ``gl`` (OpenGL for cameras), ``msl_helpers``, ``threaded``, ``simspark_original``,
``viewer_pages``. Fixtures used by one folder only live in its own ``conftest.py``
(``tests/viewer/conftest.py``: the browser and ``simleague`` processes).
"""

import signal
import socket

import pytest


def pytest_configure(config):
    """Ctrl-C reaches the programs the tests start: tests send them SIGINT as a terminal does and
    expect them to stop. A shell without job control starts a background job (``pytest &``, a CI
    runner's script) with SIGINT ignored, which its children inherit across exec, and Python
    then never installs its KeyboardInterrupt handler; handled here, it is reset to the default
    in every child."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def free_port():
    """``free_port(kind=socket.SOCK_STREAM)``: a port on 127.0.0.1 free a moment ago (TCP, or UDP
    with ``socket.SOCK_DGRAM``)."""
    def pick(kind=socket.SOCK_STREAM) -> int:
        with socket.socket(socket.AF_INET, kind) as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]
    return pick
