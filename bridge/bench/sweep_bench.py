"""The sweep on a vault where every note is an STM memory, next to a floor measured in the same run.

The floor is the least any correct sweep must do to as many files: read each note, write
a temp copy, flush the file system once, re-read the note, swap the copy in and delete the
old one, with the same system calls the engine uses. Nothing is parsed, scored or
indexed, so the ratio is what the engine's own work costs. On a disk mounted with
`discard` most of the floor is the kernel freeing the replaced files' blocks.
"""

from __future__ import annotations

import os
import shutil
import statistics
import time
from datetime import timedelta
from pathlib import Path
from typing import Callable

from vault_sync.batch import OldCopies, syncfs
from vault_sync.ops.sweep import WRITE_CHUNK
from vault_sync.rename import exchange

from .generate import generate


def rewrite_floor(folder: Path, count: int, chunk: int = WRITE_CHUNK) -> float:
    """Seconds for a bare atomic rewrite of `count` notes in `folder`, in the engine's chunks."""
    names = sorted(n for n in os.listdir(folder) if n.endswith(".md"))[:count]
    started = time.perf_counter()
    with OldCopies() as old:
        for first in range(0, len(names), chunk):
            staged = []
            for i, name in enumerate(names[first:first + chunk], first):
                path = f"{folder}/{name}"
                with open(path, "rb") as fh:
                    data = fh.read()
                tmp = f"{folder}/.floor-{i}.tmp"
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                try:
                    os.write(fd, data)
                finally:
                    os.close(fd)
                staged.append((path, tmp, data))
            if not syncfs(folder):
                os.sync()
            for path, tmp, data in staged:
                with open(path, "rb") as fh:
                    if fh.read() != data:
                        continue
                if exchange(tmp, path):
                    old.put(tmp)
                else:
                    os.replace(tmp, path)
    return time.perf_counter() - started


def stm_sweep(n: int, work: Path, now, service: Callable, progress: Callable[[str], None], rounds: int = 3) -> dict:
    """Sweeps of `n` STM notes whose scores all move (a day apart), each beside a fresh floor."""
    vault = work / "stm-vault"
    progress(f"generating {n} STM notes")
    generate(vault, n, now, seed=13, stm_share=1.0)
    svc = service(vault, work / "stm.sqlite3")
    svc.sync()
    floor_copy = work / "stm-floor"
    shutil.copytree(vault / "STM", floor_copy)
    sweeps, floors, written = [], [], []
    try:
        for day in range(1, rounds + 1):  # interleaved, so both see the same disk weather
            progress(f"STM sweep, round {day} of {rounds}")
            at = now + timedelta(days=day)
            svc.clock = lambda at=at: at
            t = time.perf_counter()
            report = svc.sweep()
            sweeps.append(time.perf_counter() - t)
            written.append(report.written)
            floors.append(rewrite_floor(floor_copy, report.written))
        t = time.perf_counter()
        again = svc.sweep()
        second = time.perf_counter() - t
    finally:
        svc.close()
    sweep_s, floor_s = statistics.median(sweeps), statistics.median(floors)
    return {"notes": n, "seconds": sweep_s, "written": int(statistics.median(written)), "floor_s": floor_s,
            "ratio_to_floor": sweep_s / floor_s if floor_s else None, "second_seconds": second,
            "second_written": again.written, "rounds": rounds}
