"""The floor every indexing figure is set against: read, split and YAML-parse every note,
insert it into a bare FTS5 table. Nothing else.

Raw SQLite by design (not the engine's index): it measures what any indexer must pay, so
the bench can print the engine's cost as a multiple of it.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from vault_sync.fmblock import find_block, load_yaml


def floor_index(root: Path, db_path: Path) -> float:
    """Seconds to index `root` the bare way into a new database at `db_path`."""
    started = time.perf_counter()
    db = sqlite3.connect(db_path)
    db.execute("CREATE VIRTUAL TABLE fts USING fts5(title, body, tokenize='porter unicode61 remove_diacritics 2')")
    rows = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if not name.endswith(".md"):
                continue
            text = Path(dirpath, name).read_bytes().decode("utf-8")
            block = find_block(text)
            if block:
                load_yaml(text[block.yaml_start : block.yaml_end])
                text = text[block.body_start :]
            rows.append((name[:-3], text))
    with db:
        db.executemany("INSERT INTO fts VALUES (?, ?)", rows)
    db.close()
    return time.perf_counter() - started
