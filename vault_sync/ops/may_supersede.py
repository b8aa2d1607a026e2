"""may_supersede: memories a new save may replace (the same fact with a changed value).

Each existing memory close to the new text gets a score: its closeness (the cosine of the
save-time vectors with embeddings on; with them off, the share of words the two texts
hold in common) plus two signs of an update that closeness alone misses:
- ONE_SLOT: the two sentences are the same but for one run of words (a value, a name, a
  date swapped in place). A different subject with a different value changes two runs
  ("15 agents on weekdays" / "5 agents on weekends"), so it gets no bonus.
- CHANGE_WORD: the new text says that something changed ("now", "moved", "instead",
  "upgraded", "stopped", "was extended", "was rewritten"...), which a reworded update usually
  does and a new fact rarely does. Not for a quantity verb with a number ("grew to 4") beside
  an old text that holds no number: that changes a value the old fact never stated.
- ANCHORED: besides a change word, the words before it (the subject: "The blog was ported
  to Hugo") are all in the old text: the change is about the old fact's own subject.
Listed: memories (not superseded) scoring at least the floor and within MARGIN of the best
one, at most MAX_LISTED. Measured on bridge/bench/update_set.py (`mnemovault bench`).
Advisory: a failure here never blocks a save.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable

from ..details import swapped_run
from ..engine import Engine
from ..index import queries
from ..index import vectors as vq
from ..lookups import not_current
from ..search import semantic

if TYPE_CHECKING:
    from ..search.embeddings import Vectors

COSINE_MIN = 0.75  # the score floor with embeddings (a cosine of 0.75 alone is enough)
OVERLAP_MIN = 0.625  # the score floor without them
ONE_SLOT = 0.15
CHANGE_WORD = 0.15
CHANGE_WORD_NO_MODEL = 0.25  # word overlap misses rewordings more than the model does
ANCHORED = 0.15
SHORT = 40  # words: the bonuses read a one-fact statement; in a long text "now" says little and difflib costs more
MARGIN = 0.05  # the runner-up of a close call is listed too; a distant one is noise
POOL = 10  # closest memories scored
MAX_LISTED = 3
HINT = (
    "If this memory replaces one of these (the fact changed), call supersede_memory(old=<its id>, by=<the new id>), "
    "or save with supersedes=[<its id>] next time."
)

_WORD = re.compile(r"\d+(?:[.:,]\d+)*|[^\W_]+")
CHANGE_WORDS = frozenset(
    """now longer anymore instead changed moved switched replaced updated upgraded downgraded raised lowered
    increased decreased reduced dropped rose fell grew shrank cut extended postponed rescheduled pushed delayed
    slipped took migrated renamed became
    stopped quit ended cancelled canceled abandoned discontinued retired scrapped gave
    rewritten rewrote rebuilt ported swapped shortened lengthened expanded bumped doubled halved tripled
    renewed revised lifted""".split()
)
# verbs that change a quantity (not "dropped", "cut": a rule or a habit too): they say a change only
# with a number, and then the old fact must hold a number too
QUANTITY_WORDS = frozenset(
    """raised lowered increased decreased reduced rose fell grew shrank extended shortened lengthened expanded bumped
    doubled halved tripled""".split()
)
NUMBER_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty hundred thousand "
    "million billion half dozen".split()
)


def candidates(
    engine: Engine,
    body: str,
    title: str | None,
    tags: list[str],
    vector: "Vectors | None" = None,
    keep: "Callable[[str], bool] | None" = None,
) -> list[dict[str, Any]]:
    """Existing memories (not superseded) this text may replace, most likely first.

    `vector`: the new text's save-time vector when the caller has it (the save path computes
    it once for both checks); computed here otherwise."""
    try:
        if vector is None and semantic.embedder_now(engine) is not None:  # the model when at hand; words while it loads
            from ..search.embeddings import query_vector

            vector = query_vector(engine, body, title, tags)
        if vector is not None:
            pool = pool_by_vector(engine, vector)
            floor, change = COSINE_MIN, CHANGE_WORD
        else:  # embeddings off, the model loading or unable to load: words
            pool = pool_by_words(engine, body)
            floor, change = OVERLAP_MIN, CHANGE_WORD_NO_MODEL
        if keep is not None:  # e.g. only the saving project's memories (projects.py)
            pool = [h for h in pool if keep(h["path"])]
        return pick(body, pool, floor, change, not_current(engine))
    except Exception:  # an extra: never block a save over it
        return []


def pick(
    body: str, pool: list[dict[str, Any]], floor: float, change: float, superseded: set[str]
) -> list[dict[str, Any]]:
    """Score each pooled memory ({id, path, title, similarity, text}) and keep the likely ones."""
    new_words = words(body)
    short = len(new_words) <= SHORT
    # a quantity verb says a value changed only with the value: "extended to 30 days", not
    # "extended with an export endpoint"
    signals = CHANGE_WORDS if _has_number(new_words) else CHANGE_WORDS - QUANTITY_WORDS
    first = next((i for i, w in enumerate(new_words) if w in signals), None) if short else None
    subject = _stems(new_words[:first]) if first is not None else []
    new_value = bool(QUANTITY_WORDS.intersection(new_words)) and any(w[0].isdigit() for w in new_words)
    kept = [w for w in new_words if w not in CHANGE_WORDS]
    scored = []
    for hit in pool:
        if hit["path"] in superseded:
            continue
        old_words = words(hit["text"])
        bonus = change if first is not None and not (new_value and not _has_number(old_words)) else 0.0
        if bonus and subject and _holds(_stems(old_words), subject):
            bonus += ANCHORED
        score = hit["similarity"] + bonus
        if (
            short and score + ONE_SLOT >= floor
        ):  # below it even with the bonus: never listed, never the best that counts
            score += ONE_SLOT if len(old_words) <= SHORT and one_slot(kept, old_words) else 0.0
        scored.append((score, hit))
    if not scored:
        return []
    best = max(s for s, _ in scored)
    out = sorted(((s, h) for s, h in scored if s >= floor and s >= best - MARGIN), key=lambda sh: -sh[0])
    return [{k: h[k] for k in ("id", "path", "title", "similarity")} for _, h in out[:MAX_LISTED]]


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def _stems(ws: list[str]) -> list[str]:
    """Content words cut to their first 4 letters: "bundler" and "bundling", "run" and "running" meet."""
    from ..search.fts import STOPWORDS

    return [w[:4] for w in ws if w not in STOPWORDS and not w[0].isdigit()]


def _holds(old: list[str], subject: list[str]) -> bool:
    """Every word of the new text's subject is in the old text (a short word as a prefix of one)."""
    return all(
        any(o == s or min(len(o), len(s)) >= 3 and (o.startswith(s) or s.startswith(o)) for o in old) for s in subject
    )


