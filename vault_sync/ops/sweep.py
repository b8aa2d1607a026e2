"""Sweep: recompute decay_score and review_priority, write back only what changed."""

from __future__ import annotations

import os
import sqlite3
import time
import uuid
from dataclasses import asdict, dataclass, field, replace
from datetime import date, datetime
from pathlib import Path
from typing import Any, Callable

from ..ageing import Facts, age
from ..batch import OldCopies, Rewrite, Staged, write_many
from ..dates import parse_datetime
from ..edit import patch_bytes, swap_bytes
from ..editor_hold import held_matcher
from ..engine import Engine
from ..index import queries
from ..index.sync import ScoreWrite
from ..note import Fields, checksum_of, parse_note
from ..patch import REMOVE, PatchError
from ..quiet import same_as_written, written_is_current
from ..safe_files import NOFOLLOW
from ..scoring import ScoringParams
from . import sweep_memo

Due = tuple[sqlite3.Row, float | None, float | None]  # (row, decay_score, review_priority) to write


@dataclass
class SweepReport:
    scanned: int = 0
    written: int = 0
    unchanged: int = 0
    quiet: int = 0  # modified within quiet_seconds: left for the next sweep
    held: int = 0  # open in the editor (editor_hold.py): left for the first sweep after
    remembered: bool = False  # answered from the last quiet pass, no row read (sweep_memo.py)
    invalid: list[dict[str, Any]] = field(default_factory=list)  # notes with problems: never written
    ids_assigned: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def memory_defaults(now: datetime) -> dict[str, Any]:
    """The owned keys a note in STM gets when it has none (it becomes a memory)."""
    return {
        "id": str(uuid.uuid4()),
        "created": now,
        "last_used": now,
        "use_count": 1,
        "strength": 1.0,
        "status": "active",
    }


def recently_modified(engine: Engine, rel: str) -> bool:
    if engine.settings.quiet_seconds <= 0:
        return False
    try:
        mtime = engine.layout.abs(rel).stat().st_mtime
    except OSError:
        return True
    return time.time() - mtime < engine.settings.quiet_seconds


def sweep(engine: Engine, paths: list[str] | None = None, full: bool = False) -> SweepReport:
    """Rewrite what is due (see vault_sync/quiet.py); `full`: every score that moved, now.
    The note open in the editor is never written here, `full` or not (editor_hold.py)."""
    started = time.perf_counter()
    now = engine.now()
    held_path = engine.editor.held()
    held = held_matcher(held_path)
    params, prec = engine.params, engine.settings.score_precision
    refresh_s = 0.0 if full else engine.settings.score_refresh_hours * 3600.0
    report = SweepReport()
    whole = paths is None and not full  # a pass that may be remembered, or answered from memory
    key = sweep_memo.key_of(engine, refresh_s, held_path)
    memo = sweep_memo.recall(engine, key, now) if whole else None
    if memo is not None:  # nothing changed in the index and nothing is due yet: no row read
        report.scanned, report.unchanged, report.held = memo.scanned, memo.unchanged, memo.held
        report.invalid, report.remembered = [dict(i) for i in memo.invalid], True
        report.seconds = time.perf_counter() - started
        return report
    signature = engine.store.write_signature()  # before the rows: a change while we read them ends the memory
    rows = queries.sweep_rows(engine.store)
    if paths is not None:
        wanted = set(paths)
        rows = [r for r in rows if r["path"] in wanted]
    due: list[Due] = []  # (row, value, prio) of notes whose file must change
    alone: list[tuple[sqlite3.Row, datetime]] = []  # (row, last) of notes left alone, for the memory of a quiet pass
    for row in rows:
        report.scanned += 1
        if not row["writable"]:
            report.invalid.append({"path": row["path"], "cause": row["why"] or "unreadable"})
            continue
        last = parse_datetime(row["last_used"] or row["created"])
        pinned = bool(row["pinned"])
        value = prio = None
        if last is not None:
            a = age(params, Facts(row["use_count"], row["strength"], last, pinned=pinned), now)
            assert a.score is not None  # a memory's: only a person's note has none
            value, prio = round(a.score, prec), round(a.review_priority, prec)
            # the rule of quiet.left_alone, with the score computed once
            current = same_as_written(row, a, prec) or written_is_current(
                params, row, last, a.score, now, prec, refresh_s
            )
            if row["id"] is not None and current and not (pinned and _has_due_dates(engine, row["path"])):
                report.unchanged += 1
                alone.append((row, last))
                continue
        if held(row["path"]):
            report.held += 1
            continue
        if recently_modified(engine, row["path"]):
            report.quiet += 1
            continue
        due.append((row, value, prio))
    if whole and not due and not report.quiet:
        sweep_memo.remember(engine, key, signature, now, alone, report.scanned, report.held, report.invalid, refresh_s)
    elif due:
        sweep_memo.forget(engine)  # its score writes are recorded in the index without an upsert
    chunk = (
        engine.settings.sweep_chunk
    )  # notes prepared, flushed and swapped per round; their old copies take the next round's bytes
    with OldCopies() as old_copies:
        for i in range(0, len(due), chunk):
            _write_chunk(engine, due[i : i + chunk], now, prec, report, old_copies)
    restored = old_copies.restore(_rescore(engine, now))
    if restored:
        engine.writes.synced([_rel(item) for item in restored])
    report.seconds = time.perf_counter() - started
    return report


