"""render_scalar's fast path for plain words (no YAML parse) gives the same answer as
rendering the value plain, parsing it back and comparing (the general path)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vault_sync.fmblock import load_yaml
from vault_sync.scalars import _parsed_plain_ok, _plain_ok, render_scalar

WORDS = [
    "mem-1",
    "infra",
    "active",
    "3f2a1b9c-1d2e-4f00-9a7b-0c1d2e3f4a5b",
    "yes",
    "No",
    "ON",
    "y",
    "Y",
    "null",
    "Null",
    "NULL",
    "true",
    "False",
    "2026-01-01",
    "2026-1-1",
    "12",
    "012",
    "0x1f",
    "0b101",
    "0o17",
    "1_000",
    "1.5",
    "1e5",
    "1.0e+5",
    "NaN",
    ".inf",
    "190:20:30",
    "_",
    "a/b",
    "a.b.c",
    "x-",
    "-x",
    "1-2",
    "0",
    "00",
    "2026-01-01T10:00:00Z",
    "people/ann-smith",
    "~",
    "<<",
    "=",
]


@pytest.mark.parametrize("flow", [False, True])
@pytest.mark.parametrize("word", WORDS)
def test_fast_path_agrees_with_a_parse(word, flow):
    assert _plain_ok(word, flow) == _parsed_plain_ok(word, flow)
    text = render_scalar(word, flow=flow)
    assert load_yaml(f"k: [{text}]" if flow else f"k: {text}")["k"] == ([word] if flow else word)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="aeyYnNoOtTruFlsx0123456789_.-/+:eE", min_size=1, max_size=12), st.booleans())
def test_fast_path_agrees_on_generated_words(word, flow):
    assert _plain_ok(word, flow) == _parsed_plain_ok(word, flow)
