"""The plugin's decay model checked against the engine's: golden cases computed by the engine's
ageing policy (vault_sync/ageing.py, the one module that combines the decay formulas).

    python tests/decay_cases.py --write    # rewrite obsidian-plugin/tests/core/decay-cases.json

The plugin draws each memory's curve and counts down to its review with its own copy of the
decay formulas (obsidian-plugin/src/core/decay.ts). Its tests read the cases this writes
(tests/core/decay-golden.test.ts), so the card can never disagree with the engine's scores
and due dates; tests/project/test_decay_cases.py fails when the file is not what the engine
gives now.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "obsidian-plugin" / "tests" / "core" / "decay-cases.json"
HOUR, DAY = 3600.0, 86400.0
LAST_USE = datetime(2026, 1, 1, tzinfo=timezone.utc)  # any instant: only the time since it counts

# each model at the defaults, and each with the parameters a person may change moved off them
PROFILES: list[dict[str, Any]] = [
    {"model": "power_law"},
    {"model": "power_law", "half_life_s": 10 * DAY, "pl_alpha": 0.7, "beta": 0.4},
    {"model": "exponential"},
    {"model": "exponential", "half_life_s": 36 * HOUR, "beta": 0.9},
    {"model": "two_component"},
    {"model": "two_component", "tc_weight_fast": 0.4, "tc_fast_half_life_s": 6 * HOUR, "tc_slow_half_life_s": 21 * DAY},
    {"model": "power_law", "danger_zone_min": 0.2, "danger_zone_max": 0.5, "forget_threshold": 0.1},
]
MEMORIES = [(0, 1.0), (1, 1.0), (1, 0.5), (3, 1.0), (6, 1.5), (12, 2.0)]
AGES_S = [0.0, HOUR, 12 * HOUR, DAY, 3 * DAY, 7 * DAY, 30 * DAY, 180 * DAY]


def cases() -> dict[str, Any]:
    from vault_sync.ageing import Facts, age
    from vault_sync.scoring import ScoringParams, decay_factor

    out = []
    for profile in PROFILES:
        p = replace(ScoringParams(), **profile)
        rows = []
        for use_count, strength in MEMORIES:
            facts = Facts(use_count, strength, LAST_USE)
            for age_s in AGES_S:
                a = age(p, facts, LAST_USE + timedelta(seconds=age_s))
                rows.append(
                    {
                        "use_count": use_count,
                        "strength": strength,
                        "age_s": age_s,
                        "factor": decay_factor(p, age_s),
                        "score": a.score,
                        "review_priority": a.review_priority,
                    }
                )
        due = []
        for use_count, strength in MEMORIES:
            a = age(p, Facts(use_count, strength, LAST_USE), LAST_USE)
            due.append(
                {
                    "use_count": use_count,
                    "strength": strength,
                    "review_s": a.review_after_s,
                    "archive_s": a.archive_after_s,
                }
            )
        out.append({"scoring": p.public(), "points": rows, "due": due})
    return {"generated_by": "python tests/decay_cases.py --write", "profiles": out}


def render() -> str:
    return json.dumps(cases(), indent=1) + "\n"


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    if sys.argv[1:] == ["--write"]:
        CASES.write_text(render(), encoding="utf-8")
    else:
        sys.stdout.write(render())
