"""Import of a CortexGraph JSONL store (target: 10,000 memories in < 10 s with the model
off), next to a floor measured in the same run.

The floor is the least any import must do with the same file: parse each JSON line, write
one Markdown note per memory (a frontmatter block of the same keys, built by an f-string),
then read, YAML-parse and FTS5-insert them all (floor.floor_index). No gate, no scores,
no duplicate check, no index of our own: the ratio is what the importer's own work costs.
"""

from __future__ import annotations

import json
import random
import shutil
import statistics
import time
from pathlib import Path
from typing import Any, Callable

from .generate import FILLER, PEOPLE, SERVICES, TECH, TOPICS
from .makers import ServiceAt

T0 = 1_760_000_000  # unix seconds: the generated memories' time base (Oct 2025)


def write_cortexgraph(path: Path, n: int, seed: int = 21) -> Path:
    """A CortexGraph JSONL store of `n` distinct memories in its documented shape: counters,
    unix times, tags, a few archived and promoted ones, and relations between some."""
    rng = random.Random(seed)
    lines = []
    for i in range(n):
        text = (
            f"{rng.choice(PEOPLE)} says {rng.choice(SERVICES)} {rng.choice(['uses', 'moved to', 'depends on'])} "
            f"{rng.choice(TECH)} for {rng.choice(TOPICS)} ({i}): "
            + " ".join(rng.choice(FILLER) for _ in range(rng.randint(8, 30)))
        )
        created = T0 + i * 60
        status = "archived" if i % 50 == 7 else "promoted" if i % 100 == 3 else "active"
        lines.append(
            json.dumps(
                {
                    "id": f"cg-{i:06d}",
                    "content": text,
                    "tags": rng.sample(TOPICS, 2),
                    "created_at": created,
                    "last_used": created + rng.randint(0, 30) * 86400,
                    "use_count": rng.randint(1, 12),
                    "strength": round(rng.uniform(1.0, 1.8), 2),
                    "status": status,
                }
            )
        )
    for i in range(0, n - 1, 10):
        lines.append(
            json.dumps({"from_memory_id": f"cg-{i:06d}", "to_memory_id": f"cg-{i + 1:06d}", "relation_type": "related"})
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def import_floor(src: Path, work: Path) -> float:
    """Seconds to parse the source, write one plain note per memory, and index them bare."""
    from .floor import floor_index

    folder = work / "floor-notes"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    started = time.perf_counter()
    with open(src, encoding="utf-8") as fh:
        for line in fh:
            obj = json.loads(line)
            if "content" not in obj:
                continue
            tags = "".join(f"\n  - {t}" for t in obj["tags"])
            note = (
                f"---\nid: {obj['id']}\ntags:{tags}\ncreated: {obj['created_at']}\nlast_used: {obj['last_used']}\n"
                f"use_count: {obj['use_count']}\nstrength: {obj['strength']}\nstatus: {obj['status']}\n"
                f"source: cortexgraph\nsource_id: {obj['id']}\n---\n{obj['content']}\n"
            )
            with open(folder / f"{obj['id']}.md", "x", encoding="utf-8") as out:
                out.write(note)
    took = time.perf_counter() - started
    return took + floor_index(folder, work / f"floor-import-{time.monotonic_ns()}.sqlite3")


def import_figures(
    work: Path, n: int, service: ServiceAt, progress: Callable[[str], None], rounds: int = 3
) -> dict[str, Any]:
    """Median import time of `n` CortexGraph memories into an empty vault, beside its floor
    (interleaved, so both see the same disk weather), and the re-run (which adds nothing)."""
    work.mkdir(parents=True, exist_ok=True)
    src = write_cortexgraph(work / "cortexgraph.jsonl", n)
    imports, floors = [], []
    created = rerun_created = 0
    rerun = 0.0
    for r in range(rounds):
        progress(f"import of {n} CortexGraph memories, round {r + 1} of {rounds}")
        vault = work / f"import-vault-{r}"
        (vault / "STM").mkdir(parents=True)
        svc = service(vault, work / f"import-{r}.sqlite3")
        try:
            t = time.perf_counter()
            result = svc.import_memories("cortexgraph", src)
            imports.append(time.perf_counter() - t)
            created = result["created"]
            if r == rounds - 1:
                t = time.perf_counter()
                rerun_created = svc.import_memories("cortexgraph", src)["created"]
                rerun = time.perf_counter() - t
        finally:
            svc.close()
        floors.append(import_floor(src, work))
        shutil.rmtree(vault, ignore_errors=True)
    seconds, floor = statistics.median(imports), statistics.median(floors)
    return {
        "memories": n,
        "created": created,
        "seconds": seconds,
        "floor_s": floor,
        "ratio_to_floor": seconds / floor if floor else None,
        "rerun_seconds": rerun,
        "rerun_created": rerun_created,
        "rounds": rounds,
    }
