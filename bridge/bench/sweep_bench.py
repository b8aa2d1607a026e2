"""The sweep on a vault where every note is an STM memory, next to a floor measured in the same run.

The floor is the least any correct sweep must do to as many files, with the same system
calls the engine uses: read each note, write its new bytes into a temp file (the copy an
earlier swap left, once checked, else a new one), flush the file system once per chunk,
re-read the note, swap the temp file in, delete the copies left at the end. Nothing is
parsed, scored or indexed, so the ratio is what the engine's own work costs.
"""

from __future__ import annotations

import os
import shutil
import statistics
import time
from datetime import timedelta
from pathlib import Path
from typing import Callable

from vault_sync.batch import sole_holder, syncfs
from vault_sync.rename import exchange

from .generate import generate


def rewrite_floor(folder: Path, count: int, chunk: int) -> float:
    """Seconds for a bare atomic rewrite of `count` notes in `folder`, in the engine's chunks."""
    names = sorted(n for n in os.listdir(folder) if n.endswith(".md"))[:count]
    started = time.perf_counter()
    spares: list[tuple[str, bytes]] = []  # (old copy, what it must still hold)
    for first in range(0, len(names), chunk):
        staged = []
        for i, name in enumerate(names[first:first + chunk], first):
            path = f"{folder}/{name}"
            with open(path, "rb") as fh:
                data = fh.read()
            fd = None
            if spares:
                tmp, held = spares.pop()
                fd = os.open(tmp, os.O_RDWR)
                st = os.fstat(fd)
                if os.read(fd, st.st_size + 1) != held or st.st_nlink != 1 or not sole_holder(fd):
                    raise RuntimeError(f"{tmp}: an old copy changed under the floor")
                if st.st_size > len(data):
                    os.ftruncate(fd, len(data))
            else:
                tmp = f"{folder}/.floor-{i}.tmp"
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            try:
                os.pwrite(fd, data, 0)
                os.fstat(fd)
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
                spares.append((tmp, data))
            else:
                os.replace(tmp, path)
    for tmp, _ in spares:
        os.unlink(tmp)
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
            floors.append(rewrite_floor(floor_copy, report.written, svc.settings.sweep_chunk))
        t = time.perf_counter()
        again = svc.sweep()
        second = time.perf_counter() - t
    finally:
        svc.close()
    sweep_s, floor_s = statistics.median(sweeps), statistics.median(floors)
    return {"notes": n, "seconds": sweep_s, "written": int(statistics.median(written)), "floor_s": floor_s,
            "ratio_to_floor": sweep_s / floor_s if floor_s else None, "second_seconds": second,
            "second_written": again.written, "rounds": rounds}
