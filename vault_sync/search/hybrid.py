"""Hybrid search: full text + semantic, fused by normalised score, weighted by decay, with review blending.

Fusion. Rank-only fusion (RRF) lets a weak full-text hit on a common word outrank a strong
paraphrase match, because every list's first place counts the same. Here each list
contributes an absolute strength instead:

- full text: ``fts = coverage * (0.6 + 0.4 * bm25 / best_bm25)``, where coverage is the
  IDF-weighted share of the query's words the note contains (see fts.py);
- semantic: ``sem = clip((cosine - 0.15) / 0.6, 0, 1)`` for MiniLM's cosine;
- relevance ``rel = 0.5 * sem + 0.5 * fts`` (``fts`` alone without embeddings), plus a small
  bonus when both lists agree.

Conversation context: a memory said in a conversation (`conversation`, `said_at`) is also
matched through its window, its text with the two turns said either side (index/windows.py):
``rel += WINDOW_WEIGHT * window strength`` (coverage x BM25, as the note's own full-text
strength), so the reply that holds none of a question's words is found with the turns that
do. Then the best candidates are rescored with their neighbours (context.py), and a
neighbour of a strong candidate becomes a candidate. Names: a memory said in a conversation that opens with a name the
query asks about ("What did Melanie paint?" and "Melanie on ...": who said it) gets ``rel * (1 + SUBJECT_BONUS)``.

The result score is ``rel * weight``: STM memories weigh ``0.7 + 0.3 * sqrt(min(1, decay))``
(gentle: a faded memory that matches well is still found), LTM notes 1.0, the person's notes
0.9, archived memories 0.6: below every current memory of the same relevance (they are
history, not current answers).

Scope: ``all`` = STM + LTM + the person's notes; ``stm``, ``ltm``, ``memories`` (STM + LTM),
``notes`` (the person's), ``archive`` (only archived memories, which the others leave out
unless ``include_archived``, ``status: archived`` or a time bound brings them in: archive.py).

Review blending: a share ``review_blend_ratio`` of the results are STM memories in
the danger zone that are relevant to the query (cosine >= 0.35, or full-text coverage >= 0.5);
those ranking naturally keep their place, the rest are interleaved after every few primary
results (70/30: p, p, r, p, p, r, ...). Each is flagged ``review: true``. Irrelevant ones never
appear.
"""

from __future__ import annotations

import math
import re
import sqlite3
from concurrent.futures import Future
from typing import Any, Callable, NotRequired, TypedDict

from ..ageing import of_row
from ..engine import Engine
from ..index import queries
from ..index.fulltext import Filters
from ..limits import MAX_SEARCH_LIMIT, check_limit, check_query
from ..projects import ProjectScope, fold, scope_of
from . import archive, context
from . import fts as ftsmod

SEM_FLOOR, SEM_FULL = 0.15, 0.75
SEM_WEIGHT, FTS_WEIGHT, AGREE_BONUS = 0.5, 0.5, 0.05
SEM_CANDIDATES = 100
COVERAGE_POWER = 2.0  # partial word overlap is weak evidence: 50% coverage counts a quarter
MODEL_LOADING = "the embedding model is still loading; these results are full text only"
SEM_MIN = 0.2  # a semantic-only candidate below this cosine is noise
REVIEW_SEM, REVIEW_COVERAGE = 0.35, 0.5
STM_FLOOR = 0.7
KIND_WEIGHT = {"ltm": 1.0, "note": 0.9, "archive": 0.6}  # archived: below STM_FLOOR
MAX_LIMIT = MAX_SEARCH_LIMIT
POOL_MIN = 20
# LoCoMo hit@5 by window weight 0.1: 0.779, 0.2: 0.793, 0.3: 0.801, 0.5: 0.801, 0.7: 0.803
# (docs/benchmarks.md; re-measure: mnemovault bench --locomo DIR)
WINDOW_WEIGHT = 0.3
WINDOW_CANDIDATES = 100
SUBJECT_BONUS = 0.25  # a memory that opens with a name the question asks about


def sem_strength(cosine: float | None) -> float:
    if cosine is None:
        return 0.0
    return min(1.0, max(0.0, (cosine - SEM_FLOOR) / (SEM_FULL - SEM_FLOOR)))


def fts_strength(hit: ftsmod.FtsHit | None, best_bm25: float) -> float:
    if hit is None or best_bm25 <= 0:
        return 0.0
    return float(hit.coverage**COVERAGE_POWER * (0.6 + 0.4 * min(1.0, hit.bm25 / best_bm25)))


