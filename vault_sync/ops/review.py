"""A graded review: keep a memory alive or let it fade, with a bounded effect and an exact undo.

A review is a person looking at a memory, not a use of it. Its effect is bounded so that
reviewing can never by itself make a memory a promotion candidate:

- "remember": last_used moves forward to the instant that gives the memory the review target
  score as of now (midway between the danger zone's top and the promote threshold; 0.5 by
  default), or to now if its best score is lower. The score is never lowered, and use_count
  and strength are never changed, so neither promotion rule can fire because of it.
- "fade": last_used moves back to the instant that puts the score just below the danger zone;
  the memory leaves the review queue and keeps decaying towards the forget threshold. A score
  already below that is left alone.

Both answer `prior` (the owned values before, as written in the note) and `after`;
`undo_review` writes `prior` back exactly, and only while the note still holds `after`.
`prior_of` also serves archive's undo (a restore that is not a use; see lifecycle.restore).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from .. import lookups
from ..ageing import Facts, memory_score, reviewed_last_used
from ..dates import format_datetime, parse_datetime
from ..edit import patch_bytes
from ..engine import Engine
from ..errors import InvalidInput, NoteProblem, WrongState
from ..fmblock import YamlProblem, load_yaml
from ..note import parse_note
from ..patch import REMOVE, Spelled, raw_scalars
from ..scalars import render_scalar
from ..secret_gate import check_fields
from .moves import check_size
from .sweep import score_updates

GRADES = ("remember", "fade")
REVIEW_KEYS = ("last_used", "decay_score", "review_priority", "review_on", "archive_on")
PRIOR_KEYS = REVIEW_KEYS + ("status",)
_DATE_KEYS = ("review_on", "archive_on")
_NUMBER_KEYS = ("decay_score", "review_priority")
# what archive writes or restore removes beyond PRIOR_KEYS: a note the person took back from the
# archive by hand still holds them, and an archive's undo must give them back (optional in a prior)
ARCHIVE_KEYS = ("archived_at", "archive_reason", "archived_from", "merged_into")
_TEXT_KEYS = ("archive_reason", "merged_into")
# "archived": a memory the person moved out of the archive by hand keeps saying so
STATUSES_BACK = ("active", "promoted", "superseded", "archived")
AS_WRITTEN = "as_written"  # in `prior`: values whose spelling in the note differs from ours
LAYOUT = "layout"  # in `prior`: the note's keys in order
MAX_LAYOUT, MAX_KEY_CHARS = 200, 200


def _plain(value: Any) -> Any:
    """A frontmatter value as JSON carries it (None: the key is absent)."""
    if isinstance(value, datetime):
        return format_datetime(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    return value


def prior_of(
    frontmatter: dict[str, Any], keys: tuple[str, ...] = REVIEW_KEYS, text: str | None = None
) -> dict[str, Any]:
    """The owned values as JSON carries them. With the note's `text`: `as_written`, the spelling
    of each value the engine would write otherwise (`+00:00`, `0.250`), and `layout`, the order
    of the note's keys (an undo puts a removed key back on its line)."""
    out = {key: _plain(frontmatter.get(key)) for key in keys}
    if text is None:
        return out
    raw, layout = raw_scalars(text, keys)
    spelled = {}
    for key, written in raw.items():
        try:
            ours = None if out[key] is None else render_scalar(_value_back(key, out[key]))
        except InvalidInput:
            continue  # a value no undo writes back: the undo refuses it anyway
        if ours is not None and ours != written:
            spelled[key] = written
    if spelled:
        out[AS_WRITTEN] = spelled
    if layout and len(layout) <= MAX_LAYOUT and all(len(k) <= MAX_KEY_CHARS for k in layout):
        out[LAYOUT] = layout
    return out


def prior_updates(
    prior: dict[str, Any], keys: tuple[str, ...] = REVIEW_KEYS, optional: tuple[str, ...] = ()
) -> dict[str, Any]:
    """`prior` checked and turned back into the values to write (REMOVE for an absent key; an
    `optional` key left out counts as absent)."""
    given = set(prior) - {AS_WRITTEN, LAYOUT} if isinstance(prior, dict) else set()
    if not isinstance(prior, dict) or not set(keys) <= given or not given <= {*keys, *optional}:
        raise InvalidInput(f"prior must give exactly these keys: {', '.join(keys)}")
    keys = (*keys, *optional)
    out: dict[str, Any] = {key: REMOVE if prior.get(key) is None else _value_back(key, prior[key]) for key in keys}
    spelled = prior.get(AS_WRITTEN) or {}
    if not isinstance(spelled, dict) or not set(spelled) <= set(keys):
        raise InvalidInput(f"prior.{AS_WRITTEN} must map some of these keys to text: {', '.join(keys)}")
    for key, text in spelled.items():
        if not spells(text, out[key]):
            raise InvalidInput(f"prior.{AS_WRITTEN}.{key} must be a one-line spelling of prior.{key}")
    layout = prior.get(LAYOUT) or []
    if not isinstance(layout, list) or len(layout) > MAX_LAYOUT or not all(isinstance(k, str) for k in layout):
        raise InvalidInput(f"prior.{LAYOUT} must be a list of at most {MAX_LAYOUT} key names")
    for key in keys:
        if out[key] is not REMOVE and (key in spelled or key in layout):
            after = tuple(layout[layout.index(key) + 1 :]) if key in layout else ()
            out[key] = Spelled(spelled.get(key), out[key], after)
    # keys put back before one anchor go in the note's order
    return dict(sorted(out.items(), key=lambda kv: layout.index(kv[0]) if kv[0] in layout else len(layout)))


