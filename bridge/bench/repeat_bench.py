"""Repeat recognition on the labelled set (repeat_set.py, repeat_held_out.py): how often a
save of a fact already held in other words would reinforce its memory, and how often a close
but different fact would stay a memory of its own."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .makers import ServiceWithModel
from .repeat_held_out import HELD_OUT_DIFFERENT, HELD_OUT_PARAPHRASES
from .repeat_set import DIFFERENT, PARAPHRASES

if TYPE_CHECKING:
    from vault_sync.service import MemoryService

Pairs = list[tuple[str, str, str]]


def vault_texts() -> list[str]:
    """Every stored memory of both parts, each once."""
    seen: dict[str, None] = {}
    for _, stored, _ in PARAPHRASES + DIFFERENT + HELD_OUT_PARAPHRASES + HELD_OUT_DIFFERENT:
        seen.setdefault(stored, None)
    return list(seen)


def measure(svc: MemoryService, paths: dict[str, str], paraphrases: Pairs, different: Pairs) -> dict[str, Any]:
    """Check each new text against the vault (none is saved). reinforced: the share of
    paraphrases found as a repeat of their own memory; separate: the share of different facts
    found as a repeat of nothing."""
    from vault_sync.ops.repeats import find_repeat

    from .update_bench import _vectors

    vectors = _vectors(svc, [new for _, _, new in paraphrases + different])
    hits: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    misses: list[str] = []
    merged: list[str] = []
    reinforced = 0
    for n, (kind, stored, new) in enumerate(paraphrases):
        found = find_repeat(svc.engine, new, vectors[n])
        ok = found is not None and found["path"] == paths[stored]
        reinforced += ok
        hits[kind][0] += ok
        hits[kind][1] += 1
        if not ok:
            misses.append(f"{new} (of: {stored})" + (f" -> {found['path']}" if found else ""))
    separate = 0
    for n, (kind, _stored, new) in enumerate(different, len(paraphrases)):
        found = find_repeat(svc.engine, new, vectors[n])
        separate += found is None
        hits[kind][0] += found is None
        hits[kind][1] += 1
        if found is not None:
            merged.append(f"{new} -> {found['path']} ({found['similarity']})")
    return {
        "paraphrases": len(paraphrases),
        "different": len(different),
        "reinforced": reinforced / len(paraphrases),
        "separate": separate / len(different),
        "by_kind": {k: round(h / t, 3) for k, (h, t) in sorted(hits.items())},
        "misses": misses,
        "merged": merged,
    }


def repeat_recognition(svc: MemoryService) -> dict[str, Any]:
    """Fill an empty vault through `svc` (embeddings on or off) and measure both parts."""
    texts = vault_texts()
    answer = svc.save_many([{"text": t} for t in texts])
    paths = {t: r["note"]["path"] for t, r in zip(texts, answer["results"])}
    out = measure(svc, paths, PARAPHRASES, DIFFERENT)
    out["vault"] = len(paths)
    out["held_out"] = measure(svc, paths, HELD_OUT_PARAPHRASES, HELD_OUT_DIFFERENT)
    return out


def repeat_figures(
    work: Path, model: bool, service: ServiceWithModel, progress: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """The bench section, as update_figures: words always ("words"), the model ("model") when `model`."""
    out: dict[str, Any] = {}
    for name, embeddings in (("words", False), ("model", True))[: 2 if model else 1]:
        if progress:
            progress(f"repeat recognition ({name})")
        vault = work / f"repeats-{name}"
        (vault / "STM").mkdir(parents=True)
        svc = service(vault, work / f"repeats-{name}.sqlite3", embeddings)
        try:
            out[name] = repeat_recognition(svc)
        finally:
            svc.close()
    return out