def relevance(sem: float, fts: float, both: bool = True) -> float:
    """The blend of the two strengths (both 0..1), plus a bonus when both lists found the note.

    Equal weights: on LoCoMo (chat turns, bench --locomo) 0.5/0.5 beat 0.6/0.4 on hit@5
    (0.676 vs 0.659) and the known-item MRR of the semantic tests (0.846 vs 0.833); a turn that
    holds the question's words should not lose to one that is merely about the same topic."""
    return SEM_WEIGHT * sem + FTS_WEIGHT * fts + (AGREE_BONUS * min(sem, fts) if both else 0.0)


def query_names(query: str) -> set[str]:
    """The names in a question, lower-cased: its capitalised words that are not stopwords
    ("What did Melanie paint?" -> {"melanie"})."""
    return {w.lower() for w in re.findall(r"[^\W\d_]+", query) if w[0].isupper() and w.lower() not in ftsmod.STOPWORDS}


_FIRST_WORD = re.compile(r"[^\W_]+")


def subject(title: str) -> str | None:
    """A memory's first word, lower-cased: in a conversation, usually who said it."""
    first = _FIRST_WORD.search(title)
    return first.group(0).lower() if first else None


def kind_weight(kind: str, decay: float | None) -> float:
    if kind == "stm":
        value = 0.0 if decay is None or not math.isfinite(decay) else max(0.0, min(1.0, decay))
        return STM_FLOOR + (1.0 - STM_FLOOR) * math.sqrt(value)
    return KIND_WEIGHT.get(kind, 0.9)


Lookup = Callable[[list[int]], dict[int, float]]


class Scored(TypedDict):
    """One ranked candidate, before it becomes a result."""

    rowid: int
    row: sqlite3.Row
    score: float
    rel: float
    due: bool
    parts: dict[str, float | None]
    review: NotRequired[bool]


def _no_cosines(rowids: list[int]) -> dict[int, float]:
    return {}


def _semantic_off(engine: Engine) -> bool:
    return engine.runtime.embedder is None and not engine.settings.embeddings


def start_query_vector(engine: Engine, query: str) -> "Future[Any] | None":
    """The query's vector, encoded in a worker thread while full text and the windows are
    searched (the model and SQLite both let go of the GIL: on two cores the ~12 ms encode
    overlaps the rest). None unless the model is loaded: _semantic then decides."""
    if _semantic_off(engine):
        return None
    from .embeddings import get_embedder

    embedder = get_embedder(engine)
    if embedder is None or not embedder.loaded:
        return None
    try:
        return engine.runtime.query_encoder().submit(embedder.encode_one, query)
    except RuntimeError:  # the interpreter is shutting down: encode in this thread
        return None


def _semantic(
    engine: Engine, query: str, filters: Filters, extra: set[int] | None = None, pending: "Future[Any] | None" = None
) -> tuple[dict[int, float] | None, str | None, Lookup]:
    """(rowid -> cosine for the best candidates, notice, cosine of any other notes). None when
    semantic search is off. `pending`: the query's vector, already on its way."""
    if _semantic_off(engine):
        return None, None, _no_cosines  # full text only: numpy and the model are not even imported
    import numpy as np

    from .embeddings import EmbeddingUnavailable, get_embedder, inline_backfill, missing_hashes, vector_cache

    embedder = get_embedder(engine)
    if embedder is None:
        return None, None, _no_cosines
    if embedder.loading:  # the daemon is warming the model: answer now, from full text
        return None, MODEL_LOADING, _no_cosines
    try:
        embedder.load()
    except EmbeddingUnavailable as exc:
        if embedder.notice_given:
            return None, None, _no_cosines
        embedder.notice_given = True
        return None, f"semantic search is unavailable ({exc}); showing full-text results only", _no_cosines
    notice = None
    if not inline_backfill(engine, embedder):
        total = queries.distinct_contents(engine.store)
        left = len(missing_hashes(engine, embedder.name))
        notice = (
            f"semantic index covers {total - left} of {total} notes, so these results are partly "
            "from full text only; run `mnemovault embed` (or let the daemon finish) for full semantic search"
        )
    qvec = pending.result() if pending is not None else embedder.encode_one(query)
    rowids, sims = vector_cache(engine, embedder).similarities(qvec, filters.kinds)
    if filters.narrow_besides_projects and len(rowids):
        allowed = queries.rowids_passing(engine.store, filters)
        keep = np.fromiter((r in allowed for r in rowids.tolist()), dtype=bool, count=len(rowids))
        rowids, sims = rowids[keep], sims[keep]
    elif filters.scoped and filters.projects is not None and len(rowids):
        # only other projects' notes are left out: a mask by rowid, read once per index state
        outside = _outside_mask(engine, filters.projects)
        if len(outside):
            inside = rowids < len(outside)
            keep = ~inside.copy()
            keep[inside] = ~outside[rowids[inside]]
            rowids, sims = rowids[keep], sims[keep]
    all_rowids, all_sims = rowids, sims

    def lookup(wanted: list[int]) -> dict[int, float]:
        if not wanted or not len(all_rowids):
            return {}
        mask = np.isin(all_rowids, np.fromiter(wanted, dtype=all_rowids.dtype, count=len(wanted)))
        return {int(r): float(s) for r, s in zip(all_rowids[mask], all_sims[mask])}

    out: dict[int, float] = {}
    if extra:
        # every full-text hit gets its own cosine, even outside the semantic top list: an exact
        # match on a rare word must not count as "no meaning in common"
        out.update(lookup(list(extra)))
    if len(sims) > SEM_CANDIDATES:
        top = np.argpartition(-sims, SEM_CANDIDATES)[:SEM_CANDIDATES]
        rowids, sims = rowids[top], sims[top]
    out.update({int(r): float(s) for r, s in zip(rowids, sims)})
    return out, notice, lookup


