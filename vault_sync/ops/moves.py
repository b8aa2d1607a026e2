"""Moving a memory between STM, LTM, Archive and the trash: exactly once, links kept.

Order of a move: check the new path is free, journal the intent (with the keys and body
edit to apply), rename the note to its new path without replacing anything there (one
atomic step on Linux; a hard link then an unlink elsewhere), patch the new file's owned
keys, rewrite path-qualified links elsewhere, journal done. A crash leaves the note at one
path (or, off Linux, possibly at both paths of one inode); `recover` finishes the move at
the next start from the journal entry.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from ..dates import format_datetime, parse_datetime
from ..edit import edit_text, patch_bytes
from ..engine import Engine
from ..errors import MnemovaultError, NoteProblem, PathOutsideVault, UnsafePath, WriteConflict, WrongState
from ..faults import writing
from ..index import queries
from ..index.resolver import Resolver, build_resolver
from ..names import free_rel
from ..note import normalized_hash, parse_note
from ..patch import REMOVE, Spelled
from ..safe_files import check_real_folder, read_file
from .journal import JOURNAL, journal_dir, quarantine, refuse, unlink_quietly, write_entry
from .linkrewrite import rewrite_links
from .ltm_index import STATUS_FOR_FOLDER, add_to_index_note, with_related
from .repair import heal, sync

TRASH = ".trash"  # Obsidian's trash folder: out of sight, recoverable by hand


@dataclass
class Move:
    id: str | None
    title: str
    src: str
    dst: str
    reason: str
    unfinished: str | None = None  # moved, but its keys are not written yet: why (recover writes them)

    def to_dict(self) -> dict[str, Any]:
        out = {"id": self.id, "title": self.title, "from": self.src, "to": self.dst, "reason": self.reason}
        if self.unfinished:
            out["unfinished"] = self.unfinished
        return out


def _encode_keys(keys: dict[str, Any]) -> dict[str, Any]:
    """Owned-key updates as JSON (dates and REMOVE tagged), for the journal."""
    out: dict[str, Any] = {}
    for k, v in keys.items():
        if v is REMOVE:
            out[k] = {"$remove": True}
        elif isinstance(v, Spelled):
            out[k] = {"$spelled": v.text, "before": list(v.before), "value": _encode_keys({k: v.value})[k]}
        elif isinstance(v, datetime):
            out[k] = {"$dt": format_datetime(v)}
        elif isinstance(v, (str, int, float, bool, list)) or v is None:
            out[k] = v
        else:
            out[k] = str(v)
    return out


def _decode_keys(keys: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in (keys or {}).items():
        if isinstance(v, dict) and v.get("$remove"):
            out[k] = REMOVE
        elif isinstance(v, dict) and "$spelled" in v:
            out[k] = Spelled(v["$spelled"], _decode_keys({k: v.get("value")})[k], tuple(v.get("before") or ()))
        elif isinstance(v, dict) and "$dt" in v:
            out[k] = parse_datetime(v["$dt"])
        else:
            out[k] = v
    return out


def check_size(engine: Engine, row: sqlite3.Row) -> None:
    """A note too large to index is too large to rewrite: refuse user writes on it."""
    if (row["size"] or 0) > engine.settings.max_note_bytes:
        raise NoteProblem(
            f"{row['path']} is too large ({row['size']} bytes > {engine.settings.max_note_bytes}); not changing it"
        )


def _taken(dst: Path) -> bool:
    return dst.exists() or dst.is_symlink()


def _link_or_rename(engine: Engine, src_rel: str, dst_rel: str) -> None:
    src, dst = engine.layout.abs(src_rel), engine.layout.abs(dst_rel)
    try:
        with writing(f"{src.parent.name}/{src.name} (moving it to {dst.parent.name}/)"):
            engine.writes.move(src_rel, dst_rel)  # never over a person's note of the same name
    except FileExistsError:
        raise WrongState(f"cannot move {src.name}: {dst.parent.name}/{dst.name} already exists") from None


def _apply_edits(current: bytes, rel: str, keys: dict[str, Any], body_edit: Callable[[str, Any], str] | None) -> bytes:
    fresh = parse_note(rel, current)
    if not fresh.writable:
        raise NoteProblem(f"{rel}: {'; '.join(p.cause for p in fresh.problems if p.blocking)}; fix it first")
    out = patch_bytes(current, keys)
    if body_edit is not None:
        edited = edit_text(out, lambda text: body_edit(text, fresh))
        out = out if edited is None else edited
    return out


def move_note(
    engine: Engine,
    row: sqlite3.Row,
    dst_rel: str,
    updates: Callable[[Any], dict[str, Any]],
    reason: str,
    body_edit: Callable[[str, Any], str] | None = None,
    rewrite: bool = True,
    journal_extra: dict[str, Any] | None = None,
) -> Move:
    """Move one indexed note to `dst_rel`, patching owned keys (and optionally the body).

    `journal_extra` is stored with the journal entry so `recover` can redo what the caller
    does after the move (e.g. the promoted note's Related names and LTM index entry).
    """
    src_rel = row["path"]
    check_size(engine, row)
    if src_rel == dst_rel:
        raise WrongState(f"{src_rel} is already there")
    src, dst = engine.layout.abs(src_rel), engine.layout.abs(dst_rel)
    try:
        data = src.read_bytes()
    except FileNotFoundError:
        engine.writes.synced([src_rel])
        raise WrongState(f"{src_rel} is gone from the vault (moved or deleted meanwhile); nothing was moved") from None
    if src.is_symlink():
        raise WrongState(f"{src_rel} is a symbolic link; not moving it")
    note = parse_note(src_rel, data)
    if not note.writable:
        raise NoteProblem(f"{src_rel}: {'; '.join(p.cause for p in note.problems if p.blocking)}; fix it first")
    if _taken(dst):
        raise WrongState(
            f"cannot move {src_rel} to {dst_rel}: a note with that name already exists there; rename one of them first"
        )
    keys = updates(note)
    resolver = build_resolver(engine.store)  # before the move: what links meant until now
    entry = {
        "src": src_rel,
        "dst": dst_rel,
        "reason": reason,
        "id": note.fields.id,
        "keys": _encode_keys(keys),
        "rewrite": rewrite,
        **(journal_extra or {}),
    }
    journal = write_entry(engine, entry)

    def transform(current: bytes) -> bytes | None:
        fresh = parse_note(dst_rel, current)
        return _apply_edits(current, dst_rel, updates(fresh), body_edit)

    with engine.writes.together():  # the rename, the patch and the links indexed as one change
        try:
            _link_or_rename(engine, src_rel, dst_rel)
        except BaseException:
            if not _taken(dst) or (src.exists() and not os.path.samefile(src, dst)):
                journal.unlink(missing_ok=True)  # nothing moved: nothing to recover
            raise
        unfinished = None
        try:
            engine.writes.update(dst_rel, transform, expected=data)
        except (NoteProblem, WriteConflict) as exc:
            # a person's save landed in the move (an in-place save empties the file before it
            # writes): the note is at its new path all the same, so the move is reported and
            # its links follow; the journal entry stays, and recover writes the keys
            unfinished = str(exc)
        if rewrite:
            rewrite_links(engine, resolver, src_rel, dst_rel)
        engine.writes.synced([])  # indexed before the journal entry goes
    if unfinished is None:
        journal.unlink(missing_ok=True)
    return Move(note.fields.id, note.title, src_rel, dst_rel, reason, unfinished)


def recover(engine: Engine) -> list[str]:
    """Finish moves a crash interrupted (call at start; safe after a sync too).

    Never raises: an entry that cannot be finished or rolled back is moved to the
    quarantine folder with its cause (see `quarantined`), so start-up goes on.
    """
    folder = journal_dir(engine)
    if not folder.is_dir():
        return []
    try:
        check_real_folder(engine.layout.root, JOURNAL)  # a linked journal folder: nothing in it is touched
    except UnsafePath as exc:
        return [f"the move journal was not read: {exc}"]
    done = []
    for path in sorted(folder.glob("*.json")):
        try:  # a link planted as an entry is never followed: unreadable, its name removed
            entry = json.loads(read_file(engine.layout.root, f"{JOURNAL}/{path.name}").decode("utf-8"))
            raw_src, raw_dst = entry["src"], entry["dst"]
        except (OSError, ValueError, KeyError, TypeError):
            unlink_quietly(path)  # unreadable: names no note, nothing to act on
            continue
        try:
            src_rel, dst_rel = engine.layout.safe_rel(raw_src), engine.layout.safe_rel(raw_dst)
            for rel in (src_rel, dst_rel):
                check_no_symlink(engine, rel)
        except MnemovaultError as exc:  # outside the vault or through a link: never acted on
            done.append(refuse(engine, path, entry, exc))
            continue
        try:
            done.append(_recover_one(engine, entry, src_rel, dst_rel))
        except OSError as exc:  # the disk, not the entry: try again next time
            done.append(f"could not finish the move of {src_rel} to {dst_rel}: {exc}; will retry at the next start")
            continue
        except Exception as exc:  # noqa: BLE001 - one bad entry must not stop every start
            done.append(quarantine(engine, path, entry, src_rel, dst_rel, exc))
            continue
        unlink_quietly(path)
    for tmp in folder.glob("*.tmp"):
        unlink_quietly(tmp)
    return done


def _recover_one(engine: Engine, entry: dict[str, Any], src_rel: str, dst_rel: str) -> str:
    with engine.writes.together():
        if _settle(engine, src_rel, dst_rel, entry):
            _finish(engine, entry, src_rel, dst_rel)
            return f"completed move of {src_rel} to {dst_rel}"
        engine.writes.synced([src_rel, dst_rel])
        return f"rolled back move of {src_rel} (never reached {dst_rel})"


def _same_note(src: Path, dst: Path, entry: dict[str, Any]) -> bool:
    """dst is the moved note whose hard link was split in two files (e.g. a sync that ran
    before recovery gave one of the two names a new id): same body, one has the move's id."""
    try:
        a, b = parse_note("a.md", src.read_bytes()), parse_note("b.md", dst.read_bytes())
    except OSError:
        return False
    return (
        entry.get("id") is not None
        and entry["id"] in (a.fields.id, b.fields.id)
        and normalized_hash(a.body) == normalized_hash(b.body)
    )


def check_no_symlink(engine: Engine, rel: str) -> None:
    """Refuse a vault path any part of which is a symbolic link: recovery acts on real files
    only (a destination linked to its source would otherwise read as "one note, two names")."""
    at = engine.layout.root
    for part in rel.split("/"):
        at = at / part
        if at.is_symlink():
            raise PathOutsideVault(
                f"{rel} goes through the symbolic link {engine.layout.rel(at)}; recovery does not follow links"
            )


def _second_name(src: Path, dst: Path) -> bool:
    """Two names of one regular file (a crash between link and unlink): dropping one loses nothing."""
    a, b = os.lstat(src), os.lstat(dst)
    return (
        stat.S_ISREG(a.st_mode)
        and stat.S_ISREG(b.st_mode)
        and (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)
        and a.st_nlink >= 2
    )


def _to_trash(engine: Engine, rel: str) -> str:
    """Set a file aside in .trash (never unlinked); its new path."""
    trash = engine.layout.abs(TRASH)
    if trash.is_symlink():
        raise WrongState(f"{TRASH} is a symbolic link; not moving {rel} into it")
    name = rel.rsplit("/", 1)[-1]
    dst_rel = free_path(engine, TRASH, name[:-3] if name.endswith(".md") else name)
    engine.writes.move(rel, dst_rel)
    return dst_rel


def _settle(engine: Engine, src_rel: str, dst_rel: str, entry: dict[str, Any]) -> bool:
    """Leave the note at exactly one path; True when that is the new one. Nothing is deleted:
    a second copy goes to .trash; only a second name of the same file is unlinked."""
    src, dst = engine.layout.abs(src_rel), engine.layout.abs(dst_rel)
    if src.exists() and dst.exists():
        if os.path.samefile(src, dst):
            if not _second_name(src, dst):
                raise WrongState(f"{src_rel} and {dst_rel} are one file but not two names of it; leaving both")
            os.unlink(src)  # crashed between link and unlink: one inode, two names
        elif _same_note(src, dst, entry):
            if src.stat().st_mtime_ns > dst.stat().st_mtime_ns:
                _to_trash(engine, dst_rel)  # the newer bytes win, at the new name
                engine.writes.move(src_rel, dst_rel)
            else:
                _to_trash(engine, src_rel)
            data = dst.read_bytes()
            if parse_note("b.md", data).fields.id != entry["id"]:
                engine.writes.update(dst_rel, lambda cur: patch_bytes(cur, {"id": entry["id"]}), expected=data)
        else:
            return False  # dst is another note: the move never happened
    return dst.exists() and not src.exists()


def _finish(engine: Engine, entry: dict[str, Any], src_rel: str, dst_rel: str) -> None:
    """Re-apply the keys and body edit of an interrupted move, then re-point links (idempotent)."""
    keys = _decode_keys(entry.get("keys") or {})
    if not keys:
        status = STATUS_FOR_FOLDER.get(engine.layout.kind_of(dst_rel))
        keys = {"status": status} if status else {}
    related = entry.get("related")
    body_edit = (lambda text, note: with_related(text, related)) if related else None
    if keys or body_edit:
        try:
            engine.writes.update(dst_rel, lambda cur: _apply_edits(cur, dst_rel, keys, body_edit))
        except NoteProblem:
            pass  # the person broke its frontmatter meanwhile: the move itself stands
    heal(
        engine, "sync", True, lambda: sync(engine)
    )  # recovery may run before the first sync: the links must be indexed
    if entry.get("index_entry"):
        add_to_index_note(engine, entry["index_entry"], parse_datetime(entry.get("at")) or engine.now())
    if entry.get("rewrite", True):
        # links written against the old path: resolve them as if the note were still there
        paths = [p for p in queries.all_paths(engine.store) if p != dst_rel] + [src_rel]
        rewrite_links(engine, Resolver(paths, engine.store.attachment_paths()), src_rel, dst_rel)


def free_path(engine: Engine, folder: str, stem: str) -> str:
    """folder/stem.md, or with a number when that name is taken on disk."""
    return free_rel(lambda rel: _taken(engine.layout.abs(rel)), folder, stem)
