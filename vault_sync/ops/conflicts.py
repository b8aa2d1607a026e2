"""Sync-conflict copies: listed in status, never indexed; a memory's copy can be merged back.

Copies of mnemovault's own making merge without the person (`settle_conflicts`, on the lease
holder's schedule): a copy of the generated LTM Index note (its lines joined), and a memory's
copy that differs from its note only in keys the merge decides (counters, dates, tags, the
engine's outputs), and one where only one side changed the person's text (text_hashes.py
tells which: that side's text is kept). A copy where both sides changed it stays for the person."""

from __future__ import annotations

import json
import logging
from typing import Any

from ..dates import format_datetime
from ..edit import edit_text, newline_of, patch_bytes
from ..engine import Engine
from ..errors import InvalidInput, NotFound, WrongState
from ..fmblock import find_block
from ..index import queries
from ..limits import REF_CHARS, quote
from ..note import OWNED_KEYS, Note, parse_note
from ..text_hashes import KEY as TEXT_KEY
from ..text_hashes import kept_side, with_text_of
from ..text_hashes import merged as merged_hashes
from ..uses import merge_updates
from .conflict_diff import conflict_diff
from .ltm_index import INDEX_NOTE
from .moves import free_path
from .sweep import score_updates

log = logging.getLogger("mnemovault.conflicts")  # the daemon's log (bridge/server.py) carries mnemovault.*


def list_conflicts(engine: Engine, diffs: int | None = None) -> list[dict[str, Any]]:
    """Every conflict copy with what it changes: the person's text as a bounded unified diff
    (for the first `diffs` copies only, when given: `status` reads two files per copy)."""
    rows = queries.all_conflicts(engine.store)
    return [{**row, **_what_differs(engine, row)} if diffs is None or i < diffs else row for i, row in enumerate(rows)]


def _what_differs(engine: Engine, row: dict[str, Any]) -> dict[str, Any]:
    original, copy = engine.layout.abs(row["original"]), engine.layout.abs(row["path"])
    try:
        copy_data = copy.read_bytes()
    except OSError as exc:
        return {"differs": "unreadable", "diff": [], "diff_cut": 0, "error": f"the copy: {exc.strerror or exc}"}
    try:
        orig_data = original.read_bytes()
    except FileNotFoundError:
        return {"differs": "original gone", "diff": [], "diff_cut": 0}
    except OSError as exc:
        return {"differs": "unreadable", "diff": [], "diff_cut": 0, "error": f"the note: {exc.strerror or exc}"}
    whole = row["original"] == _index_note(engine) or engine.layout.kind_of(row["original"]) not in (
        "stm",
        "ltm",
        "archive",
    )
    return conflict_diff(row["original"], row["path"], orig_data, copy_data, whole)


def _body(text: str) -> str:
    block = find_block(text)
    return text[block.body_start :] if block else text


def _merged_fields(orig: Note, copy: Note) -> dict[str, Any]:
    """Uses added up per device (uses.py), other counters by max, the latest use, the
    earliest creation, the union of tags."""
    a, b = orig.fields, copy.fields
    out: dict[str, Any] = merge_updates((a.use_count, a.uses_by_device), (b.use_count, b.uses_by_device))
    if b.last_used and (a.last_used is None or b.last_used > a.last_used):
        out["last_used"] = b.last_used
    if b.created and a.created and b.created < a.created:
        out["created"] = b.created
    if b.strength > a.strength:
        out["strength"] = b.strength
    for key in ("review_count", "cross_domain_count"):
        if getattr(b, key) > getattr(a, key):
            out[key] = getattr(b, key)
    tags = list(dict.fromkeys([*a.tags, *b.tags]))
    if tags != a.tags:
        out["tags"] = tags
    return out


