"""status: counts, health and problems of one vault and its index, and its dangling links."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import background
from ..index import queries
from ..index.resolver import build_resolver
from ..quiet import older_than_window
from ..views import row_state
from . import journal
from . import supersede as supersede_op

if TYPE_CHECKING:
    from ..service import MemoryService


def status(svc: "MemoryService") -> dict[str, Any]:
    counts = {k: 0 for k in ("stm", "ltm", "archive", "note")}
    counts.update(queries.counts_by_kind(svc.store))
    by_status = queries.counts_by_status(svc.store)
    now = svc.now()
    states: dict[str, int] = {}
    stale = 0  # written scores older than score_refresh_hours
    refresh_s, prec = svc.settings.score_refresh_hours * 3600.0, svc.settings.score_precision
    for row in queries.stm_rows(svc.store):
        if row["id"] is None or not row["writable"]:
            continue  # not a memory (no id) or unreadable as one: listed under problems, in no state
        st = row_state(svc.params, row, now)
        states[st] = states.get(st, 0) + 1
        stale += older_than_window(svc.params, row, now, prec, refresh_s)
    problems = queries.all_problems(svc.store)
    conflicts = queries.all_conflicts(svc.store)
    dangling = dangling_links(svc)
    runtime = svc.runtime.status()
    return {
        "vault": str(svc.layout.root),
        "index": str(svc.store.path),
        "counts": counts,
        "by_status": by_status,
        "sources": queries.counts_by_source(svc.store),
        "stm_states": states,
        "scores_older_than_refresh": stale,
        "problems": problems,
        "conflicts": conflicts,
        "dangling_links": len(dangling),
        "dangling": dangling[:50],
        "last_sync": svc.store.get_meta("last_sync"),
        "watcher": runtime["watcher"],
        "index_repair": svc.store.last_repair,  # the last damage found and repaired (index/health.py)
        "embeddings": embedding_status(svc),
        "lease": runtime["lease"],
        "scoring": svc.params.public(),
        "quarantined": journal.quarantined(svc),
        "background": background.state(svc),
        "supersession_cycles": supersede_op.cycles(svc),
        "editing": svc.editor.held(),
    }


def embedding_status(svc: "MemoryService") -> dict[str, Any]:
    total, done = queries.embedding_counts(svc.store)
    return {"enabled": bool(svc.settings.embeddings), "model": svc.settings.embedding_model, "done": done, "total": total}


def dangling_links(svc: "MemoryService") -> list[dict[str, Any]]:
    resolver = build_resolver(svc.store)
    out = []
    for r in queries.all_links_by_source(svc.store):
        if resolver.resolve(r["target"], r["path"], bool(r["markdown"])) is None:
            out.append({"source": r["path"], "target": r["target"] + r["subpath"]})
    return sorted(out, key=lambda d: (d["source"], d["target"]))  # a stable order for paging


def dangling(svc: "MemoryService", limit: int = 100, offset: int = 0) -> dict[str, Any]:
    """Every dangling link, a page at a time (`status` carries only the count and the first 50)."""
    links = dangling_links(svc)
    end = offset + limit
    return {"total": len(links), "offset": offset, "limit": limit, "links": links[offset:end],
            "next_offset": end if end < len(links) else None}