def _write_chunk(
    engine: Engine, due: list[Due], now: datetime, prec: int, report: SweepReport, old_copies: OldCopies
) -> None:
    staged: list[Staged] = []
    id_less: set[str] = set()
    root = str(engine.layout.root) + os.sep
    folders: set[str] = set()  # checked to be real folders (a link since indexed is refused)
    for row, value, prio in due:
        needs_id = row["id"] is None
        target = root + row["path"].replace("/", os.sep)  # a plain string: no Path per note
        try:
            folder = row["path"].rpartition("/")[0]
            if folder not in folders:
                engine.layout.check_parent(row["path"])
                folders.add(folder)
            with open(os.open(target, os.O_RDONLY | NOFOLLOW), "rb") as fh:  # a note replaced by a link: refused
                data = fh.read()
                st = os.fstat(fh.fileno())
            known = (
                None
                if needs_id or value is None or prio is None
                else _swap(engine.params, target, row, data, value, prio, prec)
            )
            new = known.new if known else score_transform(engine, row["path"], now)(data)
        except (PatchError, OSError, UnicodeDecodeError) as exc:
            report.errors.append({"path": row["path"], "cause": str(exc)})
            continue
        if new is None:
            report.unchanged += 1
            continue
        item = known or Staged(target, data, new, meta=row["path"])
        item.mode, item.owner = st.st_mode, (st.st_uid, st.st_gid)
        staged.append(item)
        if needs_id:
            id_less.add(row["path"])
    if not staged:
        return
    written, errors = write_many(staged, _rescore(engine, now), old_copies)
    touched = [_rel(item) for item in written]
    report.written += len(touched)
    report.ids_assigned += len(id_less.intersection(touched))
    report.unchanged += len(staged) - len(touched) - len(errors)
    report.errors += [{"path": _rel(item), "cause": why} for item, why in errors]
    recorded = [
        replace(item.meta, mtime_ns=item.stat.st_mtime_ns, size=item.stat.st_size)
        for item in written
        if isinstance(item.meta, ScoreWrite) and item.stat is not None
    ]
    if recorded:
        engine.writes.scores_recorded(recorded)
    known_paths = {w.path for w in recorded}
    rest = [rel for rel in touched if rel not in known_paths]
    if rest:
        engine.writes.synced(rest)
    if touched:
        rows = {row["path"]: row for row, _, _ in due if row["path"] in known_paths}
        engine.writes.emit_scores(touched, rows=rows)


def _rescore(engine: Engine, now: datetime) -> Rewrite:
    """(target, bytes on disk now) -> rescored bytes: for a note that changed under us."""

    def rescore(target: Path | str, current: bytes) -> bytes | None:
        rel = engine.layout.rel(target)
        if rel is None:
            return None  # not in the vault: never the case for the notes sweep stages
        return score_transform(engine, rel, now)(current)

    return rescore


def _rel(item: Staged) -> str:
    """The note's vault path: Staged.meta is a ScoreWrite (fast path) or the path itself."""
    meta = item.meta
    return meta.path if isinstance(meta, ScoreWrite) else str(meta)


