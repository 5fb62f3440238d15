"""Webots PROTO files read as the humanoid league ships its robots (seed 000 "Configuration file":
a team's ``proto``; Webots R2021b-R2022b file format).

A PROTO file is ``EXTERNPROTO`` lines, a ``PROTO Name [ field ... ]`` interface and a body that is
a template: Lua between ``%{ }%`` (``%{= expr }%`` writes a value) around VRML97 node text. This
module evaluates the template with a sandboxed Lua (lupa; the standard library without ``os``,
``io``, ``require`` and the loaders, a bounded instruction count) and parses the result into
:class:`Node` trees, instantiating every PROTO it uses (``IS`` resolved, ``DEF``/``USE`` shared).
The result is the tree of Webots' built-in nodes (Robot, Solid, HingeJoint, Shape, ...) that
:mod:`simleague.soccer.webots` turns into a MuJoCo model.

Every problem raises :class:`ProtoError` with one line: the file, the line and the node.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .. import errors
from ..wire.json_text import TextFileError, read_text

MAX_PROTO_BYTES = 16 << 20        # one PROTO file
MAX_PROTO_FILES = 1000            # PROTO files one robot may use
MAX_DEPTH = 200                   # nested nodes
LUA_INSTRUCTIONS = 50_000_000     # per template evaluation
LUA_MEMORY = 256 << 20            # bytes

#: PROTOs of Webots' own library that robots name by URL; each stands for the built-in node
#: it extends (HingeJointWithBacklash: a HingeJoint whose backlash is not simulated here)
LIBRARY = {"HingeJointWithBacklash": "HingeJoint", "Hinge2JointWithBacklash": "Hinge2Joint"}
#: appearance PROTOs of Webots' library (drawn with the default colour here)
LIBRARY_APPEARANCES = {"Pcb", "PBRAppearance", "Appearance", "BrushedAluminium", "Plastic", "RoughPolymer",
                       "MattePaint", "GlossyPaint", "Rubber", "DryMud", "Copper", "Asphalt", "BrushedSteel",
                       "CarbonFibre", "Leather", "MetalStainlessSteelCable", "OldSteel", "ThreadMetalPlate"}


class ProtoError(errors.Error, ValueError):
    """A PROTO file that cannot be read or used; ``str()`` is one line naming the file, the line
    and the node."""


@dataclass
class Node:
    """One VRML node: ``type`` (a built-in Webots node once PROTOs are expanded), ``fields`` by
    name (a value is a list of numbers/strings/booleans, a :class:`Node`, a list of nodes, or
    None for NULL), where it was written (``file``, ``line``) and its ``DEF`` name."""

    type: str
    fields: dict[str, object] = field(default_factory=dict)
    file: str = ""
    line: int = 0
    def_name: str | None = None

    def where(self) -> str:
        """"file:line: Type", the start of every message about this node."""
        return f"{self.file}:{self.line}: {self.type}"

    def number(self, name: str, default: float) -> float:
        """Field ``name`` as one number (``default`` when absent). Raises :class:`ProtoError`."""
        value = self.fields.get(name)
        if value is None:
            return default
        if not isinstance(value, list) or len(value) != 1 or not isinstance(value[0], float):
            raise ProtoError(f"{self.where()}: {name} must be one number")
        return value[0]

    def numbers(self, name: str, count: int | None, default=None) -> list[float] | None:
        """Field ``name`` as ``count`` numbers (any number for None; ``default`` when absent).
        Raises :class:`ProtoError`."""
        value = self.fields.get(name)
        if value is None:
            return default
        if (not isinstance(value, list) or not all(isinstance(v, float) for v in value)
                or (count is not None and len(value) != count)):
            raise ProtoError(f"{self.where()}: {name} must be {count or 'a list of'} numbers")
        return value

    def string(self, name: str, default: str | None = None) -> str | None:
        """Field ``name``'s first string (``default`` when absent). Raises :class:`ProtoError`."""
        value = self.fields.get(name)
        if value is None:
            return default
        if not isinstance(value, list) or not value or not isinstance(value[0], str):
            raise ProtoError(f"{self.where()}: {name} must be a string")
        return value[0]

    def strings(self, name: str) -> list[str]:
        """Field ``name`` as a list of strings (empty when absent). Raises :class:`ProtoError`."""
        value = self.fields.get(name) or []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ProtoError(f"{self.where()}: {name} must be strings")
        return value

    def node(self, name: str) -> Node | None:
        """Field ``name`` as one node (None when absent or NULL). Raises :class:`ProtoError`."""
        value = self.fields.get(name)
        if isinstance(value, list) and len(value) == 1 and isinstance(value[0], Node):
            value = value[0]
        if value is not None and not isinstance(value, Node):
            raise ProtoError(f"{self.where()}: {name} must be a node")
        return value

    def nodes(self, name: str) -> list[Node]:
        """Field ``name`` as a list of nodes (empty when absent). Raises :class:`ProtoError`."""
        value = self.fields.get(name)
        if value is None:
            return []
        if isinstance(value, Node):
            return [value]
        if not all(isinstance(v, Node) for v in value):
            raise ProtoError(f"{self.where()}: {name} must be nodes")
        return value


