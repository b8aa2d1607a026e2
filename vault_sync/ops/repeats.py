"""Repeats: a save whose meaning a memory already holds reinforces that memory instead of
becoming a copy of it.

An assistant that recalls a fact and saves it again in its own words would otherwise make one
memory per wording, each with one use. A new text is a repeat of a memory (STM or LTM, not
superseded) when
- the model finds them close (cosine of the save-time vectors >= REPEAT_MIN), or, while the
  model is not loaded (a save never waits for it) or with embeddings off, when each holds
  most of the other's content words (details.word_closeness >= WORDS_MIN), and
- no detail tells them apart (details.differs: a number or version, a name, a negation, a
  change word, a swapped or added run of content words, several content words added).
The closest memory that passes both is reinforced (a touch: one more use) and the answer
names it with the similarity. Measured on bridge/bench/repeat_set.py (`mnemovault bench`).
The setting `reinforce_repeats = false` turns it off (exact duplicates are still reinforced).
A reinforced wording is not stored: a person who wants it as its own memory writes it as a
note in STM (or edits the memory into two); the check runs on saves, never on notes written by hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..details import differs, word_closeness
from ..engine import Engine
from ..lookups import not_current
from ..projects import EVERYTHING, ProjectScope
from .may_supersede import CHANGE_WORDS, pool_by_vector, pool_by_words

if TYPE_CHECKING:
    from ..search.embeddings import Vectors

REPEAT_MIN = 0.7  # cosine; below it even a rewording that passes every detail check is another fact
WORDS_MIN = 0.6  # word closeness without the model
WORDS_ONLY = "only exact and word-level repeats were looked for"


def find_repeat(
    engine: Engine, body: str, vector: "Vectors | None", scope: ProjectScope = EVERYTHING
) -> dict[str, Any] | None:
    """The memory this text repeats ({id, path, title, similarity, by}), or None. `vector`:
    the text's save-time vector; None means words only. Only memories `scope` admits (the
    saving project's and shared ones: another project's fact is not this one's). Never raises."""
    try:
        if vector is not None:
            pool = [h for h in pool_by_vector(engine, vector) if h["similarity"] >= REPEAT_MIN]
            by = "model"
        else:
            pool = [{**h, "similarity": round(word_closeness(body, h["text"]), 4)} for h in pool_by_words(engine, body)]
            pool = sorted((h for h in pool if h["similarity"] >= WORDS_MIN), key=lambda h: -h["similarity"])
            by = "words"
        gone = not_current(engine)
        for hit in pool:
            if hit["path"] in gone or not scope.admits(_project_of(engine, hit["path"])):
                continue
            if differs(body, hit["text"], CHANGE_WORDS) is None:
                return {k: hit[k] for k in ("id", "path", "title", "similarity")} | {"by": by}
    except Exception:  # never block a save over it: the text is saved as a new memory
        return None
    return None


def _project_of(engine: Engine, path: str) -> str | None:
    row = engine.store.note(path)
    return row["project"] if row is not None else None


def words_only_reason(engine: Engine) -> str | None:
    """Why the repeat check read words only, when that is a passing state worth saying (the
    model not loaded yet); None with embeddings off: that is the person's choice."""
    if not engine.settings.embeddings:
        return None
    return f"the model is not loaded yet: {WORDS_ONLY}"


def how_found(engine: Engine, repeat: dict[str, Any]) -> str:
    """The reinforcement message's reason for a repeat."""
    if repeat["by"] == "model":
        return SAME_FACT
    return f"{SAME_FACT} (compared by words{': the model is not loaded yet' if engine.settings.embeddings else ''})"


def reinforced_answer(note: dict[str, Any], path: str, similarity: float, how: str) -> dict[str, Any]:
    """The save answer for a reinforcement (an exact duplicate or a repeat), the same through
    every front end: its `message` names the memory's id and the similarity."""
    return {
        "saved": False,
        "duplicate_of": path,
        "reinforced": True,
        "similarity": similarity,
        "note": note,
        "message": f"reinforced {note.get('id')} (similarity {similarity:.2f}): {how} in {path}; "
        "it was reinforced instead of copied",
    }


EXACT = "the same text is saved"
SAME_FACT = "the same fact is saved in other words"
