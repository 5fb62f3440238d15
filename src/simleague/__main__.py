"""``python -m simleague`` is the ``simleague`` command."""

from .cli import app

app(prog_name="simleague")
