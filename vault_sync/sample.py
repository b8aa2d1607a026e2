"""A working copy of the sample vault, its dates shifted so every memory's state holds today."""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path

from .dates import parse_datetime
from .edit import patch_bytes
from .fmblock import find_block, load_yaml

DATE_KEYS = ("created", "last_used", "promoted_at", "archived_at")


def reference_now(vault: Path) -> datetime:
    data = json.loads((vault / ".mnemovault" / "sample.json").read_text(encoding="utf-8"))
    at = parse_datetime(data["reference_now"])
    assert at is not None, "sample.json has no reference_now"
    return at


def shifted_copy(src: Path, dst: Path, now: datetime) -> int:
    """Copy `src` to `dst` (which must not exist) moving every owned date by now - reference."""
    delta = now - reference_now(src)
    shutil.copytree(src, dst)
    changed = 0
    for path in dst.rglob("*.md"):
        if any(part.startswith(".") for part in path.relative_to(dst).parts):
            continue
        data = path.read_bytes()
        text = data.decode("utf-8-sig")
        block = find_block(text)
        if block is None:
            continue
        fm = load_yaml(text[block.yaml_start : block.yaml_end]) or {}
        updates = {}
        for key in DATE_KEYS:
            when = parse_datetime(fm.get(key))
            if when is not None:
                updates[key] = when + delta
        if updates:
            path.write_bytes(patch_bytes(data, updates))
            changed += 1
    return changed
