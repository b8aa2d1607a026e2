"""Every front end prints and sends strict JSON: a non-finite number (an overflow, a value no
reading clamped) goes out as null, never as `Infinity` or `NaN` (which no strict parser takes)."""

from __future__ import annotations

import json

import pytest

from bridge.answers import finite
from bridge.cli_app import emit
from bridge.events import frame
from bridge.http_app import _json

ODD = {"score": float("inf"), "items": [{"priority": float("nan")}, -float("inf")], "kept": 0.5, "n": 3}


def strict(text: str):
    def refuse(name: str):
        raise ValueError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def test_finite_turns_every_non_finite_number_into_null():
    assert finite(ODD) == {"score": None, "items": [{"priority": None}, None], "kept": 0.5, "n": 3}
    assert finite((1.0, float("nan"))) == [1.0, None]


def test_cli_json_output_is_strict(capsys):
    emit(ODD, True, lambda r: None)
    assert strict(capsys.readouterr().out)["score"] is None


def test_http_answer_and_event_stream_are_strict():
    assert strict(_json(ODD).body.decode())["items"] == [{"priority": None}, None]
    data = frame("score_changed", {"score": float("inf")}).split("data: ", 1)[1]
    assert strict(data) == {"score": None}


def test_the_old_way_would_not_have_been_json():
    with pytest.raises(ValueError):
        strict(json.dumps(ODD))
