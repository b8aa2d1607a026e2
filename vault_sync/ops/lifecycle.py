"""promote, gc (archive or trash), restore, review, and the automatic lifecycle."""

from __future__ import annotations

import math
import sqlite3
from datetime import datetime
from typing import Any, Callable

from .. import lookups
from ..ageing import of_row
from ..dates import format_datetime
from ..editor_hold import held_matcher
from ..engine import Engine
from ..errors import InvalidInput, WrongState
from ..index import queries
from ..index.resolver import build_resolver
from ..limits import check_limit
from ..lookups import newest, not_current, successors_map
from ..note import Note, parse_note, stem_of
from ..patch import REMOVE
from ..projects import EVERYTHING, ProjectScope
from ..search import semantic
from ..secret_gate import check_fields
from . import review as review_op
from .conflicts import settle_conflicts
from .ids import settle_duplicate_ids
from .ltm_index import add_to_index_note, wikilink_safe, with_related
from .moves import Move, free_path, move_note
from .sweep import recently_modified, score_updates, sweep

MAX_RELATED = 8


# -- candidates --
def _stm_rows(engine: Engine) -> list[sqlite3.Row]:
    return queries.writable_stm_rows(engine.store)


def promote_candidates(engine: Engine) -> list[dict[str, Any]]:
    now = engine.now()
    out = []
    superseded = not_current(engine)
    for row in _stm_rows(engine):
        # a replaced fact is not long-term knowledge; a pinned memory is promoted only when asked (ageing.py)
        a = of_row(engine.params, row, now, row["path"] in superseded)
        if a.decision == "promote":
            out.append(
                {"id": row["id"], "title": row["title"], "path": row["path"], "score": a.score, "reason": a.reason}
            )
    return sorted(out, key=lambda c: -c["score"])


def gc_candidates(engine: Engine) -> list[dict[str, Any]]:
    now = engine.now()
    out = []
    superseded = not_current(engine)
    for row in _stm_rows(engine):
        # a superseded one is forgotten whatever its score, a pinned one never (ageing.py)
        a = of_row(engine.params, row, now, row["path"] in superseded)
        if a.decision == "forget":
            out.append(
                {"id": row["id"], "title": row["title"], "path": row["path"], "score": a.score, "reason": a.reason}
            )
    return sorted(out, key=lambda c: c["score"])


def review(engine: Engine, limit: int = 20, scope: ProjectScope = EVERYTHING) -> list[dict[str, Any]]:
    limit = check_limit(limit)
    return [lookups.view(engine, row) for row in review_rows(engine, scope)[:limit]]


def review_rows(engine: Engine, scope: ProjectScope = EVERYTHING) -> list[sqlite3.Row]:
    """Every memory of `scope` in the danger zone, most urgent first (ops/listings.py pages them)."""
    now = engine.now()
    items = []
    superseded = not_current(engine)
    for row in queries.stm_rows(engine.store):
        if not scope.admits(row["project"]):
            continue  # another project's: not this queue
        a = of_row(engine.params, row, now, row["path"] in superseded)
        if a.in_review:  # not superseded, not pinned, in the danger zone (ageing.py)
            items.append((a.review_priority, row))
    items.sort(key=lambda t: (-t[0], t[1]["path"]))
    return [row for _, row in items]


# -- promote --
MIN_TAG_SCORE = 0.3  # share at least this fraction of the note's tag information (IDF-weighted)


def _tag_neighbours(engine: Engine, row: sqlite3.Row) -> list[str]:
    """Paths of memories sharing this note's tags, weighted by how rare each shared tag is.

    A tag carried by many memories ("people", "project/atlas") says little; a rare one says a
    lot. Each candidate scores the IDF-weighted fraction of this note's tags it shares, and
    only candidates with a meaningful score are kept, best first.
    """
    tags = sorted(set(engine.store.tags_of(row["rowid"])))
    if not tags:
        return []
    total = queries.memory_count(engine.store) or 1
    df = queries.memory_tag_counts(engine.store, tags)
    idf = {t: math.log((total + 1) / max(1, df.get(t, 1))) for t in tags}
    own = sum(idf.values()) or 1.0
    need = MIN_TAG_SCORE * own
    # a note sharing none of the rarest tags cannot reach `need` with the others alone, so
    # only notes carrying one of those are scored (a common tag alone pulls in thousands)
    seeds: list[str] = []
    rest = sum(idf.values())
    for tag in sorted(tags, key=lambda t: (-idf[t], t)):
        seeds.append(tag)
        rest -= idf[tag]
        if rest < need - 1e-9:
            break
    return queries.tag_neighbours(engine.store, idf, seeds, row["rowid"], need - 1e-9, MAX_RELATED)