def _swap(
    params: ScoringParams, target: str, row: sqlite3.Row, data: bytes, value: float, prio: float, prec: int
) -> Staged | None:
    """The fast path: these are the bytes the index read (same checksum), so its reading of
    them stands in for a YAML parse, and the scores are swapped in place. None: full path."""
    old_score, old_prio = row["decay_score"], row["review_priority"]
    if old_score is None or old_prio is None or row["has_problems"] or checksum_of(data) != row["checksum"]:
        return None
    updates: dict[str, float] = {}
    if round(old_score, prec) != value:
        updates["decay_score"] = old_score = value
    if round(old_prio, prec) != prio:
        updates["review_priority"] = old_prio = prio
    new = swap_bytes(data, updates) if updates and _dates_current(params, data, row) else None
    if new is None:
        return None
    meta = ScoreWrite(row["path"], row["id"], row["checksum"], checksum_of(new), 0, len(new), old_score, old_prio)
    return Staged(target, data, new, meta=meta)


def _dates_current(params: ScoringParams, data: bytes, row: sqlite3.Row) -> bool:
    """Whether the frontmatter already carries the review_on/archive_on these inputs give
    (the number swap cannot write them; a False sends the note down the full patch path)."""
    last = parse_datetime(row["last_used"] or row["created"])
    if last is None:
        return False
    end = data.find(b"\n---", 3)
    head = data[: end + 1] if end > 0 else data
    due = age(params, Facts(row["use_count"], row["strength"], last, pinned=bool(row["pinned"])), last).due()
    for key, when in due.items():
        at = head.find(b"\n" + key.encode() + b":")
        if when is None:
            if at >= 0:
                return False
            continue
        line = b"\n" + f"{key}: {when.isoformat()}".encode()
        at = head.find(line)
        if at < 0 or head[at + len(line) : at + len(line) + 1] not in (b"\n", b"\r"):
            return False
    return True


def _has_due_dates(engine: Engine, rel: str) -> bool:
    """Whether a pinned note still carries review_on or archive_on (the index does not hold
    them): a person who pins by hand just after a use leaves a score that needs no rewrite."""
    try:
        with open(os.open(engine.layout.abs(rel), os.O_RDONLY | NOFOLLOW), "rb") as fh:
            head = fh.read(64 * 1024)
    except OSError:
        return False  # the write path reports it if it comes to a write
    end = head.find(b"\n---", 3)
    head = b"\n" + (head[: end + 1] if end > 0 else head)
    return any(b"\n" + key + b":" in head for key in (b"review_on", b"archive_on"))


def score_updates(engine: Engine, fields: Fields, now: datetime, kind: str = "stm") -> dict[str, Any]:
    """decay_score and review_priority for these fields, at the stored precision, and the
    due dates they imply (a date that never comes is removed, as a pinned memory's are)."""
    a = age(engine.params, Facts.of_fields(fields, now, kind), now)
    out: dict[str, Any] = a.scores(engine.settings.score_precision)
    for key, when in a.due().items():
        out[key] = REMOVE if when is None else when
    return out


def _same_date(key: str, old: Any, value: Any, frontmatter: dict[str, Any]) -> bool:
    if value is REMOVE:
        return key not in frontmatter
    return isinstance(old, (date, str)) and not isinstance(old, datetime) and str(old) == value.isoformat()


def score_transform(engine: Engine, rel: str, now: datetime) -> Callable[[bytes], bytes | None]:
    """bytes -> patched bytes (None: nothing to change), computed from what is on disk now."""

    def transform(current: bytes) -> bytes | None:
        note = parse_note(rel, current)
        if not note.writable:
            return None  # the person broke it meanwhile: leave it alone
        updates: dict[str, Any] = {}
        if note.fields.id is None:
            updates.update(
                {k: v for k, v in memory_defaults(now).items() if k not in {key.lower() for key in note.frontmatter}}
            )
            if "id" not in updates:
                return None
            f = note.fields
            f.created = f.created or now
            f.last_used = f.last_used or f.created
        for key, value in score_updates(engine, note.fields, now).items():
            old = note.frontmatter.get(key)
            if value is REMOVE or isinstance(value, date):
                if not _same_date(key, old, value, note.frontmatter):
                    updates[key] = value
            elif (
                not isinstance(old, (int, float))
                or isinstance(old, bool)
                or round(float(old), engine.settings.score_precision) != value
            ):
                updates[key] = value
        if not updates:
            return None
        return patch_bytes(current, updates, parsed=note.frontmatter if note.has_frontmatter else None)

    return transform
