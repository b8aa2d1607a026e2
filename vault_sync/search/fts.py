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
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from ..dates import format_datetime
from ..engine import Engine
from ..index import fulltext, trigram, windows
from ..index.fulltext import Filters
from ..projects import ProjectScope

WEIGHTS = (4.0, 1.0, 2.0)  # bm25 column weights: title, body, tags
MAX_TERMS = 24
CANDIDATES = 60  # coverage is computed for these
SCAN_PER_CANDIDATE = 500  # walk a word's whole match list below this many matches per candidate, else seek
SNIPPET_TOKENS = 16
WINDOW_COMMON = (
    0.1  # words in more than this share of the windows (a speaker's name) count for coverage, not for finding
)
WALK_PER_WINDOW = 30  # a conversation window's word: read its whole match list below this many matches per window
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


def _bound(when: datetime | None) -> tuple[str, int] | None:
    if when is None:
        return None
    ns = max(-(2**63) + 1, min(2**63 - 1, int(when.timestamp() * 1e9)))  # SQLite integers are 64-bit
    return format_datetime(when), ns


def make_filters(
    engine: Engine,
    scope: str = "all",
    tags: list[str] | None = None,
    status: str | None = None,
    since_days: float | None = None,
    since: str | None = None,
    until: str | None = None,
    used_since: str | None = None,
    include_superseded: bool = True,
    include_archived: bool | None = False,
    projects: ProjectScope | None = None,
) -> Filters:
    """The filters of a search. Archived memories are searched by scope `archive`, with
    `include_archived` true, by `status: archived`, and (`include_archived` None: the default
    of the front ends) by a search bounded in time: a question about a past period is about
    history, where an archived memory is as good an answer as any."""
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
    if not isinstance(include_archived, (bool, type(None))):
        raise InvalidInput("include_archived must be true or false")
    now = engine.now()
    bounds = (
        _bound(parse_when("since", since, now)),
        _bound(parse_when("until", until, now)),
        _bound(parse_when("used_since", used_since, now)),
    )
    since = since_ns = None
    if since_days is not None:
        try:
            days = float(since_days)
        except (TypeError, ValueError):
            raise InvalidInput(f"since_days must be a number of days; got {quote(since_days)}") from None
        if not math.isfinite(days) or days < 0:
            raise InvalidInput(f"since_days must be a positive number of days; got {quote(since_days)}")
        days = min(days, 365 * 1000)
        cutoff = engine.now() - timedelta(days=days)
        since = format_datetime(cutoff)
        since_ns = int(cutoff.timestamp() * 1e9)
    exclude = not include_superseded and queries.any_superseded(engine.store)
    from ..lookups import current_despite_marks

    filters = Filters(
        SCOPES[key],
        clean_tags,
        (status or "").strip().lower() or None,
        since,
        since_ns,
        *bounds,
        exclude_superseded=exclude,
        superseded_exempt=tuple(current_despite_marks(engine)) if exclude else (),
        # a vault where no note names a project needs no project filter: search costs the same
        projects=projects if projects is not None and projects.narrows and queries.any_project(engine.store) else None,
    )
    if "archive" not in filters.kinds and (
        include_archived or filters.status == "archived" or (include_archived is None and filters.timed)
    ):
        filters = replace(filters, kinds=(*filters.kinds, "archive"))
    return filters


@dataclass
class FtsHit:
    rowid: int
    bm25: float  # positive: higher is better
    coverage: float  # IDF-weighted share of the query words present, 0..1


def idf(n_docs: int, df: int) -> float:
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


def coverage(rowids: list[int], matches: list[tuple[float, list[int]]]) -> dict[int, float]:
    """Each note's share (0..1) of the query's weight: `matches` holds, per query term, its
    weight (IDF) and the notes among `rowids` holding it."""
    present = dict.fromkeys(rowids, 0.0)
    for weight, found in matches:
        for rid in found:
            present[rid] += weight
    total = sum(weight for weight, _ in matches) or 1.0
    return {rid: min(1.0, p / total) for rid, p in present.items()}


@dataclass
class Term:
    """One thing the query looks for: a word (word index); in the trigram table, a trigram of
    a run of CJK/Thai/Indic characters, a run or a stretch of runs as a phrase, or a run too
    short for a trigram."""

    text: str
    index: str  # "word" | "gram" | "phrase" | "short"
    share: float = 1.0  # a run's trigrams share part of the run's weight


