"""The move journal: an entry written before a note moves, deleted once the move is done,
so that `recover` (ops/moves.py) can finish a move a crash interrupted; entries it can
neither finish nor roll back are set aside in a quarantine folder with their cause.

These files are the engine's own bookkeeping (in the vault's hidden folder), not notes:
they are written here directly, not through the write path.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from ..dates import format_datetime
from ..engine import Engine
from ..faults import writing
from ..safe_files import read_file, remove_file, replace_file

JOURNAL = ".mnemovault/journal"
QUARANTINE = f"{JOURNAL}/quarantine"  # entries recovery could not finish nor roll back


def journal_dir(engine: Engine) -> Path:
    return engine.layout.root / JOURNAL


def write_entry(engine: Engine, entry: dict[str, Any]) -> Path:
    name = f"{uuid.uuid4().hex}.json"
    with writing(f"{entry['src']} (to move it, the journal in {JOURNAL} is written first)"):
        replace_file(engine.layout.root, f"{JOURNAL}/{name}", json.dumps(entry).encode("utf-8"))
    return journal_dir(engine) / name


def set_aside(engine: Engine, path: Path, info: dict[str, Any]) -> None:
    """The entry with why, in the quarantine folder under its own name, then the entry removed.
    A temp file of a random name and no link followed: the entry's name is a peer's to choose."""
    data = json.dumps(info, indent=1, ensure_ascii=False).encode("utf-8")
    replace_file(engine.layout.root, f"{QUARANTINE}/{path.name}", data)
    remove_file(engine.layout.root, f"{JOURNAL}/{path.name}")


def unlink_quietly(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass


def quarantine(engine: Engine, path: Path, entry: dict[str, Any], src_rel: str, dst_rel: str, exc: Exception) -> str:
    """Set a journal entry aside with why and what to do; the line to log."""
    at = engine.layout.abs
    where = dst_rel if at(dst_rel).exists() else src_rel if at(src_rel).exists() else None
    cause = f"{type(exc).__name__}: {exc}"[:300]
    todo = (
        f"the note is at {where}; check its frontmatter (status and dates) by hand, then delete this file"
        if where
        else f"the note is at neither {src_rel} nor {dst_rel}; look for it in the vault, then delete this file"
    )
    rel = f"{QUARANTINE}/{path.name}"
    try:
        # one file to read and delete: the entry as it was, with why and what to do
        info = {"quarantined": {"cause": cause, "todo": todo, "at": format_datetime(engine.now())}, **entry}
        set_aside(engine, path, info)
    except OSError as err:
        return (
            f"could not finish the move of {src_rel} to {dst_rel} ({cause}) nor set its journal entry aside "
            f"({err.strerror or err}); {todo.replace('this file', str(path))}"
        )
    return f"quarantined the unfinished move of {src_rel} to {dst_rel}: {cause}; {todo} ({rel})"


def refuse(engine: Engine, path: Path, entry: dict[str, Any], exc: Exception) -> str:
    """Set aside, untouched, an entry naming a path outside the vault or through a symbolic
    link: recovery never acts on it. The line to log."""
    src, dst = (str(entry.get(k))[:200] for k in ("src", "dst"))
    info = {
        "quarantined": {
            "cause": f"{type(exc).__name__}: {exc}"[:300],
            "at": format_datetime(engine.now()),
            "todo": "recovery refused this entry and moved nothing; check the paths it names by hand, "
            "then delete this file",
        },
        **entry,
    }
    try:
        set_aside(engine, path, info)
    except OSError as err:
        return (
            f"refused the journal entry {path} ({src} to {dst}: {exc}) "
            f"but could not set it aside ({err.strerror or err})"
        )
    return f"refused the journal entry for {src} to {dst}: {exc}; moved nothing ({QUARANTINE}/{path.name})"


def quarantined(engine: Engine) -> list[dict[str, Any]]:
    """Journal entries recovery set aside: file, cause, what to do."""
    folder = engine.layout.root / QUARANTINE
    out = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            text = read_file(engine.layout.root, f"{QUARANTINE}/{path.name}").decode("utf-8")
            info = json.loads(text).get("quarantined") or {}
        except (OSError, ValueError, AttributeError):  # a link (never followed), not JSON
            info = {}
        out.append(
            {
                "file": f"{QUARANTINE}/{path.name}",
                "cause": info.get("cause", "unknown"),
                "todo": info.get("todo", "check the note named in the file by hand, then delete the file"),
                "at": info.get("at"),
            }
        )
    return out
