"""Sweep: recompute decay_score and review_priority, write back only what changed."""

from __future__ import annotations

import time
import uuid
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from ..dates import parse_datetime
from ..edit import patch_bytes
from ..note import parse_note
from ..patch import PatchError
from ..scoring import review_priority, score_at
from ..batch import Staged, write_many

if TYPE_CHECKING:
    from ..service import MemoryService


@dataclass
class SweepReport:
    scanned: int = 0
    written: int = 0
    unchanged: int = 0
    quiet: int = 0  # modified within quiet_seconds: left for the next sweep
    invalid: list[dict] = field(default_factory=list)  # notes with problems: never written
    ids_assigned: int = 0
    errors: list[dict] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self)


def memory_defaults(now) -> dict:
    """The owned keys a note in STM gets when it has none (it becomes a memory)."""
    return {"id": str(uuid.uuid4()), "created": now, "last_used": now, "use_count": 1, "strength": 1.0, "status": "active"}


def recently_modified(svc: "MemoryService", rel: str) -> bool:
    if svc.settings.quiet_seconds <= 0:
        return False
    try:
        mtime = svc.layout.abs(rel).stat().st_mtime
    except OSError:
        return True
    return time.time() - mtime < svc.settings.quiet_seconds


def sweep(svc: "MemoryService", paths: list[str] | None = None) -> SweepReport:
    started = time.perf_counter()
    now = svc.now()
    params, prec = svc.params, svc.settings.score_precision
    report = SweepReport()
    rows = svc.store.query(
        "SELECT n.rowid, n.*, (SELECT group_concat(cause, '; ') FROM problems p WHERE p.path = n.path AND p.blocking) AS why "
        "FROM notes n WHERE kind = 'stm' ORDER BY path"
    )
    if paths is not None:
        wanted = set(paths)
        rows = [r for r in rows if r["path"] in wanted]
    staged: list[Staged] = []
    id_less: set[str] = set()
    for row in rows:
        report.scanned += 1
        if not row["writable"]:
            report.invalid.append({"path": row["path"], "cause": row["why"] or "unreadable"})
            continue
        last = parse_datetime(row["last_used"] or row["created"])
        exact = score_at(params, row["use_count"], last, row["strength"], now) if last else None
        needs_id = row["id"] is None
        if exact is not None:
            value, prio = round(exact, prec), round(review_priority(params, exact), prec)
            same = row["decay_score"] is not None and round(row["decay_score"], prec) == value and row["review_priority"] is not None and round(row["review_priority"], prec) == prio
            if same and not needs_id:
                report.unchanged += 1
                continue
        if recently_modified(svc, row["path"]):
            report.quiet += 1
            continue
        try:
            data = svc.layout.abs(row["path"]).read_bytes()
            new = score_transform(svc, row["path"], now)(data)
        except (PatchError, OSError, UnicodeDecodeError) as exc:
            report.errors.append({"path": row["path"], "cause": str(exc)})
            continue
        if new is None:
            report.unchanged += 1
            continue
        staged.append(Staged(svc.layout.abs(row["path"]), data, new))
        if needs_id:
            id_less.add(row["path"])
    if staged:
        written, errors = write_many(staged, lambda target, current: score_transform(svc, svc.layout.rel(target), now)(current))
        touched = [svc.layout.rel(t) for t in written]
        report.written = len(touched)
        report.ids_assigned = len(id_less.intersection(touched))
        report.unchanged += len(staged) - len(touched) - len(errors)
        report.errors += [{"path": svc.layout.rel(t), "cause": why} for t, why in errors]
        if touched:
            svc.indexer.sync_paths(touched)
            svc.emit_scores(touched)
    report.seconds = time.perf_counter() - started
    return report


def score_updates(svc: "MemoryService", fields, now) -> dict:
    """decay_score and review_priority for these fields, at the stored precision."""
    prec = svc.settings.score_precision
    last = fields.last_used or fields.created or now
    exact = score_at(svc.params, fields.use_count, last, fields.strength, now)
    return {"decay_score": round(exact, prec), "review_priority": round(review_priority(svc.params, exact), prec)}


def score_transform(svc: "MemoryService", rel: str, now):
    """bytes -> patched bytes (None: nothing to change), computed from what is on disk now."""

    def transform(current: bytes) -> bytes | None:
        note = parse_note(rel, current)
        if not note.writable:
            return None  # the person broke it meanwhile: leave it alone
        updates: dict = {}
        if note.fields.id is None:
            updates.update({k: v for k, v in memory_defaults(now).items() if k not in note.frontmatter})
            if "id" not in updates:
                return None
            f = note.fields
            f.created = f.created or now
            f.last_used = f.last_used or f.created
        for key, value in score_updates(svc, note.fields, now).items():
            old = note.frontmatter.get(key)
            if not isinstance(old, (int, float)) or isinstance(old, bool) or round(float(old), svc.settings.score_precision) != value:
                updates[key] = value
        if not updates:
            return None
        return patch_bytes(current, updates, parsed=note.frontmatter if note.has_frontmatter else None)

    return transform
