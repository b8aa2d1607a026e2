"""status: counts, health and problems of one vault and its index, and its dangling links."""

from __future__ import annotations

from typing import Any

from .. import background, lookups
from .. import devices as device_files
from ..ageing import of_row
from ..engine import Engine
from ..index import queries
from ..index.resolver import build_resolver
from ..quiet import older_than_window
from . import journal
from .conflicts import list_conflicts, merged_state

DIFFS_IN_STATUS = 20  # `conflicts list` diffs them all


def status(engine: Engine) -> dict[str, Any]:
    counts = {k: 0 for k in ("stm", "ltm", "archive", "note")}
    counts.update(queries.counts_by_kind(engine.store))
    by_status = queries.counts_by_status(engine.store)
    now = engine.now()
    states: dict[str, int] = {}
    stale = 0  # written scores older than score_refresh_hours
    refresh_s, prec = engine.settings.score_refresh_hours * 3600.0, engine.settings.score_precision
    for row in queries.stm_rows(engine.store):
        if row["id"] is None or not row["writable"]:
            continue  # not a memory (no id) or unreadable as one: listed under problems, in no state
        st = of_row(engine.params, row, now).state
        states[st] = states.get(st, 0) + 1
        stale += older_than_window(engine.params, row, now, prec, refresh_s)
    runtime = engine.runtime.status()
    lease = engine.runtime.lease
    devices = device_files.status(
        engine.layout.root, now, engine.settings.lease_seconds, lease.device if lease is not None else None
    )
    problems = queries.all_problems(engine.store) + lease_problems(devices.pop("problems"), runtime["lease"])
    conflicts = list_conflicts(engine, diffs=DIFFS_IN_STATUS)  # with what differs: the person's text as a diff
    dangling = dangling_links(engine)
    return {
        "vault": str(engine.layout.root),
        "index": str(engine.store.path),
        "counts": counts,
        "by_status": by_status,
        "sources": queries.counts_by_source(engine.store),
        # memories per project, "" for shared ones (docs/projects.md)
        "projects": {name or "": n for name, n in queries.project_counts(engine.store).items()},
        "stm_states": states,
        "scores_older_than_refresh": stale,
        "problems": problems,
        "conflicts": conflicts,
        "conflicts_merged": merged_state(engine),  # copies of mnemovault's own making, merged by themselves
        "dangling_links": len(dangling),
        "dangling": dangling[:50],
        "last_sync": engine.store.get_meta("last_sync"),
        "watcher": runtime["watcher"],
        "index_repair": engine.store.last_repair,  # the last damage found and repaired (index/health.py)
        "embeddings": embedding_status(engine),
        "lease": runtime["lease"],
        "devices": devices,  # who holds the lease, every device's last heartbeat, copies of their files
        "scoring": engine.params.public(),
        "quarantined": journal.quarantined(engine),
        "background": background.state(engine),
        "supersession_cycles": lookups.cycles(engine),
        "editing": engine.editor.held(),
    }


def lease_problems(found: list[dict[str, Any]], state: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The device files' problems (an expiry beyond any term, a link, a split that let two devices
    write), read from the files (any front end), and what this daemon's lease met."""
    out = list(found)
    met = (state or {}).get("problem")
    if met and all(p["cause"] != met for p in out):
        out.append({"path": device_files.DEVICES_DIR + "/", "cause": met, "blocking": False})
    return out


def embedding_status(engine: Engine) -> dict[str, Any]:
    total, done = queries.embedding_counts(engine.store)
    return {
        "enabled": bool(engine.settings.embeddings),
        "model": engine.settings.embedding_model,
        "done": done,
        "total": total,
    }


def dangling_links(engine: Engine) -> list[dict[str, Any]]:
    resolver = build_resolver(engine.store)
    out = []
    for r in queries.all_links_by_source(engine.store):
        if resolver.resolve(r["target"], r["path"], bool(r["markdown"])) is None:
            out.append({"source": r["path"], "target": r["target"] + r["subpath"]})
    return sorted(out, key=lambda d: (d["source"], d["target"]))  # a stable order for paging


def dangling(engine: Engine, limit: int = 100, offset: int = 0) -> dict[str, Any]:
    """Every dangling link, a page at a time (`status` carries only the count and the first 50)."""
    links = dangling_links(engine)
    end = offset + limit
    return {
        "total": len(links),
        "offset": offset,
        "limit": limit,
        "links": links[offset:end],
        "next_offset": end if end < len(links) else None,
    }
