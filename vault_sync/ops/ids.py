"""Duplicate-id repair: runs after a sync (the indexer only reads the vault).

A person copying a memory's file gives two notes one id; the later copy gets a new id,
surgically, through the write path.

A sync engine moving a memory (a promotion on another device) delivers the move as "new file
in LTM/" then, a moment or an hour later, "file in STM/ deleted". In between the vault holds
one id at two paths of one name in two memory folders. That is a move in flight, not a copy:
it waits `duplicate_settle_seconds` after the new file arrived here (its ctime: a sync engine
sets the mtime it had on the other device, never the ctime). Settled, the move that never
finished (both files still there) keeps the memory at its promoted path and puts the stale
copy in Obsidian's .trash, its uses carried over (and the person's text, when only the copy
left behind changed it: text_hashes.py). When both sides changed the text, the moved note keeps
the id and the copy left behind gets a new id derived from the old one and its path, the same on
every device. Anything else is a copy and gets a new id.
"""

from __future__ import annotations

import logging
import os
import uuid
from typing import TYPE_CHECKING, Any, Callable

from ..edit import patch_bytes
from ..engine import Engine
from ..index import queries
from ..names import free_rel
from ..note import Note, parse_note, stem_of
from ..patch import PatchError
from ..text_hashes import kept_side, with_text_of
from ..uses import merge_updates

if TYPE_CHECKING:
    from ..index.sync import SyncReport

log = logging.getLogger("mnemovault.ids")  # the daemon's log (bridge/server.py) carries mnemovault.*
MEMORY_KINDS = ("stm", "ltm", "archive")


def fix_duplicate_ids(engine: Engine, report: "SyncReport") -> None:
    """Two memories with one id: the later copy gets a new id, surgically; a move in flight waits."""
    ids = report.new_ids
    if not ids:
        return
    report.new_ids = set()  # checked once: the re-sync of a fixed note reports its new id
    report.id_fixes += _fix(engine, list(ids))


def settle_duplicate_ids(engine: Engine) -> list[str]:
    """Every id still held at two paths, settled now if its wait is over (the daemon's schedule
    and `sync` call this: a move in flight that was waiting is decided here)."""
    return _fix(engine, queries.duplicated_ids(engine.store))


def _fix(engine: Engine, ids: list[str]) -> list[str]:
    out: list[str] = []
    if not ids:
        return out
    # a memory keeps its id over a person's note that copied it; then the oldest row wins
    rows = queries.rows_with_ids(engine.store, ids)
    first: dict[str, Any] = {}
    for r in rows:
        if r["id"] not in first:
            first[r["id"]] = r
            continue
        if r["kind"] not in MEMORY_KINDS or not r["writable"]:
            continue
        keeper = first[r["id"]]
        if _in_flight(keeper, r):
            if _arrived_lately(engine, keeper["path"]) or _arrived_lately(engine, r["path"]):
                out.append(f"{r['path']}: same id as {keeper['path']}; waiting for a move in flight to finish")
                continue
            pair = _stale_of(engine, keeper, r)
            if pair is not None:
                out.append(_drop_stale(engine, *pair))
                continue
            # both sides changed the text: the moved memory keeps the id on every device, the
            # copy left behind gets one new id, the same on every device (no conflict of ids)
            moved, left = _moved_first(keeper, r)
            if _was_moved(moved, left):
                out.append(_new_id_for(engine, left, moved["path"], _same_everywhere(left)))
                continue
        out.append(_new_id_for(engine, r, keeper["path"]))
    return out


def _in_flight(a: Any, b: Any) -> bool:
    """One name in two memory folders: what a sync engine's move looks like while it lasts."""
    return a["kind"] in MEMORY_KINDS and a["path"].rsplit("/", 1)[-1] == b["path"].rsplit("/", 1)[-1]


def _arrived_lately(engine: Engine, rel: str) -> bool:
    try:
        changed = engine.layout.abs(rel).stat().st_ctime
    except OSError:
        return False
    return 0 <= engine.now().timestamp() - changed < engine.settings.duplicate_settle_seconds


