"""The documentation: every public class, function and method of the modules the API pages show
has a docstring (mkdocstrings would show it bare), and the pages name only modules that exist.
CI also builds the site with ``mkdocs build --strict`` (a broken link fails it)."""

import importlib
import inspect
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
MODULES = sorted({m for page in (DOCS / "api").glob("*.md") for m in re.findall(r"^::: ([\w.]+)", page.read_text(), re.M)})


def public_members(module):
    """(name, object) of the classes and functions a module defines and does not hide, with the
    public methods of its classes."""
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isclass(obj):
            yield name, obj
            for attr, member in vars(obj).items():
                if attr.startswith("_") or not (inspect.isfunction(member) or isinstance(member, (staticmethod, classmethod, property))):
                    continue
                yield f"{name}.{attr}", member.fget if isinstance(member, property) else getattr(member, "__func__", member)
        elif inspect.isfunction(obj):
            yield name, obj


def test_the_api_pages_name_modules():
    assert len(MODULES) >= 6, MODULES


@pytest.mark.parametrize("name", MODULES)
def test_every_public_name_of_a_documented_module_has_a_docstring(name):
    module = importlib.import_module(name)
    assert (module.__doc__ or "").strip(), f"{name} has no module docstring"
    bare = [member for member, obj in public_members(module) if not (inspect.getdoc(obj) or "").strip()]
    assert not bare, f"{name}: no docstring: {', '.join(bare)}"
