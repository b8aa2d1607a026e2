"""save: the intake gate, then a new memory note in STM (or a reinforcement of its twin)."""

from __future__ import annotations

import sqlite3
import uuid
from datetime import datetime
from typing import Any

from .. import lookups, wordcount
from ..ageing import Facts, age
from ..engine import Engine
from ..errors import InvalidInput, MnemovaultError, Refused
from ..faults import writing
from ..index import queries
from ..limits import MAX_TEXT_CHARS, check_strength, check_tags, check_text, check_title
from ..names import clean_tags, create_under_free_name, slug_from
from ..note import normalized_hash, parse_note
from ..projects import EVERYTHING, ProjectScope, check_across, check_project, same_project
from ..scalars import render_scalar
from ..search import semantic
from ..secret_gate import check_fields
from ..text_hashes import KEY as TEXT_KEY
from ..text_hashes import text_hash
from .repeats import EXACT, find_repeat, how_found, reinforced_answer, words_only_reason
from .touch import touch

MIN_CHARS = 12  # as wide as Latin letters take it (a Han or Hangul character counts two)
MIN_WORDS = 3  # words in any script: characters count where words are written without spaces
MAX_CHARS = MAX_TEXT_CHARS


def check_intake(text: str) -> str:
    """The memory's text, stripped, or `Refused` saying why not. A secret is refused as a
    secret before any other rule (a short one too), and no message quotes the text."""
    body = check_text(text).strip()
    if not body:
        raise Refused("nothing to save: the text is empty")
    if len(body) > MAX_CHARS:
        raise Refused(f"too long for one memory ({len(body)} characters, limit {MAX_CHARS}); save it as a note instead")
    if "\x00" in body:
        raise Refused("the text contains NUL bytes")
    check_fields({"text": body})
    if wordcount.width(body) < MIN_CHARS or wordcount.words(body) < MIN_WORDS:
        raise Refused(
            f"too short to be a useful memory ({len(body)} characters, about {wordcount.words(body):.0f} words); "
            "write at least a short sentence"
        )
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
    text = "\n".join(lines) + "\n" + body.rstrip("\n") + "\n"
    # the text as saved, recorded for a sync conflict later (text_hashes.py)
    lines.insert(2, f"{TEXT_KEY}: {text_hash(parse_note('', text.encode('utf-8')))}")  # beside the id
    return "\n".join(lines) + "\n" + body.rstrip("\n") + "\n"


def taken_names(engine: Engine) -> set[str]:
    return queries.all_names(engine.store)


def create_memory(
    engine: Engine,
    text: str,
    tags: list[str] | None = None,
    title: str | None = None,
    strength: float = 1.0,
    use_count: int = 1,
    created: datetime | None = None,
    last_used: datetime | None = None,
    extra: dict[str, Any] | None = None,
    text_checked: bool = False,
    project: str | None = None,
) -> dict[str, Any]:
    """Write a new memory note into STM with every owned key; returns its view.

    Every stored field passes the secret gate first (the text only if the caller has not
    just checked it): this is the one place new memory notes are written. `extra` is for the
    engine's own callers (consolidate's `merged_from`), never client input."""
    check_fields(
        {"title": title, "tags": tags, "extra": extra}
        if text_checked
        else {"text": text, "title": title, "tags": tags, "extra": extra}
    )
    strength = check_strength(strength)
    tags = check_tags(tags)
    title = check_title(title)
    now = engine.now()
    created = created or now
    last_used = last_used or created
    ageing = age(engine.params, Facts(use_count, float(strength), last_used), now)
    project = check_project(project)
    fields: dict[str, Any] = {
        "id": str(uuid.uuid4()),
        **({"project": project} if project else {}),  # a person's key: shared memories have none
        "tags": clean_tags(tags),
        "created": created,
        "last_used": last_used,
        "use_count": use_count,
        "strength": float(strength),
        "status": "active",
        **ageing.scores(engine.settings.score_precision),
        **{k: d for k, d in ageing.due().items() if d is not None},
    }
    fields.update(extra or {})
    with writing(f"{engine.layout.stm}/"):
        engine.layout.make_folder(engine.layout.stm)  # made, and never through a link (UnsafePath)
    stem = slug_from(title or text)
    taken = taken_names(engine)
    data = render_note(fields, text).encode("utf-8")
    rel = create_under_free_name(lambda r: engine.writes.create(r, data), engine.layout.stm, stem, taken)
    return lookups.view(engine, lookups.indexed(engine, rel))


