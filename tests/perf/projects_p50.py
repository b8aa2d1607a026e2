"""Search p50 with projects on, next to the same vault without them (docs/projects.md).

A script, not a test (pytest does not collect it). It generates one 10k vault
(`bridge/bench/generate.py`), copies it, keys 2 of 3 memories of the copy `atlas` or `borealis`,
and runs the generator's known-item queries interleaved on both: the plain vault unscoped, the
keyed one scoped to atlas. Full text only (the model off); it also times the meaning side's
project filter (the mask search/hybrid.py applies to the cached vectors' rowids), which needs
no model. Speeds are reported as a ratio from one run.

    PYTHONPATH=. .venv/bin/python tests/perf/projects_p50.py [--notes 10000]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from bridge.bench.generate import generate
from vault_sync.projects import ProjectScope
from vault_sync.search.hybrid import _outside_mask
from vault_sync.service import MemoryService
from vault_sync.settings import load_settings

NOW = datetime(2026, 11, 20, tzinfo=timezone.utc)


def keyed_copy(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst)
    i = 0
    for path in sorted(dst.rglob("*.md")):
        if path.parts[-2] not in ("STM", "LTM", "Archive"):
            continue
        text = path.read_text(encoding="utf-8")
        if text.startswith("---\n") and i % 3:
            path.write_text(f"---\nproject: {'atlas' if i % 3 == 1 else 'borealis'}\n{text[4:]}", encoding="utf-8")
        i += 1


def service(vault: Path, index: Path) -> MemoryService:
    svc = MemoryService(
        load_settings(vault=vault, embeddings=False, quiet_seconds=0, index_path=index), clock=lambda: NOW
    )
    svc.sync()
    return svc


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="mnemovault-projects-p50-"))
    try:
        gen = generate(tmp / "plain", args.notes, NOW)
        keyed_copy(tmp / "plain", tmp / "keyed")
        plain, keyed = service(tmp / "plain", tmp / "plain.sqlite3"), service(tmp / "keyed", tmp / "keyed.sqlite3")
        queries = [q for q, _ in gen.queries]
        for q in queries[:20]:  # warm both
            plain.search(q, limit=5, blend_review=False)
            keyed.search(q, limit=5, blend_review=False, project="atlas")
        a, b = [], []
        for _ in range(args.rounds):
            for q in queries:
                t = time.perf_counter()
                plain.search(q, limit=5, blend_review=False)
                a.append(time.perf_counter() - t)
                t = time.perf_counter()
                hits = keyed.search(q, limit=5, blend_review=False, project="atlas")["results"]
                b.append(time.perf_counter() - t)
                assert all(h["project"] in ("atlas", None) for h in hits)
        pa, pb = statistics.median(a), statistics.median(b)
        print(f"full-text p50: unscoped {pa * 1000:.2f} ms, scoped {pb * 1000:.2f} ms, ratio {pb / pa:.3f}")
        rowids = np.array([r[0] for r in keyed.store.query("SELECT rowid FROM notes")], dtype=np.int64)
        lat = []
        for _ in range(300):
            t = time.perf_counter()
            mask = _outside_mask(keyed.engine, ProjectScope("atlas"))
            inside = rowids < len(mask)
            keep = ~inside.copy()
            keep[inside] = ~mask[rowids[inside]]
            lat.append(time.perf_counter() - t)
        print(f"meaning side's project filter p50: {statistics.median(lat) * 1000:.2f} ms ({int(mask.sum())} left out)")
        plain.close()
        keyed.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
