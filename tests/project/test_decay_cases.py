"""The plugin's golden decay cases (obsidian-plugin/tests/core/decay-cases.json) are what the
engine computes now: change a formula or a default and this fails until they are written
again (`python tests/decay_cases.py --write`), and the plugin's tests then check its own
copy of the formulas against them."""

from __future__ import annotations

import json

from decay_cases import CASES, render


def test_the_plugins_golden_decay_cases_are_the_engines():
    assert CASES.read_text(encoding="utf-8") == render(), "run: python tests/decay_cases.py --write"


def test_the_cases_reach_every_model_and_each_due_date_kind():
    data = json.loads(render())
    assert {p["scoring"]["decay_model"] for p in data["profiles"]} == {"power_law", "exponential", "two_component"}
    dues = [d for p in data["profiles"] for d in p["due"]]
    assert any(d["review_s"] and d["review_s"] > 0 for d in dues)  # a memory that will reach review
    assert any(d["review_s"] == 0 for d in dues)  # one that starts in it or below
    assert any(d["archive_s"] and d["archive_s"] > d["review_s"] for d in dues)
