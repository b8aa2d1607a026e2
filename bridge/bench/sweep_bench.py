"""The sweep on a vault where every note is an STM memory, next to a floor measured in the same run.

The floor is the least any correct sweep must do to as many files: the engine's own
batched write (vault_sync.batch.write_many, in the same chunks) of each note's bytes as
they are: temp files or reused old copies, one flush per chunk, re-read, swap. Nothing is
parsed, scored or indexed, so the ratio is what the engine's own work costs.
"""

from __future__ import annotations

import os
import shutil
import statistics
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable

from vault_sync.batch import OldCopies, Staged, write_many
from vault_sync.dates import MovableClock

from .generate import generate
from .makers import ServiceWithClock


def rewrite_floor(folder: Path, count: int, chunk: int) -> float:
    """Seconds for a bare atomic rewrite of `count` notes in `folder`, in the engine's chunks."""
    names = sorted(n for n in os.listdir(folder) if n.endswith(".md"))[:count]
    started = time.perf_counter()
    with OldCopies() as old:
        for first in range(0, len(names), chunk):
            items = []
            for name in names[first : first + chunk]:
                path = os.path.join(folder, name)
                with open(path, "rb") as fh:
                    data = fh.read()
                    st = os.fstat(fh.fileno())
                items.append(Staged(path, data, data, mode=st.st_mode, owner=(st.st_uid, st.st_gid)))
            write_many(items, lambda target, current: None, old)
    return time.perf_counter() - started


def stm_sweep(
    n: int, work: Path, now: datetime, service: ServiceWithClock, progress: Callable[[str], None], rounds: int = 3
) -> dict[str, Any]:
    """Sweeps of `n` STM notes whose scores all move (a day apart), each beside a fresh floor."""
    vault = work / "stm-vault"
    progress(f"generating {n} STM notes")
    generate(vault, n, now, seed=13, stm_share=1.0)
    clock = MovableClock()
    svc = service(vault, work / "stm.sqlite3", clock)
    svc.sync()
    floor_copy = work / "stm-floor"
    shutil.copytree(vault / "STM", floor_copy)
    sweeps, floors, written = [], [], []
    try:
        for day in range(1, rounds + 1):  # interleaved, so both see the same disk weather
            progress(f"STM sweep, round {day} of {rounds}")
            at = now + timedelta(days=day)
            clock.at = at
            t = time.perf_counter()
            report = svc.sweep()
            sweeps.append(time.perf_counter() - t)
            written.append(report["written"])
            floors.append(rewrite_floor(floor_copy, report["written"], svc.settings.sweep_chunk))
        t = time.perf_counter()
        again = svc.sweep()
        second = time.perf_counter() - t
    finally:
        svc.close()
    sweep_s, floor_s = statistics.median(sweeps), statistics.median(floors)
    return {
        "notes": n,
        "seconds": sweep_s,
        "written": int(statistics.median(written)),
        "floor_s": floor_s,
        "ratio_to_floor": sweep_s / floor_s if floor_s else None,
        "second_seconds": second,
        "second_written": again["written"],
        "rounds": rounds,
    }
