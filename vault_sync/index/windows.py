"""Conversation windows: a second full-text field for memories said in a conversation.

A chat turn such as "Yeah, glad to be part of it!" shares no word with the question it
answers ("How does Jon feel about the dance festival?"); the turns around it do. Each memory
with a `conversation` and `said_at` gets a row in the FTS5 table `windows` holding its own
body and the bodies of the NEIGHBOURS memories said just before and after it in that
conversation (each within WINDOW_S of it), so a question whose words are spread over an
exchange matches every turn of it, and search adds that match to the turn's own.

The rows are derived from the notes table and the word index, and kept current at the end of
every index transaction that changed such a memory (IndexStore.transaction): only the windows
that hold a changed turn are rewritten, so saving one turn rewrites at most 2 x NEIGHBOURS + 1.
"""

from __future__ import annotations

import sqlite3
from bisect import bisect_left, bisect_right
from datetime import datetime

from .fragments import in_chunks, marks

# re-measured by changing NEIGHBOURS and running `mnemovault bench --locomo DIR` (the five development conversations)
NEIGHBOURS = 2  # turns before and after (LoCoMo hit@5: 2: 0.801, 3: 0.801; 1 before, 3 after: 0.789; 3 and 1: 0.805)
WINDOW_S = 300.0  # and said within this many seconds of the turn (the context rescoring's window)
WINDOWS_VERSION = "1"  # meta `windows_version`: an index older than the table is filled once on open


def refresh(db: sqlite3.Connection, dirty: dict[str, set[str]]) -> int:
    """Rewrite the windows holding a turn said at one of these times in these conversations
    (times of turns added, changed or removed); returns how many rows were written."""
    written = 0
    for conversation, times in dirty.items():
        turns = db.execute(
            "SELECT rowid, said_at FROM notes WHERE conversation = ? AND said_at IS NOT NULL ORDER BY said_at, path",
            (conversation,),
        ).fetchall()
        said = [t[1] for t in turns]
        affected: set[int] = set()
        for at in times:
            lo, hi = bisect_left(said, at), bisect_right(said, at)
            affected.update(range(max(0, lo - NEIGHBOURS), min(len(turns), hi + NEIGHBOURS)))
        if not affected:
            continue
        near = sorted({j for i in affected for j in range(max(0, i - NEIGHBOURS), min(len(turns), i + NEIGHBOURS + 1))})
        body = _bodies(db, [int(turns[j][0]) for j in near])
        moment = {j: _seconds(said[j]) for j in near}
        rows = []
        for i in sorted(affected):
            window = [
                j
                for j in range(max(0, i - NEIGHBOURS), min(len(turns), i + NEIGHBOURS + 1))
                if abs(moment[j] - moment[i]) <= WINDOW_S
            ]
            rows.append((int(turns[i][0]), "\n".join(body.get(int(turns[j][0]), "") for j in window)))
        for chunk in in_chunks([r[0] for r in rows]):
            db.execute(f"DELETE FROM windows WHERE rowid IN ({marks(len(chunk))})", tuple(chunk))
        db.executemany("INSERT INTO windows (rowid, body) VALUES (?, ?)", rows)
        written += len(rows)
    return written


def fill(db: sqlite3.Connection) -> int:
    """Every window, from scratch (an index made before the table existed)."""
    db.execute("DELETE FROM windows")
    dirty: dict[str, set[str]] = {}
    for conversation, said_at in db.execute(
        "SELECT conversation, said_at FROM notes WHERE conversation IS NOT NULL AND said_at IS NOT NULL"
    ):
        dirty.setdefault(conversation, set()).add(said_at)
    return refresh(db, dirty)


def drop(db: sqlite3.Connection, rowid: int) -> None:
    db.execute("DELETE FROM windows WHERE rowid = ?", (rowid,))


