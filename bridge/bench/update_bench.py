"""Update detection on the labelled set (update_set): how often a save's `may_supersede`
names the memory the new one replaces, and how often it names something else."""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Any

from .update_set import BACKGROUND, NEGATIVES, UPDATES


def vault_texts() -> list[str]:
    """Every memory the vault holds before the checks, each once."""
    seen: dict[str, None] = {}
    for text in BACKGROUND + [old for _, _, old, _ in UPDATES] + [related for related, _ in NEGATIVES]:
        seen.setdefault(text, None)
    return list(seen)


def fill(svc: Any) -> dict[str, str]:
    """Save the vault's memories in one batch; text -> the path of its note."""
    texts = vault_texts()
    answer = svc.save_many([{"text": t} for t in texts])
    return {t: r["note"]["path"] for t, r in zip(texts, answer["results"])}


def measure(svc: Any, paths: dict[str, str]) -> dict[str, Any]:
    """Check every new memory of the set against the vault (none of them is saved).

    recall: the share of updates whose old memory is listed. precision: the share of listed
    memories that are the one replaced (on updates and negatives alike). false_alarms: the
    share of negatives with anything listed."""
    from vault_sync.ops.may_supersede import candidates

    news = [new for _, _, _, new in UPDATES] + [new for _, new in NEGATIVES]
    vectors = _vectors(svc, news)
    found = listed = 0
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    misses: list[str] = []
    wrong: list[str] = []
    started = time.perf_counter()
    for n, (kind, phrasing, old, new) in enumerate(UPDATES):
        names = [c["path"] for c in candidates(svc, new, None, [], vectors[n])]
        hit = paths[old] in names
        found += hit
        listed += len(names)
        for key in (kind, phrasing):
            by_kind[key][0] += hit
            by_kind[key][1] += 1
        if not hit:
            misses.append(new)
        wrong += [f"{new} -> {n}" for n in names if n != paths[old]]
    alarms = 0
    for n, (_, new) in enumerate(NEGATIVES, len(UPDATES)):
        names = [c["path"] for c in candidates(svc, new, None, [], vectors[n])]
        alarms += bool(names)
        listed += len(names)
        wrong += [f"{new} -> {n}" for n in names]
    took = time.perf_counter() - started
    checks = len(UPDATES) + len(NEGATIVES)
    return {
        "updates": len(UPDATES), "negatives": len(NEGATIVES), "vault": len(paths),
        "recall": found / len(UPDATES),
        "precision": found / listed if listed else 1.0,
        "false_alarms": alarms / len(NEGATIVES),
        "recall_by": {k: round(h / n, 3) for k, (h, n) in sorted(by_kind.items())},
        "check_ms": took / checks * 1000,
        "misses": misses, "wrong": wrong,
    }


def _vectors(svc: Any, texts: list[str]) -> list[Any]:
    """Each new memory's save-time vector (search.embeddings.query_vector), in one model call
    instead of one per check; Nones with embeddings off."""
    from vault_sync.note import embed_text
    from vault_sync.ops.names import slug_from

    embedder = svc.get_embedder() if svc.settings.embeddings else None
    if embedder is None:
        return [None] * len(texts)
    return list(embedder.encode([embed_text(slug_from(t), [], t) for t in texts]))


def update_detection(svc: Any) -> dict[str, Any]:
    """Fill an empty vault through `svc` and measure; `svc` decides embeddings on or off."""
    return measure(svc, fill(svc))
