"""`mnemovault bench --notes 200 --quick` runs end to end, so the command cannot rot."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import ROOT


def test_bench_quick_on_200_notes(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-m", "bridge.cli", "bench", "--notes", "200", "--quick", "--json"],
        env=env,
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    r = json.loads(out.stdout)
    assert r["vault"]["notes"] == 200
    assert r["cold_index_s"] > 0 and r["floor_s"] > 0 and r["cold_ratio_to_floor"] > 0
    assert r["cold_index_no_trigram_s"] > 0  # the same cold index without the trigram table, for its cost
    # floor and cold index alternated in one process (steady on a shared machine), CPU beside wall
    assert (
        r["cold_rounds"] == 3
        and r["floor_cpu_s"] > 0
        and r["cold_index_cpu_s"] > 0
        and r["cold_cpu_ratio_to_floor"] > 0
    )
    c = r["code_heavy"]  # a vault of the same size where most notes hold code
    assert c["notes"] == 200 and c["with_code"] > 120 and c["floor_s"] > 0 and c["ratio"] > 0
    assert r["restart_s"] < r["cold_index_s"]
    assert r["edit_to_searchable_ms"]["n"] == 50 and r["edit_to_searchable_ms"]["p95"] < 5000
    assert r["fulltext"]["recall_at_5"] >= 0.9
    assert r["brief"]["p50_ms"] > 0 and r["brief"]["topic_p50_ms"] > 0 and r["brief"]["topic"]
    assert r["sweep"]["written"] > 0 and r["sweep"]["second_written"] == 0
    s = r["stm_sweep"]
    assert s["notes"] == 200 and s["written"] > 100 and s["second_written"] == 0  # a day later most scores moved
    assert s["floor_s"] > 0 and s["ratio_to_floor"] > 0
    q = r["quiet_sweep"]  # unchanged STM notes, nothing due: no file written, later passes read no row
    assert q["notes"] == 200 and q["written"] == 0 and q["files_changed"] == 0 and q["remembered"] == q["rounds"]
    assert 0 < q["seconds"] < q["first_look_s"] and q["floor_s"] > 0
    assert r["promote"]["moved"] > 0 and r["gc"]["moved"] > 0
    assert r["cli_search"]["direct_s"] > 0 and r["cli_search"]["daemon_s"] > 0
    assert r["rss_mb"]["model_off"] > 10
    assert "hybrid" not in r  # --quick leaves the model out
    u = r["update_detection"]  # may_supersede on the labelled update set, model off only
    assert list(u) == ["words"] and u["words"]["recall"] >= 0.85 and u["words"]["precision"] >= 0.85
    k = u["words"]["kinds_held_out"]  # updates as people write them, measured apart from their tuning set
    assert k["updates"] >= 20 and k["negatives"] >= 20 and 0 < k["recall"] <= 1 and 0 < k["precision"] <= 1
    rep = r["repeat_recognition"]  # ops/repeats.py on the labelled repeat set, words only (--quick)
    assert list(rep) == ["words"] and rep["words"]["held_out"]["separate"] >= 0.95
    assert rep["words"]["held_out"]["reinforced"] >= 0.8 and rep["words"]["held_out"]["paraphrases"] >= 40
    m = r["mcp"]  # `mnemovault mcp` as a relay to a daemon, against the in-process server
    assert m["tools"] >= 16 and m["semantic"] is False and m["runs"] > 0
    assert 0 < m["proxy_list_s"] < m["in_process_list_s"]
    assert 0 < m["proxy_rss_mb"] < 80 < m["in_process_rss_mb"]
    assert m["proxy_search_p50_ms"] > 0
    assert m["daemon_search_p50_ms"] > 0
    assert m["first_after_daemon_start_search_ms"] > 0
    c = r["cold_start"]  # relays that had to start the daemon, each with its own config folder
    assert c["runs"] == 3 and 0 < c["list_s"] <= c["list_max_s"] and 0 < c["first_save_ms"] <= c["first_save_max_ms"]
    # a save as the first call waits for the daemon's whole start: more than a bare python start
    assert 0 < c["first_call_save_ms"] <= c["first_call_save_max_ms"] and c["python_start_ms"] > 0
    assert c["first_call_save_ratio_to_python_start"] > 1

    # docs/benchmarks.md's tables: this very JSON rendered as a dated Markdown table
    from bridge.bench.report import rows

    src = tmp_path / "bench.json"
    src.write_text(out.stdout, encoding="utf-8")
    md = subprocess.run(
        [sys.executable, "-m", "bridge.bench.markdown", str(src)],
        env=env,
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert md.returncode == 0, md.stderr
    lines = md.stdout.splitlines()
    assert lines[0].startswith(f"Measured {r['measured'][:10]} (")
    assert "`mnemovault bench --notes 200 --quick --json`" in lines[0]
    assert lines[2:4] == ["| measure | value | target |", "| --- | ---: | --- |"]
    table = {cells[0]: cells[1:] for cells in ([c.strip() for c in line.strip("|").split(" | ")] for line in lines[4:])}
    assert len(table) == len(lines) - 4 == len(rows(r))
    assert table["notes"] == ["200", ""]
    assert table["cold index (s)"] == [f"{r['cold_index_s']:.3f}", "< 3 s at 10k"]
    assert table["cold index / floor: wall clock, CPU"] == [
        f"{r['cold_ratio_to_floor']:.2f}x, {r['cold_cpu_ratio_to_floor']:.2f}x",
        "<= 3x",
    ]
    assert table["second sweep (s) / written"][0].endswith("/ 0")


def test_bench_semantic_figures(tmp_path):
    # the model part of `bench` (left out by --quick above): backfill rate and hybrid recall
    from bridge.bench.generate import generate
    from bridge.bench.measure import _semantic
    from vault_sync.dates import utc_now

    gen = generate(tmp_path / "vault", 40, utc_now())
    out = _semantic(tmp_path / "vault", tmp_path, gen.queries[:5], lambda _msg: None)
    assert out["embedding"]["embedded"] == 40 and out["embedding"]["raw_per_s"] > 0
    assert out["hybrid"]["recall_at_5"] > 0 and out["hybrid"]["p50_ms"] > 0


def test_known_item_recall_refuses_a_moved_target(tmp_path):
    # promote and gc move notes: measuring afterwards against the old paths gave hybrid 0.885
    # for a search that finds every one (the bench now measures the model part before them)
    import pytest
    from conftest import make_service

    from bridge.bench.generate import generate
    from bridge.bench.measure import recall
    from vault_sync.dates import utc_now

    gen = generate(tmp_path / "vault", 40, utc_now())
    svc = make_service(tmp_path / "vault")
    hits, _mrr, _lat = recall(svc, gen.queries[:5])
    assert hits >= 0.8
    moved = next(p for _q, p in gen.queries)
    (tmp_path / "vault" / moved).rename(tmp_path / "vault" / "moved away.md")
    svc.sync()
    with pytest.raises(RuntimeError, match="known-item targets are not in the index"):
        recall(svc, gen.queries)
    svc.close()


def test_thresholds_bench_measures_each_threshold_and_restores_syncfs_from(tmp_path):
    from bridge.bench.thresholds import measure
    from vault_sync import batch

    before = batch.SYNCFS_FROM
    r = measure(notes=30, files=4, work=tmp_path)
    assert batch.SYNCFS_FROM == before
    assert r["notes"] == 30 and r["files"] == 4
    assert r["full_check_s"] > 0 and r["index_mb"] > 0 and r["quick_check_s_per_mb"] > 0
    assert r["fsync_each_s"] > 0 and r["syncfs_s"] > 0