def ranked(db: sqlite3.Connection, expr: str, where: str, params: list[object], limit: int) -> list[tuple[int, float]]:
    """(rowid, bm25 rank: lower is better) of the windows matching an FTS5 expression, for
    notes passing the filter `where` (over alias n)."""
    return [
        (int(r[0]), float(r[1]))
        for r in db.execute(
            f"SELECT w.rowid, bm25(windows) AS rank FROM windows w JOIN notes n ON n.rowid = w.rowid "
            f"WHERE windows MATCH ? AND {where} ORDER BY rank LIMIT ?",
            (expr, *params, int(limit)),
        )
    ]


def having(db: sqlite3.Connection, expr: str, rowids: list[int]) -> list[int]:
    """Which of `rowids` have a window matching `expr`, a seek per window (~10 us each): for a
    word in most windows, where reading its match list (holding) costs more."""
    out: list[int] = []
    for chunk in in_chunks(rowids):
        out += [
            int(r[0])
            for r in db.execute(
                f"SELECT rowid FROM windows WHERE windows MATCH ? AND rowid IN ({marks(len(chunk))})", (expr, *chunk)
            )
        ]
    return out


def holding(db: sqlite3.Connection, expr: str) -> frozenset[int]:
    """Every window matching `expr`: the term's whole match list (~0.3 us an entry)."""
    return frozenset(int(r[0]) for r in db.execute("SELECT rowid FROM windows WHERE windows MATCH ?", (expr,)))


class Known:
    """What is known of the windows' words at one index version."""

    def __init__(self) -> None:
        self.count: int | None = None  # windows in all
        self.dfs: dict[str, int] = {}  # word -> windows holding it
        self.sets: dict[str, frozenset[int]] = {}  # word -> those windows, once read
        self.entries = 0  # rowids held in `sets`

    def keep(self, word: str, rows: frozenset[int]) -> frozenset[int]:
        self.sets[word] = rows
        self.entries += len(rows)
        return rows


class Lookups:
    """What searches learned of the windows at one version of the index (IndexStore.
    write_signature), kept for the next search: per word, how many windows hold it and,
    once read, which. Questions about one conversation repeat its names, and reading a
    common word's match list was most of a search's window scoring. A new version starts
    afresh; a search keeps the Known it began with, so nothing it learns lands in a newer one."""

    MAX_WORDS = 4096  # past either bound, start afresh: a cap on memory (~10 MB), not a policy
    MAX_ENTRIES = 200_000

    def __init__(self) -> None:
        self._version: object = None
        self._known = Known()

    def at(self, version: object) -> Known:
        known = self._known
        if version != self._version or len(known.dfs) > self.MAX_WORDS or known.entries > self.MAX_ENTRIES:
            known = Known()
            self._version, self._known = version, known
        return known


def doc_frequency(db: sqlite3.Connection, expr: str) -> int:
    return int(db.execute("SELECT count(*) FROM windows WHERE windows MATCH ?", (expr,)).fetchone()[0])


def count(db: sqlite3.Connection) -> int:
    """How many windows there are (one per memory with a conversation and a said_at)."""
    return int(
        db.execute("SELECT count(*) FROM notes WHERE conversation IS NOT NULL AND said_at IS NOT NULL").fetchone()[0]
    )


def row_of(db: sqlite3.Connection, rowid: int) -> str | None:
    row = db.execute("SELECT body FROM windows WHERE rowid = ?", (rowid,)).fetchone()
    return row[0] if row else None


def orphans(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT count(*) FROM windows WHERE rowid NOT IN (SELECT rowid FROM notes)").fetchone()[0])


def _bodies(db: sqlite3.Connection, rowids: list[int]) -> dict[int, str]:
    out: dict[int, str] = {}
    for chunk in in_chunks(rowids):
        out.update(
            (int(r[0]), r[1] or "")
            for r in db.execute(f"SELECT rowid, body FROM fts WHERE rowid IN ({marks(len(chunk))})", tuple(chunk))
        )
    return out


def _seconds(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()
