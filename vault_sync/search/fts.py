"""Full-text search over the index's FTS5 table: safe queries, filters, BM25, coverage, snippets.

A person's query is never FTS5 syntax: it is split into words and each word is quoted, so
quotes, `-`, `*`, `NEAR`, `AND`/`OR`/`NOT`, `:` and parentheses are plain text. Words are
OR-ed; BM25 (title > tags > body) orders the matches, and each match carries its
*coverage*: the IDF-weighted share of the query's words it contains. Coverage is an
absolute measure (1.0 = every word), which lets fusion tell a note that matches the query
from one that merely shares a common word with it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import timedelta

from ..dates import format_datetime

WEIGHTS = (4.0, 1.0, 2.0)  # bm25 column weights: title, body, tags
MAX_TERMS = 24
CANDIDATES = 60  # coverage is computed for these
SCAN_PER_CANDIDATE = 500  # walk a word's whole match list below this many matches per candidate, else seek
SNIPPET_TOKENS = 16
MARK = ("**", "**")

SCOPES = {
    "all": ("stm", "ltm", "note"),
    "stm": ("stm",),
    "ltm": ("ltm",),
    "memories": ("stm", "ltm"),
    "notes": ("note",),
    "archive": ("archive",),
}

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    me more most my myself no nor not now of off on once only or other our ours ourselves out over
    own same she should so some such than that the their theirs them themselves then there these
    they this those through to too under until up very was we were what when where which while who
    whom why will with would you your yours yourself yourselves s t d ll m re ve don does did
    whats what's anything something thing things get got tell know let lets us also may might""".split()
)

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def words(query: str) -> list[str]:
    """The query's words, lower-cased, in order, without repeats."""
    seen, out = set(), []
    for w in _WORD.findall(query or ""):
        w = w.lower()
        if w not in seen:
            seen.add(w)
            out.append(w)
    return out


def content_words(query: str) -> list[str]:
    """The words that carry meaning; all of them when the query is nothing but stopwords."""
    ws = words(query)
    kept = [w for w in ws if w not in STOPWORDS]
    return (kept or ws)[:MAX_TERMS]


def quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def match_expression(terms: list[str]) -> str | None:
    return " OR ".join(quote(t) for t in terms) if terms else None


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

    @property
    def narrow(self) -> bool:
        return bool(self.tags or self.status or self.since or self.created_from or self.created_to
                    or self.used_from or self.exclude_superseded)

    def sql(self, alias: str = "n") -> tuple[str, list]:
        parts = [f"{alias}.kind IN ({','.join('?' * len(self.kinds))})"]
        params: list = list(self.kinds)
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
        for bound, column, op in ((self.created_from, "created", ">="), (self.created_to, "created", "<="),
                                  (self.used_from, "coalesce({a}.last_used, {a}.created)", ">=")):
            if bound is not None:
                col = column.format(a=alias) if "{a}" in column else f"{alias}.{column}"
                parts.append(f"(CASE WHEN {alias}.kind = 'note' THEN {alias}.mtime_ns {op} ? "
                             f"ELSE coalesce({col}, '') {op} ? AND {col} IS NOT NULL END)")
                params += [bound[1], bound[0]]
        if self.exclude_superseded:
            from ..index.queries import SUPERSEDED_SQL

            parts.append(f"{alias}.rowid NOT IN {SUPERSEDED_SQL}")
        return " AND ".join(parts), params


def _bound(when) -> tuple[str, int] | None:
    if when is None:
        return None
    ns = max(-(2**63) + 1, min(2**63 - 1, int(when.timestamp() * 1e9)))  # SQLite integers are 64-bit
    return format_datetime(when), ns


def make_filters(svc, scope: str = "all", tags: list[str] | None = None, status: str | None = None,
                 since_days: float | None = None, since: str | None = None, until: str | None = None,
                 used_since: str | None = None, include_superseded: bool = True) -> Filters:
    from ..errors import InvalidInput

    from ..limits import check_tags, quote

    if not isinstance(scope, (str, type(None))) or not isinstance(status, (str, type(None))):
        raise InvalidInput("scope and status must be strings")
    key = (scope or "all").strip().lower()
    if key not in SCOPES:
        raise InvalidInput(f"scope must be one of {', '.join(SCOPES)}; got {quote(scope)}")
    check_tags(tags)
    clean_tags = []
    for t in tags or []:
        t = str(t).strip().lstrip("#").lower()
        if t:
            clean_tags.append(t)
    from ..index import queries
    from .when import parse_when

    if not isinstance(include_superseded, bool):
        raise InvalidInput("include_superseded must be true or false")
    now = svc.now()
    bounds = (_bound(parse_when("since", since, now)), _bound(parse_when("until", until, now)),
              _bound(parse_when("used_since", used_since, now)))
    since = since_ns = None
    if since_days is not None:
        try:
            days = float(since_days)
        except (TypeError, ValueError):
            raise InvalidInput(f"since_days must be a number of days; got {quote(since_days)}") from None
        if not math.isfinite(days) or days < 0:
            raise InvalidInput(f"since_days must be a positive number of days; got {quote(since_days)}")
        days = min(days, 365 * 1000)
        cutoff = svc.now() - timedelta(days=days)
        since = format_datetime(cutoff)
        since_ns = int(cutoff.timestamp() * 1e9)
    return Filters(SCOPES[key], clean_tags, (status or "").strip().lower() or None, since, since_ns,
                   *bounds, exclude_superseded=not include_superseded and queries.any_superseded(svc.store))


