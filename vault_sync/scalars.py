"""Values as YAML scalars in the frontmatter: plain when they read back as the same text, else
quoted; numbers, booleans and dates in the forms the YAML loader reads back as the same value."""

from __future__ import annotations

import math
import numbers
import re
from datetime import date, datetime
from typing import Any

import yaml
from yaml.nodes import ScalarNode

from .dates import format_datetime
from .fmblock import YamlProblem, load_yaml


def format_float(value: float) -> str:
    value = float(value)
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)
    if "e" in text:  # YAML 1.1 floats need a '.' in the mantissa and a signed exponent
        mantissa, exp = text.split("e")
        if "." not in mantissa:
            mantissa += ".0"
        if exp[0] not in "+-":
            exp = "+" + exp
        text = f"{mantissa}e{exp}"
    return text


def _double_quoted(s: str) -> str:
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif (
            o < 0x20
            or 0x7F <= o <= 0x9F
            or ch in "\u2028\u2029\ufeff"
            or 0xD800 <= o <= 0xDFFF
            or o in (0xFFFE, 0xFFFF)
        ):
            out.append(f"\\u{o:04x}" if o <= 0xFFFF else f"\\U{o:08x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


# A word of letters, digits and . _ - / (an id, a tag, a status) is a valid plain scalar in
# any context; whether it reads back as text is the resolver's answer (yes/null/12/dates are
# not). Saves a YAML parse per value when rendering (an import renders ~10 values per note).
_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./-]*\Z")
_RESOLVER = yaml.resolver.Resolver()  # the one LibYAML's safe loader uses


def _plain_ok(s: str, flow: bool) -> bool:
    # PyYAML's resolver is unannotated
    if _WORD.match(s) and _RESOLVER.resolve(ScalarNode, s, (True, False)) == "tag:yaml.org,2002:str":  # type: ignore[no-untyped-call]
        return True
    return _parsed_plain_ok(s, flow)


def _parsed_plain_ok(s: str, flow: bool) -> bool:
    """The general answer: render it plain, parse it back, compare."""
    if not s or s != s.strip() or "\n" in s or "\r" in s or " #" in s or s.startswith("#"):
        return False
    if _double_quoted(s) != f'"{s}"':
        return False  # control characters and the like need escapes
    doc = f"k: [{s}]" if flow else f"k: {s}"
    try:
        loaded = load_yaml(doc)
    except YamlProblem:
        return False
    want = [s] if flow else s
    return isinstance(loaded, dict) and loaded.get("k") == want


def render_scalar(value: Any, flow: bool = False, quote: str | None = None) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return format_float(float(value))
    if isinstance(value, datetime):
        return format_datetime(value)
    if isinstance(value, date):
        return value.isoformat()
    if value is None:
        return "null"
    s = str(value)
    if quote == "'" and "\n" not in s and _double_quoted(s) == f'"{s}"':
        return "'" + s.replace("'", "''") + "'"
    if quote is None and _plain_ok(s, flow):
        return s
    return _double_quoted(s)
