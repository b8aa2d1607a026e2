"""touch / reinforce and observe: use makes a memory stronger."""

from __future__ import annotations

from typing import Any

from .. import lookups
from ..ageing import Facts, memory_score
from ..edit import patch_bytes
from ..engine import Engine
from ..errors import InvalidInput, MnemovaultError, NoteProblem, WrongState
from ..limits import cap_strength, check_refs
from ..names import clean_tags
from ..note import parse_note
from ..scoring import is_cross_domain
from ..text_hashes import stamped
from ..uses import updates_for, used_on
from .moves import check_size
from .sweep import score_updates


def _reinforce(
    engine: Engine, ref: str, boost: float, context_tags: list[str] | None, also: dict[str, Any] | None = None
) -> dict[str, Any]:
    row = lookups.resolve(engine, ref)
    if row["kind"] not in ("stm", "ltm"):
        hint = "; restore it first" if row["kind"] == "archive" else ""
        raise WrongState(f"{row['path']} is not a memory in STM or LTM{hint}")
    check_size(engine, row)
    now = engine.now()
    seen: dict[str, Any] = {}

    def transform(current: bytes) -> bytes | None:
        note = parse_note(row["path"], current)
        if not note.writable:
            raise NoteProblem(f"{row['path']}: {'; '.join(p.cause for p in note.problems if p.blocking)}; fix it first")
        f = note.fields
        old = memory_score(engine.params, Facts.of_fields(f, now), now)
        cross = bool(context_tags) and is_cross_domain(engine.params, f.tags, context_tags or [])
        strength = cap_strength(f.strength + boost + (engine.settings.touch_boost if cross else 0.0))
        # this device's own entry grows; use_count is the sum (uses.py: uses on two devices add up)
        counts = used_on(engine.runtime.device(), f.use_count, f.uses_by_device)
        updates: dict[str, Any] = {"last_used": now, **updates_for(counts)}
        if strength != f.strength:
            updates["strength"] = round(strength, 6)
        if context_tags is not None:
            updates["review_count"] = f.review_count + 1
            if cross:
                updates["cross_domain_count"] = f.cross_domain_count + 1
        f.last_used, f.use_count, f.strength = now, updates["use_count"], updates.get("strength", f.strength)
        updates.update(score_updates(engine, f, now))
        updates.update(also or {})  # e.g. the batch save this use belongs to, in the same write
        seen.update(old=old, new=memory_score(engine.params, Facts.of_fields(f, now), now), cross=cross)
        return stamped(row["path"], current, patch_bytes(current, updates))

    engine.writes.update(row["path"], transform, scores=True)
    note = lookups.view(engine, lookups.indexed(engine, row["path"]))
    out = {"note": note, "old_score": round(seen["old"], 6), "new_score": round(seen["new"], 6)}
    if context_tags is not None:
        out["cross_domain"] = seen["cross"]
    return out


def touch(engine: Engine, ref: str, boost: bool = False) -> dict[str, Any]:
    if not isinstance(boost, bool):  # "no" is truthy: only a real boolean decides
        raise InvalidInput("boost must be true or false")
    return _reinforce(engine, ref, engine.settings.touch_boost if boost else 0.0, None)


def reinforce_in_batch(engine: Engine, ref: str, batch_id: str | None) -> dict[str, Any]:
    """touch() for a batch save's exact duplicate; with a batch id, the note records it in the
    same write, so a retry of that batch can tell this use was counted (save_batch.py)."""
    return _reinforce(engine, ref, 0.0, None, {"last_batch": batch_id} if batch_id else None)


def observe(engine: Engine, refs: list[str], context_tags: list[str] | None = None) -> dict[str, Any]:
    """Touch each memory used in a context; cross-domain use also strengthens it."""
    refs = check_refs(refs, each=False)  # a bad ref is reported on its own; the others still run
    if not refs:
        raise InvalidInput("no memories given")
    tags = clean_tags(context_tags)
    results, errors = [], []
    for ref in refs:
        try:
            results.append(_reinforce(engine, ref, 0.0, tags))
        except MnemovaultError as exc:  # one bad ref must not undo or stop the others
            errors.append({"ref": ref, "error": str(exc)})
    return {"observed": results, "errors": errors}