def plan(query: str) -> list[Term]:
    """The query's terms. A run of n characters weighs about n/2 words (a Chinese or Japanese
    word is mostly two characters): half on its trigrams (found wherever they are), half on
    the run as written. Runs separated only by spaces (Korean, Thai phrases) are also looked
    for as one phrase, so a copied sentence finds its note before notes that merely share
    its words."""
    terms = [Term(w, "word") for w in content_words(query) if not trigram.needs(w)]
    grams: list[Term] = []
    for run in trigram.runs(query)[:MAX_TERMS]:
        weight = max(1.0, len(run) / 2)
        if len(run) < 3:
            terms.append(Term(run, "short", weight))
            continue
        terms.append(Term(run, "phrase", weight / 2))
        run_grams = trigram.grams(run)
        grams += [Term(g, "gram", weight / 2 / len(run_grams)) for g in run_grams]
    for span in trigram.spans(query)[:MAX_TERMS]:
        terms.append(Term(span, "phrase", sum(max(1.0, len(r) / 2) for r in span.split(" ")) / 2))
    if len(grams) > trigram.MAX_GRAMS:  # a long sentence: an even sample of its trigrams
        step = len(grams) / trigram.MAX_GRAMS
        grams = [grams[int(i * step)] for i in range(trigram.MAX_GRAMS)]
    return terms + grams


def search(store: Any, query: str, filters: Filters, limit: int = CANDIDATES) -> list[FtsHit]:
    """Matches for the query's terms, best first, each with its coverage. Words are looked up
    in the word index; runs of CJK, Thai or Indic characters in the trigram index."""
    terms = plan(query)
    if not terms:
        return []
    limit = int(limit)
    where, params = filters.sql("n")
    words_ = [t.text for t in terms if t.index == "word"]
    grams = [t.text for t in terms if t.index == "gram"]
    with store.reading() as db:
        sides: list[list[tuple[int, float]]] = []  # (rowid, rank: lower is better) per lookup
        if words_:
            sides.append(fulltext.ranked(db, match_expression(words_) or "", WEIGHTS, filters, limit))
        if grams:
            sides.append(trigram.ranked(db, grams, where, params, limit))
        for t in terms:
            if t.index == "short":
                sides.append(trigram.containing(db, t.text, where, params, limit))
        strength: dict[int, float] = {}
        if len(sides) == 1:
            strength = {rid: -rank for rid, rank in sides[0]}  # one list: its own order and scale
        else:
            for side in sides:  # each list on 0..1 of its best: BM25 scales differ between the indexes
                best = max((-rank for _, rank in side), default=0.0)
                for rid, rank in side:
                    strength[rid] = strength.get(rid, 0.0) + (-rank / best if best > 0 else 1.0)
        if not strength:
            return []
        rowids = list(strength)
        n_docs = fulltext.note_count(db) or 1

        def matches(t: Term) -> tuple[float, list[int]]:
            if t.index == "word":
                df = fulltext.doc_frequency(db, quote(t.text))
                found = fulltext.having(db, quote(t.text), rowids, df <= SCAN_PER_CANDIDATE * len(rowids)) if df else []
            else:
                df = trigram.doc_frequency(db, t.text)
                found = trigram.having(db, t.text, rowids) if df else []
            return idf(n_docs, df) * t.share, found

        found = [matches(t) for t in terms]
        share = coverage(rowids, found)
        # notes holding a term as written (a word, a run, a phrase); one holding only some of
        # a run's trigrams has pieces of the phrase, not the phrase: it answers only when no
        # note holds any term as written (a misspelt query still finds its neighbours)
        whole = {rid for t, (_, rids) in zip(terms, found) if t.index != "gram" for rid in rids}
    hits = [FtsHit(rid, s, share[rid]) for rid, s in strength.items() if not grams or not whole or rid in whole]
    if grams or len(sides) > 1:  # runs of CJK/Thai text: coverage (the phrases) decides first
        best = max(h.bm25 for h in hits) or 1.0
        hits.sort(key=lambda h: (-(h.coverage**2) * (0.6 + 0.4 * h.bm25 / best), h.rowid))
    return hits[:limit]