# ---------------------------------------------------------------------------------- tokens
_TOKEN = re.compile(r"""
    (?P<space>[\s,]+)
  | (?P<marker>\#@line\ (?P<at>\d+)\n)
  | (?P<comment>\#[^\n]*)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<number>[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?(?![\w.]))
  | (?P<punct>[\[\]{}])
  | (?P<word>[^\s,\[\]{}"\#]+)
""", re.VERBOSE)


@dataclass
class _Token:
    kind: str           # string, number, punct, word
    text: str
    line: int


def _tokens(text: str, file: str) -> list[_Token]:
    """VRML tokens with their source lines (``#@line N`` markers from the template set them)."""
    out, line, pos = [], 1, 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ProtoError(f"{file}:{line}: cannot read {text[pos:pos + 20]!r}")
        kind = m.lastgroup if m.lastgroup != "at" else "marker"
        if kind == "marker":
            line = int(m.group("at"))
        elif kind in ("space", "comment"):
            line += m.group().count("\n")
        else:
            out.append(_Token(kind, m.group(), line))
            line += m.group().count("\n")
        pos = m.end()
    return out


def _unquote(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text[1:-1])


# ---------------------------------------------------------------------------------- templates
_TEMPLATE = re.compile(r"%\{(=?)(.*?)\}%", re.DOTALL)


def _lua_runtime():
    """A Lua 5.4 runtime (lupa) and its module (for its error classes)."""
    import lupa.lua54 as lupa
    return lupa.LuaRuntime(register_eval=False, register_builtins=False, unpack_returned_tuples=True,
                           max_memory=LUA_MEMORY), lupa


_SANDBOX = """
local budget = ...
local hook, compile, env = debug.sethook, load, _ENV
os, io, require, dofile, loadfile, load, package, debug, collectgarbage = nil, nil, nil, nil, nil, nil, nil, nil, nil
hook(function() error("the template runs too long", 2) end, "", budget)
return function(source) return compile(source, "=template", "t", env) end
"""


def _lua_value(lua, value, kind: str):
    """A field value as Webots gives it to templates (seed: Webots' template manual)."""
    if value is None:
        return None
    if kind.startswith("MF"):
        single = "SF" + kind[2:]
        width = {"SFVec3f": 3, "SFColor": 3, "SFRotation": 4, "SFVec2f": 2}.get(single, 1)
        items = value if single == "SFNode" else [value[i:i + width] for i in range(0, len(value), width)]
        return lua.table_from([_lua_value(lua, v, single) for v in items])
    if kind == "SFNode":
        node = value[0] if isinstance(value, list) and value else value
        return lua.table_from({"node_name": node.type}) if isinstance(node, Node) else None
    keys = {"SFVec3f": "xyz", "SFColor": "rgb", "SFVec2f": "xy", "SFRotation": "xyza"}.get(kind)
    if keys:
        return lua.table_from(dict(zip(keys if kind != "SFRotation" else ("x", "y", "z", "a"), value)))
    v = value[0] if isinstance(value, list) and value else value
    if kind == "SFInt32" and isinstance(v, float):
        return int(v)
    return v


