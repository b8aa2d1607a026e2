"""The bench's import figure (bridge/bench/import_bench.py) runs end to end on a small store:
every generated memory is imported, in the right folders, and the re-run adds nothing. The
figure itself is in `mnemovault bench`; no test here depends on time."""

from __future__ import annotations

import json

from conftest import make_service

from bridge.bench.import_bench import import_figures, write_cortexgraph
from bridge.bench.report import rows


def test_import_figure_on_a_small_store(tmp_path):
    seen = []
    r = import_figures(
        tmp_path / "work", 300, lambda v, i: make_service(v, sync=False, index_path=i), seen.append, rounds=1
    )
    assert (r["memories"], r["created"], r["rerun_created"], r["rounds"]) == (300, 300, 0, 1)
    assert r["seconds"] > 0 and r["floor_s"] > 0 and r["ratio_to_floor"] > 0
    assert seen == ["import of 300 CortexGraph memories, round 1 of 1"]
    table = {name: value for name, value, _ in rows({**_minimal(), "import": r})}
    assert table["import of 300 CortexGraph memories (s) / created"].endswith("/ 300")
    assert table["  the same import again (s) / created"].endswith("/ 0")


def test_generated_store_has_every_state_and_relations(tmp_path):
    src = write_cortexgraph(tmp_path / "m.jsonl", 200)
    records = [json.loads(line) for line in src.read_text(encoding="utf-8").splitlines()]
    memories = [r for r in records if "content" in r]
    assert len(memories) == 200 and len({m["content"] for m in memories}) == 200
    assert {m["status"] for m in memories} == {"active", "archived", "promoted"}
    (tmp_path / "v" / "STM").mkdir(parents=True)
    svc = make_service(tmp_path / "v")
    result = svc.import_memories("cortexgraph", src)
    counts = svc.status()["counts"]
    assert result["created"] == 200 and result["links"] == 20 and result["unlinked"] == []
    assert (counts["ltm"], counts["archive"]) == (3, 4)  # 2 promoted memories and the LTM index note


def _minimal() -> dict:
    return {
        "vault": {"notes": 1},
        "floor_s": 1.0,
        "cold_index_s": 1.0,
        "cold_ratio_to_floor": 1.0,
        "restart_s": 0.1,
        "edit_to_searchable_ms": {"p50": 1.0, "p95": 1.0},
        "fulltext": {"p50_ms": 1.0, "p95_ms": 1.0, "recall_at_5": 1.0, "mrr": 1.0},
        "sweep": {
            "seconds": 1.0,
            "written": 0,
            "second_seconds": 1.0,
            "second_written": 0,
            "hour_later_seconds": 1.0,
            "hour_later_written": 0,
        },
        "promote": {"candidates": 0, "moved": 0, "per_s": None},
        "gc": {"candidates": 0, "moved": 0, "per_s": None},
    }
