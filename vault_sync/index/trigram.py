"""The trigram index beside the word index: full text for scripts the word index cannot cut.

The word index (unicode61) takes a run of letters between spaces or punctuation as a word.
Chinese and Japanese write no spaces, so a whole sentence becomes one "word" and a word
inside it is never found; Korean glues particles to words (학교에서 = 학교 + 에서); and
unicode61 takes the vowel signs of Thai, Lao, Khmer, Myanmar and the Indic scripts (which
are combining marks) for separators, cutting every word in pieces. For these scripts FTS5's
`trigram` tokenizer indexes every three characters, so any substring of three or more is
found; shorter ones (a two-character Chinese word) are looked for with `instr` over the same
table's text.

Only notes holding such characters get a row, holding only their stretches of such text (a
vault in Latin script pays a scan of each note's text for them and nothing more; a mixed
note pays for its CJK part), and a query uses the table only for its runs of such
characters.
"""

from __future__ import annotations

import sqlite3

from ..lazy_re import LazyPattern
from .fragments import marks

# Han, kana, hangul, bopomofo; Thai, Lao, Tibetan, Myanmar, Khmer, Tai Tham, Balinese,
# Javanese, Tai Viet; the Indic scripts from Devanagari to Sinhala. Not their punctuation
# blocks (、。「」 split runs like spaces do).
_RANGES = (
    "\u0900-\u0963\u0966-\u0dff"  # Indic (without the dandas)
    "\u0e00-\u0eff\u0f00-\u0fff\u1000-\u109f\u1100-\u11ff\u1780-\u17ff\u19e0-\u19ff\u1a20-\u1aaf\u1b00-\u1b7f"
    "\u3005-\u3007\u3041-\u309f\u30a1-\u30ff\u3105-\u312f\u3131-\u318e\u31a0-\u31bf\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\ua980-\ua9df\uaa80-\uaadf\uac00-\ud7af\ud7b0-\ud7ff"
    "\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f"
)
_CHAR = LazyPattern(f"[{_RANGES}]")
_RUN = LazyPattern(f"[{_RANGES}]+")
MAX_GRAMS = 48  # per query: a long sentence is sampled evenly


def needs(text: str) -> bool:
    """Whether the text holds a character of a script the word index cuts wrongly."""
    return not text.isascii() and _CHAR.search(text) is not None  # isascii: one fast pass, most notes


def runs(text: str) -> list[str]:
    """The query's runs of such characters, in order, without repeats."""
    out: list[str] = []
    if not text or text.isascii():  # none of these scripts is ASCII: the usual query needs no pattern
        return out
    for run in _RUN.findall(text):
        if run not in out:
            out.append(run)
    return out


_SPAN = LazyPattern(f"[{_RANGES}]+(?:[ \t]+[{_RANGES}]+)+")
_STRETCH = LazyPattern(f"[{_RANGES}]+(?:[ \t]+[{_RANGES}]+)*")


def spans(text: str) -> list[str]:
    """Stretches of two or more runs separated only by spaces (Korean and Thai write spaces
    between words or phrases), each with single spaces, without repeats."""
    out: list[str] = []
    if not text or text.isascii():
        return out
    for span in _SPAN.findall(text):
        span = " ".join(span.split())
        if span not in out:
            out.append(span)
    return out


def grams(run: str) -> list[str]:
    """The trigrams of a run of three or more characters, in order, without repeats."""
    seen: list[str] = []
    for i in range(len(run) - 2):
        g = run[i : i + 3]
        if g not in seen:
            seen.append(g)
    return seen


def quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def extract(text: str) -> str:
    """The text's stretches of such characters (runs, or runs separated only by spaces, as
    Korean and Thai write them), one per line: all a query in these scripts can match, and
    a fraction of a mixed note's text (the trigram index costs per character)."""
    return "\n".join(" ".join(m.split()) for m in _STRETCH.findall(text))


# -- writes (inside the indexer's transaction) --
def insert(db: sqlite3.Connection, rows: list[tuple[int, str, str]]) -> None:
    """(rowid, title, body) of notes; only those holding such characters get a row."""
    kept = [(r[0], extract(r[1]), extract(r[2])) for r in rows if needs(r[1]) or needs(r[2])]
    if kept:
        db.executemany("INSERT INTO trigram (rowid, title, body) VALUES (?, ?, ?)", kept)


