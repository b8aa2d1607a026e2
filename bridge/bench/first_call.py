"""`python -m bridge.bench.first_call [TRIES]`: a save as an MCP session's first call, sent
right after `tools/list` to a relay with no daemon running (the relay starts it; the model
on), TRIES times in a row on a copy of the sample vault with its index built once, each
next to a bare `python -c pass`. Issue 41 asks < 1 s for ten in a row on a loaded machine:
run it while the machine is loaded, and quote the load average it prints."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..paths import import_root
from .mcp_bench import first_call_save, python_start


def measure(tries: int, work: Path) -> dict[str, Any]:
    from vault_sync.service import MemoryService
    from vault_sync.settings import load_settings

    vault = work / "vault"
    shutil.copytree(import_root() / "sample-vault", vault)
    index = work / "index.sqlite3"
    svc = MemoryService(load_settings(vault=vault, index_path=index, embeddings=False, quiet_seconds=0))
    try:
        svc.sync()
    finally:
        svc.close()
    saves, floors, loads = [], [], []
    for i in range(tries):
        floors.append(python_start() * 1000)
        saves.append(first_call_save(vault, work / f"try-{i}", index, True, i) * 1000)
        loads.append(os.getloadavg()[0])
        print(f"try {i + 1}: {saves[-1]:.0f} ms (python -c pass {floors[-1]:.0f} ms, load {loads[-1]:.1f})", flush=True)
    return {
        "tries": tries,
        "first_call_save_median_ms": round(statistics.median(saves)),
        "first_call_save_max_ms": round(max(saves)),
        "under_1s": sum(s < 1000 for s in saves),
        "python_start_median_ms": round(statistics.median(floors)),
        "load_average": [round(min(loads), 1), round(max(loads), 1)],
    }


def main(argv: list[str]) -> int:
    tries = int(argv[0]) if argv else 10
    work = Path(tempfile.mkdtemp(prefix="mnemovault-first-call-"))
    try:
        print(json.dumps(measure(tries, work)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