def _related_names(engine: Engine, row: sqlite3.Row, dst_rel: str | None = None) -> list[str]:
    """Names to link from a promoted note: its `related` list, then notes sharing its rare tags,
    then semantic neighbours; each as the shortest link target no note reads as another."""
    resolver = build_resolver(engine.store)
    paths: list[str] = []
    for target in queries.related_targets(engine.store, row["rowid"]):
        hit = resolver.resolve(target, row["path"])
        if hit is not None and hit.lower().endswith(".md"):  # notes only, and never a dangling link
            paths.append(hit)
    paths += _tag_neighbours(engine, row)
    for name in semantic.neighbours(engine, row, limit=3):
        hit = resolver.resolve(name, row["path"])
        if hit is not None:
            paths.append(hit)
    names: list[str] = []
    seen = {row["path"]}
    after = resolver.changed(added=dst_rel, removed=row["path"]) if dst_rel else resolver
    for p in _current(engine, paths):
        if p in seen:
            continue
        seen.add(p)
        target = after.shortest_target(p)
        names.append(target if wikilink_safe(target) else p[:-3])
    return names[:MAX_RELATED]


def _current(engine: Engine, paths: list[str]) -> list[str]:
    """The paths with each superseded memory replaced by the newest of its chain (dropped when
    a loop stops the walk): a Related section never points at a replaced fact."""
    superseded = not_current(engine)
    if not superseded.intersection(paths):
        return paths
    succ = successors_map(engine)
    out = []
    for p in paths:
        if p in superseded:
            p = newest(engine, p, succ) or ""
        if p and p not in superseded:
            out.append(p)
    return out


def _check_promotable(engine: Engine, row: sqlite3.Row) -> None:
    if row["kind"] == "ltm":
        raise WrongState(f"{row['path']} is already promoted")
    if row["kind"] == "archive":
        raise WrongState(f"{row['path']} is archived; restore it before promoting it")
    if row["kind"] != "stm":
        raise WrongState(f"{row['path']} is not a memory in {engine.layout.stm}/")
    if not row["writable"]:
        raise WrongState(f"{row['path']} has invalid frontmatter; fix it before promoting it")


def promote_one(engine: Engine, row: sqlite3.Row, reason: str) -> Move:
    _check_promotable(engine, row)
    now = engine.now()
    dst = f"{engine.layout.ltm}/{row['path'].split('/', 1)[1]}"
    names = _related_names(engine, row, dst)
    move = move_note(
        engine,
        row,
        dst,
        lambda note: {"status": "promoted", "promoted_at": now},
        reason,
        body_edit=lambda text, note: with_related(text, names),
        journal_extra={"related": names, "index_entry": dst, "at": format_datetime(now)},
    )
    add_to_index_note(engine, dst, now)
    engine.writes.emit("promoted", move.to_dict())
    return move


def promote(engine: Engine, ref: str, dry_run: bool = False) -> dict[str, Any]:
    """One memory, by id or path (an empty ref is an error, never "promote everything")."""
    _check_flag("dry_run", dry_run)
    row = lookups.resolve(engine, ref)
    _check_promotable(engine, row)
    a = of_row(engine.params, row, engine.now())
    reason = a.reason if a.decision == "promote" else "requested"
    if dry_run:
        return {
            "dry_run": True,
            "candidates": [{"id": row["id"], "title": row["title"], "path": row["path"], "reason": reason}],
            "promoted": [],
        }
    return {"dry_run": False, "promoted": [promote_one(engine, row, reason).to_dict()], "errors": []}


def promote_all(engine: Engine, dry_run: bool = False) -> dict[str, Any]:
    """Every memory that meets the promotion rule (notes edited within quiet_seconds wait)."""
    _check_flag("dry_run", dry_run)
    return _promote_all(engine, dry_run, None)


def _waiting(
    engine: Engine, cands: list[dict[str, Any]], quiet: set[str] | None
) -> tuple[list[dict[str, Any]], list[str]]:
    """(the candidates that move now, the paths held by the editor). Bulk moves (GC and
    promote-all on any front end, jobs, the scheduled lifecycle) leave the note open in the
    editor for a later run, and notes edited within quiet_seconds (or in `quiet`) too."""
    held = held_matcher(engine.editor.held())
    now, waiting = [], []
    for c in cands:
        if held(c["path"]):
            waiting.append(c["path"])
        elif not (c["path"] in quiet if quiet is not None else recently_modified(engine, c["path"])):
            now.append(c)
    return now, waiting


