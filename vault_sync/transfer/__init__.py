"""Moving memories in and out: importers for the tools people use today, and export.

`import_path(engine, fmt, path)` parses the whole source first (a malformed one, or a record
past the import bounds, writes nothing), then hands the items to the importer (importer.run);
what a reader reports besides (CortexGraph's log) is added to the result."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from ..engine import Engine
from ..errors import InvalidInput
from ..limits import quote
from ..projects import check_project
from . import basic_memory, chat, cortexgraph, jsonl, markdown, mem0
from .core import BadSource, Item, Progress, Source, over_bounds
from .importer import run

PARSERS: dict[str, Callable[[Path], list[Item] | Source]] = {
    "jsonl": jsonl.parse,
    "cortexgraph": cortexgraph.parse,
    "mem0": mem0.parse,
    "basic-memory": basic_memory.parse,
    "markdown": markdown.parse,
    "chat": chat.parse,
}
__all__ = ["BadSource", "PARSERS", "import_path"]


def import_path(
    engine: Engine,
    fmt: str,
    path: str | Path,
    dry_run: bool = False,
    tag: str | None = None,
    progress: Progress | None = None,
    project: str | None = None,
) -> dict[str, Any]:
    """Import the file or folder `path` read as `fmt` (the caller holds the write operation);
    each new memory filed under `project` (None: shared; our own export's notes keep their keys)."""
    project = check_project(project)
    if fmt not in PARSERS:
        raise InvalidInput(f"unknown import format {quote(fmt)}; one of {', '.join(PARSERS)}")
    parsed = PARSERS[fmt](Path(path).expanduser())
    source = parsed if isinstance(parsed, Source) else Source(parsed)
    problems = [p for item in source.items for p in over_bounds(item)]
    if problems:
        raise BadSource(problems)
    if project:
        for item in source.items:
            if item.raw is None:
                item.extra["project"] = project
    return {**run(engine, fmt, source.items, dry_run=dry_run, tag=tag, progress=progress), **source.report}
