"""pin / unpin: a memory the person keeps as it is (docs/memories.md, "Pinned memories").

Pinning writes `pinned: true` (a person's key: they may write it by hand too) and, in the
same write, the score the memory keeps (the one of its last use: ageing.py), no
review priority and no review_on/archive_on. Unpinning removes the key and writes the live
score and due dates again: the memory ages from its last use, as if it had never been pinned.

Pin answers `prior`, the owned values it replaced; `unpin` with that `prior` is pin's exact
undo (the values and their spelling back on their lines, and a person's own `pinned: false`
or `pinned: no` line as they wrote it), refused once the memory was used since, as a review's
undo is.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .. import lookups
from ..dates import parse_datetime
from ..edit import patch_bytes
from ..engine import Engine
from ..errors import InvalidInput, WrongState
from ..patch import REMOVE, Spelled, raw_scalars
from . import review as review_op
from .review import AS_WRITTEN, REVIEW_KEYS, prior_of, prior_updates, spells
from .sweep import score_updates


def pin(engine: Engine, ref: str) -> dict[str, Any]:
    """Pin one memory; pinning a pinned memory changes nothing (`changed: false`)."""
    return _set(engine, ref, True, None)


def unpin(engine: Engine, ref: str, prior: dict[str, Any] | None = None) -> dict[str, Any]:
    """Unpin one memory; with `prior` (what pin answered), pin's exact undo."""
    undo = _undo(prior) if prior is not None else None
    return _set(engine, ref, False, undo, _when(prior))


def _undo(prior: dict[str, Any]) -> dict[str, Any]:
    """pin's `prior` turned back into the values to write; `as_written.pinned`, when the note
    had the person's own `pinned: false` line, writes that line back instead of removing the key."""
    spelled = prior.get(AS_WRITTEN)
    was = spelled.get("pinned") if isinstance(spelled, dict) else None
    if was is not None:
        assert isinstance(spelled, dict)
        rest = {k: v for k, v in spelled.items() if k != "pinned"}
        prior = {**prior, AS_WRITTEN: rest or None}
        if not spells(was, False):
            raise InvalidInput(f"prior.{AS_WRITTEN}.pinned must be a one-line spelling of false, not {was!r}")
    undo = prior_updates(prior, REVIEW_KEYS)
    undo["pinned"] = REMOVE if was is None else Spelled(was, False)
    return undo


def _person_spelling(text: str) -> dict[str, str]:
    """The note's own `pinned: false` (or `no`), as written: pin's undo puts that line back."""
    raw, _ = raw_scalars(text, ("pinned",))
    was = raw.get("pinned")
    return {"pinned": was} if was is not None and spells(was, False) else {}


def _when(prior: dict[str, Any] | None) -> datetime | None:
    """The last use `prior` records (checked by prior_updates before this reads it)."""
    value = prior.get("last_used") if prior is not None else None
    return parse_datetime(value) if isinstance(value, str) else None


def _set(
    engine: Engine, ref: str, pinned: bool, undo: dict[str, Any] | None, last_used: datetime | None = None
) -> dict[str, Any]:
    row = review_op.writable_memory(engine, ref)
    now = engine.now()
    seen: dict[str, Any] = {"changed": False, "prior": None}

    def transform(current: bytes) -> bytes | None:
        note = review_op.parsed_memory(row["path"], current)
        f = note.fields
        if f.pinned == pinned:
            return None  # already so: nothing written
        if undo is not None and f.last_used != last_used:
            raise WrongState(f"{row['path']} was used since it was pinned; unpin it without undoing the pin")
        f.pinned = pinned
        updates: dict[str, Any] = {"pinned": True if pinned else REMOVE}
        updates.update(undo if undo is not None else score_updates(engine, f, now))
        if pinned:
            text = current.decode("utf-8")
            prior = prior_of(note.frontmatter, text=text)
            if own := _person_spelling(text):
                prior[AS_WRITTEN] = {**prior.get(AS_WRITTEN, {}), **own}
            seen.update(prior=prior)
        seen.update(changed=True)
        return patch_bytes(current, updates)

    engine.writes.update(row["path"], transform, scores=True)
    note = lookups.view(engine, lookups.indexed(engine, row["path"]))
    out: dict[str, Any] = {"note": note, "pinned": pinned, "changed": seen["changed"]}
    if pinned:
        out["prior"] = seen["prior"]
    return out
