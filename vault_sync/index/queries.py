"""Named reads of the index for the service and the operations: every SQL statement the
engine runs outside the indexer and the search modules lives here (or in IndexStore).

Each function takes the IndexStore and returns rows (sqlite3.Row) or plain values.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any

from .fragments import SUPERSEDED_BY, SUPERSEDED_SQL, SUPERSEDES, in_chunks, marks

if TYPE_CHECKING:
    from ..projects import ProjectScope
    from .fulltext import Filters
    from .store import IndexStore

Rows = list[sqlite3.Row]


def _count(store: "IndexStore", sql: str) -> int:
    row = store.one(sql)
    return int(row[0]) if row is not None else 0


# -- notes --
def notes_named(store: "IndexStore", name: str) -> Rows:
    return store.query("SELECT rowid, * FROM notes WHERE name = ?", (name,))


def all_names(store: "IndexStore") -> set[str]:
    return {r[0] for r in store.query("SELECT name FROM notes")}


def all_paths(store: "IndexStore") -> list[str]:
    return [r[0] for r in store.query("SELECT path FROM notes")]


def stm_paths(store: "IndexStore") -> list[str]:
    return [r[0] for r in store.query("SELECT path FROM notes WHERE kind = 'stm'")]


def stm_rows(store: "IndexStore") -> Rows:
    return store.query("SELECT rowid, * FROM notes WHERE kind = 'stm'")


def writable_stm_rows(store: "IndexStore") -> Rows:
    return store.query("SELECT rowid, * FROM notes WHERE kind = 'stm' AND writable = 1 ORDER BY path")


def sweep_rows(store: "IndexStore") -> Rows:
    """STM notes with why they cannot be written (blocking problems) and whether they have any."""
    return store.query(
        "SELECT n.rowid, n.*, (SELECT group_concat(cause, '; ') FROM problems p WHERE p.path = n.path AND p.blocking) "
        "AS why, "
        "EXISTS (SELECT 1 FROM problems p WHERE p.path = n.path) AS has_problems "
        "FROM notes n WHERE kind = 'stm' ORDER BY path"
    )


def memory_with_body_hash(
    store: "IndexStore", body_hash: str, scope: "ProjectScope | None" = None
) -> sqlite3.Row | None:
    """A memory (STM or LTM) whose normalized body hash is this one, within `scope` (projects.py)."""
    where, params = scope.sql("notes") if scope is not None else ("1", [])
    for row in store.query(
        f"SELECT rowid, path, kind, project FROM notes WHERE body_hash = ? AND kind IN ('stm', 'ltm') AND {where}",
        (body_hash, *params),
    ):
        return row
    return None


def rows_with_ids(store: "IndexStore", ids: list[str]) -> Rows:
    """Notes carrying these ids: per id a memory before a person's note, then the oldest row."""
    return store.query(
        f"SELECT rowid, path, id, kind, status, writable FROM notes WHERE id IN ({marks(len(ids))}) "
        "ORDER BY id, kind = 'note', rowid",
        tuple(ids),
    )


def duplicated_ids(store: "IndexStore") -> list[str]:
    """Ids held by more than one note."""
    return [r[0] for r in store.query("SELECT id FROM notes WHERE id IS NOT NULL GROUP BY id HAVING COUNT(*) > 1")]


def rows_of_kinds(store: "IndexStore", kinds: tuple[str, ...]) -> Rows:
    return store.query(f"SELECT rowid, * FROM notes WHERE kind IN ({marks(len(kinds))})", kinds)


def graph_nodes(store: "IndexStore") -> Rows:
    return store.query("SELECT rowid, path, id, kind, title, status, created, last_used FROM notes")


def paths_by_rowid(store: "IndexStore", rowids: list[int]) -> dict[int, str]:
    """rowid -> path for the notes of `rowids` that exist."""
    out: dict[int, str] = {}
    for chunk in in_chunks(rowids):
        out.update(
            (r[0], r[1])
            for r in store.query(f"SELECT rowid, path FROM notes WHERE rowid IN ({marks(len(chunk))})", tuple(chunk))
        )
    return out


def clusterable_stm_rows(store: "IndexStore") -> Rows:
    """STM memories still in play (not archived nor promoted), by path: what clustering groups."""
    return store.query(
        "SELECT rowid, path, id, title, content_hash, project FROM notes "
        "WHERE kind = 'stm' AND coalesce(status, 'active') NOT IN ('archived', 'promoted') ORDER BY path"
    )