def _outside_mask(engine: Engine, scope: ProjectScope) -> Any:
    """A boolean array by rowid: True for the notes of projects other than `scope`'s (kept on
    the runtime for the index state it was read at: a search pays one lookup, not a query)."""
    import numpy as np

    key = (engine.store.change_signature(), fold(scope.name or ""))
    mask = engine.runtime.project_masks.get(key)
    if mask is None:
        outside = queries.rowids_outside(engine.store, scope)
        mask = np.zeros(max(outside) + 1 if outside else 0, dtype=bool)
        mask[outside] = True
        engine.runtime.keep_project_mask(key, mask)
    return mask


def checked(engine: Engine, query: str, limit: int = 10, **filters: Any) -> dict[str, Any]:
    """`search` after checking the query and the limit as a front end passed them; `filters`
    are `search`'s own keywords."""
    return search(engine, check_query(query), check_limit(limit, MAX_LIMIT), **filters)


def search(
    engine: Engine,
    query: str,
    limit: int = 10,
    scope: str = "all",
    tags: list[str] | None = None,
    status: str | None = None,
    since_days: float | None = None,
    blend_review: bool = True,
    since: str | None = None,
    until: str | None = None,
    used_since: str | None = None,
    include_superseded: bool = False,
    include_archived: bool | None = None,
    project: str | None = None,
    all_projects: bool = False,
) -> dict[str, Any]:
    """{"results": [Result], "semantic": bool, "notice": str | None, "project", "all_projects"}
    (docs/bridge-api.md).

    Projects: the results are `project`'s memories and shared ones (shared ones only when it
    is None), every project's with `all_projects`; the filter applies before ranking, as the
    time bounds do, so another project's notes never push this one's out. Each hit names its
    `project` (None: shared).

    Superseded memories are left out unless `include_superseded` (then each names its
    successor); the time bounds filter the candidates before anything is ranked. Archived
    memories: see archive.py (`include_archived` None: only when the search is bounded in
    time; when they are left out of a time-bounded search or of one that found nothing,
    `archived_matches` counts those that match and the notice says how to see them). A search
    of the archive itself is a search of history: it shows superseded memories too (gc archives
    every one), each naming its successor."""
    if scope == "archive" and include_superseded is False:
        include_superseded = True
    scoped = scope_of(project, all_projects)
    filters = ftsmod.make_filters(
        engine, scope, tags, status, since_days, since, until, used_since, include_superseded, include_archived, scoped
    )
    limit = max(1, min(int(limit or 10), MAX_LIMIT))
    query = (query or "").strip()
    if not ftsmod.words(query):
        return {"results": [], "semantic": False, "notice": None, **scoped.describe()}
    out = _ranked(engine, query, limit, filters, blend_review, include_superseded)
    out.update(scoped.describe())
    hidden = archive.left_out(engine.store, query, filters, len(out["results"]))
    if hidden is not None:
        out["archived_matches"] = hidden
        if hidden:
            out["notice"] = "; ".join(filter(None, (out["notice"], archive.left_out_notice(hidden))))
    return out


