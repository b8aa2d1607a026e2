"""An import run: plan (core.py), write the new notes in one batch and reinforce the twins
(write.py), and the answer: counts, and each item created, reinforced, refused or left as text."""

from __future__ import annotations

from typing import Any

from ..engine import Engine
from ..errors import MnemovaultError
from ..names import slug_from
from .core import Item, Progress, plan
from .write import link_plan, reinforce, write_batch, write_supersessions


def run(
    engine: Engine,
    source: str,
    items: list[Item],
    dry_run: bool = False,
    tag: str | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Import `items` (the caller holds the write operation). Returns the counts and the lists."""
    p = plan(engine, source, items, tag)
    links = link_plan(p)
    created: list[str] = []
    if not dry_run:
        created = write_batch(engine, source, p.create, links, progress)
        if links.supersede:
            write_supersessions(
                engine,
                links,
                {i.source_id: path for i, path in zip(p.create, created)},
                {i.source_id: path for i, path in [*p.skip, *p.reinforce, *p.replaced] if path},
            )
        for item, twin in list(p.reinforce):
            if twin:
                try:
                    reinforce(engine, twin, source, item.source_id)
                except MnemovaultError as exc:  # the twin cannot be written now (a problem, a conflict)
                    p.reinforce.remove((item, twin))
                    p.refuse.append((item, f"its twin {twin} could not be reinforced: {exc}"))
    return {
        "source": source,
        "dry_run": dry_run,
        "created": len(p.create),
        "reinforced": len(p.reinforce),
        "skipped": len(p.skip),
        "refused": len(p.refuse),
        "paths": created,
        "would_create": [{"where": i.where, "id": i.source_id, "title": i.title or slug_from(i.text)} for i in p.create]
        if dry_run
        else [],
        "reinforcements": [
            {"where": i.where, "id": i.source_id, "twin": t or "an earlier item"} for i, t in p.reinforce
        ],
        "refusals": [{"where": i.where, "id": i.source_id, "cause": why} for i, why in p.refuse],
        "replaced": [{"where": i.where, "id": i.source_id, "note": path} for i, path in p.replaced],
        "links": links.linked,
        "unlinked": links.unlinked,
    }
