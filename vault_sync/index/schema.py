"""The shadow index's tables. Derived data: a version change means rebuild."""

import sqlite3

SCHEMA_VERSION = (
    9  # 5: source / source_id of imported memories; 6: attachments (non-Markdown files links can point at);
)
# 7: the trigram index (CJK, Thai, Indic scripts: index/trigram.py)
# 8: conversation / said_at of memories said in a conversation (search reads a turn's neighbours)
# 9: project (frontmatter `project`: searches keep to the current project and shared memories)

# a memory said in a conversation, with the turns around it (index/windows.py); also made
# by UPGRADES, for an index from before it
WINDOWS_TABLE = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS windows USING fts5(body, tokenize = 'porter unicode61 remove_diacritics 2');"
)

SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS notes (
    rowid INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,            -- lower-cased file stem, for [[name]] resolution
    id TEXT,
    kind TEXT NOT NULL,            -- stm | ltm | archive | note
    title TEXT NOT NULL,
    status TEXT,
    use_count INTEGER,
    strength REAL,
    created TEXT,
    last_used TEXT,
    decay_score REAL,
    review_priority REAL,
    review_count INTEGER,
    cross_domain_count INTEGER,
    promoted_at TEXT,
    archived_at TEXT,
    pinned INTEGER NOT NULL DEFAULT 0,
    writable INTEGER NOT NULL,
    checksum TEXT NOT NULL,
    content_hash TEXT NOT NULL,     -- of what gets embedded: moves and score writes keep it
    body_hash TEXT NOT NULL,        -- of the body, whitespace- and case-folded: exact duplicates at save
    source TEXT,                   -- an imported memory's origin (frontmatter `source`)
    source_id TEXT,                -- and its id there (`source_id`): imports are idempotent by the pair
    conversation TEXT,             -- frontmatter `conversation`: the id of the conversation it was said in
    said_at TEXT,                  -- and `said_at` (ISO, UTC): search scores a turn with its neighbours
    project TEXT,                  -- frontmatter `project` as written; NULL: shared (vault_sync/projects.py)
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS notes_id ON notes(id);
CREATE INDEX IF NOT EXISTS notes_name ON notes(name);
CREATE INDEX IF NOT EXISTS notes_kind ON notes(kind);
CREATE INDEX IF NOT EXISTS notes_body ON notes(body_hash);
CREATE INDEX IF NOT EXISTS notes_source ON notes(source, source_id);
CREATE INDEX IF NOT EXISTS notes_kind_score ON notes(kind, decay_score);
CREATE INDEX IF NOT EXISTS notes_status ON notes(status);
CREATE INDEX IF NOT EXISTS notes_conversation ON notes(conversation, said_at) WHERE conversation IS NOT NULL;
CREATE INDEX IF NOT EXISTS notes_project ON notes(project COLLATE NOCASE) WHERE project IS NOT NULL;
CREATE TABLE IF NOT EXISTS tags (note INTEGER NOT NULL, tag TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS tags_note ON tags(note);
CREATE INDEX IF NOT EXISTS tags_tag_note ON tags(tag, note);
CREATE TABLE IF NOT EXISTS aliases (note INTEGER NOT NULL, alias TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS aliases_note ON aliases(note);
CREATE INDEX IF NOT EXISTS aliases_alias ON aliases(alias);
CREATE TABLE IF NOT EXISTS links (
    source INTEGER NOT NULL,
    target TEXT NOT NULL,          -- as written, without subpath
    target_name TEXT NOT NULL,     -- lower-cased last component, for lookups
    subpath TEXT NOT NULL,
    alias TEXT NOT NULL,
    kind TEXT NOT NULL,            -- link | embed | heading | block
    markdown INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS links_source ON links(source);
CREATE INDEX IF NOT EXISTS links_target ON links(target_name);
CREATE INDEX IF NOT EXISTS links_kind ON links(kind);
CREATE TABLE IF NOT EXISTS problems (path TEXT NOT NULL, cause TEXT NOT NULL, blocking INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS problems_path ON problems(path);
-- every non-Markdown file in the vault (images, PDFs, canvases, bases): what [[pic.png]] and
-- ![](x.png) resolve to; paths only, filled by the same walk as the notes
CREATE TABLE IF NOT EXISTS attachments (path TEXT PRIMARY KEY, name TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS attachments_name ON attachments(name);
CREATE TABLE IF NOT EXISTS conflicts (path TEXT PRIMARY KEY, original TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS embeddings (content_hash TEXT PRIMARY KEY, model TEXT NOT NULL, vector BLOB NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
    title, body, tags, tokenize = 'porter unicode61 remove_diacritics 2'
);
-- beside the word index, for notes holding scripts it cannot cut into words (index/trigram.py)
CREATE VIRTUAL TABLE IF NOT EXISTS trigram USING fts5(title, body, tokenize = 'trigram');
"""
    + WINDOWS_TABLE
)

# run on every open of a current-version index: additions that need no rebuild (a rebuild
# would also drop the embedding cache, hours of model time on a large vault). The windows
# table of an index from before it is made when it is filled (store._fill_windows): made
# here, a dropped one would come back empty instead of being found missing and repaired.
UPGRADES = """
CREATE INDEX IF NOT EXISTS tags_tag_note ON tags(tag, note);
DROP INDEX IF EXISTS tags_tag;
CREATE INDEX IF NOT EXISTS notes_kind_score ON notes(kind, decay_score);
CREATE INDEX IF NOT EXISTS notes_status ON notes(status);
CREATE INDEX IF NOT EXISTS links_kind ON links(kind);
"""

DERIVED_TABLES = (
    "notes",
    "tags",
    "aliases",
    "links",
    "problems",
    "conflicts",
    "fts",
    "trigram",
    "windows",
    "attachments",
)

# every table the schema makes: one missing is damage (index/health.py), made anew from the vault
SCHEMA_TABLES = ("meta", *DERIVED_TABLES, "embeddings")

BULK_TABLES = ("notes", "tags", "aliases", "links")  # the tables a cold build fills in bulk


def drop_indexes(db: sqlite3.Connection, tables: tuple[str, ...]) -> list[str]:
    """Drop the secondary indexes of these tables; their definitions, to make them again."""
    found = db.execute(
        "SELECT name, sql FROM sqlite_master WHERE type='index' AND sql IS NOT NULL "
        f"AND tbl_name IN ({', '.join('?' * len(tables))}) ORDER BY name",
        tables,
    ).fetchall()
    for name, _ in found:
        db.execute(f'DROP INDEX "{name}"')
    return [sql for _, sql in found]