def evaluate(template: str, start_line: int, fields: dict[str, tuple[str, object, object]], file: str) -> str:
    """The template's text with its Lua run: ``fields`` maps a name to (type, value, default).
    Text keeps its source lines through ``#@line`` markers. Raises :class:`ProtoError`."""
    if "%{" not in template:
        return f"#@line {start_line}\n{template}"
    lua, lupa_module = _lua_runtime()
    try:
        compile_template = lua.execute(_SANDBOX, LUA_INSTRUCTIONS)
        table = {name: lua.table_from({"value": _lua_value(lua, value, kind),
                                       "defaultValue": _lua_value(lua, default, kind)})
                 for name, (kind, value, default) in fields.items()}
        lua.globals().fields = lua.table_from(table)
        lua.globals().context = lua.table_from({"coordinate_system": "ENU", "webots_version": lua.table_from(
            {"major": "R2022b", "revision": 0})})
    except lupa_module.LuaError as e:                   # pragma: no cover - the sandbox itself
        raise ProtoError(f"{file}: Lua: {e}") from None
    chunks, out, pos = [], [], 0
    for m in _TEMPLATE.finditer(template):
        chunks.append(("text", template[pos:m.start()], pos))
        chunks.append(("expr" if m.group(1) else "code", m.group(2), m.start()))
        pos = m.end()
    chunks.append(("text", template[pos:], pos))
    program, lines = ["local __out = ..."], [start_line]        # Lua line i + 1 comes from lines[i]
    for kind, text, at in chunks:
        line = start_line + template.count("\n", 0, at)
        if kind == "text":
            out.append(f"#@line {line}\n{text}")
            code = f"__out({len(out)})"
        else:
            code = f"__out(tostring({text}))" if kind == "expr" else text
        program.append(code)
        lines.extend(line + k for k in range(code.count("\n") + 1))
    pieces: list[str] = []

    def emit(value):
        pieces.append(out[value - 1] if isinstance(value, int) else str(value))

    def failed(message: str) -> ProtoError:
        m = re.match(r"template:(\d+): (.*)", message)
        line = lines[min(int(m.group(1)), len(lines)) - 1] if m else start_line
        return ProtoError(f"{file}:{line}: template: {m.group(2) if m else message}")
    try:
        compiled = compile_template("\n".join(program))
        function, problem = compiled if isinstance(compiled, tuple) else (compiled, None)
        if function is None:
            raise failed(str(problem))
        function(emit)
    except lupa_module.LuaError as e:
        raise failed(str(e).splitlines()[0]) from None
    except lupa_module.LuaMemoryError:
        raise ProtoError(f"{file}:{start_line}: template: uses more than {LUA_MEMORY >> 20} MB") from None
    return "".join(pieces)


# ---------------------------------------------------------------------------------- PROTO files
_HEADER = re.compile(r"^\s*EXTERNPROTO\s+\"([^\"]+)\"", re.MULTILINE)
_FIELD_KINDS = {"field", "vrmlField", "hiddenField", "deprecatedField", "unconnectedField"}
_WIDTH = {"SFVec3f": 3, "SFColor": 3, "SFRotation": 4, "SFVec2f": 2, "SFFloat": 1, "SFInt32": 1, "SFBool": 1,
          "SFString": 1}


@dataclass
class Proto:
    """A PROTO file read: its ``name``, interface ``fields`` (name -> (type, default value)), the
    template ``body`` starting at ``body_line``, and the PROTOs it names (name -> path or URL)."""

    name: str
    file: Path
    fields: dict[str, tuple[str, object]]
    body: str
    body_line: int
    externs: dict[str, str]


