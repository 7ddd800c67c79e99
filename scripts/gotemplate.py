"""A small, strict subset of Go text/template with the Helm/Sprig functions the daily-values-worker chart uses.

It exists because neither `helm` nor Go is available where the checks run. It is NOT Helm: it implements what the
chart needs, and it is stricter than Helm where that catches template bugs earlier:

- actions `{{ }}` with `{{-`/`-}}` trimming and `{{/* comments */}}`;
- `if`/`else if`/`else`, `range` (lists and maps, `$i, $v :=` / `$v :=`, maps iterate in sorted key order),
  `with`/`else`, `define`, `end`; variables `$x := …`, `$x = …`, `$` (the root of the current template);
- pipelines `a | f b`, parenthesised sub-pipelines, string/number/bool/nil literals, field chains on `.`/`$x`;
- functions: include required fail default quote toYaml nindent indent trunc trimSuffix replace upper lower printf
  contains eq ne lt le gt ge and or not empty int add toString ternary dir.

Strictness: reading a missing key below `.Values` raises (every value a template reads must exist in values.yaml);
`printf` checks verb/argument types (`%d` needs an int, `%s` a string); comparisons need operands of one kind.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

import yaml


class TemplateError(Exception):
    """A template that cannot be parsed or evaluated (a bug in the chart or beyond this subset)."""


class TemplateFail(Exception):
    """Raised by `fail` and `required`: the chart rejected its values (what `helm template` reports as an error)."""


# MARK: - Lexing


_ACTION = re.compile(r"\{\{(-\s)?(.*?)(\s-)?\}\}", re.S)
_TOKEN = re.compile(
    r"""\s*(?:
        (?P<string>"(?:\\.|[^"\\])*")
      | (?P<raw>`[^`]*`)
      | (?P<number>-?\d+(?:\.\d+)?)
      | (?P<variable>\$[A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)
      | (?P<field>(?:\.[A-Za-z_][A-Za-z0-9_]*)+|\.)
      | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<punct>:=|=|\||\(|\)|,)
    )""",
    re.X,
)


def _lex(source: str) -> list[tuple[str, str]]:
    """Splits a template into ("text", s) and ("action", body) items, applying the trim markers."""
    items: list[tuple[str, str]] = []
    position = 0
    trim_next = False
    for match in _ACTION.finditer(source):
        text = source[position : match.start()]
        if trim_next:
            text = text.lstrip()
        if match.group(1):
            text = text.rstrip()
        items.append(("text", text))
        body = match.group(2).strip()
        if not (body.startswith("/*") and body.endswith("*/")):
            items.append(("action", body))
        trim_next = bool(match.group(3))
        position = match.end()
    tail = source[position:]
    items.append(("text", tail.lstrip() if trim_next else tail))
    return items


def _tokens(body: str) -> list[tuple[str, str]]:
    result: list[tuple[str, str]] = []
    position = 0
    while position < len(body):
        if body[position:].strip() == "":
            break
        match = _TOKEN.match(body, position)
        if not match or match.end() == position:
            raise TemplateError(f"cannot tokenize {body!r} at {body[position:]!r}")
        kind = match.lastgroup or ""
        result.append((kind, match.group(kind)))
        position = match.end()
    return result


# MARK: - Parse tree


@dataclass
class Pipeline:
    declare: list[str]
    assign: bool  # `=` rather than `:=`
    commands: list[list[Any]]  # each command: list of operands (token tuples or nested Pipelines)


@dataclass
class Node:
    kind: str  # text | action | if | range | with
    text: str = ""
    pipeline: Pipeline | None = None
    body: list[Node] = field(default_factory=list)
    branches: list[tuple[Pipeline, list[Node]]] = field(default_factory=list)  # if / else if
    otherwise: list[Node] = field(default_factory=list)
    in_else: bool = False  # parsing state: the next nodes belong to `otherwise`


def _parse_pipeline(tokens: list[tuple[str, str]]) -> Pipeline:
    declare: list[str] = []
    assign = False
    punct = [i for i, t in enumerate(tokens) if t[0] == "punct" and t[1] in (":=", "=")]
    if punct and all(t[0] in ("variable", "punct") for t in tokens[: punct[0]]):
        declare = [t[1] for t in tokens[: punct[0]] if t[0] == "variable"]
        assign = tokens[punct[0]][1] == "="
        tokens = tokens[punct[0] + 1 :]
    commands: list[list[Any]] = [[]]
    index = 0
    while index < len(tokens):
        kind, value = tokens[index]
        if kind == "punct" and value == "|":
            commands.append([])
        elif kind == "punct" and value == "(":
            depth, end = 1, index
            while depth:
                end += 1
                if end >= len(tokens):
                    raise TemplateError("unbalanced parenthesis")
                depth += {"(": 1, ")": -1}.get(tokens[end][1], 0) if tokens[end][0] == "punct" else 0
            commands[-1].append(_parse_pipeline(tokens[index + 1 : end]))
            index = end
        else:
            commands[-1].append((kind, value))
        index += 1
    if any(not command for command in commands):
        raise TemplateError("empty command in pipeline")
    return Pipeline(declare, assign, commands)


def parse(source: str, defines: dict[str, list[Node]]) -> list[Node]:
    """Parses a template; `define` blocks are added to `defines` and removed from the returned tree."""
    items = _lex(source)
    root: list[Node] = []
    stack: list[tuple[str, Any]] = [("root", root)]

    def current() -> list[Node]:
        kind, frame = stack[-1]
        if kind in ("root", "define"):
            return frame if kind == "root" else frame[1]
        node: Node = frame
        if node.in_else:
            return node.otherwise
        return node.branches[-1][1] if node.kind == "if" else node.body

    for kind, value in items:
        if kind == "text":
            if value:
                current().append(Node("text", text=value))
            continue
        keyword, _, rest = value.partition(" ")
        rest = rest.strip()
        if keyword == "define":
            name = rest.strip('"')
            stack.append(("define", (name, [])))
        elif keyword in ("if", "range", "with"):
            node = Node(keyword)
            if keyword == "if":
                node.branches.append((_parse_pipeline(_tokens(rest)), []))
            else:
                node.pipeline = _parse_pipeline(_tokens(rest))
            current().append(node)
            stack.append(("block", node))
        elif keyword == "else":
            block = stack[-1][1]
            if stack[-1][0] != "block" or block.in_else:
                raise TemplateError("unexpected else")
            if rest.startswith("if ") and block.kind == "if":
                block.branches.append((_parse_pipeline(_tokens(rest[3:])), []))
            else:
                block.in_else = True
        elif keyword == "end":
            if len(stack) == 1:
                raise TemplateError("unexpected end")
            frame_kind, frame = stack.pop()
            if frame_kind == "define":
                defines[frame[0]] = frame[1]
        elif keyword in ("template", "block", "break", "continue"):
            raise TemplateError(f"`{keyword}` is outside this subset")
        else:
            current().append(Node("action", pipeline=_parse_pipeline(_tokens(value))))
    if len(stack) != 1:
        raise TemplateError("missing end")
    return root


# MARK: - Values and formatting


def truthy(value: Any) -> bool:
    """Go template truth: false, 0, nil and empty strings, lists and maps are false."""
    if value is None or value is False:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value != 0
    if isinstance(value, (str, list, dict, tuple)):
        return len(value) > 0
    return True


def format_value(value: Any) -> str:
    """How `{{ value }}` prints: Helm replaces a missing value (`<no value>`) with the empty string."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, (int, str)):
        return str(value)
    raise TemplateError(f"refusing to print a {type(value).__name__} ({value!r}); use toYaml")


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "nil"
    raise TemplateError(f"cannot compare a {type(value).__name__}")


def _same_kind(a: Any, b: Any, function: str) -> None:
    if _kind(a) != _kind(b):
        raise TemplateError(f"{function}: incompatible types for comparison: {_kind(a)} and {_kind(b)}")


def _to_int(value: Any) -> int:
    """Sprig `int` (cast.ToInt): numbers truncate, numeric strings parse, anything else is 0."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip(), 0) if value.strip() else 0
        except ValueError:
            return 0
    return 0


def _printf(pattern: str, *args: Any) -> str:
    values = list(args)
    out: list[str] = []

    def verb(match: re.Match[str]) -> str:
        letter = match.group(1)
        if letter == "%":
            return "%"
        if not values:
            raise TemplateError(f"printf {pattern!r}: missing argument for %{letter}")
        value = values.pop(0)
        if letter == "s":
            if not isinstance(value, str):
                raise TemplateError(f"printf {pattern!r}: %s got a {_kind(value)} ({value!r})")
            return value
        if letter == "d":
            if _kind(value) != "int":
                raise TemplateError(f"printf {pattern!r}: %d got a {_kind(value)} ({value!r})")
            return str(value)
        if letter == "q":
            return _go_quote(format_value(value))
        return format_value(value)  # %v

    out.append(re.sub(r"%([sdvq%])", verb, pattern))
    if values:
        raise TemplateError(f"printf {pattern!r}: {len(values)} extra argument(s)")
    return "".join(out)


def _go_quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def _to_yaml(value: Any) -> str:
    return yaml.safe_dump(value, default_flow_style=False, sort_keys=True, allow_unicode=True, width=4096).rstrip("\n")


def _indent(width: int, text: str) -> str:
    pad = " " * width
    return pad + text.replace("\n", "\n" + pad)


def _required(message: str, value: Any) -> Any:
    if value is None or value == "":
        raise TemplateFail(message)
    return value


def _fail(message: str) -> Any:
    raise TemplateFail(message)


def _compare(name: str, test: Any) -> Any:
    def compare(a: Any, b: Any) -> bool:
        _same_kind(a, b, name)
        if _kind(a) in ("bool", "nil"):
            raise TemplateError(f"{name}: invalid type for comparison: {_kind(a)}")
        return bool(test(a, b))

    return compare


def _eq(first: Any, *others: Any) -> bool:
    if not others:
        raise TemplateError("eq: missing argument for comparison")
    for other in others:
        _same_kind(first, other, "eq")
    return any(first == other for other in others)


def _and(*args: Any) -> Any:
    for arg in args:
        if not truthy(arg):
            return arg
    return args[-1]


def _or(*args: Any) -> Any:
    for arg in args:
        if truthy(arg):
            return arg
    return args[-1]


FUNCTIONS: dict[str, Any] = {
    "required": _required,
    "fail": _fail,
    "default": lambda default, *given: given[0] if given and truthy(given[0]) else default,
    "quote": lambda *args: " ".join(_go_quote(format_value(a)) for a in args if a is not None),
    "toYaml": _to_yaml,
    "indent": _indent,
    "nindent": lambda width, text: "\n" + _indent(width, text),
    "trunc": lambda length, text: text[:length] if length >= 0 else text[length:],
    "trimSuffix": lambda suffix, text: text[: -len(suffix)] if suffix and text.endswith(suffix) else text,
    "replace": lambda old, new, text: text.replace(old, new),
    "upper": lambda text: text.upper(),
    "lower": lambda text: text.lower(),
    "printf": _printf,
    "contains": lambda substring, text: substring in text,
    "eq": _eq,
    "ne": lambda a, b: not _eq(a, b),
    "lt": _compare("lt", lambda a, b: a < b),
    "le": _compare("le", lambda a, b: a <= b),
    "gt": _compare("gt", lambda a, b: a > b),
    "ge": _compare("ge", lambda a, b: a >= b),
    "and": _and,
    "or": _or,
    "not": lambda value: not truthy(value),
    "empty": lambda value: not truthy(value),
    "int": _to_int,
    "add": lambda *values: sum(_to_int(v) for v in values),
    "toString": lambda value: "<nil>" if value is None else format_value(value),
    "ternary": lambda if_true, if_false, condition: if_true if condition else if_false,
    "dir": posixpath.dirname,
}


# MARK: - Evaluation


class Renderer:
    """Renders parsed templates. `defines` holds every `define` of the chart (shared by all files, as in Helm)."""

    def __init__(self, defines: dict[str, list[Node]]) -> None:
        self.defines = defines

    def render(self, nodes: list[Node], dot: Any) -> str:
        return self._nodes(nodes, dot, [{"$": dot}])

    # Nodes

    def _nodes(self, nodes: list[Node], dot: Any, scopes: list[dict[str, Any]]) -> str:
        out: list[str] = []
        for node in nodes:
            if node.kind == "text":
                out.append(node.text)
            elif node.kind == "action":
                assert node.pipeline is not None
                value = self._pipeline(node.pipeline, dot, scopes)
                if not node.pipeline.declare:
                    out.append(format_value(value))
            elif node.kind == "if":
                for condition, body in node.branches:
                    if truthy(self._pipeline(condition, dot, scopes)):
                        out.append(self._nodes(body, dot, scopes + [{}]))
                        break
                else:
                    out.append(self._nodes(node.otherwise, dot, scopes + [{}]))
            elif node.kind == "with":
                assert node.pipeline is not None
                inner = scopes + [{}]
                value = self._pipeline(node.pipeline, dot, inner)
                out.append(
                    self._nodes(node.body, value, inner)
                    if truthy(value)
                    else self._nodes(node.otherwise, dot, scopes + [{}])
                )
            elif node.kind == "range":
                out.append(self._range(node, dot, scopes))
        return "".join(out)

    def _range(self, node: Node, dot: Any, scopes: list[dict[str, Any]]) -> str:
        assert node.pipeline is not None
        names = node.pipeline.declare
        bare = Pipeline([], False, node.pipeline.commands)
        collection = self._pipeline(bare, dot, scopes)
        if isinstance(collection, dict):
            pairs = [(key, collection[key]) for key in sorted(collection)]
        elif isinstance(collection, list):
            pairs = list(enumerate(collection))
        elif collection is None:
            pairs = []
        else:
            raise TemplateError(f"range over a {type(collection).__name__}")
        if not pairs:
            return self._nodes(node.otherwise, dot, scopes + [{}])
        out: list[str] = []
        for key, element in pairs:
            scope: dict[str, Any] = {}
            if len(names) == 2:
                scope[names[0]], scope[names[1]] = key, element
            elif len(names) == 1:
                scope[names[0]] = element
            out.append(self._nodes(node.body, element, scopes + [scope]))
        return "".join(out)

    # Pipelines

    def _pipeline(self, pipeline: Pipeline, dot: Any, scopes: list[dict[str, Any]]) -> Any:
        value: Any = None
        for index, command in enumerate(pipeline.commands):
            value = self._command(command, dot, scopes, piped=(value,) if index else ())
        for name in pipeline.declare:
            if pipeline.assign:
                target = next((scope for scope in reversed(scopes) if name in scope), None)
                if target is None:
                    raise TemplateError(f"undefined variable {name}")
                target[name] = value
            else:
                scopes[-1][name] = value
        return value

    def _command(self, command: list[Any], dot: Any, scopes: list[dict[str, Any]], piped: tuple[Any, ...]) -> Any:
        head = command[0]
        if isinstance(head, tuple) and head[0] == "ident" and head[1] not in ("true", "false", "nil"):
            args = [self._operand(operand, dot, scopes) for operand in command[1:]] + list(piped)
            return self._call(head[1], args, dot)
        if len(command) > 1 or piped:
            raise TemplateError(f"can't give arguments to a non-function: {command!r}")
        return self._operand(head, dot, scopes)

    def _call(self, name: str, args: list[Any], dot: Any) -> Any:
        if name == "include":
            if len(args) != 2 or args[0] not in self.defines:
                raise TemplateError(f"include: no template {args[0]!r}" if args else "include: missing name")
            return self.render(self.defines[args[0]], args[1])
        function = FUNCTIONS.get(name)
        if function is None:
            raise TemplateError(f"function {name!r} is outside this subset")
        try:
            return function(*args)
        except TypeError as error:
            raise TemplateError(f"{name}: {error}") from error

    def _operand(self, operand: Any, dot: Any, scopes: list[dict[str, Any]]) -> Any:
        if isinstance(operand, Pipeline):
            return self._pipeline(operand, dot, scopes)
        kind, text = operand
        if kind == "string":
            return bytes(text[1:-1], "utf-8").decode("unicode_escape")
        if kind == "raw":
            return text[1:-1]
        if kind == "number":
            return float(text) if "." in text else int(text)
        if kind == "ident":
            return {"true": True, "false": False, "nil": None}[text]
        if kind == "field":
            return self._fields(dot, text, "")
        if kind == "variable":
            name, _, rest = text.partition(".")
            for scope in reversed(scopes):
                if name in scope:
                    return self._fields(scope[name], "." + rest if rest else "", name)
            raise TemplateError(f"undefined variable {name}")
        raise TemplateError(f"unexpected {kind} {text!r}")

    @staticmethod
    def _fields(value: Any, chain: str, origin: str) -> Any:
        path = origin
        for name in [part for part in chain.split(".") if part]:
            path += "." + name
            if not isinstance(value, dict):
                raise TemplateError(f"can't evaluate field {name} in {path} (a {type(value).__name__})")
            if name not in value:
                raise TemplateError(f"{path} does not exist (every value a template reads must be in values.yaml)")
            value = value[name]
        return value
