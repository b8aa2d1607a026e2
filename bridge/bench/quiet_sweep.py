"""A sweep of 10,000 unchanged STM notes where nothing is due (target: 0 writes, < 0.1 s:
a vault nobody works in must not change under sync clients), next to a floor measured in
the same run.

The vault: `n` short-term memories used one to three hours ago, their scores written by a
first sweep (so nothing is due for hours). Then the daemon's passes, 5 simulated minutes
apart: the first looks at every row (and remembers that nothing is due, vault_sync/ops/
sweep_memo.py); the ones after it find the index unchanged. The floor is reading the same
STM rows from the index alone (the one query a pass that decides from the index must run),
so the ratios say what scoring costs and what the memory saves. Files changed are counted
by (mtime, size) of every note before and after.
"""

from __future__ import annotations

import statistics
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable

from vault_sync.dates import MovableClock

from .makers import ServiceWithClock

STAMP = "%Y-%m-%dT%H:%M:%SZ"


def _write_vault(root: Path, n: int, now: datetime) -> None:
    stm = root / "STM"
    stm.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        last = (now - timedelta(minutes=60 + i % 120)).strftime(STAMP)
        (stm / f"m{i:05d}.md").write_text(
            f"---\nid: 00000000-0000-4000-9000-{i:012d}\ntags: [topic{i % 7}]\ncreated: {last}\nlast_used: {last}\n"
            f"use_count: 1\nstrength: 1.0\nstatus: active\n---\nMemory number {i}, unchanged since.\n",
            encoding="utf-8",
        )


def _stamps(folder: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for p in folder.iterdir():
        st = p.stat()
        out[p.name] = (st.st_mtime_ns, st.st_size)
    return out


def unchanged_sweep(
    n: int, work: Path, now: datetime, service: ServiceWithClock, progress: Callable[[str], None], rounds: int = 5
) -> dict[str, Any]:
    from vault_sync.index import queries
    from vault_sync.ops import sweep_memo

    vault = work / "quiet-sweep-vault"
    progress(f"an unchanged vault of {n} STM notes where nothing is due")
    _write_vault(vault, n, now)
    clock = MovableClock()
    clock.at = now
    svc = service(vault, work / "quiet-sweep.sqlite3", clock)
    try:
        svc.sync()
        svc.sweep()  # the scores written: nothing is due for hours
        before = _stamps(vault / "STM")
        at = now + timedelta(hours=1)
        floors, looks, passes, written, remembered = [], [], [], 0, 0
        for r in range(rounds):  # interleaved: all three see the same machine weather
            clock.at = at + timedelta(minutes=10 * r)
            t = time.perf_counter()
            rows = queries.sweep_rows(svc.store)
            floors.append(time.perf_counter() - t)
            sweep_memo.forget(svc.engine)  # as after an edit: this pass looks at every row
            t = time.perf_counter()
            first = svc.sweep()
            looks.append(time.perf_counter() - t)
            clock.at += timedelta(minutes=5)
            t = time.perf_counter()
            again = svc.sweep()
            passes.append(time.perf_counter() - t)
            written += first["written"] + again["written"]
            remembered += bool(again["remembered"])
        changed = sum(1 for k, v in _stamps(vault / "STM").items() if before.get(k) != v)
    finally:
        svc.close()
    floor, look, quiet = statistics.median(floors), statistics.median(looks), statistics.median(passes)
    return {
        "notes": n,
        "rows": len(rows),
        "rounds": rounds,
        "seconds": quiet,
        "written": written,
        "files_changed": changed,
        "remembered": remembered,
        "first_look_s": look,
        "floor_s": floor,
        "ratio_to_floor": quiet / floor if floor else None,
        "first_look_ratio": look / floor if floor else None,
    }