class _Parser:
    """VRML values over a token list; PROTO instances expanded through ``library``."""

    def __init__(self, tokens: list[_Token], file: str, library: ProtoLibrary | None = None,
                 scope: dict[str, object] | None = None):
        self.tokens, self.pos, self.file = tokens, 0, file
        self.library, self.scope = library, scope or {}
        self.defs: dict[str, Node] = {}

    def peek(self, ahead: int = 0) -> _Token | None:
        i = self.pos + ahead
        return self.tokens[i] if i < len(self.tokens) else None

    def take(self) -> _Token:
        token = self.peek()
        if token is None:
            last = self.tokens[-1].line if self.tokens else 1
            raise ProtoError(f"{self.file}:{last}: the file ends inside a node")
        self.pos += 1
        return token

    def expect(self, text: str) -> _Token:
        token = self.take()
        if token.text != text:
            raise ProtoError(f"{self.file}:{token.line}: {text!r} expected, not {token.text!r}")
        return token

    def value(self, depth: int, kind: str | None = None):
        """One field value: IS, NULL, a node, a [list], or scalars (as many as ``kind`` has,
        else all up to the next field name)."""
        token = self.peek()
        if token is None:
            raise ProtoError(f"{self.file}: the file ends where a value was expected")
        if token.text == "IS":
            self.take()
            name = self.take()
            if name.text not in self.scope:
                raise ProtoError(f"{self.file}:{name.line}: IS {name.text}: no such field in the PROTO")
            return self.scope[name.text]
        if token.text == "NULL":
            self.take()
            return None
        if token.text == "[":
            self.take()
            items = []
            while (t := self.peek()) is not None and t.text != "]":
                if t.kind == "word" and t.text not in ("TRUE", "FALSE"):
                    items.append(self.node(depth + 1))
                else:
                    items.append(self.scalar())
            self.expect("]")
            return items
        if token.kind == "word" and token.text not in ("TRUE", "FALSE"):
            return self.node(depth + 1)
        count = _WIDTH.get(kind or "", None)
        values = []
        while (t := self.peek()) is not None and (t.kind in ("number", "string") or t.text in ("TRUE", "FALSE")):
            values.append(self.scalar())
            if count is not None and len(values) == count:
                break
        return values

    def scalar(self):
        token = self.take()
        if token.kind == "number":
            return float(token.text)
        if token.kind == "string":
            return _unquote(token.text)
        if token.text in ("TRUE", "FALSE"):
            return token.text == "TRUE"
        raise ProtoError(f"{self.file}:{token.line}: a value expected, not {token.text!r}")

    def node(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise ProtoError(f"{self.file}:{self.peek().line}: nodes nested more than {MAX_DEPTH} deep")
        token = self.take()
        if token.text == "USE":
            name = self.take()
            if name.text not in self.defs:
                raise ProtoError(f"{self.file}:{name.line}: USE {name.text}: no DEF {name.text} before it")
            return self.defs[name.text]
        def_name = None
        if token.text == "DEF":
            def_name = self.take().text
            token = self.take()
        if token.kind != "word":
            raise ProtoError(f"{self.file}:{token.line}: a node expected, not {token.text!r}")
        self.expect("{")
        node = Node(token.text, {}, self.file, token.line, def_name)
        while (t := self.peek()) is not None and t.text != "}":
            name = self.take()
            if name.kind != "word":
                raise ProtoError(f"{self.file}:{name.line}: {token.text}: a field name expected, not {name.text!r}")
            node.fields[name.text] = self.value(depth)
        self.expect("}")
        if self.library is not None and node.type in self.library.names(self.file):
            node = self.library.instantiate(node, self.file, depth)
            node.def_name = def_name
        if def_name is not None:
            self.defs[def_name] = node
        return node


def read_proto(path: Path) -> Proto:
    """Read a PROTO file's header, interface and template (not evaluated). Raises
    :class:`ProtoError`."""
    try:
        text = read_text(path, "a PROTO file", MAX_PROTO_BYTES)
    except TextFileError as e:
        raise ProtoError(str(e)) from None
    externs = {}
    for m in _HEADER.finditer(text):
        target = m.group(1)
        externs[Path(target.split("/")[-1]).stem] = target
    m = re.search(r"^\s*PROTO\s+(\S+)\s*\[", text, re.MULTILINE)
    if m is None:
        raise ProtoError(f"{path}:1: no PROTO declaration")
    name, start = m.group(1), m.end()
    depth, pos = 1, start                       # the interface: up to the matching ']'
    for token in _TOKEN.finditer(text, start):
        if token.group() == "[":
            depth += 1
        elif token.group() == "]":
            depth -= 1
            if depth == 0:
                pos = token.end()
                break
    else:
        raise ProtoError(f"{path}:{text.count(chr(10), 0, start) + 1}: PROTO {name}: the interface has no end")
    interface_line = text.count("\n", 0, start) + 1
    tokens = _tokens(f"#@line {interface_line}\n" + text[start:pos - 1], str(path))
    parser = _Parser(tokens, str(path))
    fields: dict[str, tuple[str, object]] = {}
    while parser.peek() is not None:
        word = parser.take()
        if word.text not in _FIELD_KINDS:
            raise ProtoError(f"{path}:{word.line}: PROTO {name}: 'field' expected, not {word.text!r}")
        kind, field_name = parser.take().text, parser.take().text
        if parser.peek() is not None and parser.peek().text == "{":     # a list of allowed values
            while parser.take().text != "}":
                pass
        fields[field_name] = (kind, parser.value(0, kind))
    open_brace = text.index("{", pos)
    close_brace = text.rindex("}")
    return Proto(name, path, fields, text[open_brace + 1:close_brace], text.count("\n", 0, open_brace) + 1, externs)


class ProtoLibrary:
    """The PROTO files a robot uses, read once: a PROTO named in a file's EXTERNPROTO is found
    beside it (relative paths); Webots' own library PROTOs (URLs) stand for their built-in
    node (:data:`LIBRARY`) or are left out (appearances)."""

    def __init__(self):
        self._protos: dict[Path, Proto] = {}
        self.files: list[Path] = []

    def load(self, path: Path) -> Proto:
        """The PROTO file ``path``, read once (at most MAX_PROTO_FILES). Raises :class:`ProtoError`."""
        path = path.resolve()
        if path not in self._protos:
            if len(self._protos) >= MAX_PROTO_FILES:
                raise ProtoError(f"{path}: more than {MAX_PROTO_FILES} PROTO files")
            self._protos[path] = read_proto(path)
            self.files.append(path)
        return self._protos[path]

    def names(self, file: str) -> dict[str, str]:
        """The PROTOs ``file`` names in its EXTERNPROTO lines (name -> path or URL)."""
        proto = self._protos.get(Path(file).resolve())
        return proto.externs if proto is not None else {}

    def instantiate(self, node: Node, file: str, depth: int) -> Node:
        """The node a PROTO instance ``node`` (written in ``file``) stands for."""
        target = self.names(file)[node.type]
        if "://" in target:
            if node.type in LIBRARY:
                return Node(LIBRARY[node.type], node.fields, node.file, node.line)
            if node.type in LIBRARY_APPEARANCES:
                return Node("Appearance", {}, node.file, node.line)
            raise ProtoError(f"{node.where()}: the PROTO comes from {target}, which is not available here "
                             f"(known library PROTOs: {', '.join(sorted(LIBRARY))})")
        path = Path(file).parent / target
        if not path.is_file():
            raise ProtoError(f"{node.where()}: EXTERNPROTO {target}: no such file beside {Path(file).name}")
        return self.expand(self.load(path), node.fields, depth, node)

    def expand(self, proto: Proto, arguments: dict[str, object], depth: int = 0, at: Node | None = None) -> Node:
        """The built-in node tree ``proto`` gives with ``arguments`` for its fields."""
        for name in arguments:
            if name not in proto.fields:
                where = at.where() if at is not None else str(proto.file)
                raise ProtoError(f"{where}: PROTO {proto.name} has no field {name!r}")
        values = {name: arguments.get(name, default) for name, (kind, default) in proto.fields.items()}
        lua_fields = {name: (kind, values[name], default) for name, (kind, default) in proto.fields.items()}
        text = evaluate(proto.body, proto.body_line, lua_fields, str(proto.file))
        parser = _Parser(_tokens(text, str(proto.file)), str(proto.file), self, values)
        node = parser.node(depth)
        if parser.peek() is not None:
            raise ProtoError(f"{proto.file}:{parser.peek().line}: PROTO {proto.name}: text after its node")
        return node


def load_robot(path: str | Path) -> tuple[Node, list[Path]]:
    """The built-in node tree of the PROTO file ``path`` with its default field values, and every
    PROTO file it read. Raises :class:`ProtoError`."""
    library = ProtoLibrary()
    proto = library.load(Path(path))
    return library.expand(proto, {}), list(library.files)