def _stale_of(engine: Engine, a: Any, b: Any) -> tuple[Note, Note] | None:
    """(the copy a promotion or an archive left behind, the moved memory) when one is that,
    else None: the moved note's text starts with the other's whole text."""
    for old, new in ((a, b), (b, a)):
        if not _was_moved(new, old):
            continue
        try:
            old_note = parse_note(old["path"], engine.layout.abs(old["path"]).read_bytes())
            new_note = parse_note(new["path"], engine.layout.abs(new["path"]).read_bytes())
        except OSError:
            return None
        if new_note.body.strip().startswith(old_note.body.strip()):
            return old_note, new_note
        if old_note.writable and new_note.writable and kept_side(new_note, old_note) in ("a", "b"):
            return old_note, new_note  # only one side changed the person's text (text_hashes.py)
    return None


def _drop_stale(engine: Engine, stale: Note, kept: Note) -> str:
    """The stale copy to .trash (recoverable by hand), then its uses carried to the moved memory
    (in that order: re-indexing the kept note must not find the duplicate again)."""
    dst = free_rel(lambda rel: os.path.lexists(engine.layout.abs(rel)), ".trash", stem_of(stale.path))
    try:
        engine.writes.move(stale.path, dst)
    except OSError as exc:
        return f"{stale.path}: same memory as {kept.path}; could not move it to .trash: {exc}"
    log.info("%s: left behind by a move another device finished; moved to %s", stale.path, dst)
    done = f"{stale.path}: left behind by a move on another device to {kept.path}; moved to {dst}"

    def carry(current: bytes) -> bytes | None:
        # read the kept note as it is now: uses recorded on each device add up (uses.py)
        now = parse_note(kept.path, current)
        cur, s = now.fields, stale.fields
        updates = merge_updates((cur.use_count, cur.uses_by_device), (s.use_count, s.uses_by_device))
        if s.last_used and (cur.last_used is None or s.last_used > cur.last_used):
            updates["last_used"] = s.last_used
        if kept_side(now, stale) == "b":  # the person changed the text left behind: it is kept
            return patch_bytes(with_text_of(stale, now), updates)
        return patch_bytes(current, updates) if updates else None

    try:
        engine.writes.update(kept.path, carry)
    except (PatchError, OSError) as exc:
        return f"{done}; could not carry its uses over: {exc}"
    return done


_RANK = {"archive": 0, "ltm": 1, "stm": 2}  # where a move goes: STM -> LTM -> Archive


def _moved_first(a: Any, b: Any) -> tuple[Any, Any]:
    """(the note a move put in its new folder, the one left behind)."""
    return (a, b) if _RANK.get(a["kind"], 3) <= _RANK.get(b["kind"], 3) else (b, a)


def _was_moved(new: Any, old: Any) -> bool:
    """`new` is what a promotion or an archive made of `old` (as _stale_of reads them)."""
    promoted = new["kind"] == "ltm" and new["status"] == "promoted" and old["kind"] == "stm"
    return promoted or (new["kind"] == "archive" and old["kind"] in ("stm", "ltm"))


def _same_everywhere(r: Any) -> str:
    """A new id every device derives alike from the old id and the path."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"mnemovault:{r['id']}:{r['path']}"))


def _new_id_for(engine: Engine, r: Any, same_as: str, new_id: str | None = None) -> str:
    path = engine.layout.abs(r["path"])
    try:
        data = path.read_bytes()
    except OSError as exc:
        return f"{r['path']}: duplicate id {r['id']} (same as {same_as}); could not fix: {exc}"
    new_id = new_id or str(uuid.uuid4())
    try:
        engine.writes.update(r["path"], _new_id(new_id), expected=data)
    except (PatchError, OSError) as exc:
        return f"{r['path']}: duplicate id {r['id']} (same as {same_as}); could not fix: {exc}"
    return f"{r['path']}: duplicate id {r['id']} (same as {same_as}); given new id {new_id}"


def _new_id(new_id: str) -> Callable[[bytes], bytes]:
    return lambda current: patch_bytes(current, {"id": new_id})
