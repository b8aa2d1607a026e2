"""Re-measures the engine's cost thresholds on this machine's disk:
`python -m bridge.bench.thresholds [--notes 1000] [--files 64] [--dir DIR]`.

- `vault_sync.index.health.CHECK_AT_OPEN_NOTES`: the full-text integrity checks of an index
  of `--notes` generated notes (an index at the threshold should take about 0.05 s).
- `vault_sync.index.health.QUICK_CHECK_AT_OPEN_BYTES`: PRAGMA quick_check on that index, in
  seconds per MB (at the threshold it should take about 0.1 s).
- `vault_sync.batch.SYNCFS_FROM`: rewriting `--files` notes with one fsync per file against
  one flush of the file system (per-file fsyncs should win below the threshold).
Each figure is the best of five runs. `--dir` puts the temporary vault on the disk to measure.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Callable

from vault_sync import batch
from vault_sync.dates import utc_now
from vault_sync.index.health import damaged_parts

from .generate import generate
from .measure import _service
from .sweep_bench import rewrite_floor


def best(fn: Callable[[], object], runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def measure(notes: int, files: int, work: Path) -> dict[str, float]:
    vault, index = work / "vault", work / "index.sqlite3"
    generate(vault, max(notes, files), utc_now(), stm_share=1.0)
    svc = _service(vault, index, embeddings=False)
    svc.sync()
    svc.close()
    db = sqlite3.connect(index, isolation_level=None)
    try:
        full = best(lambda: damaged_parts(db, index, full=True))
        quick = best(lambda: db.execute("PRAGMA quick_check").fetchall())
    finally:
        db.close()
    folder = vault / "STM"
    saved = batch.SYNCFS_FROM
    try:
        batch.SYNCFS_FROM = files + 1
        fsyncs = best(lambda: rewrite_floor(folder, files, files))
        batch.SYNCFS_FROM = files
        syncfs = best(lambda: rewrite_floor(folder, files, files))
    finally:
        batch.SYNCFS_FROM = saved
    mb = os.path.getsize(index) / (1 << 20)
    return {
        "notes": notes,
        "full_check_s": full,
        "index_mb": mb,
        "quick_check_s_per_mb": quick / mb,
        "files": files,
        "fsync_each_s": fsyncs,
        "syncfs_s": syncfs,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=1000)
    ap.add_argument("--files", type=int, default=64)
    ap.add_argument("--dir", type=Path, default=None)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=a.dir) as tmp:
        r = measure(a.notes, a.files, Path(tmp))
    print(f"full-text checks at {r['notes']} notes: {r['full_check_s']:.3f} s")
    print(f"quick_check: {r['quick_check_s_per_mb'] * 1000:.2f} ms per MB ({r['index_mb']:.1f} MB index)")
    print(f"rewrite of {r['files']} files: fsync each {r['fsync_each_s']:.3f} s, one syncfs {r['syncfs_s']:.3f} s")


if __name__ == "__main__":
    main()