def spells(text: Any, value: Any) -> bool:
    """`text` is a one-line YAML scalar that reads as `value` (what an undo may write verbatim)."""
    if value is REMOVE or not isinstance(text, str) or not text or len(text) > 100:
        return False
    if any(ch in text for ch in "\r\n#") or text[0] in "&*!|>[{":
        return False
    try:
        got = load_yaml("k: " + text)["k"]
    except (YamlProblem, TypeError, KeyError):
        return False
    if isinstance(value, bool):
        return got is value
    if isinstance(value, datetime):
        when = parse_datetime(got) if isinstance(got, (datetime, str)) else None
        return when is not None and when == value
    if isinstance(value, float) or isinstance(value, int) and not isinstance(value, bool):
        return isinstance(got, (int, float)) and not isinstance(got, bool) and got == value
    if isinstance(value, date):
        return isinstance(got, date) and not isinstance(got, datetime) and got == value
    return isinstance(got, str) and got == value


def _value_back(key: str, value: Any) -> Any:
    """One value of `prior`, checked, as the engine writes it."""
    if key in ("last_used", "archived_at"):
        when = parse_datetime(value) if isinstance(value, str) else None
        if when is None:
            raise InvalidInput(f"prior.{key} must be an ISO date and time")
        return when
    if key == "archived_from":
        if value not in ("stm", "ltm"):
            raise InvalidInput("prior.archived_from must be stm or ltm")
        return value
    if key in _TEXT_KEYS:
        if not isinstance(value, str) or not value or len(value) > 1000 or "\n" in value or "\r" in value:
            raise InvalidInput(f"prior.{key} must be one line of text")
        check_fields({key: value})  # written into the note
        return value
    if key in _NUMBER_KEYS:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1e6:
            raise InvalidInput(f"prior.{key} must be a number from 0")
        return value
    if key in _DATE_KEYS:
        try:
            day = date.fromisoformat(value) if isinstance(value, str) else None
        except ValueError:
            day = None
        if day is None:
            raise InvalidInput(f"prior.{key} must be a date (YYYY-MM-DD)")
        return day
    if key == "status":
        if value not in STATUSES_BACK:
            raise InvalidInput(f"prior.status must be one of {', '.join(STATUSES_BACK)}")
        return value
    raise InvalidInput(f"prior.{key} is not a key an undo writes")


def writable_memory(engine: Engine, ref: str) -> Any:
    row = lookups.resolve(engine, ref)
    if row["kind"] not in ("stm", "ltm"):
        hint = "; restore it first" if row["kind"] == "archive" else ""
        raise WrongState(f"{row['path']} is not a memory in STM or LTM{hint}")
    check_size(engine, row)
    return row


def parsed_memory(rel: str, current: bytes) -> Any:
    note = parse_note(rel, current)
    if not note.writable:
        raise NoteProblem(f"{rel}: {'; '.join(p.cause for p in note.problems if p.blocking)}; fix it first")
    return note


def review_memory(engine: Engine, ref: str, grade: str) -> dict[str, Any]:
    if grade not in GRADES:
        raise InvalidInput(f"grade must be one of {', '.join(GRADES)}")
    row = writable_memory(engine, ref)
    now = engine.now()
    seen: dict[str, Any] = {}

    def transform(current: bytes) -> bytes | None:
        note = parsed_memory(row["path"], current)
        f = note.fields
        last = f.last_used or f.created or now
        old = memory_score(engine.params, Facts.of_fields(f, now), now)
        f.last_used = reviewed_last_used(engine.params, grade, f.use_count, f.strength, last, now)
        updates: dict[str, Any] = {"last_used": f.last_used, **score_updates(engine, f, now)}
        seen.update(
            old=old,
            new=memory_score(engine.params, Facts.of_fields(f, now), now),
            prior=prior_of(note.frontmatter, text=current.decode("utf-8")),
            after=prior_of({**note.frontmatter, **updates}),
        )
        return patch_bytes(current, updates)

    engine.writes.update(row["path"], transform, scores=True)
    note = lookups.view(engine, lookups.indexed(engine, row["path"]))
    return {
        "note": note,
        "grade": grade,
        "old_score": round(seen["old"], 6),
        "new_score": round(seen["new"], 6),
        "prior": seen["prior"],
        "after": seen["after"],
    }


def undo_review(engine: Engine, ref: str, prior: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """Write `prior` back, exactly; refused when the note no longer holds `after` (it was used,
    reviewed or edited since, and undoing would lose that)."""
    updates = prior_updates(prior)
    if isinstance(after, dict):  # the typed edge fills these with null; they say nothing of `after`
        after = {k: v for k, v in after.items() if k not in (AS_WRITTEN, LAYOUT) or v is not None}
    if not isinstance(after, dict) or set(after) != set(REVIEW_KEYS):
        raise InvalidInput(f"after must give exactly these keys: {', '.join(REVIEW_KEYS)}")
    row = writable_memory(engine, ref)

    def transform(current: bytes) -> bytes | None:
        note = parsed_memory(row["path"], current)
        if prior_of(note.frontmatter) != after:
            raise WrongState(f"{row['path']} changed since the review; nothing was undone")
        return patch_bytes(current, updates)

    engine.writes.update(row["path"], transform, scores=True)
    return {"note": lookups.view(engine, lookups.indexed(engine, row["path"])), "undone": True}