def window_strengths(store: Any, query: str, filters: Filters, limit: int = CANDIDATES) -> dict[int, float]:
    """Memories said in a conversation whose window (the turn and its neighbours,
    index/windows.py) matches the query's words: rowid -> strength 0..1, the window's coverage
    (the IDF-weighted share of the query's words it holds) x (0.6 + 0.4 x its BM25 on 0..1
    of the best window's), as a note's own full-text strength is made."""
    terms = [w for w in content_words(query) if not trigram.needs(w)]
    if not terms:
        return {}
    where, params = filters.sql("n")
    known = store.window_lookups.at(store.write_signature())  # the version taken first: conservative
    with store.reading() as db:
        if known.count is None:
            known.count = windows.count(db)
        n_docs = known.count
        if not n_docs:
            return {}
        for t in terms:
            if t not in known.dfs:
                known.dfs[t] = windows.doc_frequency(db, quote(t))
        dfs = {t: known.dfs[t] for t in terms}
        found = [t for t in terms if dfs[t]]
        if not found:
            return {}
        common = max(WINDOW_COMMON * n_docs, 100)  # a small vault has no speed to gain
        lookup = [t for t in found if dfs[t] <= common] or found
        rows = windows.ranked(db, match_expression(lookup) or "", where, params, limit)
        best = max((-rank for _, rank in rows), default=0.0)
        if best <= 0:
            return {}
        rowids = [r for r, _ in rows]

        def windows_with(t: str) -> list[int]:
            if not dfs[t]:
                return []
            rows = known.sets.get(t)
            if rows is None and dfs[t] <= WALK_PER_WINDOW * len(rowids):
                rows = known.keep(t, windows.holding(db, quote(t)))  # read once for this index version
            if rows is not None:
                return [r for r in rowids if r in rows]
            return windows.having(db, quote(t), rowids)  # in most windows: a seek per candidate

        share = coverage(rowids, [(idf(n_docs, dfs[t]), windows_with(t)) for t in terms])
    # coverage as it is, not squared as a note's own: squared 0.789 LoCoMo hit@5, as it is 0.801
    return {rid: share[rid] * (0.6 + 0.4 * -rank / best) for rid, rank in rows}


def snippets(store: Any, query: str, rowids: list[int]) -> dict[int, str]:
    """A short excerpt per note with the query's words marked (**word**); the body's start when
    nothing matched (a semantic-only hit)."""
    if not rowids:
        return {}
    out: dict[int, str] = {}
    runs = trigram.runs(query)
    expr = match_expression([w for w in content_words(query) if not trigram.needs(w)])
    with store.reading() as db:
        if runs:  # the excerpt from the note's whole body (the trigram table holds only its CJK/Thai stretches)
            for rid, body in fulltext.bodies(db, list(trigram.texts(db, rowids))).items():
                snip = marked_excerpt(body, runs)
                if snip:
                    out[rid] = snip
        rest = [r for r in rowids if r not in out]
        if expr and rest:
            for rid, snip in fulltext.snippets(db, expr, rest, MARK, SNIPPET_TOKENS).items():
                if snip and MARK[0] in snip:
                    out[rid] = " ".join(snip.split())
        rest = [r for r in rowids if r not in out]
        if rest:
            for rid, body in fulltext.bodies(db, rest).items():
                out[rid] = lead(body)
    return out


SNIPPET_CHARS = 80  # an excerpt around runs of CJK/Thai/Indic text (these scripts are dense)


def marked_excerpt(body: str, runs: list[str], width: int = SNIPPET_CHARS) -> str:
    """The stretch of `body` (about `width` characters) holding most of the runs' trigrams (or
    the short runs themselves), each matching stretch between MARK; '' when none is there."""
    text = " ".join(body.split())
    marked = [False] * len(text)
    for run in runs:
        for piece in trigram.grams(run) if len(run) >= 3 else [run]:
            at = text.find(piece)
            while at >= 0:
                for i in range(at, at + len(piece)):
                    marked[i] = True
                at = text.find(piece, at + 1)
    starts = [i for i, m in enumerate(marked) if m and (i == 0 or not marked[i - 1])]
    if not starts:
        return ""
    # the window starting a little before the span start that has the most marked characters in it
    best = max(starts, key=lambda s: (sum(marked[s : s + width]), -s))
    lo = max(0, best - width // 8)
    hi = min(len(text), lo + width)
    parts, i = [], lo
    while i < hi:
        j = i
        while j < hi and marked[j] == marked[i]:
            j += 1
        parts.append(MARK[0] + text[i:j] + MARK[1] if marked[i] else text[i:j])
        i = j
    return ("…" if lo > 0 else "") + "".join(parts) + ("…" if hi < len(text) else "")


def lead(body: str, chars: int = 160) -> str:
    text = " ".join(line for line in body.splitlines() if line.strip() and not line.lstrip().startswith("#"))
    text = " ".join(text.split())
    return text if len(text) <= chars else text[:chars].rsplit(" ", 1)[0] + "…"