def resolve_conflict(engine: Engine, path: str) -> dict[str, Any]:
    """Merge a memory's conflict copy into its original, then move the copy to .trash."""
    rel = engine.layout.safe_rel(path)
    row = queries.conflict(engine.store, rel)
    if row is None:
        raise NotFound(f"{quote(rel, REF_CHARS)} is not a known conflict copy (see `mnemovault status`)")
    copy_path, orig_path = engine.layout.abs(rel), engine.layout.abs(row["original"])
    if row["original"] == _index_note(engine) and orig_path.exists():
        return _merge_index_copy(engine, rel, row["original"])
    copy_data = copy_path.read_bytes()
    copy = parse_note(rel, copy_data)
    if not copy.writable:
        raise WrongState(f"{rel} cannot be read safely ({'; '.join(p.cause for p in copy.problems)}); merge it by hand")
    if not orig_path.exists():
        # the original is gone: the copy simply takes its place
        engine.writes.rename(rel, row["original"])
        return {"conflict": rel, "original": row["original"], "action": "renamed to the original name"}
    orig = parse_note(row["original"], orig_path.read_bytes())
    if orig.fields.id is None or copy.fields.id is None or engine.layout.kind_of(row["original"]) == "note":
        raise InvalidInput(f"{rel} is a copy of one of your notes, not of a memory; compare and merge it in Obsidian")
    extra_body = _body(copy.text).strip()
    same_body = extra_body == _body(orig.text).strip()

    def transform(current: bytes) -> bytes | None:
        fresh = parse_note(row["original"], current)
        out = patch_bytes(current, _merged_fields(fresh, copy))
        if not same_body and extra_body not in out.decode("utf-8"):

            def append(text: str) -> str:
                nl = newline_of(text)
                return (
                    text.rstrip("\r\n")
                    + f"{nl}{nl}*From the conflicting copy {copy_path.name}:*{nl}{nl}{extra_body}{nl}"
                )

            return edit_text(out, append)
        return out

    engine.writes.update(row["original"], transform)
    trash_rel = free_path(engine, ".trash", copy_path.name[:-3])
    engine.writes.rename(rel, trash_rel)
    return {
        "conflict": rel,
        "original": row["original"],
        "action": "merged",
        "text_kept_from_both": not same_body,
        "copy_moved_to": trash_rel,
    }


def _index_note(engine: Engine) -> str:
    return f"{engine.layout.ltm}/{INDEX_NOTE}.md"


def _merge_index_copy(engine: Engine, rel: str, original: str) -> dict[str, Any]:
    """The generated index note: the copy's entry lines the note lacks are added, the copy trashed."""
    extra = [
        line
        for line in engine.layout.abs(rel).read_bytes().decode("utf-8", errors="replace").splitlines()
        if line.startswith("- ")
    ]

    def transform(current: bytes) -> bytes | None:
        text = current.decode("utf-8")
        have = set(text.splitlines())
        new = [line for line in dict.fromkeys(extra) if line not in have]
        if not new:
            return None
        nl = newline_of(text)
        return (text + ("" if text.endswith(nl) or not text else nl) + "".join(line + nl for line in new)).encode()

    engine.writes.update(original, transform)
    trash_rel = free_path(engine, ".trash", rel.rsplit("/", 1)[-1][:-3])
    engine.writes.rename(rel, trash_rel)
    return {"conflict": rel, "original": original, "action": "merged", "copy_moved_to": trash_rel}


def _pair(engine: Engine, row: dict[str, Any]) -> tuple[Note, Note] | None:
    """A memory and its copy, both readable and writable, one id; None for anything else."""
    if engine.layout.kind_of(row["original"]) not in ("stm", "ltm", "archive"):  # archived on both sides too
        return None
    try:
        orig = parse_note(row["original"], engine.layout.abs(row["original"]).read_bytes())
        copy = parse_note(row["path"], engine.layout.abs(row["path"]).read_bytes())
    except OSError:
        return None
    if not (orig.writable and copy.writable) or orig.fields.id is None or orig.fields.id != copy.fields.id:
        return None
    return orig, copy


def _merge_decides_all(engine: Engine, row: dict[str, Any]) -> bool:
    """The copy differs from its memory only in keys the merge decides (none of the person's)."""
    if row["original"] == _index_note(engine):
        return engine.layout.abs(row["original"]).exists()
    pair = _pair(engine, row)
    if pair is None:
        return False
    orig, copy = pair
    if _body(copy.text).strip() != _body(orig.text).strip():
        return False
    persons = (set(orig.frontmatter) | set(copy.frontmatter)) - set(OWNED_KEYS)
    return all(orig.frontmatter.get(k) == copy.frontmatter.get(k) for k in persons)


