"""Update detection on the labelled set (update_set): how often a save's `may_supersede`
names the memory the new one replaces, and how often it names something else."""

from __future__ import annotations

import time
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .makers import ServiceWithModel
from .update_held_out import HELD_OUT_NEGATIVES, HELD_OUT_UPDATES
from .update_kinds import KIND_NEGATIVES, KIND_UPDATES
from .update_kinds_first_held_out import FIRST_KIND_NEGATIVES, FIRST_KIND_UPDATES
from .update_kinds_held_out import HELD_OUT_KIND_NEGATIVES, HELD_OUT_KIND_UPDATES
from .update_negatives import BACKGROUND, NEGATIVES
from .update_set import UPDATES

if TYPE_CHECKING:
    from vault_sync.service import MemoryService

Updates = list[tuple[str, str, str, str]]
Negatives = list[tuple[str, str]]


def vault_texts() -> list[str]:
    """Every memory the vault holds before the checks, each once."""
    seen: dict[str, None] = {}
    for text in (
        BACKGROUND
        + [
            old
            for _, _, old, _ in UPDATES + HELD_OUT_UPDATES + KIND_UPDATES + FIRST_KIND_UPDATES + HELD_OUT_KIND_UPDATES
        ]
        + [
            related
            for related, _ in NEGATIVES
            + HELD_OUT_NEGATIVES
            + KIND_NEGATIVES
            + FIRST_KIND_NEGATIVES
            + HELD_OUT_KIND_NEGATIVES
        ]
    ):
        seen.setdefault(text, None)
    return list(seen)


def fill(svc: MemoryService) -> dict[str, str]:
    """Save the vault's memories in one batch; text -> the path of its note."""
    texts = vault_texts()
    answer = svc.save_many([{"text": t} for t in texts])
    return {t: r["note"]["path"] for t, r in zip(texts, answer["results"])}


def measure(svc: MemoryService, paths: dict[str, str], updates: Updates, negatives: Negatives) -> dict[str, Any]:
    """Check each new memory against the vault (none of them is saved).

    recall: the share of updates whose old memory is listed. precision: the share of listed
    memories that are the one replaced (on updates and negatives alike). false_alarms: the
    share of negatives with anything listed."""
    from vault_sync.ops.may_supersede import candidates

    vectors = _vectors(svc, [new for _, _, _, new in updates] + [new for _, new in negatives])
    found = listed = 0
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    misses: list[str] = []
    wrong: list[str] = []
    started = time.perf_counter()
    for n, (kind, phrasing, old, new) in enumerate(updates):
        names = [c["path"] for c in candidates(svc.engine, new, None, [], vectors[n])]
        hit = paths[old] in names
        found += hit
        listed += len(names)
        for key in (kind, phrasing):
            by_kind[key][0] += hit
            by_kind[key][1] += 1
        if not hit:
            misses.append(new)
        wrong += [f"{new} -> {name}" for name in names if name != paths[old]]
    alarms = 0
    for n, (_, new) in enumerate(negatives, len(updates)):
        names = [c["path"] for c in candidates(svc.engine, new, None, [], vectors[n])]
        alarms += bool(names)
        listed += len(names)
        wrong += [f"{new} -> {name}" for name in names]
    took = time.perf_counter() - started
    return {
        "updates": len(updates),
        "negatives": len(negatives),
        "recall": found / len(updates),
        "precision": found / listed if listed else 1.0,
        "false_alarms": alarms / len(negatives),
        "recall_by": {k: round(h / n, 3) for k, (h, n) in sorted(by_kind.items())},
        "check_ms": took / (len(updates) + len(negatives)) * 1000,
        "misses": misses,
        "wrong": wrong,
    }


def _vectors(svc: MemoryService, texts: list[str]) -> list[Any]:
    """Each new memory's save-time vector (search.embeddings.query_vector), in one model call
    instead of one per check; Nones with embeddings off."""
    from vault_sync.names import slug_from
    from vault_sync.note import embed_text

    embedder = svc.get_embedder() if svc.settings.embeddings else None
    if embedder is None:
        return [None] * len(texts)
    return list(embedder.encode([embed_text(slug_from(t), [], t) for t in texts]))


def update_detection(svc: MemoryService) -> dict[str, Any]:
    """Fill an empty vault through `svc` (which decides embeddings on or off) and measure the
    set, then the held-out set apart."""
    paths = fill(svc)
    out = measure(svc, paths, UPDATES, NEGATIVES)
    out["vault"] = len(paths)
    out["held_out"] = measure(svc, paths, HELD_OUT_UPDATES, HELD_OUT_NEGATIVES)
    # updates as people write them (policy reversed, verb of change, component replaced): the
    # tuning part, and the part written apart from it, whose figures are the ones that count
    out["kinds"] = measure(svc, paths, KIND_UPDATES + FIRST_KIND_UPDATES, KIND_NEGATIVES + FIRST_KIND_NEGATIVES)
    out["kinds_held_out"] = measure(svc, paths, HELD_OUT_KIND_UPDATES, HELD_OUT_KIND_NEGATIVES)
    return out


def update_figures(
    work: Path, model: bool, service: ServiceWithModel, progress: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """The bench section: the set with embeddings off ("words"), and on ("model") when
    `model`. service(vault, index, embeddings) makes a service over an empty vault."""
    out: dict[str, Any] = {}
    for name, embeddings in (("words", False), ("model", True))[: 2 if model else 1]:
        if progress:
            progress(f"update detection ({name})")
        vault = work / f"updates-{name}"
        (vault / "STM").mkdir(parents=True)
        svc = service(vault, work / f"updates-{name}.sqlite3", embeddings)
        try:
            out[name] = update_detection(svc)
        finally:
            svc.close()
    return out
