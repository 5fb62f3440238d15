"""The ``simleague`` command: one sub-command group per competition, each defined beside its world
(``ciberrato/cli.py``, ``msl/cli.py``, ``simspark/cli.py``, ``vhsc/cli.py``).

Errors a user can act on (a broken lab file, a busy port) print one line and exit with code 2;
they never show a traceback.
"""

from __future__ import annotations

import typer

from .ciberrato.cli import app as ciberrato
from .msl.cli import app as msl
from .simspark.cli import app as simspark
from .vhsc.cli import app as vhsc

app = typer.Typer(help="Simulators and match infrastructure for networked robot competitions.",
                  no_args_is_help=True, add_completion=False)
app.add_typer(ciberrato, name="ciberrato")
app.add_typer(msl, name="msl")
app.add_typer(simspark, name="simspark")
app.add_typer(vhsc, name="vhsc")


if __name__ == "__main__":
    app()
