"""The index as data independent of row ids and timing: a cold build and a grown index compare equal
when they hold the same vault (Index = f(vault))."""

from __future__ import annotations

import sqlite3
from typing import Any

from . import trigram, windows


def canonical(db: sqlite3.Connection) -> dict[str, Any]:
    """Everything derived from the vault: notes with their tags, aliases, links, FTS, trigram and window rows;
    problems, conflicts, attachments, and the count of child rows whose note is gone."""
    notes = {}
    for r in db.execute("SELECT rowid, * FROM notes ORDER BY path"):
        d = dict(r)
        rowid = d.pop("rowid")
        d["tags"] = sorted(x[0] for x in db.execute("SELECT tag FROM tags WHERE note=?", (rowid,)))
        d["aliases"] = sorted(x[0] for x in db.execute("SELECT alias FROM aliases WHERE note=?", (rowid,)))
        d["links"] = sorted(
            tuple(x)
            for x in db.execute("SELECT target, subpath, alias, kind, markdown FROM links WHERE source=?", (rowid,))
        )
        fts = db.execute("SELECT title, body, tags FROM fts WHERE rowid=?", (rowid,)).fetchone()
        d["fts"] = tuple(fts) if fts else None
        d["trigram"] = trigram.row_of(db, rowid)
        d["window"] = windows.row_of(db, rowid)
        notes[d["path"]] = d
    problems = sorted(tuple(r) for r in db.execute("SELECT path, cause, blocking FROM problems"))
    conflicts = sorted(tuple(r) for r in db.execute("SELECT path, original FROM conflicts"))
    attachments = sorted(r[0] for r in db.execute("SELECT path FROM attachments"))
    orphans = (
        db.execute(
            "SELECT (SELECT count(*) FROM tags WHERE note NOT IN (SELECT rowid FROM notes))"
            " + (SELECT count(*) FROM links WHERE source NOT IN (SELECT rowid FROM notes))"
            " + (SELECT count(*) FROM fts WHERE rowid NOT IN (SELECT rowid FROM notes))"
        ).fetchone()[0]
        + trigram.orphans(db)
        + windows.orphans(db)
    )
    return {
        "notes": notes,
        "problems": problems,
        "conflicts": conflicts,
        "attachments": attachments,
        "orphans": orphans,
    }