def _has_number(ws: list[str]) -> bool:
    return any(w[0].isdigit() or w in NUMBER_WORDS for w in ws)


def one_slot(new: list[str], old: list[str]) -> bool:
    """The same sentence but for one run of words (no word of which is on both sides), the
    rest at least half of it."""
    return swapped_run(new, old) is not None


def _content(ws: list[str]) -> set[str]:
    from ..search.fts import STOPWORDS

    # a plural and its singular count as one word ("replicas" / "replica")
    return {w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in ws if w not in STOPWORDS}


def overlap(new: set[str], old: set[str]) -> float:
    """Word closeness without a model, of two texts' content words (_content): mostly the
    share of the old text's words the new one repeats (an update restates its subject),
    partly the share of the new one's in the old."""
    if not new or not old:
        return 0.0
    shared = len(new & old)
    return 0.7 * shared / len(old) + 0.3 * shared / len(new)


def _with_text(engine: Engine, rowids: list[int]) -> dict[int, str]:
    return {r[0]: r[2] for r in vq.embed_texts(engine.store, rowids)}


def pool_by_vector(engine: Engine, vector: "Vectors") -> list[dict[str, Any]]:
    from ..search.embeddings import vector_cache

    embedder = semantic.embedder(engine)
    if embedder is None:  # turned off since the vector was made
        return []
    rowids, sims = vector_cache(engine, embedder).similarities(vector, ("stm", "ltm"))
    lowest = COSINE_MIN - ONE_SLOT - CHANGE_WORD - ANCHORED
    order = [i for i in (-sims).argsort()[:POOL] if sims[i] >= lowest]
    texts = _with_text(engine, [int(rowids[i]) for i in order])
    out = []
    for i in order:
        rowid = int(rowids[i])
        row = vq.hit_row(engine.store, rowid)
        if row is not None and rowid in texts:
            out.append(
                {
                    "id": row["id"],
                    "path": row["path"],
                    "title": row["title"],
                    "similarity": round(float(sims[i]), 4),
                    "text": texts[rowid],
                }
            )
    return out


def pool_by_words(engine: Engine, body: str) -> list[dict[str, Any]]:
    from ..search import fts as ftsmod

    filters = ftsmod.make_filters(engine, "memories")
    hits = ftsmod.search(engine.store, body, filters, limit=2 * POOL)
    texts = _with_text(engine, [h.rowid for h in hits])
    mine = _content(words(body))
    out = []
    for hit in hits:
        row = queries.note_by_rowid(engine.store, hit.rowid)
        if row is not None and hit.rowid in texts:
            out.append(
                {
                    "id": row["id"],
                    "path": row["path"],
                    "title": row["title"],
                    "similarity": round(overlap(mine, _content(words(texts[hit.rowid]))), 4),
                    "text": texts[hit.rowid],
                }
            )
    return out