def delete(db: sqlite3.Connection, rowid: int) -> None:
    db.execute("DELETE FROM trigram WHERE rowid=?", (rowid,))


def optimize(db: sqlite3.Connection) -> None:
    """Merge the table's segments, when it has any rows (most vaults have none)."""
    if db.execute("SELECT 1 FROM trigram LIMIT 1").fetchone():
        db.execute("INSERT INTO trigram(trigram) VALUES ('optimize')")


def row_of(db: sqlite3.Connection, rowid: int) -> tuple[str, str] | None:
    row = db.execute("SELECT title, body FROM trigram WHERE rowid=?", (rowid,)).fetchone()
    return (row[0], row[1]) if row else None


def orphans(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT count(*) FROM trigram WHERE rowid NOT IN (SELECT rowid FROM notes)").fetchone()[0])


# -- reads --
def ranked(
    db: sqlite3.Connection, gram_list: list[str], where: str, params: list[object], limit: int
) -> list[tuple[int, float]]:
    """(rowid, bm25 rank: lower is better) of the notes holding any of the trigrams, in scope
    (`where` is a filter over `notes n`)."""
    expr = " OR ".join(quote(g) for g in gram_list)
    return [
        (int(r[0]), float(r[1]))
        for r in db.execute(
            "SELECT t.rowid, bm25(trigram, 4.0, 1.0) AS rank FROM trigram t JOIN notes n ON n.rowid = t.rowid "
            f"WHERE trigram MATCH ? AND {where} ORDER BY rank LIMIT ?",
            (expr, *params, limit),
        )
    ]


def containing(
    db: sqlite3.Connection, short: str, where: str, params: list[object], limit: int
) -> list[tuple[int, float]]:
    """(rowid, occurrences per 1,000 characters, negated so lower is better) of the notes
    holding `short` (one or two characters: too short for a trigram), in scope."""
    return [
        (int(r[0]), -float(r[1]))
        for r in db.execute(
            "SELECT t.rowid, 1000.0 * ((length(t.title) - length(replace(t.title, ?1, ''))) * 4 "
            "+ length(t.body) - length(replace(t.body, ?1, ''))) / length(?1) / (length(t.body) + 50) AS per "
            "FROM trigram t JOIN notes n ON n.rowid = t.rowid "
            f"WHERE (instr(t.title, ?1) > 0 OR instr(t.body, ?1) > 0) AND {where} ORDER BY per DESC LIMIT ?",
            (short, *params, limit),
        )
    ]


def doc_frequency(db: sqlite3.Connection, term: str) -> int:
    """How many notes hold `term` (a trigram, or a shorter run)."""
    if len(term) >= 3:
        return int(db.execute("SELECT count(*) FROM trigram WHERE trigram MATCH ?", (quote(term),)).fetchone()[0])
    return int(
        db.execute(
            "SELECT count(*) FROM trigram WHERE instr(title, ?1) > 0 OR instr(body, ?1) > 0", (term,)
        ).fetchone()[0]
    )


def having(db: sqlite3.Connection, term: str, rowids: list[int]) -> list[int]:
    """Which of `rowids` hold `term`."""
    if len(term) >= 3:
        return [
            int(r[0])
            for r in db.execute(
                f"SELECT rowid FROM trigram WHERE trigram MATCH ? AND rowid IN ({marks(len(rowids))})",
                (quote(term), *rowids),
            )
        ]
    return [
        int(r[0])
        for r in db.execute(
            f"SELECT rowid FROM trigram WHERE rowid IN ({marks(len(rowids))}) AND (instr(title, ?) > 0 OR instr(body, "
            "?) > 0)",
            (*rowids, term, term),
        )
    ]


def texts(db: sqlite3.Connection, rowids: list[int]) -> dict[int, str]:
    """The indexed stretches of each of these notes that has a trigram row."""
    return {
        int(r[0]): r[1] or ""
        for r in db.execute(f"SELECT rowid, body FROM trigram WHERE rowid IN ({marks(len(rowids))})", tuple(rowids))
    }