def _promote_all(engine: Engine, dry_run: bool, quiet: set[str] | None) -> dict[str, Any]:
    cands, held = _waiting(engine, promote_candidates(engine), quiet)
    if dry_run:
        return {"dry_run": True, "candidates": cands, "promoted": [], "held": held}
    return {**_run_many(engine, cands, lambda row, c: promote_one(engine, row, c["reason"]), "promoted"), "held": held}


def _run_many(
    engine: Engine, cands: list[dict[str, Any]], act: Callable[[sqlite3.Row, dict[str, Any]], Move], key: str
) -> dict[str, Any]:
    done, errors = [], []
    for c in cands:
        row = engine.store.note(c["path"])
        if row is None:
            continue
        try:
            move = act(row, c)
        except Exception as exc:  # one bad note must not stop the batch
            errors.append({"path": c["path"], "error": str(exc)})
            continue
        done.append(move.to_dict())  # a move whose keys wait is still a move: reported as one
        if move.unfinished:
            errors.append({"path": move.dst, "error": move.unfinished})
    return {"dry_run": False, key: done, "errors": errors}


# -- gc / archive / restore --
def archive_one(engine: Engine, row: sqlite3.Row, reason: str, extra: dict[str, Any] | None = None) -> Move:
    if row["kind"] == "archive":
        raise WrongState(f"{row['path']} is already archived")
    if row["kind"] == "note":
        raise WrongState(f"{row['path']} is one of your notes, not a memory; only memories are archived")
    check_not_pinned(row, "archived")
    now = engine.now()
    dst = f"{engine.layout.archive}/{row['path'].split('/', 1)[1]}"
    # where it came from (stm or ltm): restore puts it back there
    keys = {
        "status": "archived",
        "archived_at": now,
        "archive_reason": reason,
        "archived_from": row["kind"],
        **(extra or {}),
    }
    move = move_note(engine, row, dst, lambda note: {**archived_scores(engine, note, now), **keys}, reason)
    engine.writes.emit("archived", move.to_dict())
    return move


def check_not_pinned(row: sqlite3.Row, what: str) -> None:
    """A pinned memory is never archived (nor trashed, nor merged away) by any path, a request
    by name included: the person pinned it to keep it; unpinning is theirs to do first."""
    if row["pinned"]:
        raise WrongState(f"{row['path']} is pinned, and a pinned memory is never {what}; unpin it first")


def trash_one(engine: Engine, row: sqlite3.Row, reason: str) -> Move:
    """Obsidian's .trash: out of sight, still recoverable by hand; never unlinked."""
    check_not_pinned(row, "archived")
    dst = free_path(engine, ".trash", stem_of(row["path"]))
    now = engine.now()
    move = move_note(
        engine,
        row,
        dst,
        lambda note: {
            **archived_scores(engine, note, now),
            "status": "archived",
            "archived_at": now,
            "archive_reason": reason,
        },
        reason,
        rewrite=False,
    )
    engine.writes.emit("archived", move.to_dict())
    return move


def archived_scores(engine: Engine, note: Note, now: datetime) -> dict[str, Any]:
    """The owned score keys of a memory leaving the lifecycle: its score as of now (not the
    last sweep's), and no review_on/archive_on (no sweep will act on them in the archive)."""
    return score_updates(engine, note.fields, now, kind="archive")


def _check_flag(name: str, value: object) -> None:
    # `None` or "no" must never count as a yes or a no: a wrong type could run a real GC
    if not isinstance(value, bool):
        raise InvalidInput(f"{name} must be true or false")


def gc(engine: Engine, dry_run: bool = True, delete: bool = False, limit: int | None = None) -> dict[str, Any]:
    """Archive (or trash) memories below the forget threshold, lowest score first.

    `limit` caps what is archived, not only what is listed: at most `limit` notes move."""
    _check_flag("dry_run", dry_run)
    _check_flag("delete", delete)
    if limit is not None:
        check_limit(limit)
    return _gc(engine, dry_run, delete, None, limit)


def _gc(
    engine: Engine, dry_run: bool, delete: bool, quiet: set[str] | None, limit: int | None = None
) -> dict[str, Any]:
    cands, held = _waiting(engine, gc_candidates(engine), quiet)
    if dry_run:
        return {"dry_run": True, "candidates": cands, "archived": [], "held": held}
    act = (
        (lambda row, c: trash_one(engine, row, c["reason"]))
        if delete
        else (lambda row, c: archive_one(engine, row, c["reason"]))
    )
    out = _run_many(engine, cands if limit is None else cands[:limit], act, "archived")
    out["candidates"] = cands
    out["held"] = held
    return out