def _ranked(
    engine: Engine, query: str, limit: int, filters: Filters, blend_review: bool, include_superseded: bool
) -> dict[str, Any]:
    pending = start_query_vector(engine, query)
    # enough full-text candidates for the page asked for, and never fewer than the page: coverage
    # costs a seek per candidate and word
    pool = min(max(POOL_MIN, 3 * limit), max(ftsmod.CANDIDATES, limit))
    hits = {h.rowid: h for h in ftsmod.search(engine.store, query, filters, limit=pool)}
    best_bm25 = max((h.bm25 for h in hits.values()), default=0.0)
    windows = (
        ftsmod.window_strengths(engine.store, query, filters, limit=WINDOW_CANDIDATES) if WINDOW_WEIGHT > 0 else {}
    )
    cosines, notice, lookup = _semantic(engine, query, filters, set(hits) | set(windows), pending)
    semantic = cosines is not None
    cosines = cosines or {}

    def own(rowid: int) -> float:
        f = fts_strength(hits.get(rowid), best_bm25)
        rel = relevance(sem_strength(cosines.get(rowid)), f, rowid in hits) if semantic else f
        return rel + WINDOW_WEIGHT * windows.get(rowid, 0.0)

    candidates = set(hits) | set(windows) | {r for r, c in cosines.items() if c >= SEM_MIN or r in hits}
    if not candidates:
        return {"results": [], "semantic": semantic, "notice": notice}
    rels = {r: own(r) for r in candidates}

    def relevance_of(rowids: list[int]) -> dict[int, float]:
        cosines.update({r: c for r, c in lookup(rowids).items() if r not in cosines})
        return {r: own(r) for r in rowids}

    rels = context.rescore(engine.store, rels, relevance_of)
    fresh = [r for r in rels if r not in candidates]  # neighbours of strong candidates
    rows = queries.notes_by_rowid(engine.store, list(candidates))
    if fresh:
        rows.update(queries.notes_by_rowid(engine.store, fresh, filters))

    names = query_names(query)
    now = engine.now()
    params = engine.params
    scored: list[Scored] = []
    for rowid, row in rows.items():
        hit, cos = hits.get(rowid), cosines.get(rowid)
        f = fts_strength(hit, best_bm25)
        rel = rels[rowid]
        if names and row["conversation"] is not None and subject(row["title"]) in names:
            rel *= 1.0 + SUBJECT_BONUS
        ageing = of_row(params, row, now)
        decay = ageing.score
        final = rel * kind_weight(row["kind"], decay)
        due = (
            ageing.in_review  # a pinned memory is never offered for review
            and ((cos is not None and cos >= REVIEW_SEM) or (hit is not None and hit.coverage >= REVIEW_COVERAGE))
        )
        scored.append(
            {
                "rowid": rowid,
                "row": row,
                "score": final,
                "rel": rel,
                "due": due,
                "parts": {
                    "fts": round(f, 4) if hit is not None else None,
                    "semantic": round(cos, 4) if cos is not None else None,
                    "decay": round(decay, 4) if decay is not None else None,
                },
            }
        )
    scored.sort(key=lambda c: (-c["score"], c["row"]["path"]))
    chosen = _blend(scored, limit, engine.settings.review_blend_ratio if blend_review else 0.0)

    snips = ftsmod.snippets(engine.store, query, [c["rowid"] for c in chosen])
    tags = queries.tags_by_rowid(engine.store, [c["rowid"] for c in chosen])
    results: list[dict[str, Any]] = []
    for c in chosen:
        row = c["row"]
        results.append(
            {
                "path": row["path"],
                "id": row["id"],
                "title": row["title"],
                "kind": row["kind"],
                "snippet": snips.get(c["rowid"], ""),
                "score": round(c["score"], 4),
                "parts": c["parts"],
                "review": bool(c.get("review")),
                **archive.hit_fields(row, tags[c["rowid"]]),
                "project": row["project"],
            }
        )
    if include_superseded and results:
        from ..lookups import newest, successors_map

        succ = successors_map(engine)
        for r in results:
            if r["path"] in succ:
                r["superseded_by"] = newest(engine, r["path"], succ)
    return {"results": results, "semantic": semantic, "notice": notice, "matches": len(scored)}


def _blend(scored: list[Scored], limit: int, ratio: float) -> list[Scored]:
    """The top `limit`, with relevant due-for-review memories making up `ratio` of them."""
    natural = scored[:limit]
    if ratio <= 0:
        return natural
    quota = max(1, round(limit * ratio)) if limit > 1 else 0
    for c in natural:
        c["review"] = c["due"]
    have = sum(1 for c in natural if c["due"])
    extra = [c for c in scored[limit:] if c["due"]][: max(0, quota - have)]
    if not extra:
        return natural
    for c in extra:
        c["review"] = True
    # drop the weakest primaries to make room, then interleave: p, p, r, p, p, r, ...
    primaries = [c for c in natural if not c["due"]]
    keep_ids = {id(c) for c in primaries[: max(0, len(primaries) - len(extra))]}
    out = [c for c in natural if c["due"] or id(c) in keep_ids]
    gap = max(1, round((1 - ratio) / ratio))
    for i, c in enumerate(extra):
        out.insert(min(len(out), (i + 1) * gap + i), c)
    return out[:limit]
