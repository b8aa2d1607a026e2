"""save: the intake gate, then a new memory note in STM (or a reinforcement of its twin)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInput, Refused
from ..index import queries
from ..note import normalized_hash
from ..patch import render_scalar
from ..scoring import review_priority, score_at
from ..secrets import find_secrets
from .names import clean_tags, slug_from, unique_stem

if TYPE_CHECKING:
    from ..service import MemoryService

MIN_CHARS = 12
MIN_WORDS = 3
MAX_CHARS = 200_000


def check_intake(text: str) -> str:
    if not isinstance(text, str):
        raise InvalidInput("the memory text must be a string")
    body = text.strip()
    if not body:
        raise Refused("nothing to save: the text is empty")
    if len(body) < MIN_CHARS or len(body.split()) < MIN_WORDS:
        raise Refused(f"too short to be a useful memory ({len(body)} characters); write at least a short sentence")
    if len(body) > MAX_CHARS:
        raise Refused(f"too long for one memory ({len(body)} characters, limit {MAX_CHARS}); save it as a note instead")
    if "\x00" in body:
        raise Refused("the text contains NUL bytes")
    findings = find_secrets(body)
    if findings:
        kinds = sorted({f.kind for f in findings})
        lines = ", ".join(str(f.line) for f in findings[:5])
        raise Refused(f"refused: the text contains a secret ({', '.join(kinds)}; line {lines}); secrets are never stored")
    return body


def render_note(fields: dict[str, Any], body: str) -> str:
    lines = ["---"]
    for key, value in fields.items():
        if isinstance(value, list):
            if value:
                lines.append(f"{key}:")
                lines += [f"  - {render_scalar(v)}" for v in value]
            else:
                lines.append(f"{key}: []")
        else:
            lines.append(f"{key}: {render_scalar(value)}")
    lines.append("---")
    return "\n".join(lines) + "\n" + body.rstrip("\n") + "\n"


def taken_names(svc: "MemoryService") -> set[str]:
    return queries.all_names(svc.store)


def create_memory(
    svc: "MemoryService",
    text: str,
    tags: list[str] | None = None,
    title: str | None = None,
    strength: float = 1.0,
    use_count: int = 1,
    created: datetime | None = None,
    last_used: datetime | None = None,
    extra: dict[str, Any] | None = None,
) -> dict:
    """Write a new memory note into STM with every owned key; returns its view."""
    if not 0.0 <= strength <= 2.0:
        raise InvalidInput(f"strength {strength} is out of range 0.0-2.0")
    now = svc.now()
    created = created or now
    last_used = last_used or created
    prec = svc.settings.score_precision
    value = score_at(svc.params, use_count, last_used, strength, now)
    fields: dict[str, Any] = {
        "id": str(uuid.uuid4()),
        "tags": clean_tags(tags),
        "created": created,
        "last_used": last_used,
        "use_count": use_count,
        "strength": float(strength),
        "status": "active",
        "decay_score": round(value, prec),
        "review_priority": round(review_priority(svc.params, value), prec),
    }
    fields.update(extra or {})
    folder = svc.layout.abs(svc.layout.stm)
    folder.mkdir(parents=True, exist_ok=True)
    stem = slug_from(title or text)
    taken = taken_names(svc)
    data = render_note(fields, text).encode("utf-8")
    for _ in range(20):
        name = unique_stem(stem, taken)
        rel = f"{svc.layout.stm}/{name}.md"
        try:
            svc.writes.create(rel, data)
            break
        except FileExistsError:
            taken.add(name.lower())  # appeared meanwhile (another device, the person)
    else:  # pragma: no cover - twenty collisions in a row
        raise InvalidInput(f"could not find a free file name for {stem!r}")
    return svc.view(svc.store.note(rel))


def save(svc: "MemoryService", text: str, tags: list[str] | None = None, title: str | None = None, strength: float = 1.0) -> dict:
    body = check_intake(text)
    if title is not None:
        title = title.strip()
        if not title:
            raise InvalidInput("the title is empty")
    twin = find_twin(svc, body)
    if twin is not None:
        result = svc.touch(twin["path"])
        return {"saved": False, "duplicate_of": twin["path"], "reinforced": True, "note": result["note"],
                "message": f"the same memory exists in {twin['path']}; it was reinforced instead of copied"}
    near = []
    embedder = svc.get_embedder() if svc.settings.embeddings else None
    if embedder is not None:
        from ..search.embeddings import near_duplicates

        try:
            near = near_duplicates(svc, body, title=title, tags=clean_tags(tags))
        except Exception:  # embeddings are an extra: a failure never blocks saving
            near = []
    note = create_memory(svc, body, tags, title, strength)
    return {"saved": True, "note": note, "near_duplicates": near, "reinforced": False}


def find_twin(svc: "MemoryService", body: str):
    """A memory (STM or LTM) whose text is this text, ignoring whitespace and case."""
    h = normalized_hash(body)
    return queries.memory_with_body_hash(svc.store, h)
