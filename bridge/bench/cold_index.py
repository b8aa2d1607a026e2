"""The cold index against its floor, on the generated vault and on a code-heavy one.

Notes about software hold code (inline spans, fences, indented blocks, code in list items),
and finding it is what a vault of plain prose never costs: the bench measures both kinds.
"""

from __future__ import annotations

import statistics
import time
from datetime import datetime
from pathlib import Path
from typing import Callable

from .floor import floor_index
from .generate import generate

CODE_SHARE = 0.8  # of the code-heavy vault's notes, those holding code


def cold_against_floor(vault: Path, work: Path, service: Callable, rounds: int = 3) -> dict:
    """Medians of `rounds` floor runs and `rounds` cold indexes of `vault`, alternated; wall
    clock, and CPU seconds of this process (steadier on a shared machine)."""
    floors: list[float] = []
    colds: list[float] = []
    floor_cpu: list[float] = []
    cold_cpu: list[float] = []
    for i in range(rounds):
        t, c = time.perf_counter(), time.process_time()
        floor_index(vault, work / f"floor-{vault.name}-{i}.sqlite3")
        floors.append(time.perf_counter() - t)
        floor_cpu.append(time.process_time() - c)
        svc = service(vault, work / f"cold-{vault.name}-{i}.sqlite3")
        t, c = time.perf_counter(), time.process_time()
        svc.sync()
        colds.append(time.perf_counter() - t)
        cold_cpu.append(time.process_time() - c)
        svc.close()
    floor, cold = statistics.median(floors), statistics.median(colds)
    cpu = {"floor_cpu_s": statistics.median(floor_cpu), "cold_index_cpu_s": statistics.median(cold_cpu)}
    cpu["cpu_ratio"] = cpu["cold_index_cpu_s"] / cpu["floor_cpu_s"] if cpu["floor_cpu_s"] else float("nan")
    notes = sum(1 for _ in vault.rglob("*.md"))
    with_code = sum(1 for p in vault.rglob("*.md") if "`" in p.read_text(encoding="utf-8", errors="replace"))
    return {
        "notes": notes,
        "with_code": with_code,
        "floor_s": floor,
        "cold_index_s": cold,
        "ratio": cold / floor,
        **cpu,
    }


def code_heavy_figures(
    notes: int, work: Path, now: datetime, service: Callable, progress: Callable[[str], None], rounds: int = 3
) -> dict:
    vault = work / "code-vault"
    progress(f"code-heavy vault: {notes} notes, {CODE_SHARE:.0%} with code; floor and cold index")
    generate(vault, notes, now, code_share=CODE_SHARE)
    return cold_against_floor(vault, work, service, rounds)