def fts_matches(store: "IndexStore", query: str) -> bool:
    """Whether any note's indexed text matches this FTS5 query (a bench waits on it)."""
    return store.one("SELECT rowid FROM fts WHERE fts MATCH ? LIMIT 1", (query,)) is not None


def indexed_texts(store: "IndexStore", limit: int) -> list[tuple[str, str]]:
    """(title, body) of up to `limit` notes as indexed for full-text search."""
    return [(r[0], r[1]) for r in store.query("SELECT title, body FROM fts LIMIT ?", (limit,))]


def body_of(store: "IndexStore", rowid: int) -> str:
    """The note's body as indexed for full-text search ('' when it has none)."""
    row = store.one("SELECT body FROM fts WHERE rowid = ?", (rowid,))
    return row[0] if row else ""


# -- counts --
def counts_by_kind(store: "IndexStore") -> dict[str, int]:
    return {r["kind"]: r["c"] for r in store.query("SELECT kind, count(*) c FROM notes GROUP BY kind")}


def counts_by_status(store: "IndexStore") -> dict[str, int]:
    return {
        r["status"]: r["c"]
        for r in store.query(
            "SELECT status, count(*) c FROM notes WHERE kind != 'note' AND status IS NOT NULL AND id IS NOT NULL "
            "AND writable = 1 GROUP BY status"
        )
    }  # memories only: a blocked note's status is not read as one


def embedding_counts(store: "IndexStore") -> tuple[int, int]:
    """(distinct contents, distinct contents with a vector)."""
    total = _count(store, "SELECT count(DISTINCT content_hash) FROM notes")
    done = _count(
        store, "SELECT count(DISTINCT n.content_hash) FROM notes n JOIN embeddings e ON e.content_hash = n.content_hash"
    )
    return total, done


# -- problems and conflicts --
def problems_in(store: "IndexStore", paths: list[str]) -> Rows:
    out: Rows = []
    for chunk in in_chunks(paths):
        out += store.query(f"SELECT path, cause FROM problems WHERE path IN ({marks(len(chunk))})", tuple(chunk))
    return out


def problem_causes(store: "IndexStore", path: str) -> list[str]:
    return [p["cause"] for p in store.query("SELECT cause FROM problems WHERE path=?", (path,))]


def all_problems(store: "IndexStore") -> list[dict[str, Any]]:
    problems = [dict(r) for r in store.query("SELECT path, cause, blocking FROM problems ORDER BY path, cause")]
    for p in problems:
        p["blocking"] = bool(p["blocking"])
    return problems


def all_conflicts(store: "IndexStore") -> list[dict[str, Any]]:
    return [dict(r) for r in store.query("SELECT path, original FROM conflicts ORDER BY path")]


def conflict(store: "IndexStore", path: str) -> sqlite3.Row | None:
    return store.one("SELECT path, original FROM conflicts WHERE path = ?", (path,))


# -- links --
def all_links_by_source(store: "IndexStore") -> Rows:
    return store.query(
        "SELECT n.path, l.target, l.subpath, l.markdown FROM links l JOIN notes n ON n.rowid = l.source ORDER BY n.path"
    )


def all_edges(store: "IndexStore") -> Rows:
    return store.query(
        "SELECT n.path src, l.target, l.subpath, l.kind, l.markdown FROM links l JOIN notes n ON n.rowid = l.source"
    )


def links_to_names(store: "IndexStore", names: list[str]) -> Rows:
    return store.query(
        f"SELECT n.path src, l.target, l.subpath, l.kind, l.markdown FROM links l JOIN notes n ON n.rowid = l.source "
        f"WHERE l.target_name IN ({marks(len(names))})",
        tuple(names),
    )


def sources_linking(store: "IndexStore", names: list[str]) -> list[str]:
    """Paths of notes with a link whose target's last part (lower case) is one of `names`."""
    return [
        r[0]
        for r in store.query(
            "SELECT DISTINCT n.path FROM links l JOIN notes n ON n.rowid = l.source WHERE l.target_name IN "
            f"({marks(len(names))})",
            tuple(names),
        )
    ]


def outlinks_of(store: "IndexStore", rowid: int) -> Rows:
    return store.query("SELECT target, subpath, kind, markdown FROM links WHERE source = ?", (rowid,))


def related_targets(store: "IndexStore", rowid: int) -> list[str]:
    return [r[0] for r in store.query("SELECT target FROM links WHERE source = ? AND kind = 'related'", (rowid,))]


