"""The word index's statements (FTS5 table `fts`, unicode61 words), for search/fts.py:
filters over the notes table, ranked matches, document frequencies, presence and snippets.

Every function takes the connection inside one `store.reading()`, so a search ranks in one
state of the index.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from ..projects import ProjectScope
from .fragments import SUPERSEDED_SQL, marks


@dataclass
class Filters:
    kinds: tuple[str, ...]
    tags: list[str] = field(default_factory=list)
    status: str | None = None
    since: str | None = None  # ISO instant; memories by last_used/created, notes by file mtime
    since_ns: int | None = None
    # time bounds (ISO instant, and the same as file mtime for the person's notes):
    # created in [created_from, created_to], last used at or after used_from
    created_from: tuple[str, int] | None = None
    created_to: tuple[str, int] | None = None
    used_from: tuple[str, int] | None = None
    exclude_superseded: bool = False
    superseded_exempt: tuple[int, ...] = ()  # marked, but members of a hand-written loop: current
    # the current project plus shared notes (projects.py); None: every note (or no note has a project)
    projects: ProjectScope | None = None

    @property
    def timed(self) -> bool:
        """Bounded in time (created, last used)."""
        return any(b is not None for b in (self.since, self.created_from, self.created_to, self.used_from))

    @property
    def narrow(self) -> bool:
        return self.narrow_besides_projects or self.scoped

    @property
    def scoped(self) -> bool:
        """Keeps to a project (and shared notes)."""
        return self.projects is not None and self.projects.narrows

    @property
    def narrow_besides_projects(self) -> bool:
        return bool(
            self.tags
            or self.status
            or self.since
            or self.created_from
            or self.created_to
            or self.used_from
            or self.exclude_superseded
        )

    def sql(self, alias: str = "n") -> tuple[str, list[object]]:
        parts = [f"{alias}.kind IN ({','.join('?' * len(self.kinds))})"]
        params: list[object] = list(self.kinds)
        for tag in self.tags:
            parts.append(
                f"{alias}.rowid IN (SELECT note FROM tags WHERE lower(tag) = ? OR lower(tag) LIKE ? ESCAPE '\\')"
            )
            escaped = tag.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            params += [tag, escaped + "/%"]
        if self.status:
            parts.append(f"lower(coalesce({alias}.status, '')) = ?")
            params.append(self.status)
        if self.since:
            parts.append(
                f"(CASE WHEN {alias}.kind = 'note' THEN {alias}.mtime_ns >= ? "
                f"ELSE coalesce({alias}.last_used, {alias}.created, '') >= ? END)"
            )
            params += [self.since_ns, self.since]
        for bound, column, op in (
            (self.created_from, "created", ">="),
            (self.created_to, "created", "<="),
            (self.used_from, "coalesce({a}.last_used, {a}.created)", ">="),
        ):
            if bound is not None:
                col = column.format(a=alias) if "{a}" in column else f"{alias}.{column}"
                parts.append(
                    f"(CASE WHEN {alias}.kind = 'note' THEN {alias}.mtime_ns {op} ? "
                    f"ELSE coalesce({col}, '') {op} ? AND {col} IS NOT NULL END)"
                )
                params += [bound[1], bound[0]]
        if self.exclude_superseded:
            exempt = f" OR {alias}.rowid IN ({marks(len(self.superseded_exempt))})" if self.superseded_exempt else ""
            parts.append(f"({alias}.rowid NOT IN {SUPERSEDED_SQL}{exempt})")
            params += list(self.superseded_exempt)
        if self.projects is not None and self.projects.narrows:
            where, args = self.projects.sql(alias)
            parts.append(where)
            params += args
        return " AND ".join(parts), params


def note_count(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT count(*) FROM notes").fetchone()[0] or 0)


def ranked(
    db: sqlite3.Connection, expr: str, weights: tuple[float, ...], filters: Filters, limit: int
) -> list[tuple[int, float]]:
    """(rowid, bm25 rank: lower is better) of the best matches of an FTS5 expression in scope."""
    bm25 = f"bm25(fts, {', '.join(map(str, weights))})"
    if not filters.narrow_besides_projects:
        # the common case: rank without a join (faster), then drop the kinds (and other projects) out of scope
        wide = limit * (3 if filters.scoped else 2)
        rows = db.execute(
            f"SELECT rowid, {bm25} AS rank FROM fts WHERE fts MATCH ? ORDER BY rank LIMIT ?", (expr, wide)
        ).fetchall()
        scope = filters.projects if filters.scoped else None
        found = {
            r[0]: (r[1], r[2])
            for r in db.execute(
                f"SELECT rowid, kind, project FROM notes WHERE rowid IN ({marks(len(rows))})",
                tuple(r[0] for r in rows),
            )
        }
        kept = []
        for r in rows:
            kind, project = found.get(r[0], (None, None))
            if kind in filters.kinds and (scope is None or scope.admits(project)):
                kept.append((int(r[0]), float(r[1])))
        kept = kept[:limit]
        if len(kept) == limit or len(rows) < wide:
            return kept
        # too many out of scope: ask with the filter
    where, params = filters.sql("n")
    return [
        (int(r[0]), float(r[1]))
        for r in db.execute(
            f"SELECT fts.rowid, {bm25} AS rank FROM fts JOIN notes n ON n.rowid = fts.rowid "
            f"WHERE fts MATCH ? AND {where} ORDER BY rank LIMIT ?",
            (expr, *params, limit),
        )
    ]


def doc_frequency(db: sqlite3.Connection, expr: str) -> int:
    return int(db.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (expr,)).fetchone()[0])


def having(db: sqlite3.Connection, expr: str, rowids: list[int], walk: bool) -> list[int]:
    """Which of `rowids` match `expr`. `walk`: `+rowid` keeps the list from FTS5, so it walks
    the term's match list (~50 ns an entry) and SQLite filters; otherwise `rowid IN (...)`
    makes FTS5 seek once per candidate (~15-40 us each)."""
    test = "+rowid" if walk else "rowid"
    return [
        int(r[0])
        for r in db.execute(
            f"SELECT rowid FROM fts WHERE fts MATCH ? AND {test} IN ({marks(len(rowids))})", (expr, *rowids)
        )
    ]


def snippets(
    db: sqlite3.Connection, expr: str, rowids: list[int], mark: tuple[str, str], tokens: int
) -> dict[int, str]:
    """FTS5's excerpt of the body per matching note, the matches between `mark`."""
    return {
        int(r[0]): r[1]
        for r in db.execute(
            f"SELECT rowid, snippet(fts, 1, ?, ?, '…', {int(tokens)}) FROM fts WHERE fts MATCH ? AND rowid IN "
            f"({marks(len(rowids))})",
            (mark[0], mark[1], expr, *rowids),
        )
    }


def bodies(db: sqlite3.Connection, rowids: list[int]) -> dict[int, str]:
    """The indexed body of each note."""
    return {
        int(r[0]): r[1] or ""
        for r in db.execute(f"SELECT rowid, body FROM fts WHERE rowid IN ({marks(len(rowids))})", tuple(rowids))
    }
