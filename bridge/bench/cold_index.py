"""The cold index against its floor, on the generated vault and on a code-heavy one.

Notes about software hold code (inline spans, fences, indented blocks, code in list items),
and finding it is what a vault of plain prose never costs: the bench measures both kinds.
"""

from __future__ import annotations

import statistics
import time
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any, Callable

from .floor import floor_index
from .generate import generate
from .makers import ServiceAt

CODE_SHARE = 0.8  # of the code-heavy vault's notes, those holding code


def cold_against_floor(
    vault: Path,
    work: Path,
    service: ServiceAt,
    rounds: int = 3,
    plain: ServiceAt | None = None,
) -> dict[str, Any]:
    """Medians of `rounds` floor runs and `rounds` cold indexes of `vault`, alternated; wall
    clock, and CPU seconds of this process (steadier on a shared machine). `plain`: a second
    service (the index without its trigram table) timed in the same rounds, for that table's
    cost. Round i's cold index is left at work / f"cold-{vault.name}-{i}.sqlite3"."""
    times: dict[str, list[float]] = {k: [] for k in ("floor", "cold", "floor_cpu", "cold_cpu", "plain", "plain_cpu")}

    def timed(key: str, run: Callable[[], object]) -> None:
        t, c = time.perf_counter(), time.process_time()
        run()
        times[key].append(time.perf_counter() - t)
        times[key + "_cpu"].append(time.process_time() - c)

    for i in range(rounds):
        timed("floor", partial(floor_index, vault, work / f"floor-{vault.name}-{i}.sqlite3"))
        for key, make in (("cold", service), ("plain", plain)):
            if make is None:
                continue
            svc = make(vault, work / f"{key}-{vault.name}-{i}.sqlite3")
            timed(key, svc.sync)
            svc.close()
    med = {k: statistics.median(v) if v else float("nan") for k, v in times.items()}
    notes = sum(1 for _ in vault.rglob("*.md"))
    with_code = sum(1 for p in vault.rglob("*.md") if "`" in p.read_text(encoding="utf-8", errors="replace"))
    out = {
        "notes": notes,
        "with_code": with_code,
        "rounds": rounds,
        "floor_s": med["floor"],
        "cold_index_s": med["cold"],
        "ratio": med["cold"] / med["floor"],
        "floor_cpu_s": med["floor_cpu"],
        "cold_index_cpu_s": med["cold_cpu"],
        "cpu_ratio": med["cold_cpu"] / med["floor_cpu"] if med["floor_cpu"] else float("nan"),
    }
    if plain is not None:
        out.update(cold_index_no_trigram_s=med["plain"], cold_index_no_trigram_cpu_s=med["plain_cpu"])
    return out


def code_heavy_figures(
    notes: int, work: Path, now: datetime, service: ServiceAt, progress: Callable[[str], None], rounds: int = 3
) -> dict[str, Any]:
    vault = work / "code-vault"
    progress(f"code-heavy vault: {notes} notes, {CODE_SHARE:.0%} with code; floor and cold index")
    generate(vault, notes, now, code_share=CODE_SHARE)
    return cold_against_floor(vault, work, service, rounds)
