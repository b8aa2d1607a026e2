"""Locating the frontmatter block in a note's raw text, byte-exact, and loading it safely."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

if TYPE_CHECKING:  # both loaders share the Resolver/SafeConstructor interface used here
    _Base = yaml.CSafeLoader
else:
    try:
        _Base = yaml.CSafeLoader
    except AttributeError:  # pragma: no cover - LibYAML missing
        _Base = yaml.SafeLoader

BOM = "\ufeff"
_CLOSE = re.compile(r"^---[ \t]*\r?$", re.M)  # Obsidian closes properties with '---' only, never '...'
_OPEN = re.compile(r"---[ \t]*(\r?\n|\r?$)")

MAX_YAML_CHARS = 65536  # a frontmatter block larger than this is not read
MAX_YAML_NODES = 20000  # values after expanding aliases (a YAML bomb expands to billions)
MAX_YAML_DEPTH = 64  # nesting of lists and maps
_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_NULL = "tag:yaml.org,2002:null"
_SIMPLE_FLOAT = re.compile(r"-?[0-9]+\.[0-9]+\Z")
_RISKY = re.compile(r"[*?]|-[ \t]+-")  # aliases, complex keys, nested "- -" sequences


@dataclass(frozen=True)
class Block:
    """Offsets into the text (after any BOM was removed by the caller)."""

    yaml_start: int  # first char of the YAML (after the opening '---' line)
    yaml_end: int  # first char of the closing '---' line
    body_start: int  # first char after the closing line's newline
    newline: str


class UnclosedFrontmatter(ValueError):
    pass


class YamlProblem(ValueError):
    """The frontmatter cannot be read; the message is the cause, for a person."""


def detect_newline(text: str) -> str:
    i = text.find("\n")
    return "\r\n" if i > 0 and text[i - 1] == "\r" else "\n"


def find_block(text: str) -> Block | None:
    """The frontmatter block, None when the note has none; raises when it never closes."""
    if not text.startswith("---"):
        return None
    m = _OPEN.match(text)
    if m is None:
        return None
    if not m.group(1):
        raise UnclosedFrontmatter("frontmatter block never closes")
    newline = "\r\n" if m.group(1) == "\r\n" else "\n"
    start = m.end()
    close = _CLOSE.search(text, start)
    if close is None:
        raise UnclosedFrontmatter("frontmatter block never closes")
    nl = text.find("\n", close.start())
    body = nl + 1 if nl >= 0 else len(text)
    return Block(start, close.start(), body, newline)


class _Loader(_Base):
    """CSafeLoader with a memo for resolving plain scalars (keys and common values repeat)."""

    _memo: dict[str, str] = {}

    def resolve(self, kind: type[Node], value: Any, implicit: Any) -> str:
        # value: the scalar's text (None for collections); implicit: (plain, quoted) for
        # scalars, a single bool for collections
        if kind is ScalarNode and implicit[0]:
            tag = self._memo.get(value)
            if tag is None:
                tag = self._resolve(kind, value, implicit)
                if len(value) < 64:
                    if len(self._memo) > 20000:
                        self._memo.clear()
                    self._memo[value] = tag
            return tag
        return self._resolve(kind, value, implicit)

    def _resolve(self, kind: type[Node], value: Any, implicit: Any) -> str:
        # types-PyYAML leaves Resolver.resolve unannotated; it returns the tag string
        tag: str = super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]
        return tag

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        # the common scalars without PyYAML's generic machinery; same results (tested
        # against plain CSafeLoader), anything unusual goes the standard way
        if node.__class__ is ScalarNode:
            tag = node.tag
            if tag == _STR:
                return node.value
            value = node.value
            if tag == _INT and value.isascii() and value.isdigit() and (value[0] != "0" or value == "0"):
                return int(value)
            if tag == _FLOAT and _SIMPLE_FLOAT.match(value):
                return float(value)
            if tag == _NULL:
                return None
        return super().construct_object(node, deep)


def _check_graph(root: Node) -> None:
    """Refuse YAML bombs (aliases expanding exponentially), cycles and deep nesting."""
    sizes: dict[int, int] = {}
    depths: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            children = _children(node)
            sizes[key] = 1 + sum(sizes[id(c)] for c in children)
            depths[key] = 1 + max((depths[id(c)] for c in children), default=0)
            if sizes[key] > MAX_YAML_NODES:
                raise YamlProblem("frontmatter expands to too many values (YAML aliases: possible YAML bomb)")
            if depths[key] > MAX_YAML_DEPTH:
                raise YamlProblem(f"frontmatter nested too deeply (more than {MAX_YAML_DEPTH} levels)")
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise YamlProblem("frontmatter refers to itself (recursive YAML alias)")
        on_path.add(key)
        stack.append((node, True))
        if len(on_path) > MAX_YAML_DEPTH:
            raise YamlProblem(f"frontmatter nested too deeply (more than {MAX_YAML_DEPTH} levels)")
        for child in _children(node):
            if id(child) not in sizes:
                stack.append((child, False))


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        items: list[Node] = node.value
        return items
    if isinstance(node, MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _cause(exc: Exception) -> str:
    mark = getattr(exc, "problem_mark", None)
    where = f" at line {mark.line + 2}" if mark is not None else ""  # +1 for the '---' line
    lines = str(exc).splitlines()
    what = getattr(exc, "problem", None) or (lines[0] if lines else type(exc).__name__)
    return f"malformed YAML frontmatter{where}: {what}"


def load_frontmatter(yaml_text: str) -> tuple[Any, list[str]]:
    """(data, duplicate top-level keys) of a frontmatter block; raises YamlProblem."""
    if len(yaml_text) > MAX_YAML_CHARS:
        raise YamlProblem(f"frontmatter too large ({len(yaml_text)} characters)")
    loader = _Loader(yaml_text)
    try:
        try:
            node = loader.get_single_node()
        except RecursionError:
            raise YamlProblem("frontmatter nested too deeply") from None
        except yaml.YAMLError as exc:
            raise YamlProblem(_cause(exc)) from None
        if node is None:
            return None, []
        dupes: list[str] = []
        if isinstance(node, MappingNode):
            seen: set[tuple[str, str]] = set()
            for k, _ in node.value:
                if isinstance(k, ScalarNode):
                    if (k.tag, k.value) in seen and k.value not in dupes:
                        dupes.append(k.value)
                    seen.add((k.tag, k.value))
        if _RISKY.search(yaml_text) or yaml_text.count("[") + yaml_text.count("{") > 32 or len(yaml_text) > 2048:
            _check_graph(node)
        try:
            data = loader.construct_document(node)
        except RecursionError:
            raise YamlProblem("frontmatter nested too deeply") from None
        except yaml.YAMLError as exc:
            raise YamlProblem(_cause(exc)) from None
        except (ValueError, OverflowError, TypeError) as exc:  # e.g. a date 2026-02-30
            raise YamlProblem(f"malformed YAML frontmatter: {exc}") from None
        return data, dupes
    finally:
        loader.dispose()


def load_yaml(yaml_text: str) -> Any:
    """The frontmatter's data (LibYAML, safe); raises YamlProblem with a readable cause."""
    return load_frontmatter(yaml_text)[0]
