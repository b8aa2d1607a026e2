"""save_many: many memories in one call (a whole conversation), and conversation-aware saving.

One save at a time costs a model call for its near-duplicate check, then another for its
vector when search backfills it. Here every item's text is encoded in ONE model call; the
vectors serve the near-duplicate check, may_supersede and the index (stored under each new note's
content hash, so search has nothing left to embed). The notes are created as one batch of
the write path (engine.writes.creating): no per-note fsync, one flush, one index sync.

An item may name a `conversation` (any id) and `said_at` (an ISO time): the note gets those
frontmatter keys, so the memories of one conversation can be found together (and seen as a
thread in Obsidian). A client may give a `batch_id`: every note the batch creates or
reinforces records it (`last_batch`) in the same write, so retrying the batch after a crash
creates and counts nothing twice (an item whose memory already records this batch is
reported as `already_saved`). Items are independent: a refused one (too short, a secret, a
`supersedes` ref that does not resolve) gets an error in its result and the others are still
saved. An item's `supersedes` works as in save(): the refs resolve before anything is
written, and the old notes are marked once the new one is indexed (refs name notes that
exist before the call, not other items of it).
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from .. import lookups
from ..ageing import Facts, age
from ..dates import parse_datetime
from ..engine import Engine
from ..errors import InvalidInput, MnemovaultError
from ..index import queries
from ..limits import check_name, check_strength, check_tags, check_title, quote
from ..names import clean_tags, create_under_free_name, slug_from
from ..note import embed_text, normalized_hash, parse_note
from ..projects import ProjectScope, check_across, check_project, same_project
from ..search import semantic
from ..secret_gate import check_fields
from .batch_ids import check_batch_id, claim
from .may_supersede import HINT, candidates
from .repeats import EXACT, find_repeat, how_found, reinforced_answer, words_only_reason
from .save import check_intake, render_note, taken_names
from .supersede import mark, supersede_refs
from .touch import reinforce_in_batch

if TYPE_CHECKING:
    from ..search.embeddings import Embedder
    from ..write_path import NewNotes

Vectors = NDArray[np.float32]

MAX_ITEMS = 2000
MAX_CONVERSATION_ID = 200
NEAR_DUPLICATE = 0.95


def conversation_fields(conversation: Any = None, said_at: Any = None) -> dict[str, Any]:
    """The frontmatter keys for a memory said in a conversation (validated)."""
    out: dict[str, Any] = {}
    if conversation is not None:
        check_fields({"conversation": conversation})  # a frontmatter value like any other
        cid = check_name("conversation", conversation, MAX_CONVERSATION_ID).strip()
        if not cid:
            raise InvalidInput("conversation must be a non-empty id (text)")
        if len(cid) > MAX_CONVERSATION_ID or any(c in cid for c in "\r\n\x00"):
            raise InvalidInput(f"conversation id must be one line of at most {MAX_CONVERSATION_ID} characters")
        out["conversation"] = cid
    if said_at is not None:
        when = parse_datetime(said_at)
        if when is None:
            raise InvalidInput(
                f"said_at must be an ISO date or time, e.g. 2023-05-08T13:56:00Z; got {quote(str(said_at))}"
            )
        out["said_at"] = when
    return out


Item = tuple[int, str, list[str], str | None, float, dict[str, Any], list[Any]]


def _item(
    engine: Engine, raw: Any, default_conversation: str | None
) -> tuple[str, list[str], str | None, float, dict[str, Any], list[Any]]:
    if isinstance(raw, str):
        raw = {"text": raw}
    if not isinstance(raw, dict):
        raise InvalidInput("each item must be a text or an object with a 'text'")
    unknown = set(raw) - {"text", "tags", "title", "strength", "conversation", "said_at", "supersedes"}
    if unknown:
        raise InvalidInput(f"unknown item field(s): {', '.join(sorted(unknown))}")
    text: Any = raw.get("text")  # check_intake refuses what is not a text
    # the same gate and bounds as a single save, before anything echoes or stores them (and
    # before the text's length: a secret is refused as one)
    check_fields({"title": raw.get("title"), "tags": raw.get("tags")})
    body = check_intake(text)
    title = check_title(raw.get("title"))
    if title is not None:
        title = title.strip()
        if not title:
            raise InvalidInput("the title is empty")
    strength = check_strength(raw.get("strength", 1.0))
    tags = check_tags(raw.get("tags"))
    extra = conversation_fields(raw.get("conversation", default_conversation), raw.get("said_at"))
    old_rows = supersede_refs(engine, raw.get("supersedes"))  # each resolves, or the item is refused
    return body, clean_tags(tags), title, float(strength), extra, old_rows


def _counted(engine: Engine, path: str, batch_id: str | None) -> bool:
    """Does the memory at `path` already record a use by this batch (an earlier attempt)?"""
    if batch_id is None:
        return False
    try:
        note = parse_note(path, engine.layout.abs(path).read_bytes())
    except OSError:
        return False
    return note.frontmatter.get("last_batch") == batch_id


def save_many(
    engine: Engine,
    items: list[Any],
    conversation: str | None = None,
    batch_id: str | None = None,
    project: str | None = None,
    across_projects: bool = False,
) -> dict[str, Any]:
    """Save each item, filed under `project` (None: shared; save() says how twins and
    `supersedes` keep to it); returns {"saved", "reinforced", "refused", "results": [one per item, in order]}."""
    project = check_project(project)
    scope = ProjectScope(project)
    if not isinstance(items, list) or not items:
        raise InvalidInput("no memories given: pass a list of items")
    batch_id = check_batch_id(batch_id)
    if len(items) > MAX_ITEMS:
        raise InvalidInput(f"too many items in one call ({len(items)}, limit {MAX_ITEMS}); split the list")
    results: list[dict[str, Any] | None] = [None] * len(items)
    todo: list[Item] = []
    seen: dict[str, int] = {}  # body hash -> index of the first item with that text in this call
    for i, raw in enumerate(items):
        try:
            body, tags, title, strength, extra, old_rows = _item(engine, raw, conversation)
            check_across(project, old_rows, across_projects)
        except MnemovaultError as exc:
            results[i] = {"saved": False, "error": exc.tagged()}
            continue
        h = normalized_hash(body)
        if h in seen:
            if old_rows:
                results[i] = {
                    "saved": False,
                    "error": f"invalid: this text is item {seen[h]}'s too; give supersedes on that item",
                }
                continue
            results[i] = {"saved": False, "duplicate_of_item": seen[h], "reinforced": False}
            continue
        seen[h] = i
        todo.append((i, body, tags, title, strength, extra, old_rows))

    if batch_id is not None:  # before anything is written: the same id with other items is refused
        claim(engine, batch_id, items, conversation, project)
    fresh: list[Item] = []
    from .save import find_twin

    for entry in todo:
        twin = find_twin(engine, entry[1], scope)
        if twin is not None and entry[6]:  # as save(): supersede with the note that holds the text
            results[entry[0]] = {
                "saved": False,
                "error": f"invalid: this exact text is already saved in "
                f"{twin['path']}; supersede with that note instead",
            }
        elif twin is not None and _counted(engine, twin["path"], batch_id):
            results[entry[0]] = {
                "saved": False,
                "duplicate_of": twin["path"],
                "reinforced": False,
                "already_saved": True,
                "note": lookups.note(engine, twin["path"]),
            }
        elif twin is not None:
            note = reinforce_in_batch(engine, twin["path"], batch_id)["note"]
            results[entry[0]] = reinforced_answer(note, twin["path"], 1.0, EXACT)
        else:
            fresh.append(entry)

    # each item's vector, under the title its note will get (its file name): one model call
    # serves the repeat check here and, below, the near-duplicate check, may_supersede and the index
    encoded = _encode(engine, [embed_text(slug_from(e[3] or e[1]), e[2], e[1]) for e in fresh])
    words_only = None
    if engine.settings.reinforce_repeats:
        fresh, encoded = _repeats(engine, fresh, encoded, results, batch_id, project)
        words_only = words_only_reason(engine) if encoded is None else None
    known = (
        dict(zip([embed_text(slug_from(e[3] or e[1]), e[2], e[1]) for e in fresh], encoded))
        if encoded is not None
        else {}
    )
    with engine.writes.creating() as batch:  # indexed as one batch when the block ends
        paths = _write(engine, batch, fresh, batch_id, project)
        # the text the index will embed: the title is the file's name (unless the body has a heading)
        texts = [embed_text(rel.rsplit("/", 1)[-1][:-3], e[2], e[1]) for rel, e in zip(paths, fresh)]
        vectors = _encode(engine, texts, known)
        near = (
            _near(engine, vectors) if vectors is not None else [[] for _ in fresh]
        )  # before the new notes are indexed
        maybe = _may_supersede(engine, fresh, vectors)
    if vectors is not None:
        _store_vectors(engine, paths, vectors, texts)
    for entry, rel, dups, olds in zip(fresh, paths, near, maybe):
        row = engine.store.note(rel)
        result: dict[str, Any] = {
            "saved": True,
            "note": lookups.view(engine, row) if row is not None else {"path": rel},
            "near_duplicates": dups,
            "reinforced": False,
        }
        olds = [o for o in olds if _same_project(engine, project, o)]
        if words_only and not entry[6]:
            result["repeat_check"] = words_only
        if olds:
            result.update(may_supersede=olds, may_supersede_hint=HINT)
        if entry[6] and row is not None:
            result.update(_mark_all(engine, entry[6], row))
            result["note"] = lookups.note(engine, rel)
        results[entry[0]] = result
    # a repeat inside the call reinforces the memory its first copy became
    for r in results:
        if r is not None and "duplicate_of_item" in r:
            first = results[r["duplicate_of_item"]] or {}
            path = (first.get("note") or {}).get("path") or first.get("duplicate_of")
            if path and first.get("already_saved"):  # a retry: its repeats were counted then, or never
                r.update({"saved": False, "duplicate_of": path, "already_saved": True})
            elif path:
                r.update(
                    reinforce_in_batch(engine, path, batch_id)
                    | {"saved": False, "duplicate_of": path, "reinforced": True}
                )
    return {
        "saved": sum(1 for r in results if r and r.get("saved")),
        "reinforced": sum(1 for r in results if r and r.get("reinforced")),
        "refused": sum(1 for r in results if r and "error" in r),
        "results": results,
    }


def _mark_all(engine: Engine, old_rows: list[Any], new_row: Any) -> dict[str, Any]:
    """Mark each old note superseded by the new one. The new note is saved already, so a
    note that cannot be marked (its frontmatter broken meanwhile) is reported, not raised."""
    done, failed = [], []
    for old in old_rows:
        try:
            done.append(mark(engine, old, new_row)["old"])
        except MnemovaultError as exc:
            failed.append(f"{old['path']}: {exc.code}: {exc}")
    out: dict[str, Any] = {"superseded": done}
    if failed:
        out["supersede_errors"] = failed
    return out


def _same_project(engine: Engine, project: str | None, item: dict[str, Any]) -> bool:
    row = engine.store.note(item["path"]) if isinstance(item.get("path"), str) else None
    return row is not None and same_project(project, row["project"])


def _write(
    engine: Engine, batch: "NewNotes", fresh: list[Item], batch_id: str | None, project: str | None = None
) -> list[str]:
    now = engine.now()
    taken = taken_names(engine)
    prec = engine.settings.score_precision
    paths: list[str] = []
    for _, body, tags, title, strength, extra, _old in fresh:
        ageing = age(engine.params, Facts(1, strength, now), now)
        fields: dict[str, Any] = {
            "id": str(uuid.uuid4()),
            **({"project": project} if project else {}),  # a person's key: shared memories have none
            "tags": tags,
            "created": now,
            "last_used": now,
            "use_count": 1,
            "strength": strength,
            "status": "active",
            **ageing.scores(prec),
            **{k: d for k, d in ageing.due().items() if d is not None},
            **extra,
            **({"last_batch": batch_id} if batch_id else {}),
        }
        data = render_note(fields, body).encode("utf-8")
        stem = slug_from(title or body)

        def create(rel: str, data: bytes = data) -> None:
            batch.create(rel, data)

        paths.append(create_under_free_name(create, engine.layout.stm, stem, taken))
    return paths


def _repeats(
    engine: Engine,
    fresh: list[Item],
    vectors: Vectors | None,
    results: list[dict[str, Any] | None],
    batch_id: str | None,
    project: str | None = None,
) -> tuple[list[Item], Vectors | None]:
    """Reinforce the memory each item repeats (ops/repeats.py) and fill in its result; the
    items left to save, with their vectors. An item with `supersedes` is new by its caller's
    word. Items are compared with the memories stored before this call, not with each other."""
    if vectors is not None:
        from ..search.embeddings import inline_backfill

        embedder = semantic.embedder(engine)
        try:
            if embedder is not None:
                inline_backfill(engine, embedder)  # memories saved a moment ago are compared too
        except Exception:  # advisory
            pass
    keep: list[int] = []
    for k, entry in enumerate(fresh):
        vector = vectors[k] if vectors is not None else None
        repeat = None if entry[6] else find_repeat(engine, entry[1], vector, ProjectScope(project))
        if repeat is None:
            keep.append(k)
            continue
        how = how_found(engine, repeat)
        if _counted(engine, repeat["path"], batch_id):  # a retry: counted by the first attempt
            note = lookups.note(engine, repeat["path"])
            results[entry[0]] = reinforced_answer(note, repeat["path"], repeat["similarity"], how) | {
                "reinforced": False,
                "already_saved": True,
                "repeat_of": repeat,
            }
            continue
        try:
            note = reinforce_in_batch(engine, repeat["path"], batch_id)["note"]
        except MnemovaultError:  # the memory cannot take a use now: the item is saved as a new one
            keep.append(k)
            continue
        results[entry[0]] = reinforced_answer(note, repeat["path"], repeat["similarity"], how) | {"repeat_of": repeat}
    return [fresh[k] for k in keep], (vectors[keep] if vectors is not None else None)


def _encode(engine: Engine, texts: list[str], known: dict[str, Vectors] | None = None) -> Vectors | None:
    """One model call for every new item; None when embeddings are off or unavailable.
    `known`: vectors encoded already, by text (the repeat check's; a note whose name had to
    change gets a text of its own)."""
    if not texts or not engine.settings.embeddings:
        return None
    if known and all(t in known for t in texts):
        return np.stack([known[t] for t in texts])
    from ..search.embeddings import EmbeddingUnavailable

    embedder: Embedder | None = semantic.embedder_now(engine)  # a loading model: the backfill embeds them later
    try:
        return embedder.encode(texts) if embedder is not None else None
    except EmbeddingUnavailable:
        return None  # advisory: saving never depends on the model


def _near(engine: Engine, vectors: Vectors) -> list[list[dict[str, Any]]]:
    """Near-duplicates among the memories already stored (the save-time check, batched)."""
    from ..search.embeddings import inline_backfill, vector_cache

    embedder: Embedder | None = semantic.embedder(engine)
    if embedder is None:  # vectors came from it: turned off meanwhile
        return [[] for _ in range(len(vectors))]
    try:
        inline_backfill(engine, embedder)
    except Exception:  # advisory
        pass
    cache = vector_cache(engine, embedder)
    cache.refresh()
    if not len(vectors):
        return []
    rowids, _ = cache.similarities(vectors[0], ("stm", "ltm"))
    if not len(rowids):
        return [[] for _ in range(len(vectors))]
    _, rows = cache._selection(("stm", "ltm"))
    sims = vectors @ cache.matrix[rows].T  # (items, stored memories)
    out: list[list[dict[str, Any]]] = []
    for line in sims:
        hits = sorted(((float(s), int(r)) for r, s in zip(rowids, line) if s >= NEAR_DUPLICATE), reverse=True)[:10]
        found: list[dict[str, Any]] = []
        for sim, rowid in hits:
            row = queries.note_by_rowid(engine.store, rowid)
            if row is not None:
                found.append(
                    {
                        "path": row["path"],
                        "id": row["id"],
                        "title": row["title"],
                        "kind": row["kind"],
                        "similarity": round(sim, 4),
                    }
                )
        out.append(found)
    return out


def _may_supersede(engine: Engine, fresh: list[Item], vectors: Vectors | None) -> list[list[dict[str, Any]]]:
    """save()'s may_supersede for each item without `supersedes`, against the memories stored
    before this call (the new notes are not indexed yet), with the vectors encoded for them."""
    out: list[list[dict[str, Any]]] = []
    for k, (_, body, tags, title, _strength, _extra, old_rows) in enumerate(fresh):
        out.append(
            [] if old_rows else candidates(engine, body, title, tags, vectors[k] if vectors is not None else None)
        )
    return out


def _store_vectors(engine: Engine, paths: list[str], vectors: Vectors, texts: list[str]) -> None:
    """Keep each new note's vector under its content hash when the indexed text is the text
    that was encoded (it is unless the body starts with its own heading); the rest is left to
    the usual backfill."""
    from ..search.embeddings import get_embedder, texts_for, to_blob, vector_cache

    embedder = get_embedder(engine)
    if embedder is None:
        return
    rows = {rel: engine.store.note(rel) for rel in paths}
    by_rowid = texts_for(engine, [r["rowid"] for r in rows.values() if r is not None])
    keep: list[tuple[str, Vectors]] = []
    for rel, vec, expected in zip(paths, vectors, texts):
        row = rows.get(rel)
        if row is not None and by_rowid.get(row["rowid"]) == expected:
            keep.append((row["content_hash"], vec))
    if not keep:
        return
    queries.add_embeddings(engine.store, embedder.name, [(h, to_blob(v)) for h, v in keep])
    vector_cache(engine, embedder).add([h for h, _ in keep], np.stack([v for _, v in keep]))


def save_said(
    engine: Engine,
    text: str,
    tags: list[str] | None = None,
    title: str | None = None,
    strength: float = 1.0,
    conversation: str | None = None,
    said_at: Any = None,
    supersedes: list[str] | None = None,
    project: str | None = None,
    across_projects: bool = False,
) -> dict[str, Any]:
    """save() for a memory said in a conversation: the same intake, twin and near-duplicate
    handling, `supersedes` and `project` as in save(), and the note carries `conversation` / `said_at` keys."""
    from .save import save

    extra = conversation_fields(conversation, said_at)
    if not extra:
        return save(engine, text, tags, title, strength, supersedes, project, across_projects)
    # a bad ref raises its own error (NotFound / InvalidInput), as save() does
    check_across(check_project(project), supersede_refs(engine, supersedes), across_projects)
    item = {
        "text": text,
        "tags": tags,
        "title": title,
        "strength": strength,
        "conversation": conversation,
        "said_at": said_at,
        "supersedes": supersedes,
    }
    answer = save_many(engine, [{k: v for k, v in item.items() if v is not None}], None, None, project, across_projects)
    result: dict[str, Any] = answer["results"][0]
    if "error" in result:
        check_intake(text)  # raises the same error a plain save would (Refused / InvalidInput)
        raise InvalidInput(result["error"])
    return result