def save(
    engine: Engine,
    text: str,
    tags: list[str] | None = None,
    title: str | None = None,
    strength: float = 1.0,
    supersedes: list[str] | None = None,
    project: str | None = None,
    across_projects: bool = False,
) -> dict[str, Any]:
    """A new memory filed under `project` (None: shared). An exact twin is reinforced only when
    it is of the same project or shared; `supersedes` may name another project's memory only
    with `across_projects`."""
    from .supersede import mark, supersede_refs

    check_fields({"title": title, "tags": tags})  # a secret anywhere is refused as one, before any other rule
    body = check_intake(text)
    tags = check_tags(tags)
    strength = check_strength(strength)
    title = check_title(title)
    if title is not None:
        title = title.strip()
        if not title:
            raise InvalidInput("the title is empty")
    project = check_project(project)
    old_rows = supersede_refs(engine, supersedes)  # every ref resolves before anything is written
    check_across(project, old_rows, across_projects)
    scope = ProjectScope(project)
    twin = find_twin(engine, body, scope)
    if twin is not None and old_rows:
        raise InvalidInput(f"this exact text is already saved in {twin['path']}; supersede with that note instead")
    if twin is not None:
        return reinforced_answer(touch(engine, twin["path"])["note"], twin["path"], 1.0, EXACT)
    near = []
    vector = None  # the new text's vector, encoded once for both checks below
    embedder = semantic.embedder_now(engine)  # never waits for a model still loading
    if embedder is not None:
        from ..search.embeddings import near_duplicates, query_vector

        try:
            vector = query_vector(engine, body, title, clean_tags(tags))
            near = (
                near_duplicates(engine, body, title=title, tags=clean_tags(tags), query=vector)
                if vector is not None
                else []
            )
            near = [n for n in near if scope.admits(_project_of(engine, n))]
        except Exception:  # embeddings are an extra: a failure never blocks saving
            near = []
    repeat_note = None
    if not old_rows and engine.settings.reinforce_repeats:  # with `supersedes` the caller says it is new
        repeat = find_repeat(engine, body, vector, scope)
        if repeat is not None:
            try:
                touched = touch(engine, repeat["path"])["note"]
            except MnemovaultError:  # the memory cannot take a use now (broken frontmatter): save a new one
                touched = None
            if touched is not None:
                how = how_found(engine, repeat)
                return reinforced_answer(touched, repeat["path"], repeat["similarity"], how) | {"repeat_of": repeat}
        if vector is None:
            repeat_note = words_only_reason(engine)
    maybe = []
    if not old_rows:
        from .may_supersede import HINT, candidates

        # before the new note exists: never itself; only this project's (another's needs across_projects)
        def ours(path: str) -> bool:
            return same_project(project, _project_of(engine, {"path": path}))

        maybe = candidates(engine, body, title, clean_tags(tags), vector, ours)
    note = create_memory(engine, body, tags, title, strength, text_checked=True, project=project)
    result: dict[str, Any] = {"saved": True, "note": note, "near_duplicates": near, "reinforced": False}
    if repeat_note:
        result["repeat_check"] = repeat_note
    if maybe:
        result["may_supersede"] = maybe
        result["may_supersede_hint"] = HINT
    if old_rows:
        new_row = engine.store.note(note["path"])
        result["superseded"] = [mark(engine, old, new_row)["old"] for old in old_rows]
        result["note"] = lookups.note(engine, note["path"])
    return result


def find_twin(engine: Engine, body: str, scope: ProjectScope = EVERYTHING) -> sqlite3.Row | None:
    """A memory (STM or LTM) whose text is this text, ignoring whitespace and case, in `scope`
    (another project's twin is that project's memory: reinforcing it would file nothing here)."""
    h = normalized_hash(body)
    return queries.memory_with_body_hash(engine.store, h, scope)


def _project_of(engine: Engine, item: Any) -> str | None:
    """The project of a memory a check listed (a dict with its path)."""
    path = item.get("path") if isinstance(item, dict) else None
    row = engine.store.note(path) if isinstance(path, str) else None
    return row["project"] if row is not None else None
