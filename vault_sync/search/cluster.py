"""Single-linkage clusters of STM memories by cosine similarity, the candidates for consolidation.

Two memories are linked when their cosine is at least the threshold (default 0.83); a cluster
is a connected component of two or more. Cohesion is the mean pairwise cosine inside the
cluster and suggests the action: >= 0.9 auto-merge (clear duplicates), 0.75-0.9 review,
below that keep separate. Superseded memories are left out: an old fact is never offered for
merging with the one that replaced it. Nothing is merged here: see consolidate.py.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from ..engine import Engine
from ..errors import InvalidInput
from ..index import queries
from ..lookups import not_current
from ..projects import ProjectScope, fold, scope_of
from .embeddings import EmbeddingUnavailable, backfill, get_embedder, vector_cache

AUTO_MERGE, REVIEW = 0.9, 0.75
BLOCK = 1024  # rows of the similarity matrix computed at once: memory stays O(BLOCK * n)


def action_for(cohesion: float) -> str:
    if cohesion >= AUTO_MERGE:
        return "auto-merge"
    if cohesion >= REVIEW:
        return "review"
    return "keep separate"


def cluster_id(member_ids: list[str]) -> str:
    """Stable for the same members, whatever their order or paths."""
    digest = hashlib.blake2b("\n".join(sorted(member_ids)).encode("utf-8"), digest_size=5).hexdigest()
    return f"c-{digest}"


def _components(vectors: np.ndarray, threshold: float) -> list[list[int]]:
    n = len(vectors)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for start in range(0, n, BLOCK):
        sims = vectors[start : start + BLOCK] @ vectors.T
        rows, cols = np.nonzero(sims >= threshold)
        for r, c in zip(rows.tolist(), cols.tolist()):
            a, b = start + r, c
            if a < b:
                ra, rb = find(a), find(b)
                if ra != rb:
                    parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return [g for g in groups.values() if len(g) > 1]


def _by_project(kept: list[Any], matrix: np.ndarray, threshold: float) -> list[list[int]]:
    """The components of each project's memories on their own (indices into `kept`)."""
    parts: dict[str, list[int]] = {}
    for i, row in enumerate(kept):
        parts.setdefault(fold(row["project"] or ""), []).append(i)
    out: list[list[int]] = []
    for members in parts.values():
        if len(members) > 1:
            out += [[members[j] for j in g] for g in _components(matrix[members], threshold)]
    return out


def cluster(
    engine: Engine, threshold: float = 0.83, project: str | None = None, all_projects: bool = True
) -> list[dict[str, Any]]:
    """Clusters of similar STM memories, most cohesive first (empty without embeddings): of
    `project` and shared ones (every project's with `all_projects`). A cluster never spans two
    projects (shared memories count as one of their own): consolidation never merges across.
    Computes the vectors still missing first (the CLI's `cluster`: it waits for that)."""
    return _cluster(engine, threshold, scope_of(project, all_projects), compute_missing=True)[0]


def clusters_ready(
    engine: Engine, threshold: float = 0.83, project: str | None = None, all_projects: bool = True
) -> dict[str, Any]:
    """The clusters of the memories whose vectors are ready, never computing one (an assistant's
    call must not wait minutes for a backfill), and how many memories have none yet."""
    clusters, pending = _cluster(engine, threshold, scope_of(project, all_projects), compute_missing=False)
    return {"clusters": clusters, "without_vectors": pending}


def _cluster(
    engine: Engine, threshold: float, scope: ProjectScope, compute_missing: bool
) -> tuple[list[dict[str, Any]], int]:
    try:
        threshold = float(threshold)
    except (TypeError, ValueError, OverflowError):
        raise InvalidInput("threshold must be a number between 0 and 1") from None
    if not 0.0 < threshold <= 1.0:
        raise InvalidInput(f"threshold must be between 0 and 1; got {threshold}")
    embedder = get_embedder(engine)
    if embedder is None:
        return [], 0
    if compute_missing:
        report = backfill(engine)
        if report.get("error"):
            raise EmbeddingUnavailable(report["error"])
    superseded = not_current(engine)  # a replaced fact is never offered for merging
    rows = [
        r
        for r in queries.clusterable_stm_rows(engine.store)
        if r["path"] not in superseded and scope.admits(r["project"])
    ]
    cache = vector_cache(engine, embedder)
    kept, vectors = [], []
    for row in rows:
        vec = cache.vectors_for([row["content_hash"]])
        if vec is not None:
            kept.append(row)
            vectors.append(vec[0])
    pending = len(rows) - len(kept)
    if len(kept) < 2:
        return [], pending
    matrix = np.stack(vectors).astype(np.float32)
    out: list[dict[str, Any]] = []
    scores: dict[str, float] = {}
    for group in _by_project(kept, matrix, threshold):
        sub = matrix[group]
        sims = sub @ sub.T
        k = len(group)
        cohesion = float((sims.sum() - np.trace(sims)) / (k * (k - 1)))
        members = [{"id": kept[i]["id"], "path": kept[i]["path"], "title": kept[i]["title"]} for i in group]
        cid = cluster_id([m["id"] or m["path"] for m in members])
        scores[cid] = round(cohesion, 4)
        out.append(
            {
                "id": cid,
                "members": members,
                "project": kept[group[0]]["project"],
                "size": k,
                "cohesion": round(cohesion, 4),
                "action": action_for(cohesion),
            }
        )
    out.sort(key=lambda c: (-scores[c["id"]], c["id"]))
    return out, pending