def aliases_of_path(store: "IndexStore", path: str) -> list[str]:
    return [
        r[0]
        for r in store.query("SELECT a.alias FROM aliases a JOIN notes n ON n.rowid = a.note WHERE n.path = ?", (path,))
    ]


# -- tags --
def memory_count(store: "IndexStore") -> int:
    return _count(store, "SELECT count(*) FROM notes WHERE kind IN ('stm', 'ltm')")


def memory_tag_counts(store: "IndexStore", tags: list[str]) -> dict[str, int]:
    """Per tag, how many memories (STM or LTM) carry it."""
    return {
        r[0]: r[1]
        for r in store.query(
            f"SELECT t.tag, count(DISTINCT t.note) FROM tags t JOIN notes n ON n.rowid = t.note "
            f"WHERE t.tag IN ({marks(len(tags))}) AND n.kind IN ('stm', 'ltm') GROUP BY t.tag",
            tuple(tags),
        )
    }


def tag_neighbours(
    store: "IndexStore", idf: dict[str, float], seeds: list[str], rowid: int, need: float, limit: int
) -> list[str]:
    """Memories carrying one of `seeds`, scored by the summed `idf` of the tags they share
    with the note `rowid`; those reaching `need`, best first (ties: LTM, then path)."""
    tags = list(idf)
    weights = ", ".join("(?, ?)" for _ in tags)
    rows = store.query(
        f"WITH w(tag, idf) AS (VALUES {weights}), "
        f"c(note) AS (SELECT DISTINCT note FROM tags WHERE tag IN ({marks(len(seeds))})) "
        f"SELECT n.path, sum(w.idf) AS s FROM c JOIN tags t ON t.note = c.note "  # (note, tag) pairs are unique
        f"JOIN w ON w.tag = t.tag JOIN notes n ON n.rowid = c.note "
        f"WHERE n.rowid != ? AND n.kind IN ('stm', 'ltm') GROUP BY n.rowid HAVING s >= ? "
        # rounded: equal sums added in another order differ in the last bit, and a tie must
        # fall to LTM first, then the path, wherever the rows happen to lie
        f"ORDER BY round(s, 9) DESC, n.kind != 'ltm', n.path LIMIT ?",
        (*[v for t in tags for v in (t, idf[t])], *seeds, rowid, need, limit),
    )
    return [r["path"] for r in rows]


def note_by_rowid(store: "IndexStore", rowid: int) -> sqlite3.Row | None:
    return store.one("SELECT rowid, * FROM notes WHERE rowid = ?", (rowid,))


def notes_by_rowid(store: "IndexStore", rowids: list[int], filters: "Filters | None" = None) -> dict[int, sqlite3.Row]:
    """rowid -> row of these notes; with `filters`, only those the filters let through."""
    where, params = filters.sql("n") if filters is not None else ("1", [])
    out: dict[int, sqlite3.Row] = {}
    for chunk in in_chunks(rowids):
        out.update(
            {
                r["rowid"]: r
                for r in store.query(
                    f"SELECT n.rowid, n.* FROM notes n WHERE n.rowid IN ({marks(len(chunk))}) AND {where}",
                    (*chunk, *params),
                )
            }
        )
    return out


def tags_by_rowid(store: "IndexStore", rowids: list[int]) -> dict[int, list[str]]:
    """rowid -> its tags, in the note's order (every rowid gets a list)."""
    out: dict[int, list[str]] = {r: [] for r in rowids}
    for chunk in in_chunks(rowids):
        for note, tag in store.query(
            f"SELECT note, tag FROM tags WHERE note IN ({marks(len(chunk))}) ORDER BY rowid", tuple(chunk)
        ):
            out[note].append(tag)
    return out


def rowids_passing(store: "IndexStore", filters: "Filters") -> set[int]:
    """Every note the filters let through (search narrows its vector candidates with it)."""
    where, params = filters.sql("n")
    return {r[0] for r in store.query(f"SELECT n.rowid FROM notes n WHERE {where}", tuple(params))}


def distinct_contents(store: "IndexStore") -> int:
    """How many different note contents are indexed (vectors are kept per content)."""
    return _count(store, "SELECT count(DISTINCT content_hash) FROM notes")


def rowids_outside(store: "IndexStore", scope: "ProjectScope") -> list[int]:
    """Rowids of the notes another project holds (outside `scope`): keyed notes only, through
    the index of keyed notes."""
    if not scope.narrows:
        return []
    if scope.name is None:
        return [r[0] for r in store.query("SELECT rowid FROM notes WHERE project IS NOT NULL")]
    return [
        r[0]
        for r in store.query(
            "SELECT rowid FROM notes WHERE project IS NOT NULL AND project != ? COLLATE NOCASE", (scope.name,)
        )
    ]


