"""One error hierarchy (Gymnasium's error.py is the model): every exception simleague defines is a
simleague.errors.Error, and says in its docstring when it is raised."""

import importlib
import inspect
import pkgutil

import simleague
from simleague import errors


def project_exceptions():
    """(module name, class) of every exception class a simleague module defines."""
    found = []
    for info in pkgutil.walk_packages(simleague.__path__, "simleague."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == info.name:
                found.append((info.name, obj))
    return found


def test_every_exception_of_the_project_is_one_of_its_errors_with_a_docstring():
    found = project_exceptions()
    assert len(found) >= 30
    outside = [f"{m}.{c.__name__}" for m, c in found if not issubclass(c, errors.Error)]
    assert not outside, f"not on simleague.errors.Error: {outside}"
    bare = [f"{m}.{c.__name__}" for m, c in found if not (c.__doc__ or "").strip()]
    assert not bare, f"no docstring: {bare}"


def test_a_wire_error_is_still_what_callers_catch():
    from simleague.msl.client import ConnectionLost
    from simleague.wire.sexp import SexpError

    assert issubclass(SexpError, ValueError) and issubclass(ConnectionLost, OSError)
    assert issubclass(errors.MslProtocolError, errors.Error)