def _one_side_changed(engine: Engine, row: dict[str, Any]) -> bool:
    """Only one side changed the person's text, as the notes' text_hashes tell (text_hashes.py)."""
    pair = _pair(engine, row)
    return pair is not None and kept_side(*pair) in ("a", "b")


def merge_one_side(engine: Engine, rel: str, original: str) -> dict[str, Any]:
    """The text of the side that changed it is kept, owned keys merged as for any copy, the
    scores recomputed; the copy goes to .trash. Refused (nothing written) when the note changed
    meanwhile so that it can no longer be told."""
    copy_path = engine.layout.abs(rel)
    copy_data = copy_path.read_bytes()
    copy = parse_note(rel, copy_data)
    kept: list[str] = []

    def transform(current: bytes) -> bytes | None:
        fresh = parse_note(original, current)
        side = kept_side(fresh, copy)
        if side not in ("a", "b") or not fresh.writable:
            raise WrongState(f"{rel}: both sides changed your text; compare and merge it")
        kept[:] = ["note" if side == "a" else "copy"]
        if side == "a":
            out = patch_bytes(current, {**_merged_fields(fresh, copy), TEXT_KEY: merged_hashes(fresh, copy)})
        else:  # the copy's text, the note's owned keys, then what the copy adds to them
            out = patch_bytes(with_text_of(copy, fresh), _merged_fields(fresh, copy))
        now = parse_note(original, out)
        return patch_bytes(out, score_updates(engine, now.fields, engine.now()))

    engine.writes.update(original, transform)
    trash_rel = free_path(engine, ".trash", copy_path.name[:-3])
    engine.writes.rename(rel, trash_rel)
    return {
        "conflict": rel,
        "original": original,
        "action": "merged",
        "text_kept_from": kept[0],
        "copy_moved_to": trash_rel,
    }


def settle_conflicts(engine: Engine) -> list[dict[str, Any]]:
    """Merge every conflict copy of mnemovault's own making now (see the module docstring);
    each merge is a line in the log and counted for `status` (merged_state)."""
    out = []
    for row in queries.all_conflicts(engine.store):
        try:
            if _merge_decides_all(engine, row):
                done = resolve_conflict(engine, row["path"])
            elif _one_side_changed(engine, row):
                done = merge_one_side(engine, row["path"], row["original"])
            else:
                continue
        except (OSError, InvalidInput, WrongState, NotFound):
            continue  # left listed for the person
        log.info(
            "merged conflict copy %s into %s%s; the copy moved to %s",
            row["path"],
            row["original"],
            " (your text from the copy)" if done.get("text_kept_from") == "copy" else "",
            done.get("copy_moved_to"),
        )
        out.append(done)
    if out:
        _record_merged(engine, out)
    return out


MERGED_KEY = "conflicts_merged"
MAX_RECENT = 10


def merged_state(engine: Engine) -> dict[str, Any]:
    """{"count": copies merged by themselves, "last_at": iso|None, "recent": the last few}.
    Kept in the index's meta table (like background.py): a rebuilt index starts again at 0."""
    try:
        data = json.loads(engine.store.get_meta(MERGED_KEY) or "{}")
    except ValueError:
        data = {}
    return {"count": int(data.get("count") or 0), "last_at": data.get("last_at"), "recent": data.get("recent") or []}


def _record_merged(engine: Engine, merged: list[dict[str, Any]]) -> None:
    data = merged_state(engine)
    recent = [
        {"copy": m["conflict"], "original": m["original"], "copy_moved_to": m.get("copy_moved_to")} for m in merged
    ]
    data = {
        "count": data["count"] + len(merged),
        "last_at": format_datetime(engine.now()),
        "recent": (recent + data["recent"])[:MAX_RECENT],
    }
    engine.store.set_meta(MERGED_KEY, json.dumps(data))