def paths_outside(store: "IndexStore", scope: "ProjectScope") -> set[str]:
    """Paths of the notes another project holds (outside `scope`)."""
    where, params = scope.sql("notes")
    return {r[0] for r in store.query(f"SELECT path FROM notes WHERE NOT ({where})", tuple(params))}


def memories_sharing_tags(store: "IndexStore", tags: list[str], rowid: int, limit: int) -> Rows:
    """Memories (STM, LTM) sharing any of `tags` with note `rowid`, most shared first; each
    row carries `shared`, the number of tags in common."""
    return store.query(
        "SELECT n.rowid, n.*, count(*) AS shared FROM tags t JOIN notes n ON n.rowid = t.note "
        f"WHERE t.tag IN ({marks(len(tags))}) AND t.note != ? AND n.kind IN ('stm', 'ltm') "
        "GROUP BY t.note ORDER BY shared DESC, n.path LIMIT ?",
        (*tags, rowid, limit),
    )


def add_embeddings(store: "IndexStore", model: str, pairs: list[tuple[str, bytes]]) -> None:
    """Vectors (content hash, blob) of `model`, keeping any already stored."""
    with store.transaction() as db:
        db.executemany(
            "INSERT OR IGNORE INTO embeddings (content_hash, model, vector) VALUES (?, ?, ?)",
            [(h, model, blob) for h, blob in pairs],
        )


def content_hashes(store: "IndexStore") -> set[str]:
    """Every distinct note content (what an embedding is keyed by)."""
    return {r[0] for r in store.query("SELECT DISTINCT content_hash FROM notes")}


def embeddings_of(store: "IndexStore", model: str) -> list[tuple[str, bytes]]:
    """(content hash, vector blob) of every vector stored for `model`."""
    return [(r[0], r[1]) for r in store.query("SELECT content_hash, vector FROM embeddings WHERE model = ?", (model,))]


# -- imports --
def source_ids(store: "IndexStore", source: str) -> dict[str, str]:
    """The original ids already imported from `source` (any kind of note), each with its path."""
    return {
        r["source_id"]: r["path"]
        for r in store.query("SELECT source_id, path FROM notes WHERE source = ? AND source_id IS NOT NULL", (source,))
    }


def memory_body_hashes(store: "IndexStore") -> dict[str, str]:
    """Every memory's (STM, LTM) normalized body hash with its path: exact twins for a batch."""
    return {
        r["body_hash"]: r["path"]
        for r in store.query("SELECT body_hash, path FROM notes WHERE kind IN ('stm', 'ltm') ORDER BY path DESC")
    }


def body_hashes_of(store: "IndexStore", paths: list[str]) -> dict[str, str]:
    """Normalized body hash -> path, for these notes (an import checks superseded texts)."""
    if not paths:
        return {}
    return {
        r["body_hash"]: r["path"]
        for r in store.query(
            f"SELECT body_hash, path FROM notes WHERE path IN ({marks(len(paths))}) ORDER BY path DESC", tuple(paths)
        )
    }


def counts_by_source(store: "IndexStore") -> dict[str, int]:
    """How many notes came from each import source."""
    return {
        r[0]: int(r[1])
        for r in store.query(
            "SELECT source, count(*) FROM notes WHERE source IS NOT NULL GROUP BY source ORDER BY source"
        )
    }


def export_rows(store: "IndexStore", kinds: tuple[str, ...]) -> Rows:
    """The notes of these kinds, by path, for an export."""
    return store.query(f"SELECT rowid, * FROM notes WHERE kind IN ({marks(len(kinds))}) ORDER BY path", kinds)


# -- supersession (frontmatter links `superseded_by` / `supersedes`, see ops/supersede.py) --


def supersession_links(store: "IndexStore") -> Rows:
    """Every supersession link, with its source note's path."""
    return store.query(
        "SELECT n.path src, l.target, l.kind, l.markdown FROM links l JOIN notes n ON n.rowid = l.source "
        "WHERE l.kind IN (?, ?) ORDER BY n.path",
        (SUPERSEDED_BY, SUPERSEDES),
    )


def superseded_paths(store: "IndexStore") -> set[str]:
    """Notes marked superseded in their own frontmatter (`superseded_by` or `status: superseded`)."""
    return {r[0] for r in store.query(f"SELECT path FROM notes WHERE rowid IN {SUPERSEDED_SQL}")}