@dataclass
class FtsHit:
    rowid: int
    bm25: float  # positive: higher is better
    coverage: float  # IDF-weighted share of the query words present, 0..1


def idf(n_docs: int, df: int) -> float:
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


def search(store, query: str, filters: Filters, limit: int = CANDIDATES) -> list[FtsHit]:
    """Matches for the query's words, best first (BM25), each with its coverage."""
    terms = content_words(query)
    expr = match_expression(terms)
    if expr is None:
        return []
    where, params = filters.sql("n")
    bm25 = f"bm25(fts, {', '.join(map(str, WEIGHTS))})"
    with store.reading() as db:
        rows = None
        if not filters.narrow:
            # the common case: rank without a join (faster), then drop the kinds out of scope
            ranked = db.execute(
                f"SELECT rowid, {bm25} AS rank FROM fts WHERE fts MATCH ? ORDER BY rank LIMIT ?", (expr, int(limit) * 2)
            ).fetchall()
            marks = ",".join("?" * len(ranked))
            kinds = dict(db.execute(f"SELECT rowid, kind FROM notes WHERE rowid IN ({marks})", tuple(r[0] for r in ranked)))
            rows = [r for r in ranked if kinds.get(r[0]) in filters.kinds][: int(limit)]
            if len(rows) < int(limit) and len(ranked) == int(limit) * 2:
                rows = None  # too many out of scope: ask with the filter
        if rows is None:
            rows = db.execute(
                f"SELECT fts.rowid, {bm25} AS rank "
                f"FROM fts JOIN notes n ON n.rowid = fts.rowid WHERE fts MATCH ? AND {where} "
                f"ORDER BY rank LIMIT ?",
                (expr, *params, int(limit)),
            ).fetchall()
        if not rows:
            return []
        n_docs = db.execute("SELECT count(*) FROM notes").fetchone()[0] or 1
        rowids = [r[0] for r in rows]
        marks = ",".join("?" * len(rowids))
        present: dict[int, float] = {r: 0.0 for r in rowids}
        total = 0.0
        for term in terms:
            df = db.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (quote(term),)).fetchone()[0]
            weight = idf(n_docs, df)
            total += weight
            if df:
                # `rowid IN (...)` makes FTS5 seek once per candidate (~15-40 us each); `+rowid`
                # keeps the list from FTS5, so it walks the word's match list (~50 ns an entry)
                # and SQLite filters: cheaper unless the word is in most notes of a big vault
                test = "+rowid" if df <= SCAN_PER_CANDIDATE * len(rowids) else "rowid"
                for (rid,) in db.execute(
                    f"SELECT rowid FROM fts WHERE fts MATCH ? AND {test} IN ({marks})", (quote(term), *rowids)
                ):
                    present[rid] += weight
    total = total or 1.0
    return [FtsHit(r[0], -float(r[1]), min(1.0, present[r[0]] / total)) for r in rows]


def snippets(store, query: str, rowids: list[int]) -> dict[int, str]:
    """A short excerpt per note with the query's words marked (**word**); the body's start when
    nothing matched (a semantic-only hit)."""
    if not rowids:
        return {}
    out: dict[int, str] = {}
    expr = match_expression(content_words(query))
    marks = ",".join("?" * len(rowids))
    with store.reading() as db:
        if expr:
            for rid, snip in db.execute(
                f"SELECT rowid, snippet(fts, 1, ?, ?, '…', {SNIPPET_TOKENS}) FROM fts "
                f"WHERE fts MATCH ? AND rowid IN ({marks})",
                (MARK[0], MARK[1], expr, *rowids),
            ):
                if snip and MARK[0] in snip:
                    out[rid] = " ".join(snip.split())
        rest = [r for r in rowids if r not in out]
        if rest:
            for rid, body in db.execute(
                f"SELECT rowid, body FROM fts WHERE rowid IN ({','.join('?' * len(rest))})", tuple(rest)
            ):
                out[rid] = lead(body or "")
    return out


def lead(body: str, chars: int = 160) -> str:
    text = " ".join(line for line in body.splitlines() if line.strip() and not line.lstrip().startswith("#"))
    text = " ".join(text.split())
    return text if len(text) <= chars else text[:chars].rsplit(" ", 1)[0] + "…"
