"""Which side of a sync conflict changed the person's text, told from the notes themselves.

Two versions of a note alone cannot say which one changed the person's text since the version
both devices last had in common. So when mnemovault writes a memory anyway (a save, a use),
it records a short hash of the person's text as it is at that write in the owned key
`text_hashes`, newest first, a few kept:

    text_hashes: hmcpdkfa oblgnfae

On a conflict, a side whose list holds the hash of the other side's text had that text at some
point: its own text grew from it, so its text is kept and the other side lost nothing of the
person's. When neither list holds the other's text (both sides changed it, or the common
version was never recorded), the conflict stays for the person, as for older notes without
the key. Nothing is written for this alone: the key rides on writes that happen anyway, and a
write that leaves the text as last recorded leaves the key as it is.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .edit import patch_bytes
from .note import OWNED_KEYS, USES_KEY, Note, parse_note
from .patch import REMOVE
from .uses import updates_for as uses_updates

KEY = "text_hashes"
KEEP = 4  # hashes kept: a few rounds of "person edits, then a use" on one side of a split
HASH_CHARS = 8  # letters a-p (32 bits): never read as a number or a boolean by any YAML
_LETTERS = "abcdefghijklmnop"


def person_text(note: Note) -> str:
    """The person's keys (one line each, in their order) then the body, as compared and shown."""
    keys = [
        f"{k}: {json.dumps(v, ensure_ascii=False, default=str)}"
        for k, v in note.frontmatter.items()
        if str(k).lower() not in OWNED_KEYS
    ]
    head = "".join(line + "\n" for line in keys)
    return (head + ("\n" if head else "") + note.body.strip("\r\n")).replace("\r\n", "\n")


def text_hash(note: Note) -> str:
    digest = hashlib.sha256(person_text(note).encode("utf-8")).digest()
    return "".join(_LETTERS[b >> 4] + _LETTERS[b & 15] for b in digest[: HASH_CHARS // 2])


def recorded(note: Note) -> list[str]:
    """The hashes the note carries, newest first; anything else in the key is not ours: none."""
    value = note.frontmatter.get(KEY)
    if not isinstance(value, str):
        return []
    items = value.split()
    if not all(len(h) == HASH_CHARS and set(h) <= set(_LETTERS) for h in items):
        return []
    return items


def render(hashes: list[str]) -> str:
    return " ".join(list(dict.fromkeys(hashes))[:KEEP])


def updates_for(note: Note) -> dict[str, Any]:
    """The key's update for a write of `note` (its bytes as written): {} when its text is the
    newest recorded already."""
    have = recorded(note)
    now = text_hash(note)
    if have and have[0] == now:
        return {}
    return {KEY: render([now, *have])}


def stamped(rel: str, before: bytes, out: bytes) -> bytes:
    """`out` (mnemovault's write of the note read as `before`) with the text recorded; a write
    that changes nothing stays nothing (the quiet vault)."""
    if out == before:
        return out
    note = parse_note(rel, out)
    if not note.writable:
        return out
    updates = updates_for(note)
    return patch_bytes(out, updates) if updates else out


def kept_side(a: Note, b: Note) -> str | None:
    """ "a" or "b": the side whose text is kept when the other's text is in its past; "same"
    when both hold one text; None when it cannot be told (left for the person)."""
    ha, hb = text_hash(a), text_hash(b)
    if ha == hb:
        return "same"
    a_had_b, b_had_a = hb in recorded(a), ha in recorded(b)
    if a_had_b and not b_had_a:
        return "a"
    if b_had_a and not a_had_b:
        return "b"
    return None


def merged(kept: Note, other: Note) -> str:
    """The key after a merge: the kept text newest, then what both sides had recorded."""
    a, b = recorded(kept), recorded(other)
    both = [h for pair in zip(a, b) for h in pair] + a[len(b) :] + b[len(a) :]
    return render([text_hash(kept), *both])


def raw_of(note: Note) -> bytes:
    """The bytes a readable note was parsed from (its text is their exact UTF-8 decoding)."""
    return (b"\xef\xbb\xbf" if note.bom else b"") + note.text.encode("utf-8")


def with_text_of(text_note: Note, owned_note: Note) -> bytes:
    """`text_note`'s bytes (the person's text, byte for byte) carrying `owned_note`'s owned keys:
    the kept text of a one-sided conflict on the version whose state (path, status) is kept."""
    updates: dict[str, Any] = {k: owned_note.frontmatter[k] for k in OWNED_KEYS if k in owned_note.frontmatter}
    if owned_note.fields.uses_by_device is not None:  # a map: written as uses.py spells it
        updates[USES_KEY] = uses_updates(owned_note.fields.uses_by_device)[USES_KEY]
    elif isinstance(updates.get(USES_KEY), dict):
        del updates[USES_KEY]  # not a map of counts: not ours to copy
    updates.update({k: REMOVE for k in OWNED_KEYS if k in text_note.frontmatter and k not in owned_note.frontmatter})
    updates[KEY] = merged(text_note, owned_note)
    return patch_bytes(raw_of(text_note), updates)