def archive(engine: Engine, ref: str, reason: str = "archived on request") -> dict[str, Any]:
    """Archive one memory on request. No caller-given frontmatter: the keys written are the
    engine's own (consolidate passes `merged_into` through archive_one, inside the engine)."""
    check_fields({"reason": reason})  # written into the note
    row = lookups.resolve(engine, ref)
    prior = _prior_on_disk(engine, row["path"])
    return {**archive_one(engine, row, reason).to_dict(), "prior": prior}


def _prior_on_disk(engine: Engine, rel: str) -> dict[str, Any] | None:
    """The owned values an undo of this archive writes back (None: the note is unreadable)."""
    try:
        data = engine.layout.abs(rel).read_bytes()
        text = data.decode("utf-8", errors="replace")
        keys = review_op.PRIOR_KEYS + review_op.ARCHIVE_KEYS
        return review_op.prior_of(parse_note(rel, data).frontmatter, keys, text)
    except OSError:
        return None


def _archived_from(engine: Engine, rel: str) -> str:
    """stm or ltm: what archive recorded; for a note archived before it recorded that, a
    `promoted_at` says it was long-term."""
    try:
        fm = parse_note(rel, engine.layout.abs(rel).read_bytes()).frontmatter
    except OSError:
        return "stm"
    recorded = fm.get("archived_from")
    if recorded in ("stm", "ltm"):
        return str(recorded)
    return "ltm" if fm.get("promoted_at") else "stm"


def restore(engine: Engine, ref: str, prior: dict[str, Any] | None = None) -> dict[str, Any]:
    """Back to where it was archived from as a use (its score starts again from now): STM/ as
    active, or LTM/ as promoted; with `prior` (what archive answered), the undo of that
    archive: exactly the values before it, and not a use."""
    undo = None if prior is None else review_op.prior_updates(prior, review_op.PRIOR_KEYS, review_op.ARCHIVE_KEYS)
    row = lookups.resolve(engine, ref)
    if row["kind"] != "archive":
        raise WrongState(f"{row['path']} is not archived; only notes in {engine.layout.archive}/ can be restored")
    now = engine.now()
    # where it was archived from (an undo too: a note the person kept in LTM/ unpromoted goes back there)
    long_term = _archived_from(engine, row["path"]) == "ltm"
    home = engine.layout.ltm if long_term else engine.layout.stm
    dst = f"{home}/{row['path'].split('/', 1)[1]}"

    def keys(note: Note) -> dict[str, Any]:
        gone: dict[str, Any] = {k: REMOVE for k in ("merged_into", "archived_from") if k in note.frontmatter}
        if undo is not None:  # every key archive wrote, as it was before (REMOVE: absent)
            return undo
        note.fields.last_used = now  # back in use: its score and due dates start again from now
        return {
            **score_updates(engine, note.fields, now),
            "status": "promoted" if long_term else "active",  # a long-term memory stays promoted
            "last_used": now,
            "archived_at": REMOVE,
            "archive_reason": REMOVE,
            **gone,
        }

    move = move_note(engine, row, dst, keys, "archive undone" if undo is not None else "restored on request")
    engine.writes.emit("restored", move.to_dict())
    return move.to_dict()


# -- automatic --
def run_lifecycle(engine: Engine) -> dict[str, Any]:
    """What the daemon runs on a schedule: sweep, then promote and archive by the rules.

    Notes the person modified within quiet_seconds are left alone; which ones is decided
    before the sweep, whose own score writes must not make every note look "just edited".
    The note open in the editor waits too (editor_hold.py): the sweep skips it, and it is
    promoted or archived on the first run after the editor lets it go.
    """
    paths = queries.stm_paths(engine.store)
    quiet = {p for p in paths if recently_modified(engine, p)}  # the held note: _waiting
    report: dict[str, Any] = {"sweep": sweep(engine).to_dict()}
    settled = settle_duplicate_ids(engine)  # a sync engine's move that was in flight
    if settled:
        report["duplicates"] = settled
    merged = settle_conflicts(engine)  # conflict copies of our own making
    if merged:
        report["conflicts_merged"] = merged
    loading = engine.runtime.embedder is not None and engine.runtime.embedder.loading
    if engine.settings.auto_promote and loading:
        # a promotion links semantic neighbours: waiting for the model here would hold every
        # save behind the write lock; the first run after the load promotes them
        report["postponed"] = ["promote: the embedding model is still loading"]
    elif engine.settings.auto_promote:
        report["promote"] = _promote_all(engine, False, quiet)
    if engine.settings.auto_gc:
        report["gc"] = _gc(engine, False, False, quiet)
    return report