def any_project(store: "IndexStore") -> bool:
    """Whether any note is filed under a project (without one, scoping filters nothing)."""
    row = store.one("SELECT EXISTS (SELECT 1 FROM notes WHERE project IS NOT NULL)")
    return row is not None and row[0] == 1


def project_counts(store: "IndexStore") -> dict[str | None, int]:
    """Memories (STM, LTM, archive) per project, None for shared ones."""
    return {
        r[0]: int(r[1])
        for r in store.query(
            "SELECT project, count(*) FROM notes WHERE kind != 'note' GROUP BY project COLLATE NOCASE ORDER BY project"
        )
    }


def any_superseded(store: "IndexStore") -> bool:
    """Whether search needs the superseded filter at all (most vaults have none)."""
    row = store.one(
        f"SELECT EXISTS (SELECT 1 FROM links WHERE kind = '{SUPERSEDED_BY}') "
        "OR EXISTS (SELECT 1 FROM notes WHERE status = 'superseded')"
    )
    return row is not None and row[0] == 1


def current_memory_scores(store: "IndexStore", exempt: list[int] | None = None) -> list[tuple[Any, ...]]:
    """(rowid, path, id, title, kind, use_count, strength, last_used, created, project) of every STM and
    LTM memory that is not superseded (the `exempt` rowids count as current whatever their
    marks): what a live score is computed from. A pinned memory's dates are NULL: its score
    does not fall with time (ageing.py), as a memory's with no date does not."""
    exempt = exempt or []
    also = f" OR rowid IN ({marks(len(exempt))})" if exempt else ""
    return [
        tuple(r)
        for r in store.query(
            "SELECT rowid, path, id, title, kind, use_count, strength, "
            "CASE WHEN pinned THEN NULL ELSE last_used END, CASE WHEN pinned THEN NULL ELSE created END, project "
            "FROM notes "
            f"WHERE kind IN ('stm', 'ltm') AND (rowid NOT IN {SUPERSEDED_SQL}{also})",
            tuple(exempt),
        )
    ]


def rowids_of(store: "IndexStore", paths: list[str]) -> dict[str, int]:
    """path -> rowid for the indexed ones among `paths`."""
    if not paths:
        return {}
    return {
        r[0]: r[1]
        for r in store.query(f"SELECT path, rowid FROM notes WHERE path IN ({marks(len(paths))})", tuple(paths))
    }


def bodies_of(store: "IndexStore", rowids: list[int]) -> dict[int, str]:
    """rowid -> body as indexed for full-text search, in one query."""
    if not rowids:
        return {}
    return {
        r[0]: r[1] or ""
        for r in store.query(f"SELECT rowid, body FROM fts WHERE rowid IN ({marks(len(rowids))})", tuple(rowids))
    }


# -- conversations --
def conversation_neighbours(
    store: "IndexStore", rowids: list[int], window_s: float
) -> dict[int, list[tuple[int, float]]]:
    """For each of these notes said in a conversation: the other notes of that conversation
    said within `window_s` seconds of it, as (rowid, seconds apart). Notes without a
    conversation or a said_at time have no entry."""
    out: dict[int, list[tuple[int, float]]] = {}
    shift = f"{float(window_s):.0f} seconds"
    for chunk in in_chunks(rowids):
        for a, b, apart in store.query(
            "SELECT n.rowid, m.rowid, CAST(strftime('%s', n.said_at) AS INTEGER) - CAST(strftime('%s', m.said_at) AS "
            "INTEGER) "
            "FROM notes n JOIN notes m ON m.conversation = n.conversation "
            "AND m.said_at BETWEEN strftime('%Y-%m-%dT%H:%M:%SZ', n.said_at, '-' || ?) "
            "AND strftime('%Y-%m-%dT%H:%M:%SZ', n.said_at, '+' || ?) AND m.rowid != n.rowid "
            f"WHERE n.rowid IN ({marks(len(chunk))}) AND n.conversation IS NOT NULL AND n.said_at IS NOT NULL",
            (shift, shift, *chunk),
        ):
            out.setdefault(int(a), []).append((int(b), float(apart)))
    return out


def conversation_turns(store: "IndexStore", conversation: str) -> list[sqlite3.Row]:
    """Every note of a conversation in the order it was said (said_at; then path, for turns
    without a time): rowid, path, id, title, kind, status, said_at."""
    return store.query(
        "SELECT rowid, path, id, title, kind, status, said_at FROM notes WHERE conversation = ? "
        "ORDER BY said_at IS NULL, said_at, path",
        (conversation,),
    )
